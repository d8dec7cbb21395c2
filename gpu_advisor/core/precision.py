"""Number formats, tasks and optimizers, with their per-parameter byte costs as data tables."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Precision(StrEnum):
    FP32 = "fp32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"


class Task(StrEnum):
    PRETRAIN = "pretrain"
    FINETUNE = "finetune"
    LORA = "lora"
    QLORA = "qlora"
    INFERENCE = "inference"

    @property
    def is_training(self) -> bool:
        return self is not Task.INFERENCE

    @property
    def is_adapter(self) -> bool:
        return self in (Task.LORA, Task.QLORA)


class Optimizer(StrEnum):
    ADAMW = "adamw"
    ADAMW_8BIT = "adamw-8bit"
    SGD = "sgd"
    ADAFACTOR = "adafactor"


class Tier(StrEnum):
    DATACENTER = "datacenter"
    WORKSTATION = "workstation"
    CONSUMER = "consumer"

    @property
    def label(self) -> str:
        return TIER_LABELS[self]


TIER_LABELS = {
    Tier.DATACENTER: "Enterprise data center",
    Tier.WORKSTATION: "Workstation",
    Tier.CONSUMER: "Consumer desktop",
}


@dataclass(frozen=True, slots=True)
class NumberFormat:
    """How a precision stores and computes: bytes per element, and the catalogue peak its matmuls use."""

    weight_bytes: float  # per stored weight, quantisation constants included
    activation_bytes: int  # activations and gradients in the compute dtype
    kv_bytes: int  # one cached key or value element
    peak_column: str  # the catalogue's dense-peak column (`DensePeaks` field) for its matmuls


# The facts per precision, one row each.
# - int4 carries its quantisation constants: GPTQ/AWQ with group size 128 add ~0.25 bit per weight
#   (Frantar et al. 2022, GPTQ; Lin et al. 2023, AWQ), so 4.25 bits; int8 one fp32 scale per 128 weights.
# - FP8 training (Transformer Engine) keeps activations and gradients in 16-bit; integer weight-only
#   formats compute in 16-bit (W8A16 / W4A16 kernels), so their matmuls use the bf16 peak.
# - KV cache: the model's 16-bit dtype, fp32 for fp32 models, fp8 for fp8 serving (vLLM's
#   kv_cache_dtype follows the model dtype by default).
# - fp32 uses the CUDA-core fp32 peak: PyTorch leaves TF32 off for matmuls by default
#   (torch.backends.cuda.matmul.allow_tf32 = False).
FORMATS: dict[Precision, NumberFormat] = {
    Precision.FP32: NumberFormat(4.0, 4, 4, "fp32"),
    Precision.BF16: NumberFormat(2.0, 2, 2, "bf16"),
    Precision.FP16: NumberFormat(2.0, 2, 2, "fp16"),
    Precision.FP8: NumberFormat(1.0, 2, 1, "fp8"),
    Precision.INT8: NumberFormat(1.0 + 32 / 128 / 8, 2, 2, "bf16"),
    Precision.INT4: NumberFormat(4.25 / 8, 2, 2, "bf16"),
}
# QLoRA's NF4 with double quantisation: 4 bits + ~0.127 bit of constants per weight (Dettmers et al. 2023).
NF4_BYTES_PER_PARAM = (4 + 0.127) / 8

# Precisions a task can train in. Integer formats train only as frozen bases under adapters.
TRAINABLE_PRECISIONS = {Precision.FP32, Precision.BF16, Precision.FP16, Precision.FP8}
LORA_BASE_PRECISIONS = TRAINABLE_PRECISIONS | {Precision.INT8}


@dataclass(frozen=True, slots=True)
class PrecisionProfile:
    """A request's precision resolved once: what each kind of tensor costs and which peak applies."""

    precision: Precision  # what the user asked for
    compute: Precision  # the dtype activations and gradients live in
    weight_bytes: float  # per stored base weight
    weight_format: str  # how the base weights are stored, for people: "bf16", "NF4", "int4 (GPTQ/AWQ)"
    activation_bytes: int
    gradient_bytes: int
    kv_bytes: int
    peak_column: str  # catalogue dense-peak column for the matmuls
    master_weights: bool  # full training in mixed precision keeps an fp32 master copy


def precision_profile(task: Task, precision: Precision) -> PrecisionProfile:
    """Resolve a task and precision into bytes per element and the compute peak (one place for all)."""
    compute = precision
    weight_bytes = FORMATS[precision].weight_bytes
    weight_format = {Precision.INT4: "int4 (GPTQ/AWQ)", Precision.INT8: "int8"}.get(precision, str(precision))
    if task is Task.QLORA:
        compute, weight_bytes, weight_format = Precision.BF16, NF4_BYTES_PER_PARAM, "NF4"
    elif task is Task.LORA and precision is Precision.INT8:
        compute = Precision.BF16
    elif task.is_training and not task.is_adapter and precision is Precision.FP8:
        weight_bytes, weight_format = 2.0, "bf16 (cast to fp8 per matmul)"  # Transformer Engine
    fmt = FORMATS[compute]
    return PrecisionProfile(
        precision=precision,
        compute=compute,
        weight_bytes=weight_bytes,
        weight_format=weight_format,
        activation_bytes=fmt.activation_bytes,
        gradient_bytes=fmt.activation_bytes,
        kv_bytes=FORMATS[precision].kv_bytes,
        peak_column=FORMATS[precision].peak_column,
        master_weights=task.is_training and not task.is_adapter and compute is not Precision.FP32,
    )


def optimizer_bytes_per_param(optimizer: Optimizer, master_weights: bool, hidden_size: int) -> float:
    """Optimizer state bytes per trainable parameter (ZeRO paper accounting, arXiv 1910.02054).

    `master_weights` adds the fp32 master copy that mixed-precision training keeps (4 B/param).
    Adafactor keeps a factored second moment (a row and a column vector per matrix): for an m x n matrix
    4 (m + n) bytes, about 4 x 2 / hidden_size bytes per parameter, and no first moment (the default).
    """
    master = 4.0 if master_weights else 0.0
    state = {
        Optimizer.ADAMW: 8.0,  # m and v in fp32
        Optimizer.ADAMW_8BIT: 2.0,  # m and v in 8 bits (bitsandbytes), block constants negligible
        Optimizer.SGD: 4.0,  # momentum buffer in fp32
        Optimizer.ADAFACTOR: 8.0 / hidden_size,
    }[optimizer]
    return state + master
