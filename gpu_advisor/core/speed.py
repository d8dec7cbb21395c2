"""Time estimates: a training step with its communication, and inference prefill and decode.

Every function takes one GPU's peaks with its efficiencies and links (DevicePeaks) and a parallel
layout, and returns seconds with the bound that set them and every term of the step with its formula.
- Training: compute at the architecture's MFU on model FLOPs; the weights' memory traffic; tensor-
  parallel all-reduces; ZeRO-3 gathers (per layer, the longer of compute and gathering); the data-
  parallel gradient reduction, hidden behind backward where it can be; the pipeline bubble from the
  actual micro-batch count; host (launch) overhead, which overlaps the GPU's work.
- Inference: prefill at the engine's prefill efficiency; decode reads the weights and the KV cache at
  the engine's bandwidth efficiency for the weight format; tensor-parallel all-reduces; a fixed
  per-step overhead.
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
from .memory import Device, MemoryBasis, kv_bytes_per_token, memory_basis, request_profile
from .precision import PrecisionProfile
from .request import PlanRequest
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


@same_args_as_recent_call
@lru_cache(maxsize=256)
def _flops(model: ModelSpec, adapter: bool, seq_len: int, recompute: bool) -> float:
    attn = model.n_layers * seq_len * model.n_heads * model.d_head
    flops = (4.0 if adapter else 6.0) * model.active_params() + 12.0 * attn
    if recompute:
        flops += 2.0 * model.active_params() + 4.0 * attn
    return flops


def _groups(par: Parallelism, fabric: Fabric | None) -> tuple[Group, Group, bool]:
    """Tensor-parallel and data-parallel groups, and whether pipeline neighbours sit on other nodes.

    Ranks are ordered Megatron-style (tensor innermost, then data, pipeline outermost): a node holds
    node_gpus / tp data-parallel replicas of one stage.
    """
    node = fabric.node_gpus if fabric is not None else max(par.gpus, 1)
    return _groups_of(par.tensor, par.data, node)


@lru_cache(maxsize=4096)
def _groups_of(tensor: int, data: int, node: int) -> tuple[Group, Group, bool]:
    tp_group = Group(tensor, min(tensor, node))
    dp_group = Group(data, max(1, min(data, node // tensor)))
    return tp_group, dp_group, tensor * data >= node


class _TrainingJob(NamedTuple):
    """What a training step's time takes from the request and the device, resolved once: the search
    times many layouts of one request on one GPU. A NamedTuple: immutable, and built in a fraction of
    a frozen dataclass's time (one per GPU of a plan)."""

    req: PlanRequest
    peaks: DevicePeaks
    eff: Efficiency
    basis: MemoryBasis
    f_model: float
    f_hw: float
    m: int
    tokens_mb: int
    compute_flops: float  # tokens_mb x f_model
    peak_mfu: float  # peak x MFU
    weights_x3: float
    bw: float
    layer_params: int
    activation_bytes: int
    act: float  # b s h x activation bytes
    tp_per_layer: int
    n_layers: int
    layers_per_virtual_stage: int
    overlap_x2: float
    grad_opt_bytes: float
    trainable_grad_bytes: float
    total_tokens: float | None


def _training_job(req: PlanRequest, peaks: DevicePeaks, basis: MemoryBasis) -> _TrainingJob:
    eff = _efficiency(req, peaks)
    return _TrainingJob(
        **_training_constants(req, basis),
        peaks=peaks,
        eff=eff,
        peak_mfu=peaks.flops_per_s * eff.mfu,
        bw=peaks.bandwidth_bytes_per_s * eff.bandwidth,
    )


@same_args_as_recent_call
def _training_constants(req: PlanRequest, basis: MemoryBasis) -> dict[str, Any]:
    """The fields of a _TrainingJob that come from the request alone: worked out once for every GPU
    of a plan (the recommender asks with the same request and basis objects). The dict is shared
    by every call that hits the memo: read it, never change it."""
    model = req.model
    a = req.assumptions
    f_model = training_flops_per_token(req)
    tokens_mb = req.batch_size * req.seq_len
    return dict(
        req=req,
        basis=basis,
        f_model=f_model,
        f_hw=hardware_flops_per_token(req),
        m=req.grad_accumulation_steps,
        tokens_mb=tokens_mb,
        compute_flops=tokens_mb * f_model,
        weights_x3=3 * basis.weights,
        layer_params=model.layer_params(),
        activation_bytes=basis.profile.activation_bytes,
        act=tokens_mb * model.hidden_size * basis.profile.activation_bytes,
        tp_per_layer=6 if req.grad_checkpointing else 4,
        n_layers=model.n_layers,
        layers_per_virtual_stage=a.pipeline_layers_per_virtual_stage,
        overlap_x2=a.dp_comm_overlap * 2,
        grad_opt_bytes=basis.grad_bytes + basis.opt_bytes,
        trainable_grad_bytes=basis.trainable * basis.grad_bytes,
        total_tokens=req.total_train_tokens,
    )


def training_speed(
    req: PlanRequest,
    par: Parallelism,
    peaks: DevicePeaks,
    detail: bool = True,
    basis: MemoryBasis | None = None,
) -> TrainingSpeed:
    """One optimizer step: `grad_accumulation_steps` micro-batches of `batch_size` sequences per replica.

    `detail=False` skips the worded terms and formula (the recommender compares many layouts and words
    only the one it keeps).
    """
    job = _training_job(req, peaks, basis or memory_basis(req, Device.CUDA))
    return _training(job, par, detail)  # type: ignore[return-value]


def _training(job: _TrainingJob, par: Parallelism, detail: bool) -> TrainingSpeed | SpeedSummary:
    """training_speed of one layout, the job's constants resolved."""
    eff = job.eff
    peaks = job.peaks
    fabric = peaks.fabric
    basis = job.basis
    m = job.m
    tensor, pipeline, data, zero_stage = par.tensor, par.pipeline, par.data, par.zero_stage
    gpus = tensor * pipeline * data
    shards = tensor * pipeline
    layers = job.n_layers / pipeline
    bw = job.bw
    node = fabric.node_gpus if fabric is not None else max(gpus, 1)
    tp_group, dp_group, pp_cross = _groups_of(tensor, data, node)
    terms: list[SpeedTerm] = []

    # Compute of one micro-batch on one GPU, at the MFU on model FLOPs.
    compute = job.compute_flops / shards / job.peak_mfu
    if detail:
        req, model = job.req, job.req.model
        terms.append(
            SpeedTerm(
                name="compute",
                seconds=m * compute,
                formula=f"{m} x b {req.batch_size} x s {req.seq_len} x {job.f_model / model.active_params():.2f} P "
                f"FLOPs / (tp x pp = {shards}) / (peak x MFU {eff.mfu:.2f}) [{eff.mfu_source}]",
            )
        )
    # Weights read in forward and twice in backward, per micro-batch.
    weights_read = job.weights_x3 / shards / bw
    # ZeRO-3: each layer's weights gathered before forward and again before backward, and its gradients
    # reduce-scattered after; per layer the longer of compute and communication counts.
    zero3_extra = 0.0
    if zero_stage >= 3 and fabric is not None and data > 1:
        layer_params = job.layer_params
        layer_bytes = layer_params * job.activation_bytes / tensor
        gather = all_gather_s(fabric, dp_group, layer_bytes)
        scatter = all_gather_s(fabric, dp_group, layer_params * basis.grad_bytes / tensor)
        fwd_layer, bwd_layer = compute / 3 / layers, 2 * compute / 3 / layers
        both = gather + scatter
        # max() of two floats as comparisons: the same value (the first on a tie), without a builtin
        # call per term, and this runs for every layout a plan compares.
        zero3 = layers * (
            (gather if gather > fwd_layer else fwd_layer) + (both if both > bwd_layer else bwd_layer)
        )
        zero3_extra = zero3 - compute
        if detail:
            terms.append(
                SpeedTerm(
                    name="ZeRO-3 gathers",
                    seconds=m * zero3_extra,
                    formula=f"per layer max(compute, all-gather {format_duration(gather)}) forward + max(compute, "
                    f"all-gather + reduce-scatter {format_duration(gather + scatter)}) backward, "
                    f"{format_bytes(layer_bytes)} per layer over dp {data} on {link_name(fabric, dp_group)}",
                )
            )
    # Tensor parallelism: with sequence parallelism two all-gather/reduce-scatter pairs per layer in
    # forward and two in backward (Korthikanti et al. 2022), each the volume of one all-reduce of the
    # layer's activations; recomputation repeats the forward ones.
    tp_time = 0.0
    if tensor > 1 and fabric is not None:
        act = job.act
        per_layer = job.tp_per_layer
        tp_time = layers * per_layer * all_reduce_s(fabric, tp_group, act)
        if detail:
            terms.append(
                SpeedTerm(
                    name="tensor-parallel all-reduces",
                    seconds=m * tp_time,
                    formula=f"{m} x {layers:g} layers x {per_layer} x all-reduce of b s h x {job.activation_bytes} B "
                    f"= {format_bytes(act)}: 2 (t - 1) / t x bytes / busbw over tp {tensor} on "
                    f"{link_name(fabric, tp_group)}",
                )
            )
    busy = compute + zero3_extra
    gpu_mb = (weights_read if weights_read > busy else busy) + tp_time
    host = layers * eff.host_overhead_per_layer_s
    micro = gpu_mb + host if peaks.host_serial else (host if host > gpu_mb else gpu_mb)
    if micro > gpu_mb and detail:
        terms.append(
            SpeedTerm(
                name="host overhead",
                seconds=m * (micro - gpu_mb),
                formula=f"{layers:g} layers x {format_duration(eff.host_overhead_per_layer_s)} host time per "
                f"layer exceeds the GPU's work [{eff.overhead_source}]",
            )
        )
    if weights_read > busy and detail:
        terms.append(
            SpeedTerm(
                name="memory traffic",
                seconds=m * (weights_read - compute - zero3_extra),
                formula=f"3 x weights {format_bytes(basis.weights / shards)} / (bandwidth x {eff.bandwidth:.2f}) "
                "exceeds compute",
            )
        )
    step = m * micro
    # Pipeline: interleaved 1F1B with v virtual stages per GPU; bubble (pp - 1) / v micro-batch times.
    bubble = p2p = 0.0
    if pipeline > 1:
        v = max(1, math.ceil(layers / job.layers_per_virtual_stage))
        bubble = (pipeline - 1) / v * micro
        if detail:
            terms.append(
                SpeedTerm(
                    name="pipeline bubble",
                    seconds=bubble,
                    formula=f"(pp {pipeline} - 1) / (v {v} virtual stages) x one micro-batch "
                    f"{format_duration(micro)}; {m} micro-batches: {format_pct(bubble / (step + bubble))} idle",
                )
            )
        if fabric is not None:
            act = job.act / tensor
            p2p = 2 * v * m * p2p_s(fabric, act, pp_cross)
            if detail:
                terms.append(
                    SpeedTerm(
                        name="pipeline sends",
                        seconds=p2p,
                        formula=f"2 x v {v} x {m} micro-batches x {format_bytes(act)} between stages "
                        f"({'across nodes' if pp_cross else 'inside the node'})",
                    )
                )
    # Data parallelism: the gradients (all-reduce, or reduce-scatter + all-gather for ZeRO-1/2: the same
    # volume) once per step, hidden behind the last micro-batch's backward as far as it goes.
    dp_exposed = 0.0
    if data > 1 and zero_stage < 3 and fabric is not None:
        grad_bytes = job.trainable_grad_bytes / shards
        dp_time = all_reduce_s(fabric, dp_group, grad_bytes)
        hidden = job.overlap_x2 * micro / 3
        dp_exposed = dp_time - hidden if dp_time - hidden > 0.0 else 0.0
        if detail:
            overlap = job.req.assumptions.dp_comm_overlap
            terms.append(
                SpeedTerm(
                    name="data-parallel gradient reduction",
                    seconds=dp_time,
                    formula=f"2 (N - 1) / N x {format_bytes(grad_bytes)} / busbw over dp {data} on "
                    f"{link_name(fabric, dp_group)} = {format_duration(dp_time)}, {overlap:.0%} of the "
                    f"last backward ({format_duration(2 * micro / 3)}) hides it: {format_duration(dp_exposed)} exposed",
                    exposed=dp_exposed > 0,
                )
            )
    # The optimizer step reads and writes the gradients and the state of this GPU's parameters.
    local = basis.trainable / shards / (data if zero_stage >= 1 else 1)
    optimizer = 2 * local * job.grad_opt_bytes / bw
    if detail:
        terms.append(
            SpeedTerm(
                name="optimizer step",
                seconds=optimizer,
                formula=f"2 x {local:,.0f} params x {job.grad_opt_bytes:.3g} B / (bandwidth x "
                f"{eff.bandwidth:.2f})",
            )
        )
    step += bubble + p2p + dp_exposed + optimizer
    tokens_per_step = job.tokens_mb * m * data
    tok_s = tokens_per_step / step
    ttt = gpu_hours = None
    total_tokens = job.total_tokens
    if total_tokens:
        ttt = total_tokens / tok_s
        gpu_hours = ttt * gpus / 3600
    if not detail:
        return SpeedSummary("training", tok_s, time_to_train_s=ttt)
    req, model = job.req, job.req.model
    comm = m * (tp_time + zero3_extra) + p2p + dp_exposed
    memory_time = m * weights_read + optimizer
    compute_time = m * compute
    if comm >= compute_time and comm >= memory_time:
        bound = "communication"
    else:
        bound = "memory" if memory_time > compute_time else "compute"
    peak = peaks.flops_per_s
    mfu = tok_s * job.f_model / (gpus * peak)
    hfu = tok_s * job.f_hw / (gpus * peak)
    epoch_tokens = req.epoch_tokens
    formula = (
        f"step = {m} micro-batch(es) x max(compute, memory, host) + communication + bubble + optimizer "
        f"= {format_duration(step)}; MFU {mfu:.1%} of the peak on model FLOPs "
        f"({job.f_model / model.active_params():.2f} P per token), HFU {hfu:.1%} with recomputation"
    )
    return TrainingSpeed(
        flops_per_token=job.f_model,
        hardware_flops_per_token=job.f_hw,
        tokens_per_step=tokens_per_step,
        step_time_s=step,
        tokens_per_s=tok_s,
        time_to_train_s=ttt,
        time_per_epoch_s=None if epoch_tokens is None else epoch_tokens / tok_s,
        epochs=None if epoch_tokens is None else req.epochs or 1.0,
        gpu_hours=gpu_hours,
        bound=bound,
        formula=formula,
        mfu=mfu,
        hfu=hfu,
        terms=tuple(terms),
        efficiency_source=eff.mfu_source,
    )


class LayoutSpeeds:
    """The speeds of layouts of one request on one device, with what they take from the request and
    the device resolved once (on first use): `summary` the numbers that rank layouts (training_speed
    and inference_speed with `detail=False`), `detail` the worded speed of the layout kept."""

    __slots__ = ("_basis", "_job", "_peaks", "_req")

    def __init__(self, req: PlanRequest, peaks: DevicePeaks, basis: MemoryBasis | None = None) -> None:
        self._req, self._peaks, self._basis = req, peaks, basis
        self._job: _TrainingJob | _InferenceJob | None = None

    def _resolved(self) -> _TrainingJob | _InferenceJob:
        if self._job is None:
            req = self._req
            if req.task.is_training:
                self._job = _training_job(req, self._peaks, self._basis or memory_basis(req, Device.CUDA))
            else:
                self._job = _inference_job(req, self._peaks)
        return self._job

    def summary(self, par: Parallelism) -> SpeedSummary:
        job = self._job or self._resolved()
        if isinstance(job, _TrainingJob):
            return _training(job, par, False)  # type: ignore[return-value]
        return _inference(job, par, None, False)  # type: ignore[return-value]

    def detail(self, par: Parallelism) -> TrainingSpeed | InferenceSpeed:
        job = self._job or self._resolved()
        if isinstance(job, _TrainingJob):
            return _training(job, par, True)  # type: ignore[return-value]
        return _inference(job, par, None, True)  # type: ignore[return-value]


def decode_bytes_per_step(req: PlanRequest, concurrency: int) -> float:
    """Bytes read per decode step: the weights an active token set touches, plus every cached K/V."""
    model = req.model
    profile = request_profile(req)
    if model.is_moe:
        experts_touched = min(model.n_experts, concurrency * model.experts_per_token)
        unused = model.n_layers * (model.n_experts - experts_touched) * model.expert_params()
        weights = profile.weight_bytes_total(model.total_params() - unused, model.embedding_params())
    else:
        weights = profile.weight_bytes_total(model.total_params(), model.embedding_params())
    avg_context = req.prompt_tokens + req.output_tokens / 2
    return weights + concurrency * avg_context * kv_bytes_per_token(model, profile.kv_bytes)


class _InferenceJob(NamedTuple):
    """What serving's times take from the request and the device, resolved once (see _TrainingJob)."""

    req: PlanRequest
    peaks: DevicePeaks
    eff: Efficiency
    profile: PrecisionProfile
    p_active: int
    bw: float
    act_b: int
    host: float
    weights: float
    prefill_flops: float
    avg_context: float
    kv_token_bytes: int
    prefill_peak: float  # peak x the prefill efficiency
    hidden_act: int  # h x activation bytes
    two_layers: int
    four_layers: int
    two_p_active: int
    heads: int
    d_head: int
    kv_heads: int
    moe: bool
    host_serial: bool
    step_overhead_s: float


def _inference_job(req: PlanRequest, peaks: DevicePeaks) -> _InferenceJob:
    eff = _efficiency(req, peaks)
    return _InferenceJob(
        **_inference_constants(req),
        peaks=peaks,
        eff=eff,
        bw=peaks.bandwidth_bytes_per_s * eff.bandwidth,
        host=req.model.n_layers * eff.host_overhead_per_layer_s,  # every stage's layers, one after another
        prefill_peak=peaks.flops_per_s * eff.peak_multiplier * eff.prefill,
        host_serial=peaks.host_serial,
        step_overhead_s=eff.step_overhead_s,
    )


@same_args_as_recent_call
def _inference_constants(req: PlanRequest) -> dict[str, Any]:
    """The fields of an _InferenceJob that come from the request alone (see _training_constants)."""
    model = req.model
    profile = request_profile(req)
    p_active = model.active_params()
    n = req.prompt_tokens
    return dict(
        req=req,
        profile=profile,
        p_active=p_active,
        act_b=profile.activation_bytes,
        weights=profile.weight_bytes_total(model.total_params(), model.embedding_params()),
        prefill_flops=2 * p_active * n + 2 * model.n_layers * n * n * model.n_heads * model.d_head,
        avg_context=req.prompt_tokens + req.output_tokens / 2,
        kv_token_bytes=kv_bytes_per_token(model, profile.kv_bytes),
        hidden_act=model.hidden_size * profile.activation_bytes,
        two_layers=2 * model.n_layers,
        four_layers=4 * model.n_layers,
        two_p_active=2 * p_active,
        heads=model.n_heads,
        d_head=model.d_head,
        kv_heads=model.kv_heads,
        moe=model.is_moe,
    )


def _decode_bytes(job: _InferenceJob, concurrency: int) -> float:
    """decode_bytes_per_step with the job's constants."""
    model = job.req.model
    weights = job.weights
    if model.is_moe:
        experts_touched = min(model.n_experts, concurrency * model.experts_per_token)
        unused = model.n_layers * (model.n_experts - experts_touched) * model.expert_params()
        weights = job.profile.weight_bytes_total(model.total_params() - unused, model.embedding_params())
    return weights + concurrency * job.avg_context * job.kv_token_bytes


def inference_speed(
    req: PlanRequest,
    par: Parallelism,
    peaks: DevicePeaks,
    concurrency: int | None = None,
    detail: bool = True,
) -> InferenceSpeed:
    """Prefill of one user's prompt, and decode per token with `concurrency` users per replica
    (`detail=False`: numbers only, no worded terms)."""
    return _inference(_inference_job(req, peaks), par, concurrency, detail)  # type: ignore[return-value]


def _inference(
    job: _InferenceJob, par: Parallelism, concurrency: int | None, detail: bool
) -> InferenceSpeed | SpeedSummary:
    """inference_speed of one layout, the job's constants resolved."""
    req = job.req
    model = req.model
    eff = job.eff
    peaks = job.peaks
    fabric = peaks.fabric
    tp, pipeline, data = par.tensor, par.pipeline, par.data
    c = concurrency if concurrency is not None else -(-req.users // data)
    p_active = job.p_active
    bw = job.bw
    act_b = job.act_b
    host = job.host
    terms: list[SpeedTerm] = []
    weights = job.weights
    # Two all-reduces per layer of tokens x h (Megatron TP), and the sends between stages.
    n = req.prompt_tokens
    tp_group, _, pp_cross = _groups_of(tp, data, fabric.node_gpus if fabric is not None else max(par.gpus, 1))
    prefill_comm = decode_comm = 0.0
    if fabric is not None:
        prefill_comm = job.two_layers * all_reduce_s(fabric, tp_group, n * job.hidden_act)
        decode_comm = job.two_layers * all_reduce_s(fabric, tp_group, c * job.hidden_act)
        if pipeline > 1:
            prefill_comm += (pipeline - 1) * p2p_s(fabric, n * job.hidden_act / tp, pp_cross)
            decode_comm += (pipeline - 1) * p2p_s(fabric, c * job.hidden_act / tp, pp_cross)

    # Prefill: one user's prompt; the stages of a pipeline run one after another.
    prefill_compute = job.prefill_flops / tp / job.prefill_peak
    prefill_memory = weights / tp / bw
    # max() of two numbers as comparisons (the same value, the first on a tie): see _training
    prefill_gpu = (prefill_memory if prefill_memory > prefill_compute else prefill_compute) + prefill_comm
    prefill = (
        prefill_gpu + host if job.host_serial else (host if host > prefill_gpu else prefill_gpu)
    ) + job.step_overhead_s
    # Decode: every step reads the weights (MoE: the experts the batch touches) and every cached K/V.
    avg_context = job.avg_context
    kv_part = c * avg_context * job.kv_token_bytes
    decode_bytes = _decode_bytes(job, c) if job.moe else weights + kv_part
    kv_heads = job.kv_heads
    per_gpu_bytes = (decode_bytes - kv_part) / tp + kv_part / (kv_heads if kv_heads < tp else tp)
    decode_memory = per_gpu_bytes / bw
    attn_flops = job.four_layers * c * avg_context * job.heads * job.d_head
    decode_compute = (job.two_p_active * c + attn_flops) / tp / job.prefill_peak
    gpu_step = (decode_compute if decode_compute > decode_memory else decode_memory) + decode_comm
    decode = (
        gpu_step + host if job.host_serial else (host if host > gpu_step else gpu_step)
    ) + job.step_overhead_s
    per_user = 1.0 / decode
    if not detail:
        return SpeedSummary(
            "inference", per_user * c * par.data, tokens_per_s_per_user=per_user, prefill_s=prefill
        )
    terms += [
        SpeedTerm(
            name="weights and KV read",
            seconds=decode_memory,
            formula=f"{format_bytes(per_gpu_bytes)} per GPU / (bandwidth x {eff.bandwidth:.2f}) "
            f"[{eff.bandwidth_source}]",
        ),
        SpeedTerm(
            name="decode compute",
            seconds=decode_compute,
            formula=f"(2 P x {c} users + attention) / tp {tp} / (peak x {eff.prefill:.2f})",
            exposed=decode_compute > decode_memory,
        ),
    ]
    if decode_comm:
        terms.append(
            SpeedTerm(
                name="tensor-parallel all-reduces",
                seconds=decode_comm,
                formula=f"2 x L {model.n_layers} all-reduces of {c} x h x {act_b} B over tp {tp} on "
                f"{link_name(fabric, tp_group)}"
                + (f", {par.pipeline - 1} stage sends" if par.pipeline > 1 else ""),
            )
        )
    host_extra = decode - eff.step_overhead_s - gpu_step
    if host_extra > 0:
        terms.append(
            SpeedTerm(
                name="host overhead",
                seconds=host_extra,
                formula=f"L {model.n_layers} x {format_duration(eff.host_overhead_per_layer_s)} of host time "
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
    if decode_comm >= max(decode_memory, decode_compute, host_extra):
        bound = "communication"
    else:
        bound = "memory" if decode_memory >= decode_compute else "compute"
    prefill_formula = (
        f"max(2 P x {n} + 2 L n^2 a d FLOPs / tp {tp} / (peak x {eff.prefill:.2f}), weights / bandwidth)"
        + (f" + TP all-reduces {format_duration(prefill_comm)}" if prefill_comm else "")
        + f" + step overhead [{eff.prefill_source}]"
    )
    formula = (
        f"decode = max(bytes read {format_bytes(per_gpu_bytes)} / (bandwidth x {eff.bandwidth:.2f}), "
        f"2 P x {c} users / (peak x {eff.prefill:.2f}))"
        + (f" + TP {format_duration(decode_comm)}" if decode_comm else "")
        + f" + overhead {format_duration(decode - gpu_step)} = {format_duration(decode)}"
    )
    return InferenceSpeed(
        flops_per_token=2.0 * p_active,
        prefill_s=prefill,
        decode_s_per_token=decode,
        tokens_per_s_per_user=per_user,
        tokens_per_s=per_user * c * par.data,
        bound=bound,
        formula=formula,
        prefill_formula=prefill_formula,
        terms=tuple(terms),
        efficiency_source=eff.bandwidth_source,
    )
