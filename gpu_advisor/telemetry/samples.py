"""Immutable telemetry snapshots: one GPU, the host, and one tick of the sampler.

Every value carries its unit in its name. A value the platform cannot report is ``None``
(never ``-1`` or ``0``), so plots show a gap and summaries skip it instead of averaging a fake zero.
``to_dict()`` gives JSON-friendly data (sizes as integer bytes); ``from_dict()`` reads it back and
tolerates missing optional keys, so files written by an older version still load.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

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
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.clock_event_reasons is not None:
            out["clock_event_reasons"] = list(self.clock_event_reasons)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GpuSample:
        """Build a sample from ``to_dict()`` output. Raises KeyError/TypeError/ValueError on bad data."""
        reasons = data.get("clock_event_reasons")
        return cls(
            index=int(data["index"]),
            name=str(data["name"]),
            uuid=_opt_str(data.get("uuid")),
            gpu_util_pct=_opt_float(data.get("gpu_util_pct")),
            mem_util_pct=_opt_float(data.get("mem_util_pct")),
            memory_used_bytes=_opt_int(data.get("memory_used_bytes")),
            memory_total_bytes=_opt_int(data.get("memory_total_bytes")),
            power_w=_opt_float(data.get("power_w")),
            power_limit_w=_opt_float(data.get("power_limit_w")),
            temperature_c=_opt_float(data.get("temperature_c")),
            sm_clock_mhz=_opt_int(data.get("sm_clock_mhz")),
            mem_clock_mhz=_opt_int(data.get("mem_clock_mhz")),
            clock_event_reasons=None if reasons is None else tuple(str(r) for r in reasons),
            pcie_rx_bytes_per_s=_opt_int(data.get("pcie_rx_bytes_per_s")),
            pcie_tx_bytes_per_s=_opt_int(data.get("pcie_tx_bytes_per_s")),
            gpm_sm_activity_pct=_opt_float(data.get("gpm_sm_activity_pct")),
            gpm_dram_activity_pct=_opt_float(data.get("gpm_dram_activity_pct")),
            gpm_tensor_activity_pct=_opt_float(data.get("gpm_tensor_activity_pct")),
            error=_opt_str(data.get("error")),
        )


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
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.per_core_pct is not None:
            out["per_core_pct"] = list(self.per_core_pct)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HostSample:
        """Build a sample from ``to_dict()`` output; missing keys become None."""
        per_core = data.get("per_core_pct")
        return cls(
            cpu_pct=_opt_float(data.get("cpu_pct")),
            per_core_pct=None if per_core is None else tuple(float(v) for v in per_core),
            ram_used_bytes=_opt_int(data.get("ram_used_bytes")),
            ram_total_bytes=_opt_int(data.get("ram_total_bytes")),
            process_rss_bytes=_opt_int(data.get("process_rss_bytes")),
            cpu_freq_mhz=_opt_float(data.get("cpu_freq_mhz")),
            cpu_temp_c=_opt_float(data.get("cpu_temp_c")),
        )


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
