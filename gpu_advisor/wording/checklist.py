"""The Monitor's checklist of a benchmark run: one line per workload with its status, figures and verdict.

Like a desktop benchmark's list of tests (Geekbench, Procyon): every workload of the run is listed from
the start as waiting, shows "running" while it runs, and keeps its figures and verdict once it has
finished, so the whole run can be read at the end. No Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpu_advisor.bench.results import WorkloadResult
from gpu_advisor.core.units import format_bytes, format_duration, format_pct, si_unit
from gpu_advisor.wording.results import (
    key_numbers,
    metric_quantity,
    peak_memory_bytes,
    primary_verdict,
    verdict_detail,
)

CHECKLIST_HEADERS = ("Workload", "Status", "Time per step", "Result", "Peak memory", "Verdict")
# What each status reads, with a glyph that the default fonts have (no emoji).
STATUS_TEXT = {
    "waiting": "waiting",
    "running": "▶ running",
    "ok": "✓ done",
    "oom": "✗ out of memory",
    "cancelled": "■ stopped",
    "error": "✗ failed",
    "unsupported": "– not on this device",
    "skipped": "– not run",
}


@dataclass(frozen=True, slots=True)
class ChecklistLine:
    """One workload variant of the run, in CHECKLIST_HEADERS order (`cells()`)."""

    workload: str  # the bench workload key
    label: str
    status: str  # a STATUS_TEXT key
    step_time: str = ""
    figures: str = ""
    peak_memory: str = ""
    verdict: str = ""
    verdict_detail: str = ""
    severity: str = ""  # the verdict's: ok, info, warning, critical

    def cells(self) -> tuple[str, ...]:
        return (
            self.label,
            STATUS_TEXT[self.status],
            self.step_time,
            self.figures,
            self.peak_memory,
            self.verdict,
        )


def result_line(result: WorkloadResult, label: str) -> ChecklistLine:
    """A finished (or stopped) workload variant's line."""
    step = result.step
    top = primary_verdict(result.diagnosis)
    if result.status == "ok":
        figures = ", ".join(key_numbers(result)[:3])
    else:
        figures = result.error or "; ".join(result.notes) or ""
    memory = peak_memory_bytes(result)
    return ChecklistLine(
        workload=result.workload,
        label=result.name if result.name and result.name != result.workload else label,
        status=result.status,
        step_time="" if step is None else format_duration(step.median),
        figures=figures,
        peak_memory="" if memory is None else format_bytes(memory),
        verdict="" if top is None else top.title,
        verdict_detail="" if top is None else verdict_detail(top),
        severity="" if top is None else top.severity,
    )


def checklist(
    planned: Sequence[tuple[str, str]],
    results: Sequence[WorkloadResult],
    current: str | None,
    *,
    finished: bool = False,
) -> list[ChecklistLine]:
    """The run's lines: each planned (workload key, label) in order, replaced by its results once they
    came (a workload can give several, one per variant); `current` is the workload running now.

    `finished`: the run is over, so a workload that never started reads "not run" (a stopped run).
    """
    lines: list[ChecklistLine] = []
    for key, label in planned:
        mine = [r for r in results if r.workload == key]
        lines.extend(result_line(r, label) for r in mine)
        if key == current and not finished and not any(r.status != "ok" for r in mine):
            lines.append(ChecklistLine(key, label, "running"))
        elif not mine and key != current:
            lines.append(ChecklistLine(key, label, "skipped" if finished else "waiting"))
        elif not mine and finished:
            lines.append(ChecklistLine(key, label, "cancelled"))
    return lines


def stopped_text(fraction: float | None, elapsed_s: float) -> str:
    """'Stopped at 36 % after 42.0 s': where a stopped run got to, never '100 %'."""
    where = "" if fraction is None else f" at {format_pct(fraction)}"
    return f"Stopped{where} after {format_duration(elapsed_s)}"


# ---- the live rate plot -----------------------------------------------------------------------------
def live_rate_unit(key: str, top: float) -> tuple[str, float]:
    """The unit a live rate plot of metric `key` reads in for values up to `top`, and its scale:
    ('GFLOP/s', 1e9) for a CPU's matmul, ('TFLOP/s', 1e12) for a GPU's; never 'TFLOP/s (x0.001)'."""
    quantity, unit = metric_quantity(key)
    if quantity == "flops":
        return si_unit(top, "FLOP/s")
    if quantity == "bandwidth":
        return si_unit(top, "B/s")
    return unit or key.replace("_", " "), 1.0
