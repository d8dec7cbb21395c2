"""Predictions for one concrete workload on one device: what the benchmark checks against measurement.

The benchmark runs a real model of a given shape on a device and measures its peak memory and step
time; these functions answer the same question from the sizing formulas, so the two can be compared.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from .architecture import ModelSpec
from .estimates import MemoryComponents
from .layout import SINGLE
from .memory import Device, OptimizerImpl, estimate_memory
from .precision import Engine, Optimizer, Precision, Task
from .request import Assumptions, Attention, PlanRequest
from .speed import (
    DevicePeaks,
    decode_bytes_per_step,
    inference_speed,
    training_flops_per_token,
    training_speed,
)


class WorkloadPrediction(BaseModel):
    """Predicted peak memory and time per step, with the working behind them."""

    model_config = ConfigDict(frozen=True)
    peak_memory_bytes: int
    step_time_s: float | None
    components: MemoryComponents
    phase: str
    formulas: dict[str, str]
    assumptions: dict[str, float | str]
    prefill_s: float | None = None
    flops_per_token: float  # training: model FLOPs per trained token; inference: per generated token
    decode_bytes_per_step: float | None = None  # inference: weights and KV cache read per decode step


def _workload_request(
    model: ModelSpec,
    task: Task,
    precision: Precision,
    attention: Attention,
    assumptions: Assumptions | None,
    **workload: Any,
) -> PlanRequest:
    """The one-device request a benchmark workload is predicted as."""
    return PlanRequest(
        model=model,
        task=task,
        precision=precision,
        attention=attention,
        assumptions=assumptions or Assumptions(),
        **workload,
    )


def _peaks(device: Device, flops_per_s: float, bandwidth_bytes_per_s: float) -> DevicePeaks:
    """The workload's device; on a CPU the host runs the kernels itself (its time adds)."""
    return DevicePeaks(
        flops_per_s=flops_per_s, bandwidth_bytes_per_s=bandwidth_bytes_per_s, host_serial=device is Device.CPU
    )


def predict_training_step(
    model: ModelSpec,
    *,
    batch_size: int,
    seq_len: int,
    precision: Precision,
    device: Device,
    optimizer: Optimizer = Optimizer.ADAMW,
    optimizer_impl: OptimizerImpl | None = None,
    attention: Attention = Attention.SDPA,
    grad_checkpointing: bool = False,
    peak_flops_per_s: float | None = None,
    bandwidth_bytes_per_s: float | None = None,
    assumptions: Assumptions | None = None,
) -> WorkloadPrediction:
    """Peak memory and step time of forward + backward + optimizer step for one micro-batch.

    `optimizer_impl` defaults to what PyTorch picks on the device (foreach on CUDA, a per-tensor loop
    on CPU). Step time needs the device's peak FLOP/s (catalogue, or the measured matmul peak on CPU);
    None when unknown.
    """
    req = _workload_request(
        model,
        Task.PRETRAIN,
        precision,
        attention,
        assumptions,
        optimizer=optimizer,
        seq_len=seq_len,
        batch_size=batch_size,
        grad_checkpointing=grad_checkpointing,
    )
    impl = optimizer_impl or (OptimizerImpl.FOREACH if device is Device.CUDA else OptimizerImpl.FOR_LOOP)
    mem = estimate_memory(req, SINGLE, device=device, optimizer_impl=impl)
    step = None
    mfu = None
    if peak_flops_per_s:
        speed = training_speed(req, SINGLE, _peaks(device, peak_flops_per_s, bandwidth_bytes_per_s or 1e18))
        step, mfu = speed.step_time_s, speed.mfu
    return WorkloadPrediction(
        peak_memory_bytes=mem.total_bytes,
        step_time_s=step,
        components=mem.components,
        phase=mem.phase,
        formulas=mem.formulas,
        assumptions={"mfu": mfu if mfu is not None else "n/a", "optimizer_impl": impl.value},
        flops_per_token=training_flops_per_token(req),
    )


def predict_inference(
    model: ModelSpec,
    *,
    batch_size: int,
    prompt_tokens: int,
    output_tokens: int,
    precision: Precision,
    device: Device,
    attention: Attention = Attention.SDPA,
    peak_flops_per_s: float | None = None,
    bandwidth_bytes_per_s: float | None = None,
    assumptions: Assumptions | None = None,
) -> WorkloadPrediction:
    """Peak memory of a batched prompt pass with a preallocated KV cache for prompt + output tokens,
    and the time per decode step (one token for every sequence in the batch). The workload is an eager
    PyTorch loop, so it is predicted as Hugging Face generate() (per-layer host overhead)."""
    req = _workload_request(
        model,
        Task.INFERENCE,
        precision,
        attention,
        assumptions,
        users=batch_size,
        prompt_tokens=prompt_tokens,
        output_tokens=output_tokens,
        engine=Engine.HF_GENERATE,
    )
    a = req.assumptions
    mem = estimate_memory(req, SINGLE, device=device, prefill_tokens=batch_size * prompt_tokens)
    step = prefill = None
    if peak_flops_per_s and bandwidth_bytes_per_s:
        peaks = _peaks(device, peak_flops_per_s, bandwidth_bytes_per_s)
        speed = inference_speed(req, SINGLE, peaks, concurrency=batch_size)
        step, prefill = speed.decode_s_per_token, speed.prefill_s
    return WorkloadPrediction(
        peak_memory_bytes=mem.total_bytes,
        step_time_s=step,
        prefill_s=prefill,
        components=mem.components,
        phase=mem.phase,
        formulas=mem.formulas,
        assumptions={
            "engine": Engine.HF_GENERATE.value,
            "prefill_efficiency": a.prefill_efficiency if a.prefill_efficiency is not None else "per engine",
            "bandwidth_efficiency": a.bandwidth_efficiency
            if a.bandwidth_efficiency is not None
            else "per engine",
        },
        flops_per_token=2.0 * model.active_params(),
        decode_bytes_per_step=decode_bytes_per_step(req, batch_size),
    )
