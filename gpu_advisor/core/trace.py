"""A memory trace of the real architecture, as plain data the planner can use (no torch here).

`gpu_advisor.bench.trace` runs one step of the real model on fake tensors under PyTorch's memory
tracker and returns a `TraceResult`: live tensor bytes at the peak, unsharded, by category and by
top-level module, and at the peak of each phase. The planner (`core.memory.memory_basis`) then uses
those bytes in place of its formulas and keeps its own sharding (TP, PP, ZeRO) and overhead (CUDA
context, fragmentation) arithmetic on top; `compare_with_formulas` puts both side by side.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from .precision import Precision, Task

if TYPE_CHECKING:
    from .memory import MemoryBasis
    from .request import PlanRequest

TRACE_SCHEMA = "gpu-advisor/trace@1"
# Categories of live tensor bytes. Buffers (rotary tables) count as parameters; "temporaries" are what
# backward and the optimizer step allocate and free again (activation gradients, update scratch).
CATEGORIES = (
    "parameters",
    "gradients",
    "optimizer_state",
    "activations",
    "kv_cache",
    "temporaries",
    "inputs",
)
PHASE_FORWARD, PHASE_BACKWARD, PHASE_STEP = "forward", "backward", "optimizer step"
PHASE_PREFILL, PHASE_DECODE = "prefill", "decode"
FLAG_FRACTION = 0.10  # components where formula and trace differ by more than this are flagged
COMPARED = ("weights", "gradients", "optimizer", "activations", "kv_cache")


class PhasePeak(BaseModel):
    """The highest live bytes within one phase of the traced step, and what they were."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    phase: str
    peak_bytes: int = Field(ge=0)
    moment: str
    by_category: dict[str, int]

    def planner_components(self) -> dict[str, int]:
        """These bytes in the planner's components (weights, gradients, optimizer, activations, KV)."""
        c = {k: self.by_category.get(k, 0) for k in CATEGORIES}
        temporaries_to = "optimizer" if self.phase == PHASE_STEP else "activations"
        out = {
            "weights": c["parameters"],
            "gradients": c["gradients"],
            "optimizer": c["optimizer_state"],
            "activations": c["activations"] + c["inputs"],
            "kv_cache": c["kv_cache"],
        }
        out[temporaries_to] += c["temporaries"]
        return out


class TraceResult(BaseModel):
    """`gpu-advisor trace --json` (schema gpu-advisor/trace@1): integer bytes, no CUDA context."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    model: str
    architecture: str = Field(description="The module traced, e.g. 'LlamaForCausalLM (transformers 5.x)'")
    attention: str | None = Field(
        default=None,
        description="The attention kernel the traced step ran ('sdpa', 'eager'); None for a module "
        "not built by transformers (its own attention) and for traces made before this was recorded",
    )
    parameters: int = Field(ge=0, description="Parameters of the traced module (adapters included)")
    trainable_parameters: int = Field(ge=0)
    task: Task
    precision: Precision
    optimizer: str | None = None
    batch_size: int = Field(ge=1)
    seq_len: int = Field(ge=1)
    grad_checkpointing: bool = False
    users: int = Field(default=1, ge=1)
    prompt_tokens: int = Field(default=1, ge=1)
    output_tokens: int = Field(default=1, ge=1)
    lora_rank: int | None = None
    step: str = Field(description="Which step was traced, in words")
    peak_bytes: int = Field(ge=0, description="Live tensor bytes at the peak")
    peak_moment: str
    peak_phase: str
    by_category: dict[str, int]
    by_module: dict[str, int]
    phases: tuple[PhasePeak, ...] = ()
    notes: tuple[str, ...] = ()
    elapsed_s: float = Field(default=0.0, ge=0)
    versions: dict[str, str] = Field(default_factory=dict)

    def __hash__(self) -> int:  # requests carrying a trace are cache keys (core.memory.memory_basis)
        return hash((self.model, self.peak_bytes, self.peak_moment, tuple(sorted(self.by_category.items()))))

    def to_json_dict(self) -> dict[str, Any]:
        """The documented JSON object: schema first, sizes in integer bytes."""
        return {"schema": TRACE_SCHEMA, **self.model_dump(mode="json")}

    def phase_peak(self, *phases: str) -> PhasePeak | None:
        """The highest of the named phases' peaks (None if none of them was traced)."""
        found = [p for p in self.phases if p.phase in phases]
        return max(found, key=lambda p: p.peak_bytes) if found else None

    def planner_components(self) -> dict[str, int]:
        """The overall peak in the planner's components (sums to peak_bytes)."""
        peak = self.phase_peak(self.peak_phase)
        if peak is None:
            peak = PhasePeak(
                phase=self.peak_phase, peak_bytes=self.peak_bytes, moment="", by_category=self.by_category
            )
        return peak.planner_components()


class TraceMismatch(ValueError):
    """A trace made for other inputs than the request's."""


def check_trace_matches(req: PlanRequest) -> None:
    """Raise TraceMismatch naming the first input where the request and its trace differ."""
    trace = req.trace
    if trace is None:
        return
    pairs: list[tuple[str, Any, Any]] = [
        ("task", trace.task, req.task),
        ("precision", trace.precision, req.precision),
    ]
    if req.task.is_training:
        pairs += [
            ("seq_len", trace.seq_len, req.seq_len),
            ("optimizer", trace.optimizer, req.optimizer.value),
        ]
        # A knob the user left to the planner takes the traced recipe's value (core.recipe.variants).
        if "batch_size" in req.model_fields_set:
            pairs.append(("batch_size", trace.batch_size, req.batch_size))
        if req.grad_checkpointing is not None:
            pairs.append(("grad_checkpointing", trace.grad_checkpointing, req.grad_checkpointing))
    else:
        pairs += [
            ("users", trace.users, req.users),
            ("prompt_tokens", trace.prompt_tokens, req.prompt_tokens),
            ("output_tokens", trace.output_tokens, req.output_tokens),
        ]
    for field, traced, asked in pairs:
        if traced != asked:
            raise TraceMismatch(f"trace: made for {field} {traced}, the request has {asked}; trace again")


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


def _kernel_correction(formula: MemoryBasis, at_traced_kernel: MemoryBasis | None) -> float:
    """Bytes to add to the traced activations for the request's attention kernel instead of the one the
    trace ran: the formulas' difference between the two kernels (the s x s matrices eager keeps)."""
    return 0.0 if at_traced_kernel is None else formula.activations - at_traced_kernel.activations


def traced_basis(
    req: PlanRequest, formula: MemoryBasis, at_traced_kernel: MemoryBasis | None = None
) -> MemoryBasis:
    """The formula basis with its unsharded bytes replaced by the trace's (same sharding arithmetic).

    Training: the backward-side peak (forward or backward) gives the weights, the gradients alive then,
    the optimizer state and the activations; the optimizer-step peak gives all gradients and the step's
    temporaries. Per trainable parameter, gradient and optimizer bytes are the traced totals divided by
    the trainable count, so ZeRO and tensor/pipeline parallelism divide them as they divide the formulas'.
    Inference: weights, the KV cache per sequence and the prefill transient.
    `at_traced_kernel`: the formula basis with the attention kernel the trace ran, when it is not the
    request's; the activations then take the formulas' attention bytes (attention_kernel_note).
    """
    correction = _kernel_correction(formula, at_traced_kernel)
    trace = req.trace
    assert trace is not None
    if not req.task.is_training:
        peak = trace.phase_peak(PHASE_PREFILL, PHASE_DECODE) or trace.phase_peak(trace.peak_phase)
        comps = peak.planner_components() if peak else trace.planner_components()
        return dataclasses.replace(
            formula,
            weights=float(comps["weights"]),
            activations=max(
                0.0, float(comps["activations"] + comps["gradients"] + comps["optimizer"]) + correction
            ),
            activations_formula="traced",
            kv_bytes_per_sequence=comps["kv_cache"] / max(1, req.users),
        )
    backward = trace.phase_peak(PHASE_FORWARD, PHASE_BACKWARD)
    step = trace.phase_peak(PHASE_STEP)
    back = backward.planner_components() if backward else trace.planner_components()
    stepc = step.planner_components() if step else back
    trainable = max(1, trace.trainable_parameters)
    optimizer_state = back["optimizer"]
    return dataclasses.replace(
        formula,
        weights=float(back["weights"]),
        adapter_weights=0.0,
        trainable=trainable,
        grad_bytes=stepc["gradients"] / trainable,
        opt_bytes=optimizer_state / trainable,
        optimizer_transient=float(max(0, stepc["optimizer"] - optimizer_state) + stepc["activations"]),
        activations=max(0.0, float(back["activations"] + back["kv_cache"]) + correction),
        activations_formula="traced",
        head_grad=float(back["gradients"]),
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
    from .layout import SINGLE
    from .memory import Device, memory_basis

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
    from .units import format_bytes, format_pct

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
