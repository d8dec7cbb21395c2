"""Time estimates: a training step with its communication, and inference prefill and decode.

Every function takes one GPU's peaks with its efficiencies and links (DevicePeaks) and a parallel
layout, and returns seconds with the bound that set them and every term of the step with its formula.
- Training: compute, the FLOPs executed (the forward recomputed under checkpointing is real work) at
  the architecture's utilisation; the weights' memory traffic; the memory-bound kernels between the
  GEMMs at the bandwidth (elementwise norms, activations and residual adds, and eager attention's
  passes over its s x s scores); tensor-
  parallel all-reduces; ZeRO-3 gathers (per layer, the longer of compute and gathering); the data-
  parallel gradient reduction, hidden behind backward where it can be; the pipeline bubble of the
  schedule (interleaved or plain 1F1B); host (launch) overhead, which overlaps the GPU's work.
- Serving: each operator group on its own roofline, the groups summed: the weight GEMMs (FLOPs at
  the engine's compute efficiency, the weights at its bandwidth efficiency for the weight format) and
  attention over the prompt or the KV cache; tensor-parallel all-reduces; a fixed per-step overhead.
"""

from __future__ import annotations

import dataclasses
import math
from functools import lru_cache
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict

from .architecture import ModelSpec
from .comms import Fabric, Group, all_gather_s, all_reduce_s, link_name, p2p_s
from .efficiency import Efficiency, efficiencies, resolve_efficiency
from .estimates import InferenceSpeed, SpeedSummary, SpeedTerm, TrainingSpeed
from .layout import Parallelism
from .memo import same_args_as_recent_call
from .memory import DROPOUT_MASK_BYTES, Device, MemoryBasis, kv_bytes_per_token, memory_basis, request_profile
from .precision import PrecisionProfile
from .request import Attention, PlanRequest
from .units import format_bytes, format_duration, format_pct


class DevicePeaks(BaseModel):
    """What one device can do: dense FLOP/s for the compute dtype, memory bandwidth, how close real
    stacks come to them (None: the tables' defaults), and its links (None: one GPU, no links)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
    flops_per_s: float
    bandwidth_bytes_per_s: float
    name: str = ""
    efficiency: Efficiency | None = None
    fabric: Fabric | None = None
    host_serial: bool = False  # the host runs the kernels itself (CPU): host time adds, not overlaps


def _efficiency(req: PlanRequest, peaks: DevicePeaks) -> Efficiency:
    if peaks.efficiency is not None:
        eff = peaks.efficiency
    else:  # a device outside the catalogue (the CPU bench): the default tables
        profile = request_profile(req)
        a = req.assumptions
        engine = req.engine if not req.task.is_training else None
        eff = resolve_efficiency(
            "",
            False,
            profile.peak_column,
            profile.weights.bandwidth_key,
            engine,
            a.mfu,
            a.prefill_efficiency,
            a.bandwidth_efficiency,
            framework=req.framework.value,
        )
        if peaks.host_serial:  # eager PyTorch on a CPU: dispatch per layer, measured here
            cpu = efficiencies().cpu
            host = (
                cpu.training_host_overhead_per_layer_s
                if req.task.is_training
                else cpu.host_overhead_per_layer_s
            )
            eff = dataclasses.replace(
                eff, host_overhead_per_layer_s=host, step_overhead_s=0.0, overhead_source=cpu.source
            )
    a = req.assumptions
    if a.step_overhead_s is not None:
        eff = dataclasses.replace(eff, step_overhead_s=a.step_overhead_s)
    if a.host_overhead_per_layer_s is not None:
        eff = dataclasses.replace(eff, host_overhead_per_layer_s=a.host_overhead_per_layer_s)
    return eff


def training_flops_per_token(req: PlanRequest) -> float:
    """Model FLOPs per trained token (PaLM, Chowdhery et al. 2022, appendix B): 6P (forward 2P, backward
    4P), 4P for frozen-base adapters (no weight gradients), plus attention 12 L s (a d) (forward and
    backward, causal mask not exploited). Recomputation is not counted: see hardware_flops_per_token."""
    return _flops(req.model, req.task.is_adapter, req.seq_len, False)


def hardware_flops_per_token(req: PlanRequest) -> float:
    """Model FLOPs plus the forward pass recomputed under activation checkpointing (2P + 4 L s a d)."""
    return _flops(req.model, req.task.is_adapter, req.seq_len, req.grad_checkpointing)


def fused_attention_flops_per_token(req: PlanRequest) -> float:
    """The attention score FLOPs per token that SDPA/flash attention runs in its fused kernel: 12 L s (a d)
    (QK^T and PV forward, twice that backward), 16 with the forward recomputed. 0 under eager attention,
    whose score products are cuBLAS batched GEMMs like the parameter GEMMs (its softmax and score traffic
    are timed apart at the bandwidth, attention_scores_bytes)."""
    if req.attention is Attention.EAGER:
        return 0.0
    model = req.model
    attn = model.n_layers * req.seq_len * model.n_heads * model.d_head
    return (16.0 if req.grad_checkpointing else 12.0) * attn


@same_args_as_recent_call
@lru_cache(maxsize=256)
def _flops(model: ModelSpec, adapter: bool, seq_len: int, recompute: bool) -> float:
    attn = model.n_layers * seq_len * model.n_heads * model.d_head
    flops = (4.0 if adapter else 6.0) * model.active_params() + 12.0 * attn
    if recompute:
        flops += 2.0 * model.active_params() + 4.0 * attn
    return flops


@lru_cache(maxsize=4096)
def _groups_of(tensor: int, data: int, node_gpus: int) -> tuple[Group, Group, bool]:
    """Tensor-parallel and data-parallel groups, and whether pipeline neighbours sit on other nodes.

    Ranks are ordered Megatron-style (tensor innermost, then data, pipeline outermost): a node holds
    node_gpus / tp data-parallel replicas of one stage.
    """
    tp_group = Group(tensor, min(tensor, node_gpus))
    dp_group = Group(data, max(1, min(data, node_gpus // tensor)))
    return tp_group, dp_group, tensor * data >= node_gpus


def _layout_groups(fabric: Fabric | None, par: Parallelism) -> tuple[Group, Group, bool]:
    """_groups_of for a layout on a fabric (none: one node holds every GPU)."""
    return _groups_of(par.tensor, par.data, fabric.node_gpus if fabric is not None else max(par.gpus, 1))


# Training ---------------------------------------------------------------------------------------------


class _TrainingJob(NamedTuple):
    """What a training step's time takes from the request and the device, resolved once: the search
    times many layouts of one request on one GPU. A NamedTuple: immutable, and built in a fraction of
    a frozen dataclass's time (one per GPU of a plan)."""

    req: PlanRequest
    basis: MemoryBasis
    model_flops_per_token: float
    hardware_flops_per_token: float
    micro_batches: int  # per optimizer step (gradient accumulation) without a global batch
    # With a global batch: its sequences over the micro-batch, which each layout's replicas share
    # (micro-batches per replica = this / data-parallel degree, _micro_batches). None: no global batch.
    replica_batches: int | None
    tokens_per_micro_batch: int  # b x s
    micro_batch_flops: float  # b x s x the FLOPs executed per token (recomputation included)
    micro_batch_score_flops: float  # the part of them fused (SDPA) attention runs: 12 L s a d (16 recomputed)
    attention_scores_bytes: float  # eager attention's reads and writes of its scores, one micro-batch
    elementwise_bytes: float  # norms, activations, residual adds and dropout, one micro-batch
    weights_bytes: float
    layer_params: int
    activation_bytes: int  # bytes of one activation value
    micro_batch_activation_bytes: float  # b x s x h x activation bytes
    tp_collectives_per_layer: int
    n_layers: int
    layers_per_virtual_stage: int
    interleaved_pipeline: bool  # interleaved 1F1B (virtual stages), else plain 1F1B
    dp_comm_overlap: float
    grad_and_state_bytes_per_param: float
    trainable_grad_bytes: float
    total_tokens: float | None
    # The device's: the last fields, so that a job is the request's constants followed by these.
    peaks: DevicePeaks
    eff: Efficiency
    achieved_flops_per_s: float  # peak x MFU
    achieved_attention_flops_per_s: float  # peak x the fused attention kernel's utilisation
    achieved_bytes_per_s: float  # bandwidth x efficiency


# The request's fields of a _TrainingJob, in order (the device's five come last).
_CONSTANT_FIELDS = _TrainingJob._fields[:-5]


def _training_job(req: PlanRequest, peaks: DevicePeaks, basis: MemoryBasis) -> _TrainingJob:
    eff = _efficiency(req, peaks)
    flops_per_s = peaks.flops_per_s
    return _TrainingJob._make(  # positionally: one job per GPU and recipe of a plan
        (
            *_training_constants(req, basis),
            peaks,
            eff,
            flops_per_s * eff.mfu,
            flops_per_s * eff.attention_utilisation,
            peaks.bandwidth_bytes_per_s * eff.bandwidth,
        )
    )


@same_args_as_recent_call
def _training_constants(req: PlanRequest, basis: MemoryBasis) -> tuple[Any, ...]:
    """The fields of a _TrainingJob that come from the request alone, in the job's order: worked out
    once for every GPU of a plan (the recommender asks with the same request and basis objects)."""
    model = req.model
    a = req.assumptions
    model_flops = training_flops_per_token(req)
    tokens = req.batch_size * req.seq_len
    constants = dict(
        req=req,
        basis=basis,
        model_flops_per_token=model_flops,
        hardware_flops_per_token=hardware_flops_per_token(req),
        micro_batches=req.grad_accumulation_steps,
        replica_batches=None
        if req.global_batch is None or not req.task.is_training
        else req.global_batch // req.batch_size,
        tokens_per_micro_batch=tokens,
        micro_batch_flops=tokens * hardware_flops_per_token(req),  # recomputation is real work
        micro_batch_score_flops=tokens * fused_attention_flops_per_token(req),
        attention_scores_bytes=attention_scores_bytes(req, basis.profile.activation_bytes),
        elementwise_bytes=tokens
        * model.n_layers
        * elementwise_bytes_per_token_layer(req, basis.profile.activation_bytes),
        weights_bytes=basis.weights,
        layer_params=model.layer_params(),
        activation_bytes=basis.profile.activation_bytes,
        micro_batch_activation_bytes=tokens * model.hidden_size * basis.profile.activation_bytes,
        tp_collectives_per_layer=6 if req.grad_checkpointing else 4,
        n_layers=model.n_layers,
        layers_per_virtual_stage=a.pipeline_layers_per_virtual_stage,
        interleaved_pipeline=a.pipeline_interleaved,
        dp_comm_overlap=a.dp_comm_overlap,
        grad_and_state_bytes_per_param=basis.grad_bytes + basis.opt_bytes,
        trainable_grad_bytes=basis.trainable * basis.grad_bytes,
        total_tokens=req.total_train_tokens,
    )
    return tuple(constants[name] for name in _CONSTANT_FIELDS)


def elementwise_bytes_per_token_layer(req: PlanRequest, elem: int) -> float:
    """The memory traffic of a layer's elementwise kernels per trained token (fused kernels): each norm
    reads and writes h, each of the two residual adds reads 2h and writes h, the MLP's activation reads
    and writes f (GELU) or reads 2f and writes f (SiLU x up), each of the two dropouts reads and writes
    h and writes its mask. Backward reads each saved input and the incoming gradient and writes the
    outgoing one, twice the forward's traffic; recomputation repeats the forward."""
    model = req.model
    h, f = model.hidden_size, model.ffn_size
    mlp = (3 if model.gated_mlp else 2) * f * elem * model.experts_per_token
    forward = model.layer_norms * 2 * h * elem + 2 * 3 * h * elem + mlp
    if model.uses_dropout:
        forward += 2 * (2 * h * elem + h * DROPOUT_MASK_BYTES)
    return forward * (4 if req.grad_checkpointing else 3)


def attention_scores_bytes(req: PlanRequest, elem: int) -> float:
    """Eager attention's memory traffic over its a x s x s scores in one micro-batch of training, all
    layers (0 under SDPA/flash attention, which never writes them out). Per score, at `elem` bytes:
    forward 4 (the QK^T GEMM writes it, softmax reads it and writes the probabilities, the PV GEMM reads
    them); backward 7 (dP written, P read for dV, softmax backward reads P and dP and writes dS, which
    the dQ and dK GEMMs each read); recomputation repeats the forward; dropout adds a read, a write and
    its 1-byte mask forward, and the mask, a read and a write backward."""
    if req.attention is not Attention.EAGER:
        return 0.0
    model = req.model
    forward, backward = 4.0 * elem, 7.0 * elem
    if model.uses_dropout:
        forward += 2 * elem + DROPOUT_MASK_BYTES
        backward += 2 * elem + DROPOUT_MASK_BYTES
    per_score = forward * (2 if req.grad_checkpointing else 1) + backward
    scores = req.batch_size * model.n_layers * model.n_heads * req.seq_len * req.seq_len
    return scores * per_score


class _Zero3Gathers(NamedTuple):
    """ZeRO-3's per-layer communication and the time it adds to one micro-batch beyond its compute."""

    extra_s: float
    gather_s: float
    scatter_s: float
    layer_bytes: float


class _TrainingStep(NamedTuple):
    """The terms of one optimizer step of one layout, in seconds. The micro-batch terms are for one
    micro-batch: the step repeats them `micro_batches` times."""

    layers_per_stage: float
    micro_batches: int  # per replica per optimizer step (_micro_batches)
    compute_s: float  # one micro-batch: the GEMMs and fused attention's kernel
    attention_kernel_s: float  # one micro-batch: fused attention's part of compute_s (0 under eager)
    weights_read_s: float  # one micro-batch
    attention_scores_s: float  # one micro-batch: eager attention's score traffic (0 under SDPA)
    elementwise_s: float  # one micro-batch: norms, activations, residual adds, dropout
    zero3: _Zero3Gathers | None
    tp_all_reduces_s: float  # one micro-batch
    gpu_micro_batch_s: float  # max(compute + ZeRO-3, weights read) + scores + elementwise + TP
    micro_batch_s: float  # with host time
    virtual_stages: int
    bubble_s: float
    pipeline_sends_s: float
    dp_reduction_s: float
    dp_exposed_s: float
    optimizer_s: float
    step_s: float
    tokens_per_s: float


def _micro_batches(job: _TrainingJob, data: int) -> int:
    """Micro-batches per replica per optimizer step on `data` replicas: with a global batch the ones
    that keep replicas x micro-batch x accumulation at it (as core/recipe.py's keep_global_batch gives
    the option kept), so the search weighs the bubble and per-step costs at each layout's own
    accumulation; else (or where the replicas do not divide it) the request's accumulation."""
    batches = job.replica_batches
    if batches is None or batches % data:
        return job.micro_batches
    return batches // data


def _compute_s(job: _TrainingJob, shards: int, attention_kernel_s: float) -> float:
    """Compute of one micro-batch on one GPU: the parameter GEMMs (and eager attention's score GEMMs) at
    the MFU, plus fused attention's score FLOPs at that kernel's own utilisation (_attention_kernel_s)."""
    gemm_flops = job.micro_batch_flops - job.micro_batch_score_flops
    return gemm_flops / shards / job.achieved_flops_per_s + attention_kernel_s


def _attention_kernel_s(job: _TrainingJob, shards: int) -> float:
    """Fused (SDPA/flash) attention's score FLOPs of one micro-batch on one GPU at the kernel's measured
    utilisation (heads split over tensor parallelism, layers over the pipeline). 0 under eager attention."""
    return job.micro_batch_score_flops / shards / job.achieved_attention_flops_per_s


def _weights_read_s(job: _TrainingJob, shards: int) -> float:
    """The weights read in forward and twice in backward, per micro-batch."""
    return 3 * job.weights_bytes / shards / job.achieved_bytes_per_s


def _attention_scores_s(job: _TrainingJob, shards: int) -> float:
    """Eager attention's score traffic of one micro-batch on one GPU: memory-bound kernels of their own,
    between the GEMMs (heads split over tensor parallelism, layers over the pipeline)."""
    return job.attention_scores_bytes / shards / job.achieved_bytes_per_s


def _elementwise_s(job: _TrainingJob, shards: int) -> float:
    """The elementwise kernels of one micro-batch on one GPU, at the memory bandwidth between the GEMMs
    (split over tensor parallelism, whose sequence parallelism shards them too, and the pipeline)."""
    return job.elementwise_bytes / shards / job.achieved_bytes_per_s


def _zero3_gathers(
    job: _TrainingJob, par: Parallelism, dp_group: Group, layers_per_stage: float, compute_s: float
) -> _Zero3Gathers | None:
    """ZeRO-3: each layer's weights gathered before forward and again before backward, and its
    gradients reduce-scattered after; per layer the longer of compute and communication counts.
    None where the layout gathers nothing (below ZeRO-3, one replica, or no fabric)."""
    fabric = job.peaks.fabric
    if par.zero_stage < 3 or fabric is None or par.data <= 1:
        return None
    layer_bytes = job.layer_params * job.activation_bytes / par.tensor
    gather_s = all_gather_s(fabric, dp_group, layer_bytes)
    scatter_s = all_gather_s(fabric, dp_group, job.layer_params * job.basis.grad_bytes / par.tensor)
    forward_layer_s, backward_layer_s = compute_s / 3 / layers_per_stage, 2 * compute_s / 3 / layers_per_stage
    with_comm_s = layers_per_stage * (
        max(forward_layer_s, gather_s) + max(backward_layer_s, gather_s + scatter_s)
    )
    return _Zero3Gathers(with_comm_s - compute_s, gather_s, scatter_s, layer_bytes)


def _zero3_extra_s(zero3: _Zero3Gathers | None) -> float:
    """What ZeRO-3's gathers add to one micro-batch beyond its compute (0 without them)."""
    return zero3.extra_s if zero3 is not None else 0.0


def _tp_all_reduces_s(job: _TrainingJob, par: Parallelism, tp_group: Group, layers_per_stage: float) -> float:
    """Tensor parallelism: with sequence parallelism two all-gather/reduce-scatter pairs per layer in
    forward and two in backward (Korthikanti et al. 2022), each the volume of one all-reduce of the
    layer's activations; recomputation repeats the forward ones. One micro-batch."""
    fabric = job.peaks.fabric
    if par.tensor <= 1 or fabric is None:
        return 0.0
    return (
        layers_per_stage
        * job.tp_collectives_per_layer
        * all_reduce_s(fabric, tp_group, job.micro_batch_activation_bytes)
    )


def _gpu_micro_batch_s(
    compute_s: float, zero3_extra_s: float, weights_read_s: float, memory_bound_s: float, tp_s: float
) -> float:
    """The GPU's work on one micro-batch: the longer of its compute (with ZeRO-3's gathers) and its
    weight reads, then the memory-bound kernels between the GEMMs (elementwise, eager attention's
    scores) and the tensor-parallel collectives."""
    return max(compute_s + zero3_extra_s, weights_read_s) + memory_bound_s + tp_s


def _host_s(job: _TrainingJob, layers_per_stage: float) -> float:
    """The host's time for one micro-batch: kernel launches and Python, per layer of the stage."""
    return layers_per_stage * job.eff.host_overhead_per_layer_s


def _micro_batch_s(job: _TrainingJob, gpu_s: float, host_s: float) -> float:
    """One micro-batch: the host's time adds where the host runs the kernels itself (a CPU), else
    the GPU works meanwhile and the longer of the two counts."""
    return gpu_s + host_s if job.peaks.host_serial else max(gpu_s, host_s)


def _virtual_stages(job: _TrainingJob, par: Parallelism, layers_per_stage: float) -> int:
    """Model chunks per GPU: `layers_per_virtual_stage` layers each under the interleaved schedule,
    one (the whole stage) under plain 1F1B or without a pipeline."""
    if par.pipeline <= 1 or not job.interleaved_pipeline:
        return 1
    return max(1, math.ceil(layers_per_stage / job.layers_per_virtual_stage))


def _pipeline_bubble_s(pipeline: int, virtual_stages: int, micro_batch_s: float) -> float:
    """1F1B with v model chunks per GPU (Narayanan et al. 2021): the warm-up and drain leave the
    pipeline idle (pp - 1) / v micro-batch times; plain 1F1B is v = 1."""
    return (pipeline - 1) / virtual_stages * micro_batch_s if pipeline > 1 else 0.0


def _pipeline_sends_s(
    job: _TrainingJob, par: Parallelism, virtual_stages: int, pp_cross: bool, micro_batches: int
) -> float:
    """Activations sent forward and gradients back between stages, per virtual stage and micro-batch."""
    fabric = job.peaks.fabric
    if par.pipeline <= 1 or fabric is None:
        return 0.0
    stage_bytes = job.micro_batch_activation_bytes / par.tensor
    return 2 * virtual_stages * micro_batches * p2p_s(fabric, stage_bytes, pp_cross)


def _reduces_gradients_per_step(par: Parallelism, fabric: Fabric | None) -> bool:
    return par.data > 1 and par.zero_stage < 3 and fabric is not None


def _dp_reduction_s(job: _TrainingJob, par: Parallelism, dp_group: Group) -> float:
    """Data parallelism: the gradients (all-reduce, or reduce-scatter + all-gather for ZeRO-1/2: the
    same volume) once per step. ZeRO-3 reduce-scatters per layer instead (see _zero3_gathers)."""
    fabric = job.peaks.fabric
    if not _reduces_gradients_per_step(par, fabric):
        return 0.0
    assert fabric is not None  # _reduces_gradients_per_step
    return all_reduce_s(fabric, dp_group, job.trainable_grad_bytes / (par.tensor * par.pipeline))


def _dp_exposed_s(job: _TrainingJob, dp_reduction_s: float, micro_batch_s: float) -> float:
    """The part of the gradient reduction not hidden behind the last micro-batch's backward."""
    if not dp_reduction_s:
        return 0.0
    hidden_s = job.dp_comm_overlap * 2 * micro_batch_s / 3
    return max(dp_reduction_s - hidden_s, 0.0)


def _optimizer_params(job: _TrainingJob, par: Parallelism) -> float:
    """The trainable parameters whose optimizer step this GPU takes."""
    return job.basis.trainable / (par.tensor * par.pipeline) / (par.data if par.zero_stage >= 1 else 1)


def _optimizer_s(job: _TrainingJob, par: Parallelism) -> float:
    """The optimizer step reads and writes the gradients and the state of this GPU's parameters."""
    return 2 * _optimizer_params(job, par) * job.grad_and_state_bytes_per_param / job.achieved_bytes_per_s


def _training_step(job: _TrainingJob, par: Parallelism) -> _TrainingStep:
    """Every term of one optimizer step of `par`, each from its own function: the micro-batch's
    compute, weight reads, ZeRO-3 gathers, tensor-parallel collectives and host time, repeated once per
    micro-batch; then the pipeline bubble and sends, the exposed gradient reduction and the optimizer."""
    shards = par.tensor * par.pipeline
    layers_per_stage = job.n_layers / par.pipeline
    tp_group, dp_group, pp_cross = _layout_groups(job.peaks.fabric, par)
    attention_s = _attention_kernel_s(job, shards)
    compute_s = _compute_s(job, shards, attention_s)
    weights_read_s = _weights_read_s(job, shards)
    scores_s = _attention_scores_s(job, shards)
    elementwise_s = _elementwise_s(job, shards)
    zero3 = _zero3_gathers(job, par, dp_group, layers_per_stage, compute_s)
    tp_s = _tp_all_reduces_s(job, par, tp_group, layers_per_stage)
    gpu_s = _gpu_micro_batch_s(
        compute_s, _zero3_extra_s(zero3), weights_read_s, scores_s + elementwise_s, tp_s
    )
    micro_batch_s = _micro_batch_s(job, gpu_s, _host_s(job, layers_per_stage))
    micro_batches = _micro_batches(job, par.data)
    virtual_stages = _virtual_stages(job, par, layers_per_stage)
    bubble_s = _pipeline_bubble_s(par.pipeline, virtual_stages, micro_batch_s)
    sends_s = _pipeline_sends_s(job, par, virtual_stages, pp_cross, micro_batches)
    dp_reduction_s = _dp_reduction_s(job, par, dp_group)
    dp_exposed_s = _dp_exposed_s(job, dp_reduction_s, micro_batch_s)
    optimizer_s = _optimizer_s(job, par)
    step_s = micro_batches * micro_batch_s + (bubble_s + sends_s + dp_exposed_s + optimizer_s)
    tokens_per_s = job.tokens_per_micro_batch * micro_batches * par.data / step_s
    return _TrainingStep(
        layers_per_stage, micro_batches, compute_s, attention_s, weights_read_s, scores_s, elementwise_s, zero3, tp_s, gpu_s,
        micro_batch_s,
        virtual_stages, bubble_s, sends_s, dp_reduction_s, dp_exposed_s, optimizer_s, step_s, tokens_per_s,
    )  # fmt: skip


def _training_summary(job: _TrainingJob, step: _TrainingStep) -> SpeedSummary:
    """The numbers that rank a layout: tokens/s and the time to train."""
    tokens_per_s = step.tokens_per_s
    return SpeedSummary(
        "training",
        tokens_per_s,
        time_to_train_s=job.total_tokens / tokens_per_s if job.total_tokens else None,
    )


# The worded terms: one function per term, None where the layout does not have it.


def _compute_term(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> SpeedTerm:
    req, eff, m = job.req, job.eff, step.micro_batches
    gemm_flops_per_token = (job.micro_batch_flops - job.micro_batch_score_flops) / job.tokens_per_micro_batch
    flops_per_param = gemm_flops_per_token / req.model.active_params()
    recomputed = ", the recomputed forward included" if req.grad_checkpointing else ""
    fused = ", fused attention's scores apart" if job.micro_batch_score_flops else ""
    return SpeedTerm(
        name="compute",
        seconds=m * (step.compute_s - step.attention_kernel_s),
        formula=f"{m} x b {req.batch_size} x s {req.seq_len} x {flops_per_param:.2f} P FLOPs{recomputed}{fused} / "
        f"(tp x pp = {par.tensor * par.pipeline}) / (peak x utilisation {eff.mfu:.2f}) [{eff.mfu_source}]",
    )


def _attention_kernel_term(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> SpeedTerm | None:
    if not step.attention_kernel_s:
        return None
    req, eff, m = job.req, job.eff, step.micro_batches
    model = req.model
    factor = 16 if req.grad_checkpointing else 12
    utilisation = job.achieved_attention_flops_per_s / job.peaks.flops_per_s
    source = (
        eff.attention_source or "no attention-kernel benchmark for this architecture: the GEMMs' utilisation"
    )
    return SpeedTerm(
        name="fused attention kernel",
        seconds=m * step.attention_kernel_s,
        formula=f"{m} x b {req.batch_size} x s {req.seq_len} x {factor} L {model.n_layers} x s {req.seq_len} x "
        f"a {model.n_heads} x d {model.d_head} score FLOPs (SDPA/flash attention: QK^T and PV forward, backward "
        f"twice that{', recomputed forward' if req.grad_checkpointing else ''}) / "
        f"(tp x pp = {par.tensor * par.pipeline}) / (peak x the kernel's utilisation {utilisation:.2f}) [{source}]",
    )


def _zero3_term(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> SpeedTerm | None:
    zero3, fabric = step.zero3, job.peaks.fabric
    if zero3 is None or fabric is None:  # ZeRO-3 gathers exist only on a fabric
        return None
    dp_group = _layout_groups(fabric, par)[1]
    gather_and_scatter_s = zero3.gather_s + zero3.scatter_s
    return SpeedTerm(
        name="ZeRO-3 gathers",
        seconds=step.micro_batches * zero3.extra_s,
        formula=f"per layer max(compute, all-gather {format_duration(zero3.gather_s)}) forward + "
        f"max(compute, all-gather + reduce-scatter {format_duration(gather_and_scatter_s)}) "
        f"backward, {format_bytes(zero3.layer_bytes)} per layer over dp {par.data} on "
        f"{link_name(fabric, dp_group)}",
    )


def _tp_term(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> SpeedTerm | None:
    fabric = job.peaks.fabric
    if par.tensor <= 1 or fabric is None:
        return None
    m, tp_group = step.micro_batches, _layout_groups(fabric, par)[0]
    return SpeedTerm(
        name="tensor-parallel all-reduces",
        seconds=m * step.tp_all_reduces_s,
        formula=f"{m} x {step.layers_per_stage:g} layers x {job.tp_collectives_per_layer} x all-reduce of "
        f"b s h x {job.activation_bytes} B = {format_bytes(job.micro_batch_activation_bytes)}: 2 (t - 1) / t x "
        f"bytes / busbw over tp {par.tensor} on {link_name(fabric, tp_group)}",
    )


def _host_term(job: _TrainingJob, step: _TrainingStep) -> SpeedTerm | None:
    host_beyond_gpu_s = step.micro_batch_s - step.gpu_micro_batch_s
    if not step.micro_batch_s > step.gpu_micro_batch_s:
        return None
    eff = job.eff
    return SpeedTerm(
        name="host overhead",
        seconds=step.micro_batches * host_beyond_gpu_s,
        formula=f"{step.layers_per_stage:g} layers x {format_duration(eff.host_overhead_per_layer_s)} host "
        f"time per layer exceeds the GPU's work [{eff.overhead_source}]",
    )


def _memory_term(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> SpeedTerm | None:
    zero3_extra_s = _zero3_extra_s(step.zero3) if job.peaks.fabric is not None else 0.0
    if not step.weights_read_s > step.compute_s + zero3_extra_s:
        return None
    return SpeedTerm(
        name="memory traffic",
        seconds=step.micro_batches * (step.weights_read_s - step.compute_s - zero3_extra_s),
        formula=f"3 x weights {format_bytes(job.weights_bytes / (par.tensor * par.pipeline))} / (bandwidth x "
        f"{job.eff.bandwidth:.2f}) exceeds compute",
    )


def _elementwise_term(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> SpeedTerm | None:
    if not step.elementwise_s:
        return None
    req, m = job.req, step.micro_batches
    per_token_layer = job.elementwise_bytes / job.tokens_per_micro_batch / job.n_layers
    return SpeedTerm(
        name="elementwise kernels",
        seconds=m * step.elementwise_s,
        formula=f"{m} x b {req.batch_size} x s {req.seq_len} x L {job.n_layers} x {per_token_layer:,.0f} B per "
        f"token per layer (norms, activation, residual adds{', dropout' if req.model.uses_dropout else ''}: "
        f"forward, backward twice that{', recomputed forward' if req.grad_checkpointing else ''}) / "
        f"(tp x pp = {par.tensor * par.pipeline}) / (bandwidth x {job.eff.bandwidth:.2f}), between the GEMMs",
    )


def _scores_term(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> SpeedTerm | None:
    if not step.attention_scores_s:
        return None
    req, m = job.req, step.micro_batches
    return SpeedTerm(
        name="eager attention scores",
        seconds=m * step.attention_scores_s,
        formula=f"{m} x b {req.batch_size} x L {req.model.n_layers} x a {req.model.n_heads} x s {req.seq_len}^2 "
        f"scores, {format_bytes(job.attention_scores_bytes / (par.tensor * par.pipeline))} read and written "
        f"per micro-batch (forward{', recomputed forward' if req.grad_checkpointing else ''}, backward) / "
        f"(bandwidth x {job.eff.bandwidth:.2f}); SDPA (flash attention) never writes them",
    )


def _bubble_term(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> SpeedTerm | None:
    if par.pipeline <= 1:
        return None
    m = step.micro_batches
    idle_fraction = step.bubble_s / (m * step.micro_batch_s + step.bubble_s)
    schedule = "interleaved 1F1B" if job.interleaved_pipeline else "1F1B"
    return SpeedTerm(
        name="pipeline bubble",
        seconds=step.bubble_s,
        formula=f"{schedule}: (pp {par.pipeline} - 1) / (v {step.virtual_stages} virtual stages) x one "
        f"micro-batch {format_duration(step.micro_batch_s)}; {m} micro-batches: {format_pct(idle_fraction)} idle",
    )


def _sends_term(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> SpeedTerm | None:
    fabric = job.peaks.fabric
    if par.pipeline <= 1 or fabric is None:
        return None
    pp_cross = _layout_groups(fabric, par)[2]
    return SpeedTerm(
        name="pipeline sends",
        seconds=step.pipeline_sends_s,
        formula=f"2 x v {step.virtual_stages} x {step.micro_batches} micro-batches x "
        f"{format_bytes(job.micro_batch_activation_bytes / par.tensor)} between stages "
        f"({'across nodes' if pp_cross else 'inside the node'})",
    )


def _dp_term(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> SpeedTerm | None:
    fabric = job.peaks.fabric
    if fabric is None or not _reduces_gradients_per_step(par, fabric):
        return None
    dp_group = _layout_groups(fabric, par)[1]
    backward_s = 2 * step.micro_batch_s / 3
    return SpeedTerm(
        name="data-parallel gradient reduction",
        seconds=step.dp_reduction_s,
        formula=f"2 (N - 1) / N x {format_bytes(job.trainable_grad_bytes / (par.tensor * par.pipeline))} / "
        f"busbw over dp {par.data} on {link_name(fabric, dp_group)} = {format_duration(step.dp_reduction_s)}, "
        f"{job.dp_comm_overlap:.0%} of the last backward ({format_duration(backward_s)}) "
        f"hides it: {format_duration(step.dp_exposed_s)} exposed",
        exposed=step.dp_exposed_s > 0,
    )


def _optimizer_term(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> SpeedTerm:
    return SpeedTerm(
        name="optimizer step",
        seconds=step.optimizer_s,
        formula=f"2 x {_optimizer_params(job, par):,.0f} params x {job.grad_and_state_bytes_per_param:.3g} B "
        f"/ (bandwidth x {job.eff.bandwidth:.2f})",
    )


def _training_terms(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> tuple[SpeedTerm, ...]:
    """Every term of the step worded with its formula, in the order the step adds them."""
    terms = (
        _compute_term(job, par, step),
        _attention_kernel_term(job, par, step),
        _zero3_term(job, par, step),
        _tp_term(job, par, step),
        _host_term(job, step),
        _memory_term(job, par, step),
        _elementwise_term(job, par, step),
        _scores_term(job, par, step),
        _bubble_term(job, par, step),
        _sends_term(job, par, step),
        _dp_term(job, par, step),
        _optimizer_term(job, par, step),
    )
    return tuple(term for term in terms if term is not None)


def _training_bound(job: _TrainingJob, step: _TrainingStep) -> str:
    """What sets the step: compute, memory traffic, communication or the host (kernel launches and
    Python), whichever takes longest (ties go to the earlier of communication, compute, memory)."""
    m = step.micro_batches
    seconds_by_bound = {
        "communication": m * (step.tp_all_reduces_s + _zero3_extra_s(step.zero3))
        + step.pipeline_sends_s
        + step.dp_exposed_s,
        "compute": m * step.compute_s,
        "memory": m * (step.weights_read_s + step.attention_scores_s + step.elementwise_s) + step.optimizer_s,
        "host": m * step.layers_per_stage * job.eff.host_overhead_per_layer_s,
    }
    return max(seconds_by_bound, key=seconds_by_bound.__getitem__)


def _training_speed(job: _TrainingJob, par: Parallelism, step: _TrainingStep) -> TrainingSpeed:
    """training_speed of one layout, the job's constants and the layout's step resolved."""
    req = job.req
    tokens_per_s = step.tokens_per_s
    gpus = par.tensor * par.pipeline * par.data
    time_to_train_s = job.total_tokens / tokens_per_s if job.total_tokens else None
    peak_flops_per_s = job.peaks.flops_per_s
    mfu = tokens_per_s * job.model_flops_per_token / (gpus * peak_flops_per_s)
    hfu = tokens_per_s * job.hardware_flops_per_token / (gpus * peak_flops_per_s)
    epoch_tokens = req.epoch_tokens

    def wording() -> dict[str, Any]:
        formula = (
            f"step = {step.micro_batches} micro-batch(es) x max(compute, memory, host) + communication + "
            f"bubble + optimizer = {format_duration(step.step_s)}; MFU {mfu:.1%} of the peak on model FLOPs "
            f"({job.model_flops_per_token / req.model.active_params():.2f} P per token), HFU {hfu:.1%} with "
            "recomputation"
        )
        stack = efficiencies().training_stacks.get(req.framework.value)
        if stack is not None:
            formula += f"; training stack {stack.label}: the architecture's MFU x {stack.mfu_factor:g}"
        return {"formula": formula, "terms": _training_terms(job, par, step)}

    return TrainingSpeed.worded_later(
        wording,
        flops_per_token=job.model_flops_per_token,
        hardware_flops_per_token=job.hardware_flops_per_token,
        tokens_per_step=job.tokens_per_micro_batch * step.micro_batches * par.data,
        step_time_s=step.step_s,
        tokens_per_s=tokens_per_s,
        time_to_train_s=time_to_train_s,
        time_per_epoch_s=None if epoch_tokens is None else epoch_tokens / tokens_per_s,
        epochs=None if epoch_tokens is None else req.epochs or 1.0,
        gpu_hours=None if time_to_train_s is None else time_to_train_s * gpus / 3600,
        bound=_training_bound(job, step),
        mfu=mfu,
        hfu=hfu,
        efficiency_source=job.eff.mfu_source,
    )


def training_speed(
    req: PlanRequest, par: Parallelism, peaks: DevicePeaks, basis: MemoryBasis | None = None
) -> TrainingSpeed:
    """One optimizer step: `grad_accumulation_steps` micro-batches of `batch_size` sequences per replica,
    with every term worded (LayoutSpeeds.summary gives the numbers alone, for comparing many layouts)."""
    job = _training_job(req, peaks, basis or memory_basis(req, Device.CUDA))
    return _training_speed(job, par, _training_step(job, par))


# Serving ----------------------------------------------------------------------------------------------


def decode_bytes_per_step(req: PlanRequest, concurrency: int) -> float:
    """Bytes read per decode step: the weights an active token set touches, plus every cached K/V."""
    model = req.model
    profile = request_profile(req)
    weights = _touched_weight_bytes(req, profile, concurrency)
    avg_context = req.prompt_tokens + req.output_tokens / 2
    return weights + concurrency * avg_context * kv_bytes_per_token(model, profile.kv_bytes)


def _touched_weight_bytes(req: PlanRequest, profile: PrecisionProfile, concurrency: int) -> float:
    """The weight bytes one decode step reads: all of them, or for a mixture of experts only the
    experts that `concurrency` tokens route to (at most every expert)."""
    model = req.model
    if not model.is_moe:
        return profile.weight_bytes_total(model.total_params(), model.embedding_params())
    experts_touched = min(model.n_experts, concurrency * model.experts_per_token)
    unused = model.n_layers * (model.n_experts - experts_touched) * model.expert_params()
    return profile.weight_bytes_total(model.total_params() - unused, model.embedding_params())


class _InferenceJob(NamedTuple):
    """What serving's times take from the request and the device, resolved once (see _TrainingJob)."""

    req: PlanRequest
    peaks: DevicePeaks
    eff: Efficiency
    profile: PrecisionProfile
    active_params: int
    achieved_bytes_per_s: float  # bandwidth x efficiency for the weight format
    achieved_flops_per_s: float  # peak x the prefill efficiency
    host_s: float  # host time per forward pass: every stage's layers, one after another
    weights_bytes: float
    prefill_linear_flops: float  # one prompt: 2 P n
    prefill_attention_flops: float  # one prompt: 2 L n^2 a d
    attention_flops_per_cached_token: int  # one decode token attending to one cached token: 4 L a d
    avg_context: float  # prompt + half the output
    kv_bytes_per_token: int
    token_activation_bytes: int  # h x activation bytes
    n_layers: int
    n_heads: int
    d_head: int
    kv_heads: int
    is_moe: bool
    host_serial: bool
    step_overhead_s: float


def _inference_job(req: PlanRequest, peaks: DevicePeaks) -> _InferenceJob:
    eff = _efficiency(req, peaks)
    return _InferenceJob(
        **_inference_constants(req),
        peaks=peaks,
        eff=eff,
        achieved_bytes_per_s=peaks.bandwidth_bytes_per_s * eff.bandwidth,
        achieved_flops_per_s=peaks.flops_per_s * eff.peak_multiplier * eff.prefill,
        host_s=req.model.n_layers * eff.host_overhead_per_layer_s,
        host_serial=peaks.host_serial,
        step_overhead_s=eff.step_overhead_s,
    )


@same_args_as_recent_call
def _inference_constants(req: PlanRequest) -> dict[str, Any]:
    """The fields of an _InferenceJob that come from the request alone (see _training_constants)."""
    model = req.model
    profile = request_profile(req)
    active = model.active_params()
    return dict(
        req=req,
        profile=profile,
        active_params=active,
        weights_bytes=profile.weight_bytes_total(model.total_params(), model.embedding_params()),
        prefill_linear_flops=2 * active * req.prompt_tokens,
        prefill_attention_flops=2 * model.n_layers * req.prompt_tokens**2 * model.n_heads * model.d_head,
        attention_flops_per_cached_token=4 * model.n_layers * model.n_heads * model.d_head,
        avg_context=req.prompt_tokens + req.output_tokens / 2,
        kv_bytes_per_token=kv_bytes_per_token(model, profile.kv_bytes),
        token_activation_bytes=model.hidden_size * profile.activation_bytes,
        n_layers=model.n_layers,
        n_heads=model.n_heads,
        d_head=model.d_head,
        kv_heads=model.kv_heads,
        is_moe=model.is_moe,
    )


class _OperatorTime(NamedTuple):
    """One group of a layer's operators on its roofline: its FLOPs at the compute rate and its bytes
    at the bandwidth, per GPU; the larger of the two is its time."""

    compute_s: float
    memory_s: float
    seconds: float
    bound: str  # "compute-bound" or "memory-bound"


def _roofline(compute_s: float, memory_s: float) -> _OperatorTime:
    if compute_s > memory_s:
        return _OperatorTime(compute_s, memory_s, compute_s, "compute-bound")
    return _OperatorTime(compute_s, memory_s, memory_s, "memory-bound")


class _ServingStep(NamedTuple):
    """The terms of prefill (one prompt) and of one decode step of `concurrency` users, in seconds.

    Each operator group sits on its own roofline and the groups add up: the weight GEMMs (QKV, output
    projection, MLP or experts, LM head) and attention over the KV cache. A batch whose GEMMs are
    compute-bound still reads its KV cache at the bandwidth, after them, so the step is not the larger
    of the whole step's compute and memory (which would let one hide the other)."""

    concurrency: int
    prefill_linear: _OperatorTime
    prefill_attention: _OperatorTime
    prefill_comm_s: float
    prefill_s: float
    decode_bytes_per_gpu: float
    decode_linear: _OperatorTime
    decode_attention: _OperatorTime
    decode_comm_s: float
    decode_gpu_s: float  # linear + attention + communication
    decode_s: float


def _serving_comm_s(job: _InferenceJob, par: Parallelism, tokens: float) -> float:
    """Two all-reduces per layer of tokens x h (Megatron TP), and the sends between stages."""
    fabric = job.peaks.fabric
    if fabric is None or par.tensor * par.pipeline == 1:
        return 0.0
    tp_group, _, pp_cross = _groups_of(par.tensor, par.data, fabric.node_gpus)
    comm = 2 * job.n_layers * all_reduce_s(fabric, tp_group, tokens * job.token_activation_bytes)
    if par.pipeline > 1:
        comm += (par.pipeline - 1) * p2p_s(fabric, tokens * job.token_activation_bytes / par.tensor, pp_cross)
    return comm


def _forward_s(job: _InferenceJob, gpu_s: float) -> float:
    """A forward pass: the GPU's time with the host's, plus the engine's fixed cost per step."""
    return (gpu_s + job.host_s if job.host_serial else max(job.host_s, gpu_s)) + job.step_overhead_s


def _decode_weight_bytes_per_gpu(job: _InferenceJob, par: Parallelism, concurrency: int) -> float:
    """One GPU's share of the weights a decode step reads: split over tp (MoE: the experts touched)."""
    weights = _touched_weight_bytes(job.req, job.profile, concurrency) if job.is_moe else job.weights_bytes
    return weights / par.tensor


def _decode_kv_bytes_per_gpu(job: _InferenceJob, par: Parallelism, concurrency: int) -> float:
    """One GPU's share of every cached K/V the users' tokens attend to, read once per decode step:
    split over at most as many GPUs as there are KV heads (beyond that the heads are copied)."""
    return concurrency * job.avg_context * job.kv_bytes_per_token / min(job.kv_heads, par.tensor)


def _decode_linear(
    job: _InferenceJob, par: Parallelism, concurrency: int, weight_bytes: float
) -> _OperatorTime:
    """The weight GEMMs of a decode step: 2 P FLOPs per token, `weight_bytes` read once per GPU."""
    return _roofline(
        2 * job.active_params * concurrency / par.tensor / job.achieved_flops_per_s,
        weight_bytes / job.achieved_bytes_per_s,
    )


def _decode_attention(
    job: _InferenceJob, par: Parallelism, concurrency: int, kv_bytes: float
) -> _OperatorTime:
    """Attention of a decode step over the average context: 4 L a d FLOPs per cached token attended
    to, and `kv_bytes` of the KV cache read per GPU."""
    flops = job.attention_flops_per_cached_token * concurrency * job.avg_context
    return _roofline(flops / par.tensor / job.achieved_flops_per_s, kv_bytes / job.achieved_bytes_per_s)


def _prefill_linear(job: _InferenceJob, par: Parallelism) -> _OperatorTime:
    """The weight GEMMs of one prompt's prefill: 2 P n FLOPs, the weights read once."""
    return _roofline(
        job.prefill_linear_flops / par.tensor / job.achieved_flops_per_s,
        job.weights_bytes / par.tensor / job.achieved_bytes_per_s,
    )


def _prefill_attention(job: _InferenceJob, par: Parallelism) -> _OperatorTime:
    """Attention over the prompt: 2 L n^2 a d FLOPs (causal, fused: no score matrix written out)."""
    compute = job.prefill_attention_flops / par.tensor / job.achieved_flops_per_s
    return _OperatorTime(compute, 0.0, compute, "compute-bound")


def _serving_step(job: _InferenceJob, par: Parallelism, concurrency: int | None) -> _ServingStep:
    """Prefill of one prompt (a pipeline's stages one after another) and one decode step, each the
    sum of its operator groups' rooflines plus communication, host time and the engine's step cost."""
    users = concurrency if concurrency is not None else -(-job.req.users // par.data)  # per replica
    prefill_linear, prefill_attention = _prefill_linear(job, par), _prefill_attention(job, par)
    prefill_comm_s = _serving_comm_s(job, par, job.req.prompt_tokens)
    prefill_s = _forward_s(job, prefill_linear.seconds + prefill_attention.seconds + prefill_comm_s)
    weight_bytes = _decode_weight_bytes_per_gpu(job, par, users)
    kv_bytes = _decode_kv_bytes_per_gpu(job, par, users)
    decode_linear = _decode_linear(job, par, users, weight_bytes)
    decode_attention = _decode_attention(job, par, users, kv_bytes)
    decode_comm_s = _serving_comm_s(job, par, users)
    decode_gpu_s = decode_linear.seconds + decode_attention.seconds + decode_comm_s
    return _ServingStep(
        users, prefill_linear, prefill_attention, prefill_comm_s, prefill_s, weight_bytes + kv_bytes,
        decode_linear, decode_attention, decode_comm_s, decode_gpu_s, _forward_s(job, decode_gpu_s),
    )  # fmt: skip


def _inference_summary(par: Parallelism, step: _ServingStep) -> SpeedSummary:
    """The numbers that rank a layout: tokens/s in all and per user, and the first token's time."""
    per_user = 1.0 / step.decode_s
    return SpeedSummary(
        "inference",
        per_user * step.concurrency * par.data,
        tokens_per_s_per_user=per_user,
        prefill_s=step.prefill_s,
    )


def _operator_term(name: str, op: _OperatorTime, formula: str) -> SpeedTerm:
    """One operator of a step on its roofline: its time, flagged as exposed where compute outlasts its
    memory traffic."""
    return SpeedTerm(name=name, seconds=op.seconds, formula=formula, exposed=op.compute_s > op.memory_s)


def _decode_terms(
    job: _InferenceJob, par: Parallelism, step: _ServingStep, host_extra: float
) -> list[SpeedTerm]:
    """The terms of one decode step worded with their formulas (`host_extra`: host time beyond the GPU's)."""
    eff, fabric, tp = job.eff, job.peaks.fabric, par.tensor
    linear, attention = step.decode_linear, step.decode_attention
    rates = f"(peak x {eff.prefill:.2f}), bandwidth x {eff.bandwidth:.2f}"
    terms = [
        _operator_term(
            "weight GEMMs",
            linear,
            f"max(2 P x {step.concurrency} users FLOPs, weights read) / tp {tp} at {rates}: "
            f"{linear.bound} [{eff.bandwidth_source}]",
        ),
        _operator_term(
            "attention over the KV cache",
            attention,
            f"max(4 L c ctx a d FLOPs, c {step.concurrency} x ctx {job.avg_context:g} tokens x "
            f"{job.kv_bytes_per_token:,} B of KV) per GPU at {rates}: {attention.bound}",
        ),
    ]
    if step.decode_comm_s and fabric is not None:  # communication needs a fabric
        tp_group = _layout_groups(fabric, par)[0]
        terms.append(
            SpeedTerm(
                name="tensor-parallel all-reduces",
                seconds=step.decode_comm_s,
                formula=f"2 x L {job.n_layers} all-reduces of {step.concurrency} x h x {job.profile.activation_bytes} "
                f"B over tp {tp} on {link_name(fabric, tp_group)}"
                + (f", {par.pipeline - 1} stage sends" if par.pipeline > 1 else ""),
            )
        )
    if host_extra > 0:
        terms.append(
            SpeedTerm(
                name="host overhead",
                seconds=host_extra,
                formula=f"L {job.n_layers} x {format_duration(eff.host_overhead_per_layer_s)} of host time "
                f"per layer exceeds the GPU's work [{eff.overhead_source}]",
            )
        )
    if eff.step_overhead_s:
        terms.append(
            SpeedTerm(
                name="step overhead",
                seconds=eff.step_overhead_s,
                formula=f"{format_duration(eff.step_overhead_s)} per step [{eff.overhead_source}]",
            )
        )
    return terms


def _decode_host_extra_s(job: _InferenceJob, step: _ServingStep) -> float:
    """The host time of a decode step beyond the GPU's work (positive only where the host sets it)."""
    return step.decode_s - job.eff.step_overhead_s - step.decode_gpu_s


def _decode_bound(step: _ServingStep, host_s: float) -> str:
    """What sets a decode step: communication, memory traffic, compute or the host's kernel launches
    (`host_s`), whichever takes longest (ties go to the earlier of those)."""
    linear, attention = step.decode_linear, step.decode_attention
    times = {
        "communication": step.decode_comm_s,
        "memory": linear.memory_s + attention.memory_s,
        "compute": linear.compute_s + attention.compute_s,
        "host": host_s,
    }
    return max(times, key=times.__getitem__)


def _inference_speed(job: _InferenceJob, par: Parallelism, step: _ServingStep) -> InferenceSpeed:
    """inference_speed of one layout, the job's constants and the layout's step resolved."""
    eff, tp = job.eff, par.tensor
    per_user = 1.0 / step.decode_s

    def wording() -> dict[str, Any]:
        prefill_formula = (
            f"max(2 P x {job.req.prompt_tokens} FLOPs, weights read) / tp {tp} + 2 L n^2 a d attention "
            f"FLOPs / tp {tp}, at (peak x {eff.prefill:.2f}) and bandwidth x {eff.bandwidth:.2f}"
            + (f" + TP all-reduces {format_duration(step.prefill_comm_s)}" if step.prefill_comm_s else "")
            + f" + step overhead [{eff.prefill_source}]"
        )
        formula = (
            f"decode = weight GEMMs ({step.decode_linear.bound}) + attention over the KV cache "
            f"({step.decode_attention.bound}), {format_bytes(step.decode_bytes_per_gpu)} read per GPU"
            + (f" + TP {format_duration(step.decode_comm_s)}" if step.decode_comm_s else "")
            + f" + overhead {format_duration(step.decode_s - step.decode_gpu_s)} = "
            f"{format_duration(step.decode_s)}"
        )
        terms = tuple(_decode_terms(job, par, step, _decode_host_extra_s(job, step)))
        return {"formula": formula, "prefill_formula": prefill_formula, "terms": terms}

    return InferenceSpeed.worded_later(
        wording,
        flops_per_token=2.0 * job.active_params,
        prefill_s=step.prefill_s,
        decode_s_per_token=step.decode_s,
        tokens_per_s_per_user=per_user,
        tokens_per_s=per_user * step.concurrency * par.data,
        bound=_decode_bound(step, job.host_s),
        efficiency_source=eff.bandwidth_source,
    )


def inference_speed(
    req: PlanRequest, par: Parallelism, peaks: DevicePeaks, concurrency: int | None = None
) -> InferenceSpeed:
    """Prefill of one user's prompt, and decode per token with `concurrency` users per replica (None:
    the request's users spread over the data-parallel replicas), every term worded."""
    job = _inference_job(req, peaks)
    return _inference_speed(job, par, _serving_step(job, par, concurrency))


# Many layouts of one request --------------------------------------------------------------------------


class LayoutSpeeds:
    """The speeds of layouts of one request on one device, with what they take from the request and
    the device resolved once (on first use): `summary` the numbers that rank layouts, `detail` the
    worded speed of the layout kept (the same as training_speed or inference_speed). Each layout's
    step is worked out once: the layout kept was summarised before it is detailed."""

    __slots__ = ("_basis", "_job", "_peaks", "_req", "_steps")

    def __init__(self, req: PlanRequest, peaks: DevicePeaks, basis: MemoryBasis | None = None) -> None:
        self._req, self._peaks, self._basis = req, peaks, basis
        self._job: _TrainingJob | _InferenceJob | None = None
        # id(layout) -> (layout, its step): layouts are compared by identity (core/layouts.py builds
        # one object per degree combination), the layout kept with its id so the id stays its own.
        self._steps: dict[int, tuple[Parallelism, _TrainingStep | _ServingStep]] = {}

    def _resolved(self) -> _TrainingJob | _InferenceJob:
        if self._job is None:
            req = self._req
            if req.task.is_training:
                self._job = _training_job(req, self._peaks, self._basis or memory_basis(req, Device.CUDA))
            else:
                self._job = _inference_job(req, self._peaks)
        return self._job

    def _step(self, job: _TrainingJob | _InferenceJob, par: Parallelism) -> _TrainingStep | _ServingStep:
        known = self._steps.get(id(par))
        if known is not None and known[0] is par:
            return known[1]
        step = _training_step(job, par) if isinstance(job, _TrainingJob) else _serving_step(job, par, None)
        self._steps[id(par)] = (par, step)
        return step

    def tokens_per_s_per_gpu_ceiling(self) -> float | None:
        """Training tokens/s per GPU that no layout of this request exceeds: its compute alone at the
        MFU, since every other term of a step only adds time (None for inference)."""
        job = self._resolved()
        if not isinstance(job, _TrainingJob):
            return None
        return job.tokens_per_micro_batch / _compute_s(job, 1, _attention_kernel_s(job, 1))

    def summary(self, par: Parallelism) -> SpeedSummary:
        job = self._resolved()
        step = self._step(job, par)
        if isinstance(job, _TrainingJob):
            assert isinstance(step, _TrainingStep)
            return _training_summary(job, step)
        assert isinstance(step, _ServingStep)
        return _inference_summary(par, step)

    def detail(self, par: Parallelism) -> TrainingSpeed | InferenceSpeed:
        job = self._resolved()
        step = self._step(job, par)
        if isinstance(job, _TrainingJob):
            assert isinstance(step, _TrainingStep)
            return _training_speed(job, par, step)
        assert isinstance(step, _ServingStep)
        return _inference_speed(job, par, step)
