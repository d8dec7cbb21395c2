"""The planner's answer: a Plan whose options carry their own working (memory, speed, cost, layout,
sources), so the CLI, the GUI and the reports render it without estimating anything again.

Only `Plan.to_json_dict` flattens the working into the `gpu-advisor/plan@1` JSON contract.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .estimates import CostEstimate, InferenceSpeed, MemoryComponents, MemoryEstimate, Speed, TrainingSpeed
from .hosts import HostSpec
from .layout import Parallelism
from .precision import Tier
from .request import PlanRequest
from .trace_compare import TraceComparison

PLAN_SCHEMA = "gpu-advisor/plan@1"
TIGHT_FILL = 0.95  # a fit above 95 % of the memory that decides it leaves no room for a longer prompt
TRAINING_SPEED_KEYS = (
    "step_time_s",
    "tokens_per_s",
    "time_to_train_s",
    "time_per_epoch_s",
    "epochs",
    "gpu_hours",
    "mfu",
    "hfu",
)
INFERENCE_SPEED_KEYS = ("prefill_s", "ttft_s", "decode_s_per_token", "tokens_per_s_per_user", "tokens_per_s")
COST_KEYS = (
    "cloud_usd_per_hour",
    "cloud_usd_per_month",
    "purchase_usd",
    "electricity_usd_per_month",
    "breakeven_months",
    "job_cloud_usd",
    "power_kw",
)


class GpuSources(BaseModel):
    """Where a GPU's catalogue figures come from: its row's note and each source key it cites."""

    model_config = ConfigDict(frozen=True)
    text: str
    cited: dict[str, str] = Field(default_factory=dict)  # source key -> the source it names
    cloud_price_date: str | None = None
    user_defined: bool = False  # from the user's own gpus.json


class Option(BaseModel):
    """One catalogue GPU: the smallest layout that fits and meets the target, with its working."""

    model_config = ConfigDict(frozen=True)
    gpu: str
    gpu_id: str
    tier: Tier
    count: int
    machines: int  # count = machines x gpus_per_machine (or last_machine_gpus on the last); tensor parallelism stays inside one machine
    gpus_per_machine: int
    last_machine_gpus: int | None = None  # when the count does not split evenly: the last machine's
    gpus_bought: int = 0  # SXM/OAM: whole baseboards; cards: the count (0 = not computed)
    board_gpus: int | None = None  # SXM/OAM: the baseboard each bought machine carries (4 or 8 GPUs)
    runs_as: str = ""  # 'fp16 (loss scaling)' where the card lacks the precision asked for
    users_in_flight: int | None = None  # requests/s alone: this option's Little's-law concurrency
    host: HostSpec  # what one machine is, costs and draws besides its GPUs
    fits: bool
    meets_target: bool
    gpu_memory_bytes: int
    per_gpu: MemoryEstimate  # memory on each GPU of this layout
    layout: Parallelism
    speed: Speed
    cost: CostEstimate
    rank_usd: float | None = None  # what the options are ranked by (see the plan's assumptions)
    sources: GpuSources
    note: str = ""
    # training: what the option runs (micro_batch, grad_accum, global_batch, grad_checkpointing, loss,
    # zero_stage) and, for each key, "user" (locked by the request) or "planner" (chosen by the search)
    recipe: dict[str, Any] | None = None
    recipe_source: dict[str, str] | None = None

    @property
    def per_gpu_bytes(self) -> int:
        return self.per_gpu.total_bytes

    @property
    def per_gpu_components(self) -> MemoryComponents:
        return self.per_gpu.components

    @property
    def memory_fill(self) -> float:
        """How full the memory that decides the fit is: the engine's KV pool with the users' KV cache,
        else the card with the footprint. Above TIGHT_FILL a fit is marked tight."""
        pool = self.per_gpu.kv_pool_bytes
        if pool is not None:
            return self.per_gpu.components.kv_cache / pool if pool > 0 else float("inf")
        return self.per_gpu_bytes / self.gpu_memory_bytes

    @property
    def tight(self) -> bool:
        return self.fits and self.memory_fill > TIGHT_FILL

    @property
    def training(self) -> TrainingSpeed | None:
        """The training speed, or None for an inference option."""
        return self.speed if isinstance(self.speed, TrainingSpeed) else None

    @property
    def serving(self) -> InferenceSpeed:
        """The speed of an option of a serving plan; TypeError for a training option (callers that
        read serving figures run only for an inference request)."""
        if not isinstance(self.speed, InferenceSpeed):
            raise TypeError(f"{self.count} × {self.gpu} is a training option: it has no serving speed")
        return self.speed

    def to_json_dict(self) -> dict[str, Any]:
        """The option as the flat object of the plan@1 contract (speed keys of its own task only)."""
        speed_keys = TRAINING_SPEED_KEYS if self.training else INFERENCE_SPEED_KEYS
        return {
            "gpu": self.gpu,
            "gpu_id": self.gpu_id,
            "tier": self.tier.value,
            "count": self.count,
            "machines": self.machines,
            "gpus_per_machine": self.gpus_per_machine,
            "last_machine_gpus": self.last_machine_gpus,
            "gpus_bought": self.gpus_bought or self.count,
            "board_gpus": self.board_gpus,
            "runs_as": self.runs_as or None,
            "users_in_flight": self.users_in_flight,
            "machine": self.host.label,
            "fits": self.fits,
            "meets_target": self.meets_target,
            "gpu_memory_bytes": self.gpu_memory_bytes,
            "per_gpu_bytes": self.per_gpu_bytes,
            "per_gpu_components": self.per_gpu_components.model_dump(),
            "memory_phase": self.per_gpu.phase,
            "kv_pool_bytes": self.per_gpu.kv_pool_bytes,
            "overhead_parts": self.per_gpu.overhead_parts,
            **_stack_parts_json(self.per_gpu),
            "memory_fill": round(self.memory_fill, 4) if self.memory_fill != float("inf") else None,
            "tight": self.tight,
            "parallelism": self.layout.model_dump(),
            "parallelism_text": self.layout.describe(),
            "bound": self.speed.bound,
            **{key: getattr(self.cost, key) for key in COST_KEYS},
            "rank_usd": self.rank_usd,
            **{key: getattr(self.speed, key) for key in speed_keys},
            "formulas": {
                "memory": self.per_gpu.formulas,
                "speed": self.speed.formula,
                "cost": self.cost.formula,
            },
            "sources": self.sources.model_dump(),
            "note": self.note,
            **({"recipe": self.recipe, "recipe_source": self.recipe_source} if self.training else {}),
        }


class VerdictSide(BaseModel):
    """One side of the verdict: the option and what it costs on that side."""

    model_config = ConfigDict(frozen=True)
    gpu: str
    gpu_id: str
    count: int
    machines: int
    gpus_per_machine: int
    gpus_bought: int | None = None  # buying SXM/OAM parts takes whole baseboards
    machine: str
    cost_usd: float  # rent: per month, or for the job; buy: the purchase
    usd_per_month: float | None  # rent per month, or the purchase's electricity per month
    job_usd: float | None = None  # a training job's rent, or its electricity when bought


class Verdict(BaseModel):
    model_config = ConfigDict(frozen=True)
    choice: str | None  # "rent" | "buy"; None when no option has a price
    basis: str  # "monthly" | "job"
    rent: VerdictSide | None
    buy: VerdictSide | None
    breakeven_months: float | None
    reason: str


class TierChoice(BaseModel):
    """One tier's answer: its best option (by gpu_id among the plan's options) or why it has none,
    and what its machines are like."""

    model_config = ConfigDict(frozen=True)
    tier: Tier
    gpu_id: str | None
    reason: str
    deployment: str
    noise: str
    support: str


class Recommendation(BaseModel):
    model_config = ConfigDict(frozen=True)
    tier: Tier | None
    gpu: str | None
    gpu_id: str | None
    count: int | None
    parallelism: Parallelism | None
    reason: str


class FrontierPoint(BaseModel):
    """One scale of the recommended GPU for a token budget: its time to train and the job's rent."""

    model_config = ConfigDict(frozen=True)
    count: int
    time_to_train_s: float
    job_cloud_usd: float | None
    fits: bool


class Plan(BaseModel):
    """Everything one planning question produced; serialises to the documented JSON contract."""

    model_config = ConfigDict(frozen=True)
    request: PlanRequest
    memory: MemoryEstimate  # the footprint on one device, unsharded
    compute: dict[str, float | int]
    recommendation: Recommendation
    options: tuple[Option, ...]
    assumptions: dict[str, Any]
    warnings: tuple[str, ...]
    suggestions: tuple[str, ...] = ()
    trace: TraceComparison | None = None  # formulas beside a memory trace (core/trace.py), when traced
    verdict: Verdict | None = None  # rent or buy across the options (core/verdict.py)
    tiers: tuple[TierChoice, ...] = ()  # the best option of each tier (core/tiers.py)
    # training with a token budget: the recommended GPU and recipe at each power-of-two scale
    frontier: tuple[FrontierPoint, ...] = ()

    @property
    def best(self) -> Option | None:
        """The recommended option, if any."""
        rec = self.recommendation
        return next((o for o in self.options if o.gpu_id == rec.gpu_id and rec.gpu_id), None)

    def tier_best(self, choice: TierChoice) -> Option | None:
        """The option a tier's choice names."""
        return next((o for o in self.options if o.gpu_id == choice.gpu_id and choice.gpu_id), None)

    def _tiers_json(self) -> list[dict[str, Any]]:
        out = []
        for choice in self.tiers:
            best = self.tier_best(choice)
            out.append(
                {
                    "tier": choice.tier.value,
                    "best": None if best is None else best.to_json_dict(),
                    "reason": choice.reason,
                    "deployment": choice.deployment,
                    "noise": choice.noise,
                    "support": choice.support,
                }
            )
        return out

    def to_json_dict(self) -> dict[str, Any]:
        """The `gpu-advisor plan --json` object (DESIGN.md, "Data contracts")."""
        return {
            "schema": PLAN_SCHEMA,
            "inputs": self.request.inputs_json(),
            "memory": {
                "total_bytes": self.memory.total_bytes,
                "components": self.memory.components.model_dump(mode="json"),
                "formulas": self.memory.formulas,
                "notes": list(self.memory.notes),
                **_stack_parts_json(self.memory),
            },
            "compute": self.compute,
            "recommendation": self.recommendation.model_dump(mode="json"),
            "options": [option.to_json_dict() for option in self.options],
            "assumptions": self.assumptions,
            "warnings": list(self.warnings),
            "suggestions": list(self.suggestions),
            "verdict": None if self.verdict is None else self.verdict.model_dump(mode="json"),
            "tiers": self._tiers_json(),
            "frontier": [point.model_dump() for point in self.frontier],
            **({"trace": self.trace.to_json_dict()} if self.trace is not None else {}),
        }


def _stack_parts_json(memory: MemoryEstimate) -> dict[str, Any]:
    """`stack_parts` (the training stack's named buffers, each inside a component) where there are any:
    plans of the default stack keep the plan@1 object they had."""
    if not memory.stack_parts:
        return {}
    return {"stack_parts": [part.model_dump() for part in memory.stack_parts]}
