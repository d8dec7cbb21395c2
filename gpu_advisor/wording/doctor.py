"""The GPU check's report in words: one line per GPU-only path, its figures with their units."""

from __future__ import annotations

from gpu_advisor.bench.doctor import Check, DoctorReport
from gpu_advisor.core.units import (
    format_bandwidth,
    format_bytes,
    format_celsius,
    format_duration,
    format_error_pct,
    format_flops,
    format_number,
    format_pct,
    format_rate,
    format_watts,
)

_MARKS = {"ok": "ok     ", "failed": "FAILED ", "skipped": "skipped"}


def _figure(key: str, value: float | str | None) -> str | None:
    """One figure in words, chosen by the unit its key names."""
    if value is None or key == "variant":
        return None
    if isinstance(value, str):
        return f"{key.replace('_', ' ')} {value}" if value else None
    formatters = {
        "flops_per_s": format_flops,
        "bytes_per_s": format_bandwidth,
        "_w": format_watts,
        "_c": format_celsius,
        "_bytes": format_bytes,
        "tokens_per_s": lambda v: format_rate(v, "tokens/s"),
        "fraction_of_reference": lambda v: f"{format_pct(v)} of the catalogue",
        "error_pct": lambda v: f"error {format_error_pct(v)}",
        "_pct": lambda v: format_pct(v / 100),
        "_mhz": lambda v: f"{format_number(v)} MHz",
    }
    for suffix, fmt in formatters.items():
        if key.endswith(suffix):
            label = key.removesuffix(suffix).replace("_", " ").strip()
            text = fmt(value)
            return text if suffix in ("fraction_of_reference", "error_pct") else f"{label} {text}".strip()
    return f"{key.replace('_', ' ')} {value:g}"


def check_line(check: Check) -> str:
    figures = [f for f in (_figure(k, v) for k, v in check.figures.items()) if f]
    tail = f" ({'; '.join(figures)})" if figures else ""
    return f"{_MARKS[check.status]}  {check.name}: {check.detail}{tail}"


def doctor_lines(report: DoctorReport) -> list[str]:
    """The report as `gpu-advisor doctor --gpu` prints it."""
    ok = sum(c.status == "ok" for c in report.checks)
    lines = [
        f"GPU check on {report.gpu} ({format_duration(report.duration_s)}, GPU Advisor {report.app_version})",
        *(check_line(c) for c in report.checks),
        f"{ok} of {len(report.checks)} paths worked, {len(report.failed)} failed",
    ]
    return lines
