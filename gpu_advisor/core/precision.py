"""Number formats, tasks and optimizers, with their per-parameter byte costs as data tables."""

from __future__ import annotations

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

# Bytes per stored weight. int4 carries its quantisation constants: GPTQ/AWQ with group size 128 add
# ~0.25 bit per weight (Frantar et al. 2022, GPTQ; Lin et al. 2023, AWQ), so 4.25 bits. QLoRA's NF4 with double quantisation
# adds ~0.127 bit per weight (Dettmers et al. 2023) and is handled in memory.py.
WEIGHT_BYTES: dict[Precision, float] = {
    Precision.FP32: 4.0,
    Precision.BF16: 2.0,
    Precision.FP16: 2.0,
    Precision.FP8: 1.0,
    Precision.INT8: 1.0 + 32 / 128 / 8,  # int8 weights, one fp32 scale per 128-weight group
    Precision.INT4: 4.25 / 8,
}
NF4_BYTES_PER_PARAM = (4 + 0.127) / 8

# Precisions a task can train in. Integer formats train only as frozen bases under adapters.
TRAINABLE_PRECISIONS = {Precision.FP32, Precision.BF16, Precision.FP16, Precision.FP8}
LORA_BASE_PRECISIONS = TRAINABLE_PRECISIONS | {Precision.INT8}

# Bytes per element of activations, gradients and the KV cache for a compute precision. FP8 training
# (Transformer Engine) keeps activations and gradients in 16-bit; integer weight-only formats compute in
# 16-bit (W8A16 / W4A16 kernels).
ACTIVATION_BYTES: dict[Precision, int] = {
    Precision.FP32: 4,
    Precision.BF16: 2,
    Precision.FP16: 2,
    Precision.FP8: 2,
    Precision.INT8: 2,
    Precision.INT4: 2,
}
GRADIENT_BYTES = ACTIVATION_BYTES
# KV cache element size: the model's 16-bit dtype, fp32 for fp32 models, fp8 for fp8 serving
# (vLLM's kv_cache_dtype follows the model dtype by default).
KV_BYTES: dict[Precision, int] = {**ACTIVATION_BYTES, Precision.FP8: 1}

# Peak-FLOP/s column of the catalogue used for a precision's matmuls. fp32 uses the CUDA-core fp32 peak:
# PyTorch leaves TF32 off for matmuls by default (torch.backends.cuda.matmul.allow_tf32 = False).
# Weight-only int8/int4 inference runs its matmuls in 16-bit.
COMPUTE_DTYPE: dict[Precision, str] = {
    Precision.FP32: "fp32",
    Precision.BF16: "bf16",
    Precision.FP16: "fp16",
    Precision.FP8: "fp8",
    Precision.INT8: "bf16",
    Precision.INT4: "bf16",
}


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
