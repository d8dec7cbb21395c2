"""What the user asks the planner: the validated request shared by the CLI, the GUI and saved plans."""

from __future__ import annotations

from enum import StrEnum
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .architecture import ModelSpec
from .calibration import Calibration
from .precision import LORA_BASE_PRECISIONS, TRAINABLE_PRECISIONS, Optimizer, Precision, Task, Tier
from .trace import TraceMismatch, TraceResult, check_trace_matches
from .units import HOURS_PER_MONTH


class Attention(StrEnum):
    SDPA = "sdpa"  # memory-efficient / flash kernels: no s^2 attention matrix kept
    EAGER = "eager"  # attention matrix materialised (and kept for backward)


class Purchase(StrEnum):
    RENT = "rent"
    BUY = "buy"


class Assumptions(BaseModel):
    """Every constant the estimates use, with its default's source. Editable in the GUI."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    mfu: float = Field(
        default=0.40,
        gt=0,
        le=1,
        description="Model FLOPs utilisation for training: achieved / peak dense tensor FLOP/s. "
        "Realistic 0.35-0.55 on data-center GPUs for large models.",
    )
    prefill_efficiency: float = Field(
        default=0.50, gt=0, le=1, description="Fraction of peak FLOP/s reached in the prompt pass."
    )
    bandwidth_efficiency: float = Field(
        default=0.80,
        gt=0,
        le=1,
        description="Fraction of peak memory bandwidth reached by decode (weights + KV read per step).",
    )
    cuda_context_bytes: int = Field(
        default=512 * 2**20,
        ge=0,
        description="CUDA context and kernels per GPU: 0.3-1 GiB depending on GPU and libraries; 512 MiB here.",
    )
    fragmentation: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="Caching-allocator fragmentation as a fraction of the rest of the footprint.",
    )
    tp_efficiency: float = Field(
        default=0.90,
        gt=0,
        le=1,
        description="Scaling efficiency per doubling of tensor parallel degree over NVLink "
        "(PCIe: squared), for the all-reduce cost not modelled layer by layer.",
    )
    server_overhead: float = Field(
        default=0.50,
        ge=0,
        le=5,
        description="Purchase: the rest of the server (CPU, RAM, chassis, network) as a fraction of "
        "the GPUs' price.",
    )
    pue: float = Field(default=1.3, ge=1, le=3, description="Power usage effectiveness (cooling overhead).")
    system_power_fraction: float = Field(
        default=0.30,
        ge=0,
        le=3,
        description="Host power (CPU, RAM, fans) as a fraction of the GPUs' TDP.",
    )
    utilisation_of_tdp: float = Field(
        default=0.70, gt=0, le=1.2, description="Average GPU draw as a fraction of TDP under load."
    )
    lora_rank: int = Field(default=16, ge=1, le=4096, description="LoRA adapter rank r.")
    lora_all_linear: bool = Field(
        default=False, description="Adapt every linear layer (True) or only q, k, v, o (False)."
    )
    max_prefill_tokens: int = Field(
        default=8192,
        ge=256,
        le=1_000_000,
        description="Tokens per prefill step in a serving engine (vLLM chunked prefill budget): "
        "bounds prefill activations.",
    )


class PlanRequest(BaseModel):
    """One planning question. Validation messages name the field; the CLI and the GUI show them."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    model: ModelSpec
    task: Task = Task.INFERENCE
    precision: Precision = Precision.BF16
    optimizer: Optimizer = Optimizer.ADAMW
    seq_len: int = Field(default=2048, ge=1, le=10_000_000, description="Tokens per sequence")
    batch_size: int = Field(default=1, ge=1, le=1_000_000, description="Micro-batch per GPU")
    grad_checkpointing: bool = False
    attention: Attention = Attention.SDPA
    zero_stage: int | None = Field(default=None, ge=0, le=3, description="None: the planner chooses")
    gpus: int | None = Field(default=None, ge=1, le=100_000, description="Fix the GPU count")
    # inference traffic
    users: int = Field(default=1, ge=1, le=10_000_000, description="Concurrent users (sequences)")
    prompt_tokens: int = Field(default=512, ge=1, le=10_000_000)
    output_tokens: int = Field(default=256, ge=1, le=10_000_000)
    tokens_per_s_per_user: float | None = Field(default=None, gt=0, le=1_000_000)
    # training target
    train_tokens: float | None = Field(default=None, gt=0, le=1e16)
    max_hours: float | None = Field(default=None, gt=0, le=1e6)
    # restrictions
    gpu: str | None = Field(default=None, description="Consider only this GPU (id or name)")
    tier: Tier | None = None
    # budget
    purchase: Purchase = Purchase.RENT
    hours_per_month: float = Field(
        default=HOURS_PER_MONTH, gt=0, le=744, description="Hours of use per month"
    )
    electricity_usd_per_kwh: float = Field(default=0.15, ge=0, le=10)
    assumptions: Assumptions = Field(default_factory=Assumptions)
    calibration: Calibration | None = Field(
        default=None, description="Measured figures (a results file) that replace defaults"
    )
    trace: TraceResult | None = Field(
        default=None, description="A memory trace of the real architecture; replaces the memory formulas"
    )

    @model_validator(mode="after")
    def _check_combination(self) -> Self:
        if self.task.is_training and self.task.is_adapter:
            if self.task is Task.QLORA and self.precision not in (
                Precision.BF16,
                Precision.FP16,
                Precision.FP32,
                Precision.INT4,
            ):
                raise ValueError(
                    "precision: QLoRA computes in bf16/fp16 over a 4-bit base; choose bf16, fp16 or int4"
                )
            if self.task is Task.LORA and self.precision not in LORA_BASE_PRECISIONS:
                raise ValueError(
                    f"precision: LoRA needs a base in {', '.join(sorted(LORA_BASE_PRECISIONS))}; "
                    "for a 4-bit base choose task qlora"
                )
        elif self.task.is_training and self.precision not in TRAINABLE_PRECISIONS:
            raise ValueError(
                f"precision: {self.precision} cannot be trained ({self.task}); use bf16, fp16, fp8 or "
                "fp32, or task lora/qlora"
            )
        if self.task is Task.INFERENCE and not self.model.is_decoder and self.output_tokens > 1:
            raise ValueError(
                f"model: {self.model.name} is an encoder; it does not generate tokens (set output tokens to 1)"
            )
        if self.zero_stage and not self.task.is_training:
            raise ValueError("zero_stage: ZeRO shards training state; it does not apply to inference")
        if self.task.is_training and self.seq_len > self.model.max_positions * 64:
            raise ValueError(f"seq_len: {self.seq_len} is far beyond the model's context")
        try:
            check_trace_matches(self)
        except TraceMismatch as exc:
            raise ValueError(str(exc)) from None
        return self

    @property
    def kv_tokens(self) -> int:
        """Tokens whose keys and values are cached at once: every user at full context."""
        return self.users * (self.prompt_tokens + self.output_tokens)


def describe_validation_error(exc: Exception) -> tuple[str, str]:
    """(field, message) from a pydantic ValidationError or a ValueError 'field: message'."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        err = errors()[0]
        loc = [str(p) for p in err["loc"]]
        msg = str(err["msg"]).removeprefix("Value error, ")
        if ": " in msg and not loc:
            field, _, rest = msg.partition(": ")
            return field, rest
        if ": " in msg and msg.split(": ", 1)[0].replace("_", "").isalpha():
            field, _, rest = msg.partition(": ")
            return field, rest
        return (".".join(loc) or "request"), msg
    text = str(exc)
    field, sep, rest = text.partition(": ")
    return (field, rest) if sep and " " not in field.strip() else ("request", text)
