"""Time estimates: training step and time to train (6PD), inference prefill and decode (roofline).

Every function takes the peaks of one GPU and a parallel layout, and returns seconds with the bound
(compute or memory) that set them. Efficiencies (MFU, bandwidth efficiency) are stated assumptions.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict

from .estimates import InferenceSpeed, TrainingSpeed
from .layout import Parallelism
from .memory import Device, kv_bytes_per_token, memory_basis
from .precision import precision_profile
from .request import PlanRequest
from .units import format_bytes

PIPELINE_MICROBATCHES = 8  # micro-batches per step assumed for the 1F1B bubble (p - 1) / (m + p - 1)


class DevicePeaks(BaseModel):
    """What one device can do: dense FLOP/s for the compute dtype, memory bandwidth, link bandwidth."""

    model_config = ConfigDict(frozen=True)
    flops_per_s: float
    bandwidth_bytes_per_s: float
    link_bytes_per_s: float = 0.0
    nvlink: bool = False
    name: str = ""


def tp_speedup(tp: int, peaks: DevicePeaks, efficiency: float) -> float:
    """Speed-up from tensor parallelism: t x efficiency per doubling (squared over PCIe)."""
    if tp <= 1:
        return 1.0
    per_doubling = efficiency if peaks.nvlink else efficiency**2
    return tp * per_doubling ** math.log2(tp)


def training_flops_per_token(req: PlanRequest) -> float:
    """6 P (forward 2P, backward 4P), 8 P with full recompute, 4 P for frozen-base adapters (no weight
    gradients), plus attention 6 L s (a d) (forward and backward, causal mask not exploited)."""
    model = req.model
    p = model.active_params()
    mult = 4.0 if req.task.is_adapter else 6.0
    if req.grad_checkpointing:
        mult += 2.0
    attn = 6.0 * model.n_layers * req.seq_len * model.n_heads * model.d_head
    return mult * p + attn


def training_speed(req: PlanRequest, par: Parallelism, peaks: DevicePeaks) -> TrainingSpeed:
    """Step time for one step of `batch_size` sequences per data-parallel replica."""
    a = req.assumptions
    f_tok = training_flops_per_token(req)
    tokens_replica = req.batch_size * req.seq_len
    speed = tp_speedup(par.tensor, peaks, a.tp_efficiency) * par.pipeline
    bubble = (par.pipeline - 1) / (PIPELINE_MICROBATCHES + par.pipeline - 1)
    compute_s = tokens_replica * f_tok / (peaks.flops_per_s * a.mfu * speed) / (1 - bubble)
    # Memory traffic: weights read in forward and twice in backward; the trainable parameters'
    # gradients and optimizer state (whatever the optimizer keeps) read and written once at the step.
    basis = memory_basis(req, Device.CUDA)
    weights_read = 3 * basis.weights / par.model_parallel
    state_traffic = 2 * basis.trainable * (basis.grad_bytes + basis.opt_bytes) / par.model_parallel
    traffic = weights_read + state_traffic
    memory_s = traffic / (peaks.bandwidth_bytes_per_s * a.bandwidth_efficiency)
    step = max(compute_s, memory_s)
    bound = "compute" if compute_s >= memory_s else "memory"
    tokens_per_step = tokens_replica * par.data
    tok_s = tokens_per_step / step
    ttt = gpu_hours = None
    if req.train_tokens:
        ttt = req.train_tokens / tok_s
        gpu_hours = ttt * par.gpus / 3600
    formula = (
        f"step = b x s x {f_tok / req.model.active_params():.1f} P FLOPs / (peak x MFU {a.mfu:.2f}"
        f" x TP speed-up {speed:.2f})"
    )
    return TrainingSpeed(
        flops_per_token=f_tok,
        tokens_per_step=tokens_per_step,
        step_time_s=step,
        tokens_per_s=tok_s,
        time_to_train_s=ttt,
        gpu_hours=gpu_hours,
        bound=bound,
        formula=formula,
    )


def decode_bytes_per_step(req: PlanRequest, concurrency: int) -> float:
    """Bytes read per decode step: the weights an active token set touches, plus every cached K/V."""
    model = req.model
    wb = precision_profile(req.task, req.precision).weight_bytes
    if model.is_moe:
        experts_touched = min(model.n_experts, concurrency * model.experts_per_token)
        dense = model.total_params() - model.n_layers * model.n_experts * model.expert_params()
        weights = (dense + model.n_layers * experts_touched * model.expert_params()) * wb
    else:
        weights = model.total_params() * wb
    avg_context = req.prompt_tokens + req.output_tokens / 2
    kv_per_token = kv_bytes_per_token(model, precision_profile(req.task, req.precision).kv_bytes)
    return weights + concurrency * avg_context * kv_per_token


def inference_speed(
    req: PlanRequest, par: Parallelism, peaks: DevicePeaks, concurrency: int | None = None
) -> InferenceSpeed:
    """Prefill of one user's prompt, and decode per token with `concurrency` users per replica."""
    a = req.assumptions
    model = req.model
    c = concurrency if concurrency is not None else par.users_per_replica(req.users)
    p_active = model.active_params()
    speed = tp_speedup(par.tensor, peaks, a.tp_efficiency)
    n = req.prompt_tokens
    prefill_flops = 2 * p_active * n + 2 * model.n_layers * n * n * model.n_heads * model.d_head
    prefill_compute = prefill_flops / (peaks.flops_per_s * a.prefill_efficiency * speed)
    weights_read = model.total_params() * precision_profile(req.task, req.precision).weight_bytes
    prefill_memory = weights_read / (peaks.bandwidth_bytes_per_s * a.bandwidth_efficiency * speed)
    prefill = max(prefill_compute, prefill_memory)
    decode_compute = 2 * p_active * c / (peaks.flops_per_s * a.prefill_efficiency * speed)
    decode_bytes = decode_bytes_per_step(req, c)
    decode_memory = decode_bytes / (peaks.bandwidth_bytes_per_s * a.bandwidth_efficiency * speed)
    decode = max(decode_compute, decode_memory)
    bound = "memory" if decode_memory >= decode_compute else "compute"
    per_user = 1.0 / decode
    formula = (
        f"decode = max(bytes read {format_bytes(decode_bytes)} / (bandwidth x "
        f"{a.bandwidth_efficiency:.2f}), 2 P x {c} users / (peak x {a.prefill_efficiency:.2f})) / TP speed-up"
    )
    return InferenceSpeed(
        flops_per_token=2.0 * p_active,
        prefill_s=prefill,
        decode_s_per_token=decode,
        tokens_per_s_per_user=per_user,
        tokens_per_s=per_user * c * par.data,
        bound=bound,
        formula=formula,
    )
