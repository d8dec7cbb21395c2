"""Memory on one GPU, component by component (README, "Method"), for a request and a parallel layout.

The components are what is live at the moment of peak use, and they sum to the total:
- Training peaks either at the start of backward (all saved activations, the fp32 loss's logit
  gradients, the output head's gradient; other gradients do not exist yet) or at the optimizer step
  (all gradients, the optimizer's state and its temporaries; activations are freed). Both phases are
  computed; the larger is reported and the other is named in the notes.
- Inference holds the weights, the KV cache for every concurrent sequence, and one layer's transient
  activations during the prompt pass.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any

from .architecture import ModelSpec
from .efficiency import engine_spec, process_overhead_bytes
from .estimates import MemoryComponents, MemoryEstimate, StackPart
from .layout import SINGLE, Parallelism
from .litgpt_memory import litgpt_activations, litgpt_lora_params, litgpt_qlora_buffers
from .memo import same_args_as_recent_call
from .precision import (
    Framework,
    LossImpl,
    Precision,
    PrecisionProfile,
    Task,
    optimizer_bytes_per_param,
    precision_profile,
)
from .request import Attention, PlanRequest
from .stack_memory import StackBuffer, replaces_gradients, stack_buffers
from .trace import PHASE_BACKWARD, PHASE_DECODE, PHASE_FORWARD, PHASE_PREFILL, PHASE_STEP
from .units import format_bytes

# The fp32 cross-entropy keeps its log-softmax output, and the start of backward adds the gradient
# with respect to it and the gradient of the logits: three b x s x V fp32 tensors (measured on CPU with
# the profiler, benchmarks/bench_prediction_accuracy.py).
LOSS_FP32_COPIES = 3
DROPOUT_MASK_BYTES = 1  # torch.native_dropout keeps a bool mask


class Device(StrEnum):
    CUDA = "cuda"  # an accelerator with a CUDA context and a caching allocator
    CPU = "cpu"  # live tensor bytes only: no context, no allocator fragmentation


class OptimizerImpl(StrEnum):
    FUSED = "fused"  # torch fused=True, apex, DeepSpeed: no extra copies
    FOREACH = "foreach"  # PyTorch's default on GPU: about one extra copy of all parameters
    FOR_LOOP = "for-loop"  # PyTorch's default on CPU: about two copies of the largest tensor


def lora_params(model: ModelSpec, rank: int, all_linear: bool) -> int:
    """Adapter parameters: r (in + out) per adapted matrix (q, k, v, o, or every linear layer)."""
    shapes = model.linear_shapes()
    names = shapes if all_linear else ("q", "k", "v", "o")
    per_layer = sum(rank * (shapes[n][0] + shapes[n][1]) for n in names)
    experts = model.n_experts if all_linear and model.is_moe else 1
    mlp_names = [n for n in names if n not in ("q", "k", "v", "o")]
    per_layer += (experts - 1) * sum(rank * (shapes[n][0] + shapes[n][1]) for n in mlp_names)
    return model.n_layers * per_layer


def activation_bytes_per_token_layer(
    model: ModelSpec, elem: int, attention: Attention, seq_len: int
) -> float:
    """Saved activation bytes per token per transformer layer, generalising Korthikanti et al. (2022).

    At 16-bit with MHA, a GELU MLP (f = 4h) and dropout this is h (34 + 5 a s / h), their eq. (2):
    norms 2 h e, attention h e (qkv input) + h e (Q) + 2 k d e (K, V) + h e (output projection input)
    + a 1-byte dropout mask of h, MLP h e + 2 f e (GELU in and out) + mask, or h e + 4 f e for SwiGLU
    (gate, SiLU, up, product); eager attention adds a s (e softmax + mask + e dropout output) per token.
    MoE layers run experts_per_token MLPs per token.
    """
    h, f, kd = model.hidden_size, model.ffn_size, model.kv_heads * model.d_head
    mask = DROPOUT_MASK_BYTES if model.uses_dropout else 0
    norms = 2 * h * elem
    attn = 3 * h * elem + 2 * kd * elem + h * mask
    mlp = (h * elem + 4 * f * elem) if model.gated_mlp else (h * elem + 2 * f * elem + h * mask)
    mlp *= model.experts_per_token
    matrix = 0.0
    if attention is Attention.EAGER:
        matrix = model.n_heads * seq_len * (elem + (mask + elem if model.uses_dropout else 0))
    return norms + attn + mlp + matrix


def _training_activations(req: PlanRequest, model: ModelSpec, elem: int) -> tuple[int, str]:
    """Saved activations and loss tensors on one unsharded device, and the formula in words."""
    tokens = req.batch_size * req.seq_len
    per_layer = activation_bytes_per_token_layer(model, elem, req.attention, req.seq_len)
    layers = model.n_layers
    # 1F1B pipeline: the first stage holds p micro-batches of L/p layers, i.e. all L layers' worth.
    if req.grad_checkpointing:
        saved = layers * model.hidden_size * elem + per_layer  # layer inputs + one recomputed layer
        formula = f"checkpointing: L x h x {elem} B + one layer's {per_layer:,.0f} B, per token"
    else:
        saved = layers * per_layer
        formula = f"L x {per_layer:,.0f} B per token per layer (Korthikanti eq. 2, generalised)"
    # embedding output / final norm and head input
    saved += 2 * model.hidden_size * elem
    saved_bytes = tokens * saved
    logits = 0.0
    if model.is_decoder or model.family.value == "bert":
        logits, loss_formula = loss_bytes(req, model, elem, tokens)
        formula += f"; loss: {loss_formula}"
    return round(saved_bytes + logits), formula


def loss_bytes(req: PlanRequest, model: ModelSpec, elem: int, tokens: int) -> tuple[float, str]:
    """The loss's tensors at the start of backward, by recipe.

    Full: Hugging Face casts the logits to fp32 and keeps the log-softmax; backward adds its gradient and
    the logits' gradient: three b x s x V fp32 tensors plus the 16-bit logits (measured on CPU,
    benchmarks/bench_prediction_accuracy.py). Chunked (torchtune CEWithChunkedOutputLoss, Liger): the
    16-bit logits stay, the fp32 work happens one chunk at a time (torchtune's Llama 3.2 3B table:
    chunking saved 8.1 GiB at b 2 x s 4096 x V 128k).
    """
    vocab = model.vocab_size
    low = elem if elem < 4 else 0
    if req.loss is LossImpl.CHUNKED:
        chunks = req.assumptions.loss_chunks
        fp32 = LOSS_FP32_COPIES * 4 * tokens * vocab / chunks
        return tokens * vocab * low + fp32, (
            f"b x s x V x {low} B logits + one of {chunks} chunks x {LOSS_FP32_COPIES * 4} B (chunked cross-entropy)"
        )
    copies = LOSS_FP32_COPIES * 4 + low
    return tokens * vocab * copies, f"b x s x V x {copies} B (fp32 log-softmax, its gradient, logit gradient)"


def _inference_activations(
    req: PlanRequest, model: ModelSpec, elem: int, prefill_tokens: int | None
) -> tuple[int, str]:
    """The prompt pass's transient activations on one unsharded device, and the formula in words."""
    if prefill_tokens is None:
        prefill_tokens = min(
            req.users * req.prompt_tokens, max(req.prompt_tokens, req.assumptions.max_prefill_tokens)
        )
        how = f"min(users x prompt, {req.assumptions.max_prefill_tokens} prefill-token budget)"
    else:
        how = "batch x prompt tokens"
    h, f, kd = model.hidden_size, model.ffn_size, model.kv_heads * model.d_head
    # One layer at a time: residual + normed input + q, k, v + attention output + MLP intermediates.
    mlp_live = (3 * f if model.gated_mlp else 2 * f) * model.experts_per_token
    per_token = (4 * h + 2 * kd + mlp_live) * elem
    transient = prefill_tokens * per_token
    sequences = max(1, prefill_tokens // max(1, req.prompt_tokens))
    if req.attention is Attention.EAGER:
        transient += sequences * model.n_heads * req.prompt_tokens**2 * (elem + 4)
    # Logits of the last prompt token only (as generate() computes them), in fp32.
    logits = sequences * model.vocab_size * 4 if model.is_decoder else 0
    total = transient + logits
    formula = f"{how} tokens x (4h + 2kd + MLP) x {elem} B for one layer, + last-token fp32 logits"
    return round(total), formula


def kv_bytes_per_token(model: ModelSpec, kv_elem_bytes: int) -> int:
    """2 (K and V) x layers x KV heads x head dim x bytes: one token's cache (KV heads, never query heads)."""
    return 2 * model.n_layers * model.kv_heads * model.d_head * kv_elem_bytes


def kv_cache_bytes(model: ModelSpec, tokens: int, kv_elem_bytes: int) -> int:
    """The KV cache of `tokens` cached tokens."""
    return kv_bytes_per_token(model, kv_elem_bytes) * tokens


def model_state_bytes(
    n_params: float,
    zero_stage: int,
    dp: int,
    master_and_adam: float = 12.0,
    weight_bytes: float = 2.0,
    grad_bytes: float = 2.0,
) -> dict[str, float]:
    """Per-GPU model states under ZeRO (Rajbhandari et al. 2019): (2 + 2 + K) P, K = 12 for mixed Adam.

    Stage 1 shards the optimizer states, stage 2 also the gradients, stage 3 also the weights.
    """
    w, g, o = weight_bytes * n_params, grad_bytes * n_params, master_and_adam * n_params
    if zero_stage >= 1:
        o /= dp
    if zero_stage >= 2:
        g /= dp
    if zero_stage >= 3:
        w /= dp
    return {"weights": w, "gradients": g, "optimizer": o}


@dataclass(frozen=True, slots=True)
class MemoryBasis:
    """Everything about a request's memory that does not depend on the layout: unsharded bytes and
    the formulas' constants. Computed once per request; `per_gpu` is cheap arithmetic on top."""

    inference: bool
    device: Device
    profile: PrecisionProfile
    weights: float  # base weights, unsharded
    adapter_weights: float
    trainable: int
    grad_bytes: float
    opt_bytes: float
    optimizer_transient: float
    activations: float  # training: saved activations + loss tensors; inference: prefill transient
    activations_formula: str
    head_grad: float
    gathered_layers: float  # ZeRO-3: the current and the prefetched layer, gathered (before TP)
    grads_at_backward: bool  # gradient accumulation keeps every gradient allocated through backward
    kv_bytes_per_sequence: float
    context_tokens: int
    users: int
    kv_heads: int
    overhead_single: float  # process overhead on one GPU (context, workspaces, kernels)
    overhead_distributed: float  # the same with NCCL communicators
    overhead_source: str
    fragmentation: float
    paged_kv: bool  # a paged KV cache does not fragment
    memory_fraction: float  # the engine's cap on the card (vLLM gpu_memory_utilization)
    kv_free_fraction: float  # the engine's KV pool as a share of the free memory (TensorRT-LLM)
    # The training stack's named buffers (core/stack_memory.py), unsharded; none for the default stack.
    stack_buffers: tuple[StackBuffer, ...] = ()
    # Each layout's total without the engine's reserve, and the parts the reserve is computed from, by
    # (tp, pp, dp, ZeRO): the recommender asks the same layouts for every GPU of the catalogue; only
    # the reserve depends on the card.
    _totals: dict[tuple[int, int, int, int], tuple[float, float, float, int]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    # Whether the serving engine leaves part of a card unused (the total depends on the card's size).
    reserves: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        reserves = self.device is Device.CUDA and (self.memory_fraction != 1 or self.kv_free_fraction != 1)
        object.__setattr__(self, "reserves", reserves)

    def per_gpu(self, par: Parallelism, capacity: int | None = None) -> tuple[dict[str, float], str]:
        """Components on the first pipeline stage's GPU, and the phase at which they peak. With the
        card's usable `capacity`, the overhead includes what the serving engine leaves unused."""
        weights, grads, optimizer, activations, kv, phase = self._parts(par)
        comps = {"weights": weights, "kv_cache": kv, "activations": activations}
        if not self.inference:
            comps = {
                "weights": weights,
                "gradients": grads,
                "optimizer": optimizer,
                "activations": activations,
            }
        comps["overhead"] = self._overhead(weights + grads + optimizer + activations, kv, par, capacity)
        return comps, phase

    def per_gpu_total(self, par: Parallelism, capacity: int | None = None) -> int:
        return self.total_of(par.tensor, par.pipeline, par.data, par.zero_stage, capacity)

    def total_of(self, tp: int, pp: int, dp: int, zero: int, capacity: int | None = None) -> int:
        """`per_gpu_total` of the layout (tp, pp, dp, zero), without building it: the same sums, in
        the same order, as the components of `per_gpu`."""
        key = (tp, pp, dp, zero)
        known = self._totals.get(key)
        if known is None:
            weights, grads, optimizer, activations, kv, _ = self._parts_of(tp, pp, dp, zero)
            rest = weights + grads + optimizer + activations
            fragmenting, overhead = self._context_overhead(rest, kv, tp * pp * dp)
            known = self._totals[key] = (rest + kv, fragmenting, overhead, round(rest + kv + overhead))
        if capacity is None or not self.reserves:
            return known[3]
        held, fragmenting, overhead, _ = known
        # _reserve, inline: the search asks this for every layout it tries on every card size
        memory_fraction = self.memory_fraction
        overhead += (1 - memory_fraction) * capacity
        free = capacity * memory_fraction - fragmenting - overhead
        kept_out = (1 - self.kv_free_fraction) * free
        # max(0.0, kept_out) as a comparison (the same value; this runs for every layout and card)
        return round(held + (overhead + (kept_out if kept_out > 0.0 else 0.0)))

    def fits(self, par: Parallelism, capacity: int) -> bool:
        return self.total_of(par.tensor, par.pipeline, par.data, par.zero_stage, capacity) <= capacity

    def _parts(self, par: Parallelism) -> tuple[float, float, float, float, float, str]:
        """(weights, gradients, optimizer, activations, KV cache, phase) on one GPU of `par`."""
        return self._parts_of(par.tensor, par.pipeline, par.data, par.zero_stage)

    def _parts_of(
        self, tp: int, pp: int, dp: int, zero: int
    ) -> tuple[float, float, float, float, float, str]:
        shards = tp * pp
        weights = self.weights / shards
        # Activations: sequence parallelism with tensor parallelism divides every one by t.
        activations = self.activations / tp
        if self.inference:
            kv_heads = self.kv_heads
            kv_shards = (kv_heads if kv_heads < tp else tp) * pp  # min(tp, KV heads)
            users_per_replica = -(-self.users // dp)
            kv = users_per_replica * self.kv_bytes_per_sequence / kv_shards
            return weights, 0.0, 0.0, activations, kv, "inference"
        weights += self.adapter_weights / shards
        if zero >= 3:
            # The gathered layers are tensor-parallel shards too.
            weights = weights / dp + self.gathered_layers / tp
        grads = self.trainable * self.grad_bytes / shards / (dp if zero >= 2 else 1)
        optimizer = self.trainable * self.opt_bytes / shards / (dp if zero >= 1 else 1)
        backward_grads = grads if self.grads_at_backward else self.head_grad / shards
        transient = self.optimizer_transient / shards
        if self.stack_buffers:
            kept_weights, kept_grads, gathered, backward_only = self._stack_bytes(tp, pp, dp, zero)
            weights += kept_weights
            if gathered + backward_grads + activations + backward_only >= grads + transient:
                return (
                    weights + gathered,
                    backward_grads + kept_grads,
                    optimizer,
                    activations + backward_only,
                    0.0,
                    "backward",
                )
            return weights, grads + kept_grads, optimizer + transient, 0.0, 0.0, "optimizer step"
        if backward_grads + activations >= grads + transient:
            return weights, backward_grads, optimizer, activations, 0.0, "backward"
        return weights, grads, optimizer + transient, 0.0, 0.0, "optimizer step"

    def _stack_bytes(self, tp: int, pp: int, dp: int, zero: int) -> tuple[float, float, float, float]:
        """The stack's buffers on one GPU of (tp, pp, dp, ZeRO): (weights kept all step, gradient
        buffers kept all step, weights gathered through forward and backward only, activations live at
        the start of backward only)."""
        weights = grads = gathered = backward = 0.0
        for part in self.stack_buffers:
            w, g, u, b = _buffer_split(part, tp, pp, dp, zero)
            weights, grads, gathered, backward = weights + w, grads + g, gathered + u, backward + b
        return weights, grads, gathered, backward

    def stack_parts(self, par: Parallelism, phase: str) -> tuple[tuple[StackBuffer, float], ...]:
        """Each named buffer with its bytes on one GPU of `par` at the peak `phase` (a buffer live only
        at the start of backward is 0 at the optimizer step)."""
        parts = []
        for part in self.stack_buffers:
            w, g, u, b = _buffer_split(part, par.tensor, par.pipeline, par.data, par.zero_stage)
            parts.append((part, w + g + (u + b if phase == "backward" else 0.0)))
        return tuple(parts)

    def _overhead(self, rest: float, kv: float, par: Parallelism, capacity: int | None) -> float:
        """Process overhead + fragmentation of everything but a paged KV cache + the engine's reserve."""
        if self.device is not Device.CUDA:
            return 0.0
        fragmenting, overhead = self._context_overhead(rest, kv, par.gpus)
        return overhead if capacity is None else self._reserve(overhead, fragmenting, capacity)

    def _context_overhead(self, rest: float, kv: float, gpus: int) -> tuple[float, float]:
        """(the bytes that fragment, process overhead + their fragmentation); no overhead off CUDA."""
        fragmenting = rest + (0.0 if self.paged_kv else kv)
        if self.device is not Device.CUDA:
            return fragmenting, 0.0
        context = self.overhead_distributed if gpus > 1 else self.overhead_single
        return fragmenting, context + self.fragmentation * fragmenting

    def kv_pool(self, par: Parallelism, capacity: int | None) -> float | None:
        """The KV pool the serving engine allocates on a card of `capacity` bytes: its share of the
        card (vLLM gpu_memory_utilization) or of the memory left free (TensorRT-LLM), less weights,
        the activation peak and non-PyTorch memory. None where no engine sizes a pool."""
        if capacity is None or not self.reserves or not self.inference:
            return None
        weights, _, _, activations, kv, _ = self._parts(par)
        fragmenting, overhead = self._context_overhead(weights + activations, kv, par.gpus)
        free = capacity * self.memory_fraction - fragmenting - overhead
        return max(0.0, self.kv_free_fraction * free)

    def _reserve(self, overhead: float, fragmenting: float, capacity: int) -> float:
        """`overhead` plus what the serving engine leaves unused of a card of `capacity` bytes."""
        # vLLM caps itself at gpu_memory_utilization of the card; TensorRT-LLM gives the KV pool
        # a share of the memory left free: the rest stays unused.
        overhead += (1 - self.memory_fraction) * capacity
        free = capacity * self.memory_fraction - fragmenting - overhead
        return overhead + max(0.0, (1 - self.kv_free_fraction) * free)


def _buffer_split(
    part: StackBuffer, tp: int, pp: int, dp: int, zero: int
) -> tuple[float, float, float, float]:
    """A buffer's bytes on one GPU as (weights, gradients, gathered weights, backward-only activations):
    weights split like the model (and over DP under ZeRO-3), gradient buffers by tp x pp only, weights
    a fully sharded stack keeps gathered through forward and backward by tp x pp (none without
    ZeRO-3, where every weight is whole anyway), activations by tp; nothing above its ZeRO stage."""
    if zero > part.max_zero:
        return 0.0, 0.0, 0.0, 0.0
    if part.component == "weights":
        if part.gathered:
            return 0.0, 0.0, (part.unsharded_bytes / (tp * pp) if zero >= 3 else 0.0), 0.0
        return part.unsharded_bytes / (tp * pp) / (dp if zero >= 3 else 1), 0.0, 0.0, 0.0
    if part.component == "gradients":
        return 0.0, part.unsharded_bytes / (tp * pp), 0.0, 0.0
    return 0.0, 0.0, 0.0, part.unsharded_bytes / tp


@same_args_as_recent_call
@lru_cache(maxsize=256)
def memory_basis(
    req: PlanRequest,
    device: Device = Device.CUDA,
    optimizer_impl: OptimizerImpl = OptimizerImpl.FUSED,
    prefill_tokens: int | None = None,
) -> MemoryBasis:
    """The layout-independent part of a request's memory (cached: the recommender asks often)."""
    # ---- a traced request: the trace's unsharded bytes replace the formulas (core/trace.py) ----------
    if req.trace is not None:
        formula = memory_basis(req.model_copy(update={"trace": None}), device, optimizer_impl, prefill_tokens)
        kernel = req.trace.attention
        at_traced_kernel = None
        if kernel is not None and kernel != req.attention.value:  # e.g. Gemma 2 traced with eager
            at_traced_kernel = memory_basis(
                req.model_copy(update={"trace": None, "attention": type(req.attention)(kernel)}),
                device,
                optimizer_impl,
                prefill_tokens,
            )
        return traced_basis(req, formula, at_traced_kernel)
    # ---- end of the traced case ---------------------------------------------------------------------
    model = req.model
    profile = request_profile(req)
    elem = profile.activation_bytes
    a = req.assumptions
    trainable, grad_b, opt_b, transient, adapter, head_grad, gathered = 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    litgpt = req.framework is Framework.LITGPT and req.task.is_adapter and not req.grad_checkpointing
    if req.task is Task.INFERENCE:
        activations, activations_formula = _inference_activations(req, model, elem, prefill_tokens)
    elif litgpt:
        tokens = req.batch_size * req.seq_len
        saved, activations_formula = litgpt_activations(model, elem, tokens, a.lora_all_linear)
        activations = round(saved)
    else:
        activations, activations_formula = _training_activations(req, model, elem)
    if req.task.is_training:
        if litgpt:
            # LitGPT creates the adapters in the precision's dtype (bf16-true: bf16, their gradients too;
            # bf16-mixed keeps fp32 parameters, and LitGPT refuses it with quantisation); torch's AdamW
            # keeps its moments in that dtype, bitsandbytes' PagedAdamW (QLoRA) in fp32.
            trainable = litgpt_lora_params(model, a.lora_rank, a.lora_all_linear)
            mixed = req.mixed_precision and req.task is not Task.QLORA
            adapter_b = 4.0 if mixed else float(elem)
            grad_b = adapter_b
            opt_b = optimizer_bytes_per_param(
                req.optimizer,
                master_weights=False,
                hidden_size=model.hidden_size,
                state_bytes=4 if req.task is Task.QLORA else int(adapter_b),
            )
            adapter = trainable * adapter_b
        elif req.task.is_adapter:
            trainable = lora_params(model, a.lora_rank, a.lora_all_linear)
            grad_b = 4.0  # PEFT keeps adapters and their gradients in fp32
            opt_b = optimizer_bytes_per_param(
                req.optimizer, master_weights=False, hidden_size=model.hidden_size
            )
            adapter = trainable * 4.0
        else:
            trainable = model.total_params()
            grad_b = float(profile.gradient_bytes)
            pure_16bit = not req.mixed_precision and profile.compute is not Precision.FP32
            opt_b = optimizer_bytes_per_param(
                req.optimizer,
                master_weights=profile.master_weights,
                hidden_size=model.hidden_size,
                state_bytes=2 if pure_16bit else 4,
            )
            head_grad = model.vocab_size * model.hidden_size * grad_b
            if replaces_gradients(req.framework, req.task, profile, req.mixed_precision):
                grad_b, head_grad = 0.0, 0.0  # every gradient lives in the stack's fp32 buffer
        if optimizer_impl is OptimizerImpl.FOREACH:
            transient = trainable * 4.0
        elif optimizer_impl is OptimizerImpl.FOR_LOOP:
            largest = min(trainable, model.largest_tensor_params())
            transient = 2 * largest * 4.0
        gathered = 2 * model.layer_params() * profile.weight_bytes
    context = req.prompt_tokens + req.output_tokens
    engine = engine_spec(req.engine) if req.task is Task.INFERENCE and device is Device.CUDA else None
    if engine is not None and engine.paged:
        context = -(-context // engine.kv_block_tokens) * engine.kv_block_tokens  # whole blocks
    kv_seq = kv_cache_bytes(model, context, profile.kv_bytes) if model.is_decoder else 0
    buffers = stack_buffers(
        req.task,
        req.framework,
        req.loss,
        req.mixed_precision,
        model,
        profile,
        trainable,
        req.batch_size * req.seq_len,
    )
    if litgpt and req.task is Task.QLORA:
        buffers += litgpt_qlora_buffers(model, elem, req.batch_size * req.seq_len)
    serving = req.engine if req.task is Task.INFERENCE else None
    single, source = process_overhead_bytes(serving, distributed=False)
    distributed, _ = process_overhead_bytes(serving, distributed=True)
    if a.cuda_context_bytes is not None:
        single = distributed = float(a.cuda_context_bytes)
        source = "set in the assumptions"
    return MemoryBasis(
        inference=req.task is Task.INFERENCE,
        device=device,
        profile=profile,
        weights=profile.weight_bytes_total(
            model.total_params(), model.embedding_params(), model.untied_head_params()
        ),
        adapter_weights=adapter,
        trainable=trainable,
        grad_bytes=grad_b,
        opt_bytes=opt_b,
        optimizer_transient=transient,
        activations=activations,
        activations_formula=activations_formula,
        head_grad=head_grad,
        gathered_layers=gathered,
        grads_at_backward=req.task.is_training and req.grad_accumulation_steps > 1,
        kv_bytes_per_sequence=kv_seq,
        context_tokens=context,
        users=req.users,
        kv_heads=model.kv_heads,
        overhead_single=single,
        overhead_distributed=distributed,
        overhead_source=source,
        # An engine that sizes its KV pool from memory measured after a profiling run (vLLM's
        # gpu_memory_utilization, TensorRT-LLM's free_gpu_memory_fraction) has its allocator's slack
        # inside what it measured: no fragmentation is added on top.
        fragmentation=0.0 if _measures_its_pool(engine) else a.fragmentation,
        paged_kv=engine is not None and engine.paged,
        memory_fraction=engine.memory_fraction if engine is not None else 1.0,
        kv_free_fraction=float(engine.kv_cache.get("free_fraction", 1.0)) if engine is not None else 1.0,
        stack_buffers=buffers,
    )


def _pool_note(
    basis: MemoryBasis, c: MemoryComponents, pool: float, capacity: int, engine: str, non_torch: float
) -> str:
    """'vLLM pool: 90% of 23.6 GiB = 21.3 GiB: weights 15.0 GiB + ... leave a KV pool of 3.6 GiB ...'."""
    reserve = (1 - basis.memory_fraction) * capacity
    share = (
        f"{basis.memory_fraction:.0%} of {format_bytes(capacity)} = {format_bytes(capacity - reserve)}"
        if basis.memory_fraction < 1
        else f"{basis.kv_free_fraction:.0%} of the memory left free on {format_bytes(capacity)}"
    )
    fill = c.kv_cache / pool if pool > 0 else float("inf")
    holds = "holds" if c.kv_cache <= pool else "cannot hold"
    return (
        f"{engine} memory: {share}; weights {format_bytes(c.weights)} + activation peak "
        f"{format_bytes(c.activations)} + non-PyTorch memory {format_bytes(non_torch)} leave a "
        f"KV pool of {format_bytes(pool)}, which {holds} the users' {format_bytes(c.kv_cache)}"
        + (f" ({fill:.0%} full)" if fill != float("inf") else "")
        + (f"; {format_bytes(reserve)} reserved (unused by the engine)" if reserve > 0 else "")
    )


def _measures_its_pool(engine) -> bool:
    """Whether a serving engine sizes its KV pool from memory it measured (a share of the card or of
    the memory left free after a profiling run)."""
    if engine is None:
        return False
    fraction = float(engine.kv_cache.get("free_fraction", 1.0))
    return engine.paged and (engine.memory_fraction < 1 or fraction < 1)


def request_profile(req: PlanRequest) -> PrecisionProfile:
    """The request's precision resolved with its serving engine and training recipe."""
    engine = req.engine if req.task is Task.INFERENCE else None
    # Only QLoRA's base depends on the stack (LitGPT's bnb.nf4 vs the NF4-DQ default).
    framework = req.framework if req.task is Task.QLORA else Framework.DEFAULT
    return precision_profile(req.task, req.precision, engine, req.mixed_precision, framework)


def estimate_memory(
    req: PlanRequest,
    par: Parallelism = SINGLE,
    *,
    device: Device = Device.CUDA,
    optimizer_impl: OptimizerImpl = OptimizerImpl.FUSED,
    prefill_tokens: int | None = None,
    capacity: int | None = None,
    basis: MemoryBasis | None = None,
) -> MemoryEstimate:
    """Bytes on one device (the first pipeline stage) for `req` split as `par`, with the working.

    With the card's usable `capacity`, the overhead includes the share a serving engine leaves unused.
    `basis`: memory_basis of these arguments, where the caller holds it already (a layout search).
    """
    if basis is None:
        basis = memory_basis(req, device, optimizer_impl, prefill_tokens)
    comps, phase = basis.per_gpu(par, capacity)
    components = MemoryComponents(**{k: round(v) for k, v in comps.items()})
    pool = basis.kv_pool(par, capacity)
    overhead = _overhead_parts(basis, components, par)

    def wording() -> dict[str, Any]:
        formulas, notes = _explain(req, par, basis, phase, device, optimizer_impl, capacity)
        parts = _stack_parts(basis, par, phase, formulas)
        if pool is not None and capacity is not None:
            non_torch = basis.overhead_distributed if par.gpus > 1 else basis.overhead_single
            label = engine_spec(req.engine).label
            notes.append(_pool_note(basis, components, pool, capacity, label, non_torch))
        return {"formulas": formulas, "notes": tuple(notes), "stack_parts": parts}

    return MemoryEstimate.worded_later(
        wording,
        components=components,
        phase=phase,
        kv_pool_bytes=None if pool is None else round(pool),
        overhead_parts=overhead,
    )


def _stack_parts(
    basis: MemoryBasis, par: Parallelism, phase: str, formulas: dict[str, str]
) -> tuple[StackPart, ...]:
    """The stack's named buffers on one GPU of `par` that hold bytes at its peak (a buffer the layout
    or the phase does not have is left out), each also added to its component's formula."""
    parts = []
    for buffer, size in basis.stack_parts(par, phase):
        if size <= 0:
            continue
        parts.append(
            StackPart(
                name=buffer.name,
                component=buffer.component,
                bytes=round(size),
                formula=buffer.formula,
                source=buffer.source,
            )
        )
        if buffer.component in formulas:
            formulas[buffer.component] += f" + {buffer.name} {format_bytes(size)} ({buffer.formula})"
    return tuple(parts)


def _overhead_parts(basis: MemoryBasis, c: MemoryComponents, par: Parallelism) -> dict[str, int] | None:
    """The overhead component split: non-PyTorch memory, fragmentation, the engine's reserve."""
    if basis.device is not Device.CUDA:
        return None
    rest = c.weights + c.gradients + c.optimizer + c.activations
    _, context_and_frag = basis._context_overhead(rest, c.kv_cache, par.gpus)
    non_torch = round(basis.overhead_distributed if par.gpus > 1 else basis.overhead_single)
    fragmentation = max(0, round(context_and_frag) - non_torch)
    reserve = max(0, c.overhead - non_torch - fragmentation)
    return {
        "non_pytorch_bytes": non_torch,
        "fragmentation_bytes": c.overhead - non_torch - reserve,
        "engine_reserve_bytes": reserve,
    }


def _explain(
    req: PlanRequest,
    par: Parallelism,
    basis: MemoryBasis,
    phase: str,
    device: Device,
    optimizer_impl: OptimizerImpl,
    capacity: int | None,
) -> tuple[dict[str, str], list[str]]:
    """The formula behind each component, in words and numbers, and a note on the peak phase."""
    model = req.model
    shards = par.tensor * par.pipeline
    profile = basis.profile
    fmt = profile.weights
    weights = f"P x {fmt.bytes_per_weight:.4g} B ({fmt.label})"
    if fmt.embeddings_16bit and not fmt.head_16bit:
        sixteen = model.embedding_params() - model.untied_head_params()
        weights = (
            f"(P - {sixteen:,} embedding) x {fmt.bytes_per_weight:.4g} B ({fmt.label}) + embeddings x 2 B"
        )
    elif fmt.embeddings_16bit:
        weights = (
            f"(P - {model.embedding_params():,} embedding/head) x {fmt.bytes_per_weight:.4g} B ({fmt.label})"
            " + embeddings and head x 2 B"
        )
    f: dict[str, str] = {"weights": weights + (f" / (tp x pp = {shards})" if shards > 1 else "")}
    notes: list[str] = []
    if basis.inference:
        kv_shards = min(par.tensor, model.kv_heads) * par.pipeline
        users = par.users_per_replica(req.users)
        tokens = f"({req.prompt_tokens} + {req.output_tokens}) tokens"
        if basis.context_tokens != req.prompt_tokens + req.output_tokens:
            tokens += f" in whole blocks = {basis.context_tokens}"
        f["kv_cache"] = (
            f"2 x L {model.n_layers} x {model.kv_heads} KV heads x {model.d_head} x "
            f"{profile.kv_bytes} B x {users} users x {tokens}" + (f" / {kv_shards}" if kv_shards > 1 else "")
        )
    else:
        zero, dp = par.zero_stage, par.data
        if req.task.is_adapter:
            adapter_b = basis.adapter_weights / basis.trainable if basis.adapter_weights else 4.0
            f["weights"] += (
                f" + {basis.trainable:,} LoRA params x {adapter_b:g} B (r = {req.assumptions.lora_rank})"
            )
        if zero >= 3:
            f["weights"] += f", / dp {dp} (ZeRO-3) + 2 gathered layers" + (
                f" / tp {par.tensor}" if par.tensor > 1 else ""
            )
        f["gradients"] = f"{basis.trainable:,} trainable x {basis.grad_bytes:g} B" + (
            f" / dp {dp} (ZeRO-2)" if zero >= 2 else ""
        )
        if basis.grad_bytes == 0 and basis.stack_buffers:
            f["gradients"] = "no 16-bit gradients (each is written straight into the stack's buffer)"
        elif phase == "backward" and not basis.grads_at_backward and basis.head_grad:
            # What is live at this peak: the head's gradient alone (the row read '125 MiB = 982,575,104
            # trainable x 2 B'); the rest appear as activations are freed (the note below).
            f["gradients"] = (
                f"the output head's only, at this moment: {model.vocab_size:,} x {model.hidden_size:,} x "
                f"{basis.grad_bytes:g} B" + (f" / (tp x pp = {shards})" if shards > 1 else "")
            )
        precision = (
            "mixed precision" if profile.master_weights else "pure 16-bit" if not req.mixed_precision else ""
        )
        f["optimizer"] = (
            f"{basis.trainable:,} x {basis.opt_bytes:.3g} B ({req.optimizer}"
            + (f", {precision})" if precision else ")")
            + (f" / dp {dp} (ZeRO-1+)" if zero >= 1 else "")
        )
        if basis.optimizer_transient:
            f["optimizer"] += f" + {optimizer_impl} step temporaries"
        grads = basis.trainable * basis.grad_bytes / shards / (dp if zero >= 2 else 1)
        if phase == "backward" and basis.grads_at_backward:
            notes.append(
                f"Peak at the start of backward: with {req.grad_accumulation_steps} accumulation steps "
                f"every gradient ({format_bytes(grads)}) is already allocated."
            )
        elif phase == "backward":
            notes.append(
                f"Peak at the start of backward: gradients ({format_bytes(grads)}) appear only as "
                "activations are freed, so they are not counted at this moment (one micro-batch per "
                "step, gradients freed by zero_grad(set_to_none=True))."
            )
        else:
            notes.append(
                "Peak at the optimizer step: all gradients and the optimizer's state are live, "
                "activations are freed by then."
            )
    f["activations"] = basis.activations_formula
    if device is Device.CUDA:
        context = basis.overhead_distributed if par.gpus > 1 else basis.overhead_single
        paged = " (the paged KV cache excluded)" if basis.paged_kv else ""
        slack = (
            "no fragmentation added (the engine measures its peak before sizing its KV pool)"
            if basis.fragmentation == 0 and basis.reserves
            else f"{req.assumptions.fragmentation:.0%} allocator fragmentation of the rest{paged}"
        )
        # The overhead's parts, each with its own working (overhead_parts), and the overhead as their sum.
        f["non_pytorch"] = (
            f"CUDA context, workspaces and kernels {format_bytes(context)} ({basis.overhead_source})"
        )
        f["fragmentation"] = slack
        reserve = []
        if capacity is not None and basis.memory_fraction < 1:
            reserve.append(f"the {1 - basis.memory_fraction:.0%} of the card the engine leaves unused")
        if capacity is not None and basis.kv_free_fraction < 1:
            reserve.append(f"the {1 - basis.kv_free_fraction:.0%} of free memory kept out of the KV pool")
        if reserve:
            f["engine_reserve"] = " + ".join(reserve)
        f["overhead"] = " + ".join([f["non_pytorch"], slack, *reserve])
    else:
        f["overhead"] = "none on CPU (live tensor bytes)"
    return f, notes


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
