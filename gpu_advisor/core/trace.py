"""A memory trace of the real architecture, as plain data the planner can use (no torch here).

`gpu_advisor.bench.trace` runs one step of the real model on fake tensors under PyTorch's memory
tracker and returns a `TraceResult`: live tensor bytes at the peak, unsharded, by category and by
top-level module, and at the peak of each phase. The planner (`core.memory.memory_basis`) then uses
those bytes in place of its formulas and keeps its own sharding (TP, PP, ZeRO) and overhead (CUDA
context, fragmentation) arithmetic on top (`core.memory.traced_basis`); `core.trace_compare` puts
both side by side. This module imports nothing else of the planner, so request and memory can import it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .precision import Precision, Task

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
