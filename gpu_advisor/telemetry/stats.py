"""Summaries of a run's telemetry: mean, 95th percentile and maximum of each metric.

Readings that are None (unsupported, GPU lost) are skipped, never counted as zero; a metric with no
reading at all summarises to None.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from gpu_advisor.telemetry.samples import POWER_REASONS, THERMAL_REASONS, GpuSample, Sample

_PERCENTILE = 95.0


@dataclass(frozen=True, slots=True)
class MetricStats:
    """Mean, 95th percentile and maximum of one metric over the readings that exist."""

    mean: float
    p95: float
    max: float
    count: int  # readings used (None readings excluded)

    def to_dict(self) -> dict[str, float | int]:
        """Return a JSON-friendly dict."""
        return {"mean": self.mean, "p95": self.p95, "max": self.max, "count": self.count}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> MetricStats | None:
        """Read ``to_dict()`` output back; None stays None. Raises KeyError/TypeError/ValueError."""
        if data is None:
            return None
        return cls(
            mean=float(data["mean"]), p95=float(data["p95"]), max=float(data["max"]), count=int(data["count"])
        )


def percentile(sorted_values: Sequence[float], pct: float) -> float:
    """Linear-interpolated percentile of already sorted values (numpy's default method)."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    rank = (len(sorted_values) - 1) * pct / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (rank - low)


def metric_stats(values: Iterable[float | int | None], *, integer: bool = False) -> MetricStats | None:
    """Summarise the non-None values; None if there are none. ``integer`` rounds (for byte counts)."""
    present = sorted(float(v) for v in values if v is not None)
    if not present:
        return None
    mean, p95, top = sum(present) / len(present), percentile(present, _PERCENTILE), present[-1]
    if integer:
        return MetricStats(mean=round(mean), p95=round(p95), max=round(top), count=len(present))
    return MetricStats(mean=mean, p95=p95, max=top, count=len(present))


def _gpu_readings(samples: Iterable[Sample], gpu_index: int) -> list[GpuSample]:
    return [gpu for sample in samples for gpu in sample.gpus if gpu.index == gpu_index]


def throttle_fraction(
    samples: Iterable[Sample],
    gpu_index: int,
    reasons: frozenset[str] = THERMAL_REASONS | POWER_REASONS,
) -> float | None:
    """Fraction (0-1) of readings of GPU ``gpu_index`` with any of ``reasons`` active.

    Readings whose reasons are unknown are left out; None if no reading had them.
    """
    return _throttle_fraction(_gpu_readings(samples, gpu_index), reasons)


def _throttle_fraction(readings: Iterable[GpuSample], reasons: frozenset[str]) -> float | None:
    known = [g.clock_event_reasons for g in readings if g.clock_event_reasons is not None]
    if not known:
        return None
    return sum(1 for active in known if not reasons.isdisjoint(active)) / len(known)


@dataclass(frozen=True, slots=True)
class GpuSummary:
    """One GPU over a run."""

    index: int
    name: str
    gpu_util_pct: MetricStats | None
    mem_util_pct: MetricStats | None
    memory_used_bytes: MetricStats | None
    power_w: MetricStats | None
    temperature_c: MetricStats | None
    sm_clock_mhz: MetricStats | None
    gpm_sm_activity_pct: MetricStats | None
    gpm_dram_activity_pct: MetricStats | None
    gpm_tensor_activity_pct: MetricStats | None
    throttle_fraction: float | None  # thermal or power reason active
    thermal_throttle_fraction: float | None
    power_throttle_fraction: float | None
    error_count: int  # readings with an error (GPU lost)
    memory_total_bytes: int | None = None  # the device's memory, from its last reading that had it
    error: str | None = None  # the first reading error, e.g. "GPU lost: GPU is lost"

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-friendly dict."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GpuSummary:
        """Read ``to_dict()`` output back. Raises KeyError/TypeError/ValueError on bad data."""
        values: dict[str, Any] = {"index": int(data["index"]), "name": str(data["name"])}
        for f in fields(cls):
            if f.name in values:
                continue
            raw = data.get(f.name)
            if f.name == "error_count":
                values[f.name] = int(raw or 0)
            elif f.name == "memory_total_bytes":
                values[f.name] = None if raw is None else int(raw)
            elif f.name == "error":
                values[f.name] = None if raw is None else str(raw)
            elif f.name.endswith("fraction"):
                values[f.name] = None if raw is None else float(raw)
            else:
                values[f.name] = MetricStats.from_dict(raw)
        return cls(**values)


@dataclass(frozen=True, slots=True)
class TelemetrySummary:
    """A whole run: host metrics and one GpuSummary per GPU seen."""

    sample_count: int
    duration_s: float | None  # first to last sample; None with fewer than two samples
    host_cpu_pct: MetricStats | None
    ram_used_bytes: MetricStats | None
    process_rss_bytes: MetricStats | None
    gpus: tuple[GpuSummary, ...] = ()

    def gpu(self, index: int) -> GpuSummary | None:
        """The summary of GPU ``index``, or None if it never appeared."""
        return next((g for g in self.gpus if g.index == index), None)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-friendly dict."""
        out = {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name != "gpus"}
        out["gpus"] = [g.to_dict() for g in self.gpus]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TelemetrySummary:
        """Read ``to_dict()`` output back. Raises KeyError/TypeError/ValueError on bad data."""
        duration = data.get("duration_s")
        return cls(
            sample_count=int(data["sample_count"]),
            duration_s=None if duration is None else float(duration),
            host_cpu_pct=MetricStats.from_dict(data.get("host_cpu_pct")),
            ram_used_bytes=MetricStats.from_dict(data.get("ram_used_bytes")),
            process_rss_bytes=MetricStats.from_dict(data.get("process_rss_bytes")),
            gpus=tuple(GpuSummary.from_dict(g) for g in data.get("gpus") or ()),
        )


def _plain(value: Any) -> Any:
    return value.to_dict() if isinstance(value, MetricStats) else value


def _gpu_stats(
    readings: list[GpuSample], getter: Callable[[GpuSample], Any], *, integer: bool = False
) -> Any:
    return metric_stats((getter(g) for g in readings), integer=integer)


def summarize(samples: Sequence[Sample]) -> TelemetrySummary:
    """Summarise a run's samples (e.g. ``Sampler.snapshot()``)."""
    hosts = [s.host for s in samples]
    indices = sorted({gpu.index for s in samples for gpu in s.gpus})
    gpus = []
    for index in indices:
        readings = _gpu_readings(samples, index)
        gpus.append(
            GpuSummary(
                index=index,
                name=readings[-1].name,
                gpu_util_pct=_gpu_stats(readings, lambda g: g.gpu_util_pct),
                mem_util_pct=_gpu_stats(readings, lambda g: g.mem_util_pct),
                memory_used_bytes=_gpu_stats(readings, lambda g: g.memory_used_bytes, integer=True),
                power_w=_gpu_stats(readings, lambda g: g.power_w),
                temperature_c=_gpu_stats(readings, lambda g: g.temperature_c),
                sm_clock_mhz=_gpu_stats(readings, lambda g: g.sm_clock_mhz),
                gpm_sm_activity_pct=_gpu_stats(readings, lambda g: g.gpm_sm_activity_pct),
                gpm_dram_activity_pct=_gpu_stats(readings, lambda g: g.gpm_dram_activity_pct),
                gpm_tensor_activity_pct=_gpu_stats(readings, lambda g: g.gpm_tensor_activity_pct),
                throttle_fraction=_throttle_fraction(readings, THERMAL_REASONS | POWER_REASONS),
                thermal_throttle_fraction=_throttle_fraction(readings, THERMAL_REASONS),
                power_throttle_fraction=_throttle_fraction(readings, POWER_REASONS),
                error_count=sum(1 for g in readings if g.error is not None),
                memory_total_bytes=next(
                    (g.memory_total_bytes for g in reversed(readings) if g.memory_total_bytes is not None),
                    None,
                ),
                error=next((g.error for g in readings if g.error is not None), None),
            )
        )
    return TelemetrySummary(
        sample_count=len(samples),
        duration_s=samples[-1].t_s - samples[0].t_s if len(samples) >= 2 else None,
        host_cpu_pct=metric_stats(h.cpu_pct for h in hosts),
        ram_used_bytes=metric_stats((h.ram_used_bytes for h in hosts), integer=True),
        process_rss_bytes=metric_stats((h.process_rss_bytes for h in hosts), integer=True),
        gpus=tuple(gpus),
    )
