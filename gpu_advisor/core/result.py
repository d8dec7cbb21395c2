"""The planner's answer (`gpu-advisor/plan@1`): what the CLI prints, the GUI shows and the PDF renders."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from .memory import MemoryComponents
from .precision import Tier
from .request import PlanRequest
from .trace import TraceComparison

PLAN_SCHEMA = "gpu-advisor/plan@1"
TRAINING_SPEED_KEYS = ("step_time_s", "tokens_per_s", "time_to_train_s", "gpu_hours")
INFERENCE_SPEED_KEYS = ("prefill_s", "decode_s_per_token", "tokens_per_s_per_user", "tokens_per_s")


class Option(BaseModel):
    """One catalogue GPU: the smallest layout that fits and meets the target, with speed and cost."""

    model_config = ConfigDict(frozen=True)
    gpu: str
    gpu_id: str
    tier: Tier
    count: int
    fits: bool
    meets_target: bool
    gpu_memory_bytes: int
    per_gpu_bytes: int
    per_gpu_components: MemoryComponents
    parallelism: dict[str, int]
    parallelism_text: str
    bound: str | None
    cloud_usd_per_hour: float | None
    cloud_usd_per_month: float | None
    purchase_usd: float | None
    electricity_usd_per_month: float | None
    breakeven_months: float | None
    job_cloud_usd: float | None = None
    rank_usd: float | None = None
    # training
    step_time_s: float | None = None
    tokens_per_s: float | None = None
    time_to_train_s: float | None = None
    gpu_hours: float | None = None
    # inference
    prefill_s: float | None = None
    decode_s_per_token: float | None = None
    tokens_per_s_per_user: float | None = None
    note: str = ""


class Recommendation(BaseModel):
    model_config = ConfigDict(frozen=True)
    tier: Tier | None
    gpu: str | None
    gpu_id: str | None
    count: int | None
    parallelism: dict[str, int] | None
    reason: str


class Plan(BaseModel):
    """Everything one planning question produced; serialises to the documented JSON contract."""

    model_config = ConfigDict(frozen=True)
    request: PlanRequest
    memory: MemoryComponents
    memory_formulas: dict[str, str]
    memory_notes: tuple[str, ...]
    compute: dict[str, float | int]
    recommendation: Recommendation
    options: tuple[Option, ...]
    assumptions: dict[str, Any]
    warnings: tuple[str, ...]
    suggestions: tuple[str, ...] = ()
    trace: TraceComparison | None = None  # formulas beside a memory trace (core/trace.py), when traced

    @property
    def best(self) -> Option | None:
        """The recommended option, if any."""
        rec = self.recommendation
        return next((o for o in self.options if o.gpu_id == rec.gpu_id and rec.gpu_id), None)

    def to_json_dict(self) -> dict[str, Any]:
        """The `gpu-advisor plan --json` object (DESIGN.md, "Data contracts")."""
        # Each option carries the other task's speed fields as None: leave them out (tokens_per_s is
        # in both).
        other = INFERENCE_SPEED_KEYS if self.request.task.is_training else TRAINING_SPEED_KEYS
        drop = set(other) - {"tokens_per_s"}
        options = [
            {k: v for k, v in option.model_dump(mode="json").items() if k not in drop}
            for option in self.options
        ]
        return {
            "schema": PLAN_SCHEMA,
            "inputs": self.request.model_dump(mode="json"),
            "memory": {
                "total_bytes": self.memory.total,
                "components": self.memory.model_dump(mode="json"),
                "formulas": self.memory_formulas,
                "notes": list(self.memory_notes),
            },
            "compute": self.compute,
            "recommendation": self.recommendation.model_dump(mode="json"),
            "options": options,
            "assumptions": self.assumptions,
            "warnings": list(self.warnings),
            "suggestions": list(self.suggestions),
            **({"trace": self.trace.to_json_dict()} if self.trace is not None else {}),
        }
