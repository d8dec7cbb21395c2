"""Memory a training stack keeps beyond the formulas' components (README, "Method"): named buffers, each
with its formula and the source that shows it.

Each buffer is counted inside one of the plan's components (its bytes are part of that component's
total, and the plan's working lists it by name under the component):
- `gradients`: a gradient buffer that is allocated once and kept for the whole run, unsharded over data
  parallelism (it is split only by tensor and pipeline parallelism, like the model);
- `weights`: parameters the stack keeps in a wider dtype than the format counts (split like the weights),
  or, `gathered`, weights a fully sharded stack keeps whole through forward and backward (ZeRO-3 only);
- `activations`: tensors live at the start of backward only (split by tensor parallelism, like the
  activations).
"""

from __future__ import annotations

from dataclasses import dataclass

from .architecture import ModelSpec
from .precision import Framework, LossImpl, Precision, PrecisionProfile, Task

# DeepSpeed's BF16_Optimizer (deepspeed/runtime/bf16_optimizer.py, _setup_for_real_optimizer): besides
# the fp32 master partition, it allocates `fp32_groups_gradients_flat = torch.zeros_like(bf16 flat
# params, dtype=torch.float32)` over the whole flat bf16 parameter group of the rank, not its DP
# partition, and keeps it for the run (update_hp_grads accumulates the bf16 grads into it).
DEEPSPEED_BF16_SOURCE = (
    "DeepSpeed deepspeed/runtime/bf16_optimizer.py: fp32_groups_gradients_flat is zeros_like the rank's "
    "whole flat bf16 parameters in fp32, allocated at start-up and never partitioned over DP; DeepSpeed "
    "runs it for bf16 at ZeRO stage 0-1 (BLOOM: ZeRO-1), its ZeRO optimizers at stages 2-3"
)
# Megatron-LM: with bf16, arguments.py sets accumulate_allreduce_grads_in_fp32, so the DDP wrapper's
# contiguous grad buffer (param.main_grad) is fp32 and holds every gradient of the rank; the distributed
# optimizer shards only the fp32 main parameters and Adam's moments over DP:
# docs "Distributed Optimizer": bf16 params, fp32 grads: 18 bytes per parameter without it, 6 + 12/d with.
MEGATRON_SOURCE = (
    "NVIDIA/Megatron-LM README.md, 'Distributed Optimizer': bf16 params with fp32 grads take 18 bytes per "
    "parameter, 6 + 12/d with the distributed optimizer, whose fp32 main grads are the model's fp32 grads "
    "and are not distributed; arguments.py: bf16 sets accumulate_allreduce_grads_in_fp32"
)
# PEFT's prepare_model_for_kbit_training (src/peft/utils/other.py): "cast all non INT8 parameters to
# fp32": every bf16/fp16 parameter of a bitsandbytes 4/8-bit model (embeddings, output head, norms).
PEFT_KBIT_SOURCE = (
    "huggingface/peft src/peft/utils/other.py, prepare_model_for_kbit_training: 'cast all non INT8 "
    "parameters to fp32' (embeddings, output head and norms of a bitsandbytes model)"
)
# transformers up to 4.45 upcasts the logits in the causal LM's forward (`logits = logits.float()`,
# e.g. LlamaForCausalLM) and returns them: the fp32 tensor stays referenced by the output until the step
# ends, where later versions return 16-bit logits and upcast inside the loss.
# PyTorch FSDP (FlatParameter, torch/distributed/fsdp/_runtime_utils.py, _post_forward_reshard): "Do
# not free the root's parameters in the post-forward for FULL_SHARD with the intention that they are
# immediately used for backward computation". With transformer-layer wrapping (HF accelerate's
# TRANSFORMER_BASED_WRAP) the root unit holds what no layer holds: embeddings, final norm, output head.
FSDP_ROOT_SOURCE = (
    "pytorch torch/distributed/fsdp/_runtime_utils.py, _post_forward_reshard: the root's flat parameter "
    "is not freed after forward under FULL_SHARD; with transformer-layer wrapping the root holds the "
    "embeddings, final norm and output head"
)
HF_LOGITS_SOURCE = (
    "huggingface/transformers up to v4.45, models/llama/modeling_llama.py, LlamaForCausalLM.forward: "
    "'Upcast to float if we need to compute the loss': logits = logits.float(), returned in the output"
)


@dataclass(frozen=True, slots=True)
class StackBuffer:
    """One buffer a stack keeps: its name, the component it is counted in, its bytes on one unsharded
    device, the formula in words and numbers, and where it is shown."""

    name: str
    component: str  # "weights" | "gradients" | "activations"
    unsharded_bytes: float
    formula: str
    source: str
    gathered: bool = False  # a weight kept whole (unsharded) from forward to the end of backward
    max_zero: int = 3  # the highest ZeRO stage the stack keeps this buffer at


def stack_buffers(
    req_task: Task,
    framework: Framework,
    loss: LossImpl,
    mixed_precision: bool,
    model: ModelSpec,
    profile: PrecisionProfile,
    trainable: int,
    tokens: int,
) -> tuple[StackBuffer, ...]:
    """The named buffers of the request's training stack (none for the default stack or serving)."""
    if not req_task.is_training or framework is Framework.DEFAULT:
        return ()
    full = not req_task.is_adapter
    bf16_mixed = profile.compute is Precision.BF16 and mixed_precision
    buffers: list[StackBuffer] = []
    if framework is Framework.MEGATRON_DEEPSPEED and full and bf16_mixed:
        buffers.append(
            StackBuffer(
                "DeepSpeed BF16_Optimizer fp32 gradient buffer",
                "gradients",
                trainable * 4.0,
                f"{trainable:,} trainable x 4 B, unsharded over DP (/ tp x pp only); ZeRO-0/1 only",
                DEEPSPEED_BF16_SOURCE,
                max_zero=1,
            )
        )
    if framework is Framework.MEGATRON_CORE and full and bf16_mixed:
        buffers.append(
            StackBuffer(
                "Megatron DDP fp32 main_grad buffer (replaces the 16-bit gradients)",
                "gradients",
                trainable * 4.0,
                f"{trainable:,} trainable x 4 B, unsharded over DP (/ tp x pp only); the distributed "
                "optimizer shards the fp32 main params and Adam's moments (12 B / dp)",
                MEGATRON_SOURCE,
            )
        )
    if framework is Framework.FSDP:
        root = model.embedding_params()
        buffers.append(
            StackBuffer(
                "FSDP root unit kept unsharded from forward to backward (embeddings, final norm, head)",
                "weights",
                root * profile.activation_bytes,
                f"{root:,} embedding and head params x {profile.activation_bytes} B, not divided by dp "
                "(FULL_SHARD, ZeRO-3, only)",
                FSDP_ROOT_SOURCE,
                gathered=True,
            )
        )
    if framework is Framework.HF_TRAINER and req_task is Task.QLORA:
        upcast = model.embedding_params() + model.n_layers * model.layer_norms * model.norm_params()
        buffers.append(
            StackBuffer(
                "PEFT k-bit preparation: embeddings, head and norms upcast to fp32",
                "weights",
                upcast * 2.0,
                f"{upcast:,} embedding, head and norm params x (4 - 2) B",
                PEFT_KBIT_SOURCE,
            )
        )
    low_logits = profile.activation_bytes < 4  # fp32 training computes fp32 logits anyway
    if framework is Framework.HF_TRAINER and loss is LossImpl.FULL and model.is_decoder and low_logits:
        buffers.append(
            StackBuffer(
                "fp32 logits returned by the model",
                "activations",
                tokens * model.vocab_size * 2.0,
                f"b x s {tokens:,} x V {model.vocab_size:,} x (4 - 2) B: the logits kept in fp32 "
                "instead of 16-bit until backward",
                HF_LOGITS_SOURCE,
            )
        )
    return tuple(buffers)


def replaces_gradients(framework: Framework, task: Task, profile: PrecisionProfile, mixed: bool) -> bool:
    """Whether the stack's gradient buffer replaces the 16-bit gradients (Megatron writes every gradient
    straight into the fp32 main_grad buffer)."""
    return (
        framework is Framework.MEGATRON_CORE
        and task.is_training
        and not task.is_adapter
        and profile.compute is Precision.BF16
        and mixed
    )
