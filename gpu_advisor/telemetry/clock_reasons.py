"""Decode NVML's clock-event ("throttle") reason bitmask into human names.

The bit values come from the pynvml module itself (``nvmlClocksEventReason*``, or the older
``nvmlClocksThrottleReason*`` names), never from numbers copied here, so a future driver that
renumbers them stays correct.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

# Human name -> pynvml constant names, newest first. Order is the order names appear in a sample.
_REASON_CONSTANTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("idle", ("nvmlClocksEventReasonGpuIdle", "nvmlClocksThrottleReasonGpuIdle")),
    (
        "applications_clocks",
        (
            "nvmlClocksEventReasonApplicationsClocksSetting",
            "nvmlClocksThrottleReasonApplicationsClocksSetting",
        ),
    ),
    ("sw_power_cap", ("nvmlClocksEventReasonSwPowerCap", "nvmlClocksThrottleReasonSwPowerCap")),
    ("hw_slowdown", ("nvmlClocksEventReasonHwSlowdown", "nvmlClocksThrottleReasonHwSlowdown")),
    ("sync_boost", ("nvmlClocksEventReasonSyncBoost", "nvmlClocksThrottleReasonSyncBoost")),
    (
        "sw_thermal",
        ("nvmlClocksEventReasonSwThermalSlowdown", "nvmlClocksThrottleReasonSwThermalSlowdown"),
    ),
    (
        "hw_thermal",
        ("nvmlClocksEventReasonHwThermalSlowdown", "nvmlClocksThrottleReasonHwThermalSlowdown"),
    ),
    (
        "hw_power_brake",
        ("nvmlClocksEventReasonHwPowerBrakeSlowdown", "nvmlClocksThrottleReasonHwPowerBrakeSlowdown"),
    ),
    (
        "display_clocks",
        ("nvmlClocksEventReasonDisplayClockSetting", "nvmlClocksThrottleReasonDisplayClockSetting"),
    ),
    ("board_limit", ("nvmlClocksThrottleReasonBoardLimit",)),
    ("reliability", ("nvmlClocksThrottleReasonReliability",)),
)


def reason_bits(nvml_module: ModuleType | Any) -> tuple[tuple[str, int], ...]:
    """Return ``(human name, bit)`` pairs for every reason the given pynvml module defines."""
    bits: list[tuple[str, int]] = []
    for human, constant_names in _REASON_CONSTANTS:
        for constant in constant_names:
            value = getattr(nvml_module, constant, None)
            if isinstance(value, int) and value:
                bits.append((human, value))
                break
    return tuple(bits)


def decode_clock_event_reasons(mask: int, bits: tuple[tuple[str, int], ...]) -> tuple[str, ...]:
    """Return the human names of the reasons set in ``mask`` (empty tuple: clocks run freely).

    ``bits`` comes from :func:`reason_bits`. Bits this package does not know are ignored.
    """
    return tuple(human for human, bit in bits if mask & bit)
