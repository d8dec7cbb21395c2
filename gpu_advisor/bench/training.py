"""Training step workloads (imports torch): forward, fp32 cross-entropy, backward and AdamW, fed by a
real DataLoader over synthetic tokens; and the data-loader stress case, whose loader does real CPU
work per sample sized at start-up to a multiple of the measured step (input-bound on any machine).

Built to match what `gpu_advisor.core.memory` models: SDPA attention without dropout, the loss computed
inside the step from fp32 logits that nobody keeps, PyTorch's default AdamW implementation for the
device (a per-tensor loop on the CPU, foreach on CUDA), gradients set to None before each step. Mixed
precision (bf16) is autocast over fp32 weights. Peak memory is measured from the third step on (the
first step creates the optimizer state): on the CPU one extra step under the profiler, outside the
timed steps; on CUDA over all timed steps with the allocator's peak counters.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset

from gpu_advisor.bench.context import Outcome, RunContext, now, ok_result
from gpu_advisor.bench.kernels import ensure_bandwidth, ensure_flops
from gpu_advisor.bench.loader_stress import (
    LOADER_TIME_PER_STEP,
    LoaderSizer,
    SyntheticRecords,
    decode_round_s,
    expected_wait_fraction,
    loader_workers,
)
from gpu_advisor.bench.oom import with_oom_backoff
from gpu_advisor.bench.peak_memory import live_training_tensors, measure_peak
from gpu_advisor.bench.results import Prediction, PredictionCheck, WorkloadKind
from gpu_advisor.bench.stats import spreads
from gpu_advisor.bench.timing import DeviceClock, run_steps
from gpu_advisor.bench.zoo import build_model, count_parameters, training_loss
from gpu_advisor.core.architecture import ModelSpec
from gpu_advisor.core.memory import Device
from gpu_advisor.core.precision import Precision
from gpu_advisor.core.predict import predict_training_step
from gpu_advisor.core.units import format_pct

LEARNING_RATE = 1e-4
# The optimizer state exists from the end of step 1; steps 1 and 2 are never measured.
MIN_TRAIN_WARMUP_STEPS = 2
# Start-up measurement for the data-loader stress case: steps timed on a fixed batch (after one
# untimed).
CALIBRATION_STEPS = 3


class SyntheticTokens(Dataset):
    """Random token sequences, reproducible per index (no preprocessing: the loader is not the test)."""

    def __init__(self, vocab_size: int, seq_len: int, length: int, seed: int = 0) -> None:
        self.vocab_size, self.seq_len, self.length, self.seed = vocab_size, seq_len, length, seed

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        gen = torch.Generator().manual_seed(self.seed * 1_000_003 + index)
        tokens = torch.randint(0, self.vocab_size, (self.seq_len + 1,), generator=gen)
        return tokens[:-1], tokens[1:]


def default_workers(ctx: RunContext) -> int:
    """Loader worker processes: 0 on the CPU (workers would take cores from the step being measured),
    up to 4 on a GPU."""
    if ctx.options.dataloader_workers is not None:
        return ctx.options.dataloader_workers
    if not ctx.is_cuda:
        return 0
    import os

    return max(1, min(4, (os.cpu_count() or 2) // 2))


def precision_for(ctx: RunContext) -> Precision:
    chosen = ctx.options.precision or ("bf16" if ctx.is_cuda else "fp32")
    return Precision(chosen)


@dataclass(frozen=True, slots=True)
class DevicePeak:
    """What a model workload is predicted with: the precision it runs in, the dtype of the peak it is
    measured against, the device kind the planner predicts for, that peak in FLOP/s and the memory
    bandwidth (the catalogue's, or measured now; None where unknown or not asked for)."""

    precision: Precision
    peak_dtype: str
    device: Device
    peak_flops_per_s: float | None
    bandwidth_bytes_per_s: float | None

    def prediction_inputs(self) -> dict[str, Any]:
        """The device's part of a core.predict call."""
        return {
            "precision": self.precision,
            "device": self.device,
            "peak_flops_per_s": self.peak_flops_per_s,
            "bandwidth_bytes_per_s": self.bandwidth_bytes_per_s,
        }


def device_peak(ctx: RunContext, *, with_bandwidth: bool = True) -> DevicePeak:
    """The device figures a model workload is predicted with (DevicePeak); the bandwidth only when asked."""
    precision = precision_for(ctx)
    peak_dtype = "bf16" if precision is Precision.BF16 else "fp32"
    device = Device.CUDA if ctx.is_cuda else Device.CPU
    peak_flops = ensure_flops(ctx, peak_dtype)
    bandwidth = ensure_bandwidth(ctx) if with_bandwidth else None
    return DevicePeak(precision, peak_dtype, device, peak_flops, bandwidth)


def _autocast(ctx: RunContext, precision: Precision) -> contextlib.AbstractContextManager[object]:
    if precision is Precision.FP32:
        return contextlib.nullcontext()
    return torch.autocast(ctx.device.type, dtype=torch.bfloat16)


def train_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    tokens: torch.Tensor,
    targets: torch.Tensor,
    autocast: contextlib.AbstractContextManager[object],
) -> torch.Tensor:
    """One optimisation step; returns the detached loss (no host synchronisation)."""
    optimizer.zero_grad(set_to_none=True)
    with autocast:
        loss = training_loss(model, tokens, targets)
    loss.backward()
    optimizer.step()
    return loss.detach()


def _fits_positions(spec: ModelSpec, seq: int) -> int:
    return min(seq, spec.max_positions) if spec.family.value == "gpt2" else seq


def _train_attempt(
    ctx: RunContext,
    spec: ModelSpec,
    batch: int,
    seq: int,
    *,
    workload: WorkloadKind,
    name: str,
    workers: int,
    input_bound: bool,
    predict: bool,
    progress: tuple[float, float],
) -> Outcome:
    started = now()
    device = device_peak(ctx, with_bandwidth=predict)
    precision, peak_dtype, peak_flops = device.precision, device.peak_dtype, device.peak_flops_per_s
    prediction = predict_training_step(spec, batch_size=batch, seq_len=seq, **device.prediction_inputs())
    ctx.check_cap(prediction.peak_memory_bytes)
    ctx.progress(progress[0], f"{name}: building the model (batch {batch})")
    clock = DeviceClock(ctx.device)
    model = build_model(spec, dtype=torch.float32, device=ctx.device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    autocast = _autocast(ctx, precision)
    warmup = max(MIN_TRAIN_WARMUP_STEPS, ctx.sizes.warmup_steps)
    length = (warmup + ctx.sizes.max_steps + 2) * batch
    dataset: Dataset
    sizing: dict[str, float | int | str] = {}
    sizer: LoaderSizer | None = None
    if input_bound:
        ctx.progress(progress[0], f"{name}: timing the step to size the loader")
        records = SyntheticRecords(spec.vocab_size, seq, length, rounds=1)
        compute_s = _calibration_compute_s(ctx, clock, model, optimizer, autocast, spec, batch, seq)
        round_s = decode_round_s(records)
        sizer = LoaderSizer(records, round_s, batch, workers, compute_s)
        sizing = {"calibration_compute_s": compute_s, "decode_round_s": round_s}
        dataset = records
    else:
        dataset = SyntheticTokens(spec.vocab_size, seq, length)
    loader = DataLoader(
        dataset,
        batch_size=batch,
        num_workers=workers,
        pin_memory=ctx.is_cuda,
        drop_last=True,
        persistent_workers=workers > 0,
    )
    batches = iter(loader)
    last_loss: list[torch.Tensor] = []

    def next_batch() -> tuple[torch.Tensor, torch.Tensor]:
        nonlocal batches
        try:
            return next(batches)
        except StopIteration:
            batches = iter(loader)
            return next(batches)

    def fetch() -> tuple[torch.Tensor, torch.Tensor]:
        tokens, targets = next_batch()
        return tokens.to(ctx.device, non_blocking=True), targets.to(ctx.device, non_blocking=True)

    def step() -> dict[str, float]:
        # Input wait: the time the loop blocks on the loader's iterator, nothing else. The copy to
        # the device is part of the step's compute (timed on the device with it).
        begin = time.perf_counter()
        host_tokens, host_targets = next_batch()
        wait = time.perf_counter() - begin

        def work() -> torch.Tensor:
            tokens = host_tokens.to(ctx.device, non_blocking=True)
            targets = host_targets.to(ctx.device, non_blocking=True)
            return train_step(model, optimizer, tokens, targets, autocast)

        loss, compute = clock.time(work)
        if sizer is not None:
            sizer.observe(compute)
        last_loss[:] = [loss]
        return {"step_time_s": wait + compute, "input_wait_s": wait, "compute_time_s": compute}

    try:
        for _ in range(warmup):
            ctx.check()
            step()
        ctx.progress(progress[0] + 0.2 * progress[1], f"{name}: measuring peak memory")
        peak = None
        if not ctx.is_cuda and predict:
            tokens, targets = fetch()
            # Gradients must be gone before the window opens: the profiler does not report freeing
            # memory allocated before it started (see peak_memory), and train_step frees them first.
            optimizer.zero_grad(set_to_none=True)
            with measure_peak(
                ctx.device, [*live_training_tensors(model, optimizer), tokens, targets]
            ) as peak:
                train_step(model, optimizer, tokens, targets, autocast)
            del tokens, targets
            ctx.check_cap(peak.peak_bytes, "measured")
        with measure_peak(ctx.device) if ctx.is_cuda else contextlib.nullcontext() as cuda_peak:
            steps = run_steps(
                ctx,
                step,
                message=name,
                warmup=0,
                progress=(progress[0] + 0.3 * progress[1], 0.7 * progress[1]),
                live=("tokens_per_s", lambda s: batch * seq / s["step_time_s"]),
            )
        peak = cuda_peak if ctx.is_cuda else peak
        if peak is not None:
            ctx.check_cap(peak.peak_bytes, "measured")
        final_loss = float(last_loss[0]) if last_loss else None
    finally:
        del batches  # stops loader workers
    timings = spreads(steps)
    flops_per_step = prediction.flops_per_token * batch * seq
    step_median = timings["step_time_s"].median
    achieved = flops_per_step / step_median
    waits = sum(s["input_wait_s"] for s in steps)
    total = sum(s["step_time_s"] for s in steps)
    peak_name = "catalogue" if ctx.is_cuda else "measured matmul"
    metrics: dict[str, float | int | str | None] = {
        "params": count_parameters(model),
        "tokens_per_s": batch * seq / step_median,
        "flops_per_step": flops_per_step,
        "achieved_flops_per_s": achieved,
        "peak_flops_per_s": peak_flops,
        "mfu": achieved / peak_flops if peak_flops else None,
        "input_wait_fraction": waits / total if total else None,
        "peak_memory_bytes": peak.peak_bytes if peak else None,
        "reserved_memory_bytes": peak.reserved_bytes if peak else None,
        "final_loss": final_loss,
    }
    config = {
        **ctx.common_config(),
        "model": spec.name,
        "model_shape": spec.describe(),
        "family": spec.family.value,
        "batch_size": batch,
        "seq_len": seq,
        "precision": precision.value,
        "dataloader_workers": workers,
        "optimizer": "AdamW (PyTorch default implementation)",
        "attention": "sdpa",
    }
    notes = [f"MFU against the {peak_name} {peak_dtype} peak, over whole steps including input wait"]
    if sizer is not None:
        rounds = sizer.records.rounds
        sizing |= {
            "decode_rounds_per_sample": rounds,
            "loader_time_per_step_target": LOADER_TIME_PER_STEP,
            "loader_sizing": "follows the slowest step" if sizer.follows_the_step else "fixed at start-up",
            "preprocess_s_per_batch_estimate": rounds * sizer.round_s * batch,
        }
        basis = "the slowest step's" if sizer.follows_the_step else "the start-up step's"
        notes.append(
            f"the loader decodes each sample in {rounds} passes: {LOADER_TIME_PER_STEP:g}x {basis} "
            f"measured compute time per batch (input wait expected about "
            f"{expected_wait_fraction(workers):.0%} of each step)"
        )
    config.update(sizing)
    checked = None
    if predict:
        _, basis = ctx.peak_flops(peak_dtype)
        checked = Prediction(
            peak_memory_bytes=PredictionCheck.of(
                prediction.peak_memory_bytes, peak.peak_bytes if peak else None
            ),
            step_time_s=PredictionCheck.of(prediction.step_time_s, timings["compute_time_s"].median),
            phase=prediction.phase,
            components=prediction.components.model_dump(),
            basis=f"peak FLOP/s: {basis}; MFU {format_pct(prediction.assumptions.get('mfu'))}; measured "
            "step time excludes input wait",
        )
    measured = {
        "config": config,
        "metrics": metrics,
        "timings": timings,
        "prediction": checked,
        "notes": notes,
    }
    result = ok_result(workload, name, started, **measured)
    # The input-bound rule reads wait / step; use the run's totals so the verdict quotes the same
    # fraction as the table's input_wait_fraction (medians of the two can disagree widely).
    evidence = {
        "step_time_s": total / len(steps),
        "input_wait_s": waits / len(steps),
        "achieved_flops_per_s": achieved,
        "peak_flops_per_s": peak_flops,
    }
    return Outcome(result, evidence)


def _calibration_compute_s(
    ctx: RunContext,
    clock: DeviceClock,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    autocast: contextlib.AbstractContextManager[object],
    spec: ModelSpec,
    batch: int,
    seq: int,
) -> float:
    """The model step's compute seconds on a fixed batch already on the device (median of
    CALIBRATION_STEPS after an untimed one); these steps also warm the model and its optimizer."""
    gen = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, spec.vocab_size, (batch, seq + 1), generator=gen).to(ctx.device)
    inputs, targets = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()  # as the loader collates
    times = []
    for _ in range(CALIBRATION_STEPS + 1):
        ctx.check()
        _, seconds = clock.time(lambda: train_step(model, optimizer, inputs, targets, autocast))
        times.append(seconds)
    return sorted(times[1:])[len(times[1:]) // 2]


def model_for(ctx: RunContext, default: ModelSpec) -> ModelSpec:
    spec = ctx.options.chosen_spec()
    if spec is None:
        return default
    # The zoo has no dropout: benchmark the preset's shape without it (as core's prediction is asked).
    return spec.model_copy(update={"dropout": False})


def train(ctx: RunContext) -> Iterator[Outcome]:
    """The training step at the configured model, batch and sequence length."""
    spec = model_for(ctx, ctx.sizes.train_model)
    seq = _fits_positions(spec, ctx.sizes.train_seq)
    batch = ctx.sizes.train_batch
    workers = default_workers(ctx)
    name = f"train {spec.name}"

    def attempt(b: int) -> Outcome:
        return _train_attempt(
            ctx,
            spec,
            b,
            seq,
            workload="train",
            name=name,
            workers=workers,
            input_bound=False,
            predict=True,
            progress=(0.0, 1.0),
        )

    yield with_oom_backoff(
        ctx,
        batch,
        attempt,
        workload="train",
        name=name,
        config={**ctx.common_config(), "model": spec.name, "batch_size": batch, "seq_len": seq},
    )


def dataloader(ctx: RunContext) -> Iterator[Outcome]:
    """A small model fed by a loader that spends LOADER_TIME_PER_STEP times the step's compute time
    decoding each batch (measured and sized at start-up): the input-bound diagnosis at work."""
    spec = ctx.sizes.loader_model
    seq = _fits_positions(spec, ctx.sizes.loader_seq)
    name = f"dataloader stress (loader {LOADER_TIME_PER_STEP:g}x slower than the step)"
    outcome = _train_attempt(
        ctx,
        spec,
        ctx.sizes.loader_batch,
        seq,
        workload="dataloader",
        name=name,
        workers=loader_workers(ctx),
        input_bound=True,
        predict=False,
        progress=(0.0, 1.0),
    )
    yield outcome
