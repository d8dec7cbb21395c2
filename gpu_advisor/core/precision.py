"""Number formats, tasks and optimizers, with their per-parameter byte costs as data tables."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache


class Precision(StrEnum):
    FP32 = "fp32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"
    NF4 = "nf4"  # bitsandbytes 4-bit NormalFloat: QLoRA's base, and load_in_4bit inference


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


class Engine(StrEnum):
    """The serving stack: each has its own kernels (efficiencies), per-step overhead and KV-cache rules
    (resources/efficiencies.json)."""

    VLLM = "vllm"
    TENSORRT_LLM = "tensorrt-llm"
    LLAMA_CPP = "llama.cpp"
    HF_GENERATE = "hf-generate"


class Framework(StrEnum):
    """The training stack. `default` is the stack each architecture's training MFU was measured on
    (resources/efficiencies.json: torchtitan FSDP2 on Ampere, Megatron-Core on Hopper); the others scale
    that MFU by their published efficiency relative to it (efficiencies.json, training_stacks)."""

    DEFAULT = "default"
    MEGATRON_DEEPSPEED = "megatron-deepspeed"
    # Memory-only stacks: no published efficiency against the default's, so the default's MFU is used;
    # their buffers are core/stack_memory.py's.
    MEGATRON_CORE = "megatron-core"
    FSDP = "fsdp"  # PyTorch FSDP with flat parameters (FSDP1, HF accelerate), transformer-layer wrapping
    HF_TRAINER = "hf-trainer"
    # LitGPT's finetune/lora.py on Lightning Fabric (2023-24 releases, which pin bitsandbytes 0.41-0.42):
    # its LoRA block's saved tensors and its QLoRA's kept inputs are core/litgpt_memory.py's.
    LITGPT = "litgpt"


class LossImpl(StrEnum):
    """How the training loss is computed over the vocabulary."""

    FULL = "full"  # Hugging Face: logits upcast to fp32, full log-softmax kept for backward
    CHUNKED = "chunked"  # torchtune CEWithChunkedOutputLoss / Liger fused CE: fp32 one chunk at a time


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
class WeightFormat:
    """How weights are stored: bytes per weight of the quantised layers, which layers stay 16-bit, and
    the key its decode kernels' bandwidth efficiency is looked up by (efficiencies.json, per engine)."""

    label: str  # for people: "bf16", "int4 (GPTQ/AWQ group-128)"
    bytes_per_weight: float  # quantised layers, quantisation constants included
    embeddings_16bit: bool  # token embeddings and output head kept in 16-bit (2 B per weight)
    bandwidth_key: str  # "16-bit", "fp32", "fp8", "int8", "int4", "nf4", "gguf-q8", "gguf-q4"
    head_16bit: bool = True  # with embeddings_16bit: the output head stays 16-bit too


@dataclass(frozen=True, slots=True)
class NumberFormat:
    """How a precision stores and computes: its weight format, and the catalogue peak its matmuls use."""

    weights: WeightFormat
    activation_bytes: int  # activations and gradients in the compute dtype
    kv_bytes: int  # one cached key or value element
    peak_column: str  # the catalogue's dense-peak column (`DensePeaks` field) for its matmuls


# Weight formats. Quantisation libraries replace the Linear layers of the transformer blocks and leave
# the token embeddings and the output head in 16-bit: bitsandbytes (`llm_int8_skip_modules` holds
# lm_head; embeddings are not Linear), GPTQ/AWQ (hugging-quants Llama-3.1-8B AWQ-INT4 stores 1.98B
# parameters: 1.05B fp16 embedding/head + 0.87B int32-packed block weights + scales, per the
# UCLA-EMC/Meta-Llama-3.1-8B-Instruct-AWQ-INT4 model card), and fp8 checkpoints ("only the weights and
# activations of the linear operators within transformer blocks are quantized", neuralmagic FP8 model
# cards). GGUF (llama.cpp) quantises every tensor.
# - int4 GPTQ/AWQ, group size 128: one fp16 scale + a 4-bit zero per 128 weights, ~0.16 bit
#   (Frantar et al. 2022; Lin et al. 2023), so 4.16 bits; int8 one fp32 scale per 128 weights.
# - NF4 with double quantisation: 4 + 0.127 bit per weight (Dettmers et al. 2023, QLoRA).
# - GGUF Q8_0 and Q4_0: blocks of 32 weights with one fp16 scale: 8.5 and 4.5 bits (ggml-quants.h).
W16 = WeightFormat("16-bit", 2.0, False, "16-bit")
W32 = WeightFormat("fp32", 4.0, False, "fp32")
W_FP8 = WeightFormat("fp8 (embeddings and head 16-bit)", 1.0, True, "fp8")
W_INT8 = WeightFormat("int8 (W8A16, embeddings and head 16-bit)", 1.0 + 32 / 128 / 8, True, "int8")
W_INT4 = WeightFormat(
    "int4 (GPTQ/AWQ group-128, embeddings and head 16-bit)", (4 + 20 / 128) / 8, True, "int4"
)
W_NF4 = WeightFormat("NF4 (bitsandbytes, embeddings and head 16-bit)", (4 + 0.127) / 8, True, "nf4")
# - NF4 without double quantisation (bitsandbytes compress_statistics=False): blocks of 64 weights with
#   an fp32 absmax each, 4 + 32/64 = 4.5 bits. LitGPT's --quantize bnb.nf4 (Lightning Fabric's
#   BitsandbytesPrecision, _NF4Linear) replaces every torch.nn.Linear, the output head included (no
#   ignore_modules); the token embedding is not a Linear and stays 16-bit. The resource tables' nf4 and
#   nf4-dq rows differ by these constants (Llama 2 7B: 14.14 vs 13.84 GB, 0.373 bit on 6.6B weights).
W_NF4_NO_DQ_ALL_LINEAR = WeightFormat(
    "NF4 without double quantisation, head 4-bit too (LitGPT bnb.nf4)",
    (4 + 32 / 64) / 8,
    True,
    "nf4",
    head_16bit=False,
)
W_Q8_0 = WeightFormat("GGUF Q8_0", 8.5 / 8, False, "gguf-q8")
W_Q4_0 = WeightFormat("GGUF Q4_0", 4.5 / 8, False, "gguf-q4")

# The facts per precision, one row each.
# - FP8 training (Transformer Engine) keeps activations and gradients in 16-bit; integer and NF4
#   weight-only formats compute in 16-bit (W8A16 / W4A16 kernels), so their matmuls use the bf16 peak.
# - KV cache: the model's 16-bit dtype, fp32 for fp32 models, fp8 for fp8 serving (TensorRT-LLM's
#   fp8_kv_cache and vLLM's kv_cache_dtype=fp8 with fp8 checkpoints).
# - fp32 uses the CUDA-core fp32 peak: PyTorch leaves TF32 off for matmuls by default
#   (torch.backends.cuda.matmul.allow_tf32 = False).
FORMATS: dict[Precision, NumberFormat] = {
    Precision.FP32: NumberFormat(W32, 4, 4, "fp32"),
    Precision.BF16: NumberFormat(W16, 2, 2, "bf16"),
    Precision.FP16: NumberFormat(W16, 2, 2, "fp16"),
    Precision.FP8: NumberFormat(W_FP8, 2, 1, "fp8"),
    Precision.INT8: NumberFormat(W_INT8, 2, 2, "bf16"),
    Precision.INT4: NumberFormat(W_INT4, 2, 2, "bf16"),
    Precision.NF4: NumberFormat(W_NF4, 2, 2, "bf16"),
}
# llama.cpp stores its own GGUF formats; the request's precision picks the usual one.
GGUF_FORMATS: dict[Precision, WeightFormat] = {Precision.INT8: W_Q8_0, Precision.INT4: W_Q4_0}
# Kept for callers that size QLoRA's base directly.
NF4_BYTES_PER_PARAM = W_NF4.bytes_per_weight

# Precisions a task can train in. Integer formats train only as frozen bases under adapters.
TRAINABLE_PRECISIONS = {Precision.FP32, Precision.BF16, Precision.FP16, Precision.FP8}
LORA_BASE_PRECISIONS = TRAINABLE_PRECISIONS | {Precision.INT8}
# What llama.cpp can run (GGUF): 16-bit, and its 8- and 4-bit block formats.
LLAMA_CPP_PRECISIONS = {Precision.FP32, Precision.BF16, Precision.FP16, Precision.INT8, Precision.INT4}


@dataclass(frozen=True, slots=True)
class PrecisionProfile:
    """A request's precision resolved once: what each kind of tensor costs and which peak applies."""

    precision: Precision  # what the user asked for
    compute: Precision  # the dtype activations and gradients live in
    weights: WeightFormat  # how the base weights are stored
    activation_bytes: int
    gradient_bytes: int
    kv_bytes: int
    peak_column: str  # catalogue dense-peak column for the matmuls
    master_weights: bool  # full training in mixed precision keeps an fp32 master copy

    @property
    def weight_bytes(self) -> float:
        """Bytes per weight of the quantised layers (the 16-bit embeddings are counted apart)."""
        return self.weights.bytes_per_weight

    @property
    def weight_format(self) -> str:
        return self.weights.label

    def weight_bytes_total(
        self, total_params: float, embedding_params: float, head_params: float = 0.0
    ) -> float:
        """Bytes of all base weights: the block layers at the format's size, embeddings and head at 2 B
        where the format keeps them in 16-bit (`head_params` of the untied head: at the format's size
        where it quantises the head too)."""
        if not self.weights.embeddings_16bit:
            return total_params * self.weights.bytes_per_weight
        sixteen = embedding_params if self.weights.head_16bit else embedding_params - head_params
        return (total_params - sixteen) * self.weights.bytes_per_weight + sixteen * 2.0


@lru_cache(maxsize=128)
def precision_profile(
    task: Task,
    precision: Precision,
    engine: Engine | None = None,
    mixed_precision: bool = True,
    framework: Framework = Framework.DEFAULT,
) -> PrecisionProfile:
    """Resolve a task, precision and serving engine (and, for QLoRA's base, the training stack) into
    bytes per element and the compute peak."""
    compute = precision
    fmt = FORMATS[precision]
    weights = fmt.weights
    if task is Task.QLORA:
        compute = Precision.BF16
        weights = W_NF4_NO_DQ_ALL_LINEAR if framework is Framework.LITGPT else W_NF4
    elif task is Task.LORA and precision is Precision.INT8:
        compute = Precision.BF16
    elif task.is_training and not task.is_adapter and precision is Precision.FP8:
        # Transformer Engine keeps bf16 weights and casts them to fp8 per matmul.
        weights = WeightFormat("bf16 (cast to fp8 per matmul)", 2.0, False, "16-bit")
    elif task is Task.INFERENCE and engine is Engine.LLAMA_CPP and precision in GGUF_FORMATS:
        weights = GGUF_FORMATS[precision]
    if compute in (Precision.INT8, Precision.INT4, Precision.NF4):
        compute = Precision.BF16
    act = FORMATS[compute].activation_bytes
    return PrecisionProfile(
        precision=precision,
        compute=compute,
        weights=weights,
        activation_bytes=act,
        gradient_bytes=act,
        kv_bytes=fmt.kv_bytes,
        peak_column=fmt.peak_column,
        master_weights=(
            task.is_training and not task.is_adapter and compute is not Precision.FP32 and mixed_precision
        ),
    )


def optimizer_bytes_per_param(
    optimizer: Optimizer, master_weights: bool, hidden_size: int, state_bytes: int = 4
) -> float:
    """Optimizer state bytes per trainable parameter (ZeRO paper accounting, arXiv 1910.02054).

    `master_weights` adds the fp32 master copy that mixed-precision training keeps (4 B/param).
    `state_bytes` is the dtype of AdamW's moments and SGD's momentum: fp32 (4) in mixed precision, the
    parameters' own 16-bit dtype (2) in pure 16-bit training (torch.optim creates its state like the
    parameter; torchtune's full fine-tune recipes keep bf16 weights and bf16 AdamW state).
    Adafactor keeps a factored second moment (a row and a column vector per matrix): for an m x n matrix
    (m + n) elements, about 2 / hidden_size per parameter, and no first moment (the default).
    """
    master = 4.0 if master_weights else 0.0
    state = {
        Optimizer.ADAMW: 2.0 * state_bytes,  # m and v
        Optimizer.ADAMW_8BIT: 2.0,  # m and v in 8 bits (bitsandbytes), block constants negligible
        Optimizer.SGD: 1.0 * state_bytes,  # momentum buffer
        Optimizer.ADAFACTOR: 2.0 * state_bytes / hidden_size,
    }[optimizer]
    return state + master
