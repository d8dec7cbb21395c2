"""Inference workload (imports torch): prompt pass (prefill) latency and decode tokens/s with a KV cache,
at several batch sizes.

As a serving engine does it: the KV cache for batch x (prompt + output) tokens is allocated up front in
the model's dtype; the prompt pass computes logits for the last prompt token only (as `generate()`
does); each decode step feeds one token per sequence and attends to the cache. Peak memory on the CPU
is measured under the profiler over one prompt pass and the first decode step (the cache is allocated
inside that window); on CUDA over the timed generations.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

from gpu_advisor.bench.context import Outcome, RunContext, now, ok_result
from gpu_advisor.bench.oom import is_out_of_memory, with_oom_backoff
from gpu_advisor.bench.peak_memory import measure_peak
from gpu_advisor.bench.results import Prediction, PredictionCheck, WorkloadResult
from gpu_advisor.bench.stats import spread, spreads
from gpu_advisor.bench.timing import DeviceClock, run_steps
from gpu_advisor.bench.training import device_peak, model_for, precision_for
from gpu_advisor.bench.zoo import KVCache, build_model, last_token_logits
from gpu_advisor.core.architecture import Family, ModelSpec
from gpu_advisor.core.memory import Device
from gpu_advisor.core.precision import Precision
from gpu_advisor.core.predict import predict_inference

TORCH_DTYPE = {Precision.FP32: torch.float32, Precision.BF16: torch.bfloat16}


def prefill(model: torch.nn.Module, tokens: torch.Tensor, cache: KVCache) -> torch.Tensor:
    """The prompt pass: fills the cache, returns the next token of every sequence (greedy)."""
    hidden = model.hidden(tokens, cache, 0)
    cache.length = tokens.shape[1]
    return last_token_logits(model, hidden).argmax(-1)


def decode_step(model: torch.nn.Module, tokens: torch.Tensor, cache: KVCache) -> torch.Tensor:
    """One new token for every sequence."""
    hidden = model.hidden(tokens, cache, cache.length)
    cache.length += 1
    return last_token_logits(model, hidden).argmax(-1)


class _Generator:
    """Runs whole generations and keeps every timing."""

    def __init__(
        self,
        ctx: RunContext,
        model: torch.nn.Module,
        spec: ModelSpec,
        batch: int,
        prompt: int,
        output: int,
        dtype: torch.dtype,
    ) -> None:
        self.ctx, self.model, self.spec, self.batch = ctx, model, spec, batch
        self.prompt, self.output, self.dtype = prompt, output, dtype
        self.clock = DeviceClock(ctx.device)
        gen = torch.Generator().manual_seed(batch)
        self.tokens = torch.randint(0, spec.vocab_size, (batch, prompt), generator=gen).to(ctx.device)
        self.decode_times: list[float] = []

    def run(self, decode_steps: int | None = None, record: bool = True) -> dict[str, float]:
        steps = self.output - 1 if decode_steps is None else decode_steps
        cache = KVCache(self.spec, self.batch, self.prompt + self.output, self.dtype, self.ctx.device)
        nxt, prefill_s = self.clock.time(lambda: prefill(self.model, self.tokens, cache))
        decode_total = 0.0
        for _ in range(steps):
            self.ctx.check()  # a long generation still stops within one decode step
            nxt, seconds = self.clock.time(lambda nxt=nxt: decode_step(self.model, nxt, cache))
            decode_total += seconds
            if record:
                self.decode_times.append(seconds)
        return {"prefill_s": prefill_s, "generation_s": prefill_s + decode_total}


def _decode_rate(step: dict[str, float], batch: int, output: int) -> float:
    """Decoded tokens per second of one generation (prefill excluded), as decode_tokens_per_s."""
    decode_s = step["generation_s"] - step["prefill_s"]
    return batch * (output - 1) / decode_s if decode_s > 0 else float("nan")


def _infer_attempt(
    ctx: RunContext,
    model: torch.nn.Module,
    spec: ModelSpec,
    batch: int,
    prompt: int,
    output: int,
    name: str,
    progress: tuple[float, float],
) -> Outcome:
    started = now()
    device = device_peak(ctx)
    precision, peak_dtype, peak_flops = device.precision, device.peak_dtype, device.peak_flops_per_s
    prediction = predict_inference(
        spec, batch_size=batch, prompt_tokens=prompt, output_tokens=output, **device.prediction_inputs()
    )
    ctx.check_cap(prediction.peak_memory_bytes)
    runner = _Generator(ctx, model, spec, batch, prompt, output, TORCH_DTYPE[precision])
    with torch.inference_mode():
        ctx.progress(progress[0], f"{name}: warm-up")
        runner.run(decode_steps=min(2, output - 1), record=False)
        peak = None
        if not ctx.is_cuda:
            with measure_peak(ctx.device, [*model.parameters(), *model.buffers()]) as peak:
                runner.run(decode_steps=1, record=False)
            ctx.check_cap(peak.peak_bytes, "measured")
        with measure_peak(ctx.device) if ctx.is_cuda else contextlib.nullcontext() as cuda_peak:
            steps = run_steps(
                ctx,
                runner.run,
                message=name,
                warmup=0,
                min_steps=max(3, ctx.sizes.min_steps // 2),
                progress=(progress[0] + 0.2 * progress[1], 0.8 * progress[1]),
                live=("decode_tokens_per_s", lambda s: _decode_rate(s, batch, output)),
            )
        peak = cuda_peak if ctx.is_cuda else peak
    if peak is not None:
        ctx.check_cap(peak.peak_bytes, "measured")
    timings = spreads(steps)
    timings["decode_step_s"] = spread(runner.decode_times)
    decode_s = timings["decode_step_s"].median
    prefill_s = timings["prefill_s"].median
    bytes_per_decode = prediction.decode_bytes_per_step
    metrics: dict[str, float | int | str | None] = {
        "prefill_s": prefill_s,
        "prefill_tokens_per_s": batch * prompt / prefill_s,
        "decode_step_s": decode_s,
        "decode_tokens_per_s": batch / decode_s,
        "decode_tokens_per_s_per_sequence": 1.0 / decode_s,
        "decode_bytes_per_s": bytes_per_decode / decode_s,
        "kv_cache_bytes": prediction.components.kv_cache,
        "peak_memory_bytes": peak.peak_bytes if peak else None,
        "reserved_memory_bytes": peak.reserved_bytes if peak else None,
    }
    config = {
        **ctx.common_config(),
        "model": spec.name,
        "model_shape": spec.describe(),
        "family": spec.family.value,
        "batch_size": batch,
        "prompt_tokens": prompt,
        "output_tokens": output,
        "precision": precision.value,
        "attention": "sdpa",
        "kv_cache": "preallocated, model dtype",
    }
    _, flops_basis = ctx.peak_flops(peak_dtype)
    _, bw_basis = ctx.peak_bandwidth()
    checked = Prediction(
        peak_memory_bytes=PredictionCheck.of(prediction.peak_memory_bytes, peak.peak_bytes if peak else None),
        step_time_s=PredictionCheck.of(prediction.step_time_s, decode_s),
        # The core's prefill time is one user's prompt: comparable at batch 1 only.
        prefill_s=PredictionCheck.of(prediction.prefill_s, prefill_s) if batch == 1 else None,
        phase=prediction.phase,
        components=prediction.components.model_dump(),
        basis=f"step = one decode step for the whole batch; peak FLOP/s: {flops_basis}; bandwidth: {bw_basis}",
    )
    measured = {"config": config, "metrics": metrics, "timings": timings, "prediction": checked}
    result = ok_result("inference", name, started, **measured)
    peak_bw, _ = ctx.peak_bandwidth()
    evidence = {
        "step_time_s": decode_s,
        "achieved_bytes_per_s": bytes_per_decode / decode_s,
        "peak_bytes_per_s": peak_bw,
        "achieved_flops_per_s": 2.0 * spec.active_params() * batch / decode_s,
        "peak_flops_per_s": peak_flops,
    }
    return Outcome(result, evidence)


def inference(ctx: RunContext) -> Iterator[Outcome]:
    """Prefill and decode at each batch size of the device's sweep."""
    spec = model_for(ctx, ctx.sizes.infer_model)
    output = max(2, ctx.sizes.output_tokens)
    prompt = ctx.sizes.prompt_tokens
    if spec.family is Family.GPT2:  # learned positions end at max_positions
        prompt = max(1, min(prompt, spec.max_positions - output))
    precision = precision_for(ctx)
    batches = ctx.sizes.infer_batches
    started = now()
    weights = predict_inference(
        spec,
        batch_size=1,
        prompt_tokens=prompt,
        output_tokens=output,
        precision=precision,
        device=Device.CUDA if ctx.is_cuda else Device.CPU,
    )
    try:
        ctx.check_cap(weights.components.weights, "weights")
        ctx.progress(0.0, f"inference: building {spec.name}")
        model = build_model(spec, dtype=TORCH_DTYPE[precision], device=ctx.device).eval()
    except Exception as exc:
        if not is_out_of_memory(exc):
            raise
        yield Outcome(
            WorkloadResult(
                workload="inference",
                name=f"inference {spec.name}",
                status="oom",
                config={**ctx.common_config(), "model": spec.name},
                metrics={"max_batch_size": None},
                notes=[f"the model's weights do not fit: {exc}"],
                started_at=started,
                elapsed_s=now() - started,
            )
        )
        return
    for i, batch in enumerate(batches):
        ctx.check()
        name = f"inference {spec.name} batch {batch}"

        def attempt(b: int, i: int = i) -> Outcome:
            return _infer_attempt(
                ctx,
                model,
                spec,
                b,
                prompt,
                output,
                f"inference {spec.name} batch {b}",
                progress=(i / len(batches), 1 / len(batches)),
            )

        yield with_oom_backoff(
            ctx,
            batch,
            attempt,
            workload="inference",
            name=name,
            config={
                **ctx.common_config(),
                "model": spec.name,
                "batch_size": batch,
                "prompt_tokens": prompt,
                "output_tokens": output,
            },
        )
