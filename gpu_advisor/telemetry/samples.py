"""Immutable telemetry snapshots: one GPU, the host, and one tick of the sampler.

Every value carries its unit in its name. A value the platform cannot report is ``None``
(never ``-1`` or ``0``), so plots show a gap and summaries skip it instead of averaging a fake zero.
``to_dict()`` gives JSON-friendly data (sizes as integer bytes); ``from_dict()`` reads it back and
tolerates missing optional keys, so files written by an older version still load.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, fields, replace
from typing import Any, TypeVar

# Clock-event ("throttle") reasons, by the human names this package uses in GpuSample.
# Thermal: the GPU slows down because it is too hot. "hw_slowdown" is the hardware's own slowdown
# signal, raised for over-temperature or an external power brake; NVIDIA documents it with the
# thermal reasons, so it counts as thermal here.
# AMD SMI names its causes by what is too hot (telemetry.amd): the socket, the HBM stacks, a voltage
# regulator, or the hardware's processor-hot signal.
THERMAL_REASONS: frozenset[str] = frozenset(
    {"sw_thermal", "hw_thermal", "hw_slowdown", "socket_thermal", "hbm_thermal", "vr_thermal", "prochot"}
)
# Power: the GPU holds its clocks down to stay under the board's power limit (AMD: package power
# tracking, "ppt").
POWER_REASONS: frozenset[str] = frozenset({"sw_power_cap", "hw_power_brake", "ppt_power"})


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _opt_str_tuple(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(str(v) for v in value)


def _opt_float_tuple(value: Any) -> tuple[float, ...] | None:
    return None if value is None else tuple(float(v) for v in value)


_FlatT = TypeVar("_FlatT", "GpuSample", "HostSample")

# How a field's value is read back from JSON, by the field's annotation (a string under
# ``from __future__ import annotations``).
_READERS: dict[str, Callable[[Any], Any]] = {
    "int": int,
    "str": str,
    "int | None": _opt_int,
    "float | None": _opt_float,
    "str | None": _opt_str,
    "tuple[str, ...] | None": _opt_str_tuple,
    "tuple[float, ...] | None": _opt_float_tuple,
}


def _fields_to_dict(sample: Any) -> dict[str, Any]:
    """A flat sample's fields as a JSON-friendly dict (tuples as lists)."""
    out: dict[str, Any] = {}
    for f in fields(sample):
        value = getattr(sample, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def _fields_from_dict(cls: type[_FlatT], data: Mapping[str, Any]) -> _FlatT:
    """Read a flat sample back from ``_fields_to_dict`` output, each field by its annotation.

    A field without a default must be present (KeyError otherwise); a missing optional key is None.
    """
    values: dict[str, Any] = {}
    for f in fields(cls):
        read = _READERS[str(f.type)]
        if f.default is MISSING:
            values[f.name] = read(data[f.name])
        else:
            values[f.name] = read(data.get(f.name))
    return cls(**values)


@dataclass(frozen=True, slots=True)
class GpuSample:
    """One reading of one GPU (NVML or AMD SMI). ``error`` is set (all metrics None) if the GPU is lost."""

    index: int
    name: str
    uuid: str | None = None
    gpu_util_pct: float | None = None  # % of time a kernel ran (NVML "utilization.gpu")
    mem_util_pct: float | None = None  # % of time device memory was read or written
    memory_used_bytes: int | None = None
    memory_total_bytes: int | None = None
    power_w: float | None = None
    power_limit_w: float | None = None  # enforced limit
    temperature_c: float | None = None
    sm_clock_mhz: int | None = None
    mem_clock_mhz: int | None = None
    clock_event_reasons: tuple[str, ...] | None = None  # active reasons, e.g. ("sw_power_cap",)
    pcie_rx_bytes_per_s: int | None = None
    pcie_tx_bytes_per_s: int | None = None
    gpm_sm_activity_pct: float | None = None  # GPM: % of SMs busy
    gpm_dram_activity_pct: float | None = None  # GPM: % of peak DRAM bandwidth used
    gpm_tensor_activity_pct: float | None = None  # GPM: % of time tensor cores were busy
    error: str | None = None

    @property
    def is_thermal_throttled(self) -> bool | None:
        """True if a thermal clock-event reason is active; None if reasons are unknown."""
        if self.clock_event_reasons is None:
            return None
        return not THERMAL_REASONS.isdisjoint(self.clock_event_reasons)

    @property
    def is_power_throttled(self) -> bool | None:
        """True if a power clock-event reason is active; None if reasons are unknown."""
        if self.clock_event_reasons is None:
            return None
        return not POWER_REASONS.isdisjoint(self.clock_event_reasons)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-friendly dict (sizes as integer bytes, reasons as a list)."""
        return _fields_to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GpuSample:
        """Build a sample from ``to_dict()`` output. Raises KeyError/TypeError/ValueError on bad data."""
        return _fields_from_dict(cls, data)


@dataclass(frozen=True, slots=True)
class HostSample:
    """One reading of the host: CPU, RAM, and the memory of a watched process tree."""

    cpu_pct: float | None = None  # whole machine, 0-100
    per_core_pct: tuple[float, ...] | None = None  # one entry per logical CPU, 0-100 each
    ram_used_bytes: int | None = None
    ram_total_bytes: int | None = None
    process_rss_bytes: int | None = None  # watched pid + all its descendants; None if none watched
    cpu_freq_mhz: float | None = None
    cpu_temp_c: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-friendly dict (sizes as integer bytes, per-core values as a list)."""
        return _fields_to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HostSample:
        """Build a sample from ``to_dict()`` output; missing keys become None."""
        return _fields_from_dict(cls, data)


@dataclass(frozen=True, slots=True)
class Sample:
    """One tick of the sampler: the host and every GPU at the same moment."""

    t_s: float  # monotonic seconds since the sampler started
    wall_time: float  # Unix time in seconds (time.time()), for lining up with logs
    host: HostSample
    gpus: tuple[GpuSample, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-friendly dict."""
        return {
            "t_s": self.t_s,
            "wall_time": self.wall_time,
            "host": self.host.to_dict(),
            "gpus": [gpu.to_dict() for gpu in self.gpus],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Sample:
        """Build a sample from ``to_dict()`` output. Raises KeyError/TypeError/ValueError on bad data."""
        return cls(
            t_s=float(data["t_s"]),
            wall_time=float(data["wall_time"]),
            host=HostSample.from_dict(data.get("host") or {}),
            gpus=tuple(GpuSample.from_dict(g) for g in data.get("gpus") or ()),
        )


def of_gpu(samples: Iterable[Sample], nvml_index: int | None) -> tuple[Sample, ...]:
    """The samples with one GPU's readings only (NVML index), the host's kept; None keeps no GPU.

    A run is summarised and diagnosed on the device that did the work: seven idle neighbours must not
    make a busy GPU look idle, nor a power-capped one make it look throttled.
    """
    return tuple(replace(s, gpus=tuple(g for g in s.gpus if g.index == nvml_index)) for s in samples)
