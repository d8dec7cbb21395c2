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

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from .architecture import ModelSpec
from .estimates import MemoryComponents, MemoryEstimate
from .layout import SINGLE, Parallelism
from .precision import PrecisionProfile, Task, optimizer_bytes_per_param, precision_profile
from .request import Attention, PlanRequest
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
    logits = 0
    if model.is_decoder or model.family.value == "bert":
        copies = LOSS_FP32_COPIES * 4 + (elem if elem < 4 else 0)
        logits = tokens * model.vocab_size * copies
        formula += f"; loss: b x s x V x {copies} B (fp32 log-softmax, its gradient, logit gradient)"
    return round(saved_bytes + logits), formula


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
    gathered_layers: float  # ZeRO-3: the current and the prefetched layer, gathered
    kv_bytes_per_sequence: float
    context_tokens: int
    users: int
    kv_heads: int
    cuda_context_bytes: float
    fragmentation: float

    def per_gpu(self, par: Parallelism) -> tuple[dict[str, float], str]:
        """Components on the first pipeline stage's GPU, and the phase at which they peak."""
        shards = par.tensor * par.pipeline
        weights = self.weights / shards
        # Activations: sequence parallelism with tensor parallelism divides every one by t.
        if self.inference:
            kv_shards = min(par.tensor, self.kv_heads) * par.pipeline
            sequences = par.users_per_replica(self.users)
            comps = {
                "weights": weights,
                "kv_cache": sequences * self.kv_bytes_per_sequence / kv_shards,
                "activations": self.activations / par.tensor,
            }
            return self._with_overhead(comps), "inference"
        zero, dp = par.zero_stage, par.data
        weights += self.adapter_weights / shards
        if zero >= 3:
            weights = weights / dp + self.gathered_layers
        grads = self.trainable * self.grad_bytes / shards / (dp if zero >= 2 else 1)
        optimizer = self.trainable * self.opt_bytes / shards / (dp if zero >= 1 else 1)
        backward = {
            "weights": weights,
            "gradients": self.head_grad / shards,
            "optimizer": optimizer,
            "activations": self.activations / par.tensor,
        }
        step = {
            "weights": weights,
            "gradients": grads,
            "optimizer": optimizer + self.optimizer_transient / shards,
            "activations": 0.0,
        }
        if sum(backward.values()) >= sum(step.values()):
            return self._with_overhead(backward), "backward"
        return self._with_overhead(step), "optimizer step"

    def per_gpu_total(self, par: Parallelism) -> int:
        return round(sum(self.per_gpu(par)[0].values()))

    def _with_overhead(self, comps: dict[str, float]) -> dict[str, float]:
        if self.device is Device.CUDA:
            comps["overhead"] = self.cuda_context_bytes + self.fragmentation * sum(comps.values())
        else:
            comps["overhead"] = 0.0
        return comps


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
        from .trace import traced_basis

        formula = memory_basis(req.model_copy(update={"trace": None}), device, optimizer_impl, prefill_tokens)
        return traced_basis(req, formula)
    # ---- end of the traced case ---------------------------------------------------------------------
    model = req.model
    profile = precision_profile(req.task, req.precision)
    elem = profile.activation_bytes
    a = req.assumptions
    trainable, grad_b, opt_b, transient, adapter, head_grad, gathered = 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    if req.task is Task.INFERENCE:
        activations, activations_formula = _inference_activations(req, model, elem, prefill_tokens)
    else:
        activations, activations_formula = _training_activations(req, model, elem)
        if req.task.is_adapter:
            trainable = lora_params(model, a.lora_rank, a.lora_all_linear)
            grad_b = 4.0  # PEFT keeps adapters and their gradients in fp32
            opt_b = optimizer_bytes_per_param(
                req.optimizer, master_weights=False, hidden_size=model.hidden_size
            )
            adapter = trainable * 4.0
        else:
            trainable = model.total_params()
            grad_b = float(profile.gradient_bytes)
            opt_b = optimizer_bytes_per_param(
                req.optimizer, master_weights=profile.master_weights, hidden_size=model.hidden_size
            )
            head_grad = model.vocab_size * model.hidden_size * grad_b
        if optimizer_impl is OptimizerImpl.FOREACH:
            transient = trainable * 4.0
        elif optimizer_impl is OptimizerImpl.FOR_LOOP:
            largest = min(trainable, model.largest_tensor_params())
            transient = 2 * largest * 4.0
        gathered = 2 * model.layer_params() * profile.weight_bytes
    context = req.prompt_tokens + req.output_tokens
    kv_seq = kv_cache_bytes(model, context, profile.kv_bytes) if model.is_decoder else 0
    return MemoryBasis(
        inference=req.task is Task.INFERENCE,
        device=device,
        profile=profile,
        weights=model.total_params() * profile.weight_bytes,
        adapter_weights=adapter,
        trainable=trainable,
        grad_bytes=grad_b,
        opt_bytes=opt_b,
        optimizer_transient=transient,
        activations=activations,
        activations_formula=activations_formula,
        head_grad=head_grad,
        gathered_layers=gathered,
        kv_bytes_per_sequence=kv_seq,
        context_tokens=context,
        users=req.users,
        kv_heads=model.kv_heads,
        cuda_context_bytes=a.cuda_context_bytes,
        fragmentation=a.fragmentation,
    )


def estimate_memory(
    req: PlanRequest,
    par: Parallelism = SINGLE,
    *,
    device: Device = Device.CUDA,
    optimizer_impl: OptimizerImpl = OptimizerImpl.FUSED,
    prefill_tokens: int | None = None,
) -> MemoryEstimate:
    """Bytes on one device (the first pipeline stage) for `req` split as `par`, with the working."""
    basis = memory_basis(req, device, optimizer_impl, prefill_tokens)
    comps, phase = basis.per_gpu(par)
    components = MemoryComponents(**{k: round(v) for k, v in comps.items()})
    formulas, notes = _explain(req, par, basis, phase, device, optimizer_impl)
    return MemoryEstimate(components=components, phase=phase, formulas=formulas, notes=tuple(notes))


def _explain(
    req: PlanRequest,
    par: Parallelism,
    basis: MemoryBasis,
    phase: str,
    device: Device,
    optimizer_impl: OptimizerImpl,
) -> tuple[dict[str, str], list[str]]:
    """The formula behind each component, in words and numbers, and a note on the peak phase."""
    model = req.model
    shards = par.tensor * par.pipeline
    profile = basis.profile
    f: dict[str, str] = {
        "weights": f"P x {profile.weight_bytes:.4g} B ({profile.weight_format})"
        + (f" / (tp x pp = {shards})" if shards > 1 else "")
    }
    notes: list[str] = []
    if basis.inference:
        kv_shards = min(par.tensor, model.kv_heads) * par.pipeline
        users = par.users_per_replica(req.users)
        f["kv_cache"] = (
            f"2 x L {model.n_layers} x {model.kv_heads} KV heads x {model.d_head} x "
            f"{profile.kv_bytes} B x {users} users x ({req.prompt_tokens} + "
            f"{req.output_tokens}) tokens" + (f" / {kv_shards}" if kv_shards > 1 else "")
        )
    else:
        zero, dp = par.zero_stage, par.data
        if req.task.is_adapter:
            f["weights"] += f" + {basis.trainable:,} LoRA params x 4 B (r = {req.assumptions.lora_rank})"
        if zero >= 3:
            f["weights"] += f", / dp {dp} (ZeRO-3) + 2 gathered layers"
        f["gradients"] = f"{basis.trainable:,} trainable x {basis.grad_bytes:g} B" + (
            f" / dp {dp} (ZeRO-2)" if zero >= 2 else ""
        )
        f["optimizer"] = f"{basis.trainable:,} x {basis.opt_bytes:.3g} B ({req.optimizer})" + (
            f" / dp {dp} (ZeRO-1+)" if zero >= 1 else ""
        )
        if basis.optimizer_transient:
            f["optimizer"] += f" + {optimizer_impl} step temporaries"
        grads = basis.trainable * basis.grad_bytes / shards / (dp if zero >= 2 else 1)
        if phase == "backward":
            notes.append(
                f"Peak at the start of backward: gradients ({format_bytes(grads)}) appear only as "
                "activations are freed, so they are not counted at this moment."
            )
        else:
            notes.append(
                "Peak at the optimizer step: all gradients and the optimizer's state are live, "
                "activations are freed by then."
            )
    f["activations"] = basis.activations_formula
    if device is Device.CUDA:
        a = req.assumptions
        f["overhead"] = (
            f"CUDA context {format_bytes(a.cuda_context_bytes, 'MiB')} + {a.fragmentation:.0%} "
            "allocator fragmentation of the rest"
        )
    else:
        f["overhead"] = "none on CPU (live tensor bytes)"
    return f, notes
