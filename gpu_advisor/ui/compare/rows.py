"""Rows of the comparison table and bars of its chart, from loaded results files (no Qt)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.core.units import format_bytes, format_duration
from gpu_advisor.ui.monitor.summary import headline_rate, peak_memory_bytes, step_time_s

# Catalogue figure stored in a result's metrics, per headline unit: (metric key, scale).
CATALOGUE_METRICS = {"TFLOP/s": ("catalogue_peak_flops_per_s", 1e12), "GB/s": ("catalogue_bytes_per_s", 1e9)}


@dataclass(frozen=True, slots=True)
class LoadedResults:
    path: Path
    report: Any  # gpu_advisor.bench.results.BenchReport

    @property
    def machine_label(self) -> str:
        """'NVIDIA H100 80GB HBM3 (node-7)' or 'CPU: AMD EPYC 7B13', made unique by the file name."""
        return f"{self.report.device.name} — {self.path.name}"


@dataclass(frozen=True, slots=True)
class Row:
    machine: str
    device: str
    workload: str
    status: str
    rate: float | None
    unit: str
    rate_text: str
    step_time: str
    peak_memory: str
    prediction_error: str
    catalogue: str
    catalogue_rate: float | None


def catalogue_text(report: Any) -> str:
    """The catalogue's memory, bandwidth and bf16 peak for the benchmarked GPU ('' on CPU)."""
    gpu_id = report.device.catalogue_id
    gpu = default_catalog().find(gpu_id) if gpu_id else None
    if gpu is None:
        return "not in the catalogue" if report.device.kind == "cuda" else "CPU (not catalogued)"
    peak = gpu.dense_peak_tflops.bf16
    parts = [f"{gpu.memory_gb:g} GB"]
    if gpu.memory_bandwidth_gb_per_s:
        parts.append(f"{gpu.memory_bandwidth_gb_per_s:,.0f} GB/s")
    if peak:
        parts.append(f"{peak:,.0f} TFLOP/s bf16")
    return ", ".join(parts)


def rows_for(loaded: Sequence[LoadedResults]) -> list[Row]:
    rows: list[Row] = []
    for item in loaded:
        catalogue = catalogue_text(item.report)
        for result in item.report.results:
            rate = headline_rate(result)
            unit = rate[1] if rate else ""
            cat_key = CATALOGUE_METRICS.get(unit)
            cat_value = result.metrics.get(cat_key[0]) if cat_key else None
            cat_rate = (
                float(cat_value) / cat_key[1] if isinstance(cat_value, int | float) and cat_key else None
            )
            error = None
            if result.prediction is not None:
                error = result.prediction.step_time_s.error_pct
            rows.append(
                Row(
                    machine=item.machine_label,
                    device=item.report.device.name,
                    workload=result.name,
                    status=result.status,
                    rate=None if rate is None else rate[0],
                    unit=unit,
                    rate_text="n/a" if rate is None else f"{rate[0]:,.3g} {unit}",
                    step_time=format_duration(step_time_s(result)),
                    peak_memory=format_bytes(peak_memory_bytes(result)),
                    prediction_error="n/a" if error is None else f"{error:+.0f}%",
                    catalogue=catalogue if cat_rate is None else f"{cat_rate:,.3g} {unit} peak; {catalogue}",
                    catalogue_rate=cat_rate,
                )
            )
    return rows


def workload_names(rows: Sequence[Row]) -> list[str]:
    """Workload names that have a rate, in first-seen order (the chart's choices)."""
    names: list[str] = []
    for row in rows:
        if row.rate is not None and row.workload not in names:
            names.append(row.workload)
    return names
