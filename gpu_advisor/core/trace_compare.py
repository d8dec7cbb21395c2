"""The formulas' one-device memory estimate beside a memory trace (the plan's "trace" section).

Split from `core.trace` so that the trace's plain data imports nothing of the planner, while this
comparison, which runs the formulas, sits above `core.memory`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .layout import SINGLE
from .memory import Device, memory_basis
from .request import PlanRequest
from .trace import COMPARED, FLAG_FRACTION, PHASE_STEP, TraceResult
from .units import format_bytes, format_pct


def attention_kernel_note(req: PlanRequest) -> str | None:
    """Why the plan's attention activations are the formulas' although the request is traced: the trace
    ran another kernel than the request's (transformers has no SDPA path for Gemma 2's soft-capping)."""
    trace = req.trace
    if trace is None or trace.attention is None or trace.attention == req.attention.value:
        return None
    return (
        f"The trace ran {trace.attention} attention, the request asks for {req.attention.value}: "
        f"transformers could not run {trace.architecture} with {req.attention.value}. The plan keeps "
        f"the trace's other bytes and the formulas' {req.attention.value} attention activations."
    )


class ComparisonRow(BaseModel):
    model_config = ConfigDict(frozen=True)
    component: str
    formula_bytes: int
    trace_bytes: int
    difference: float | None = Field(description="trace / formula - 1; None when the formula has 0")
    flagged: bool


class TraceComparison(BaseModel):
    """The formulas' one-device estimate beside the trace (live tensor bytes, no overhead)."""

    model_config = ConfigDict(frozen=True)
    trace: TraceResult
    rows: tuple[ComparisonRow, ...]
    formula_phase: str
    trace_phase: str
    formula_total_bytes: int
    trace_total_bytes: int

    @property
    def flagged(self) -> tuple[ComparisonRow, ...]:
        return tuple(r for r in self.rows if r.flagged)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "trace": self.trace.to_json_dict(),
            "formula_phase": self.formula_phase,
            "trace_phase": self.trace_phase,
            "formula_total_bytes": self.formula_total_bytes,
            "trace_total_bytes": self.trace_total_bytes,
            "components": [r.model_dump(mode="json") for r in self.rows],
        }


def _difference(formula: int, traced: int) -> float | None:
    if formula == 0:
        return None if traced == 0 else float("inf")
    return traced / formula - 1


def formula_phases(req: PlanRequest) -> tuple[dict[str, dict[str, float]], str]:
    """The formulas' unsharded components at each moment they model (no overhead), and the one that
    peaks: training 'backward' and 'optimizer step', inference 'inference'."""
    basis = memory_basis(req.model_copy(update={"trace": None}), Device.CPU)
    comps, peak = basis.per_gpu(SINGLE)
    comps.pop("overhead", None)
    if basis.inference:
        return {"inference": comps}, peak
    weights = basis.weights + basis.adapter_weights
    optimizer = basis.trainable * basis.opt_bytes
    phases = {
        "backward": {
            "weights": weights,
            "gradients": basis.head_grad,
            "optimizer": optimizer,
            "activations": basis.activations,
        },
        "optimizer step": {
            "weights": weights,
            "gradients": basis.trainable * basis.grad_bytes,
            "optimizer": optimizer + basis.optimizer_transient,
            "activations": 0.0,
        },
    }
    return phases, peak


def compare_with_formulas(req: PlanRequest) -> TraceComparison:
    """The formulas' one-device components beside the trace's, at the moment the trace peaks (the
    formulas' backward for a traced forward or backward peak, their optimizer step for a step peak).

    A component is flagged when the two differ by more than 10% (and by more than 1 MiB, so that
    rounding of tiny tensors is not flagged).
    """
    trace = req.trace
    assert trace is not None
    phases, formula_peak = formula_phases(req)
    if "inference" in phases:
        formula = phases["inference"]
    else:
        formula = phases["optimizer step" if trace.peak_phase == PHASE_STEP else "backward"]
    traced = trace.planner_components()
    rows = []
    for name in COMPARED:
        f_bytes = round(formula.get(name, 0.0))
        t_bytes = int(traced.get(name, 0))
        diff = _difference(f_bytes, t_bytes)
        flagged = abs(t_bytes - f_bytes) > 2**20 and (diff is None or abs(diff) > FLAG_FRACTION)
        if f_bytes or t_bytes:
            rows.append(
                ComparisonRow(
                    component=name,
                    formula_bytes=f_bytes,
                    trace_bytes=t_bytes,
                    difference=None if diff is None or diff == float("inf") else diff,
                    flagged=flagged,
                )
            )
    return TraceComparison(
        trace=trace,
        rows=tuple(rows),
        formula_phase=formula_peak,
        trace_phase=trace.peak_phase,
        formula_total_bytes=sum(r.formula_bytes for r in rows),
        trace_total_bytes=sum(r.trace_bytes for r in rows),
    )


def comparison_warnings(comparison: TraceComparison) -> list[str]:
    """One warning per flagged component, and one when the peak falls at different moments."""
    out = []
    trace_phase = "optimizer step" if comparison.trace_phase == PHASE_STEP else "backward"
    if comparison.formula_phase not in (trace_phase, "inference"):
        out.append(
            f"The formulas put the memory peak at the {comparison.formula_phase}; the trace found it at "
            f"{comparison.trace.peak_moment} (the comparison is at the trace's moment)."
        )
    for row in comparison.flagged:
        diff = "" if row.difference is None else f" ({format_pct(row.difference, signed=True)})"
        out.append(
            f"Trace and formulas differ for {row.component}: traced {format_bytes(row.trace_bytes)}, "
            f"formula {format_bytes(row.formula_bytes)}{diff}; the plan uses the trace."
        )
    return out


def traced_formulas(trace: TraceResult, formulas: dict[str, str]) -> dict[str, str]:
    """The plan's per-component working when the memory basis is a trace."""
    how = f"traced: {trace.architecture}, peak at {trace.peak_phase}"
    out = {k: how for k in ("weights", "gradients", "optimizer", "activations", "kv_cache") if k in formulas}
    if "overhead" in formulas:
        out["overhead"] = formulas["overhead"]
    return out
