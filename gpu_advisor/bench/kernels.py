"""Device kernels: matmul peak per dtype, memory bandwidth (device copy), host-to-device transfer
(imports torch).

Each timed step runs enough back-to-back operations to last about `Sizes.matmul_target_s`, so
launch overhead and timer resolution stay small against the work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import torch

from gpu_advisor.bench.context import Outcome, RunContext, now, ok_result
from gpu_advisor.bench.results import WorkloadResult
from gpu_advisor.bench.stats import spreads
from gpu_advisor.bench.timing import DeviceClock, run_steps
from gpu_advisor.core.units import GB

CPU_MATMUL_DTYPES = ("fp32", "bf16")
CUDA_MATMUL_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8")
TORCH_DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
# Tensor-core generations: TF32/bf16 from Ampere (8.0), fp8 from Ada/Hopper (8.9).
MIN_CAPABILITY = {"tf32": (8, 0), "bf16": (8, 0), "fp8": (8, 9)}


@contextlib.contextmanager
def _tf32(enabled: bool) -> Iterator[None]:
    """Let fp32 matmuls use TF32 tensor cores inside the block only (PyTorch leaves it off by default)."""
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):
        before = matmul.fp32_precision
        matmul.fp32_precision = "tf32" if enabled else "ieee"
        try:
            yield
        finally:
            matmul.fp32_precision = before
    else:  # pragma: no cover - torch before 2.9
        before_flag = matmul.allow_tf32
        matmul.allow_tf32 = enabled
        try:
            yield
        finally:
            matmul.allow_tf32 = before_flag


def _unsupported_reason(ctx: RunContext, dtype: str) -> str | None:
    if not ctx.is_cuda:
        return None if dtype in CPU_MATMUL_DTYPES else f"{dtype} matmuls need a CUDA device"
    capability = torch.cuda.get_device_capability(ctx.device)
    needed = MIN_CAPABILITY.get(dtype)
    if needed and capability < needed:
        return f"{dtype} needs compute capability {needed[0]}.{needed[1]}, this GPU has {capability[0]}.{capability[1]}"
    if dtype == "fp8" and not hasattr(torch, "float8_e4m3fn"):
        return "this PyTorch has no float8 types"
    return None


def _make_matmul(ctx: RunContext, dtype: str, n: int) -> Callable[[], torch.Tensor]:
    gen = torch.Generator(device=ctx.device).manual_seed(n)
    if dtype == "fp8":
        a = torch.randn(n, n, device=ctx.device, generator=gen).to(torch.float8_e4m3fn)
        # _scaled_mm wants the second operand column-major.
        b = torch.randn(n, n, device=ctx.device, generator=gen).to(torch.float8_e4m3fn).t()
        scale = torch.ones((), device=ctx.device)
        return lambda: torch._scaled_mm(a, b, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16)
    a = torch.randn(n, n, device=ctx.device, dtype=TORCH_DTYPES[dtype], generator=gen)
    b = torch.randn(n, n, device=ctx.device, dtype=TORCH_DTYPES[dtype], generator=gen)
    return lambda: a @ b


def choose_matmul_size(ctx: RunContext, dtype: str, clock: DeviceClock) -> tuple[int, int, float]:
    """The largest size whose single matmul fits the step target, and how many to run per step."""
    target = ctx.sizes.matmul_target_s
    chosen: tuple[int, float] | None = None
    for n in ctx.sizes.matmul_sizes:
        ctx.check()
        op = _make_matmul(ctx, dtype, n)
        op()  # first call: kernel selection, page faults
        _, seconds = clock.time(op)
        if chosen is not None and seconds > target:
            break
        chosen = (n, seconds)
        if seconds > target:
            break
    assert chosen is not None
    n, seconds = chosen
    return n, max(1, round(target / max(seconds, 1e-9))), seconds


def matmul_one(ctx: RunContext, dtype: str, progress: tuple[float, float] = (0.0, 1.0)) -> Outcome:
    """Achieved FLOP/s of square matmuls in one dtype, against the catalogue's dense peak."""
    started = now()
    name = f"matmul {dtype}"
    reason = _unsupported_reason(ctx, dtype)
    if reason:
        return Outcome(
            WorkloadResult(
                workload="matmul",
                name=name,
                status="unsupported",
                config={"dtype": dtype},
                notes=[reason],
                started_at=started,
                elapsed_s=0.0,
            )
        )
    clock = DeviceClock(ctx.device)
    ctx.progress(progress[0], f"{name}: choosing the size")
    with _tf32(dtype == "tf32") if ctx.is_cuda else contextlib.nullcontext():
        n, reps, _ = choose_matmul_size(ctx, dtype, clock)
        op = _make_matmul(ctx, dtype, n)

        def step() -> dict[str, float]:
            def work() -> None:
                for _ in range(reps):
                    op()

            _, seconds = clock.time(work)
            return {"step_time_s": seconds / reps}

        steps = run_steps(
            ctx,
            step,
            message=name,
            progress=(progress[0], progress[1]),
            live=("flops_per_s", lambda s: 2.0 * n**3 / s["step_time_s"]),
        )
    timings = spreads(steps)
    flops = 2.0 * n**3 / timings["step_time_s"].median
    # The device's measured peak (used for MFU and predictions on the CPU): the fastest tenth of the
    # steps, so that other processes stealing cores for a moment do not lower it.
    best = 2.0 * n**3 / timings["step_time_s"].p10
    peak = ctx.catalog_gpu.peak_flops_per_s(dtype) if ctx.is_cuda and ctx.catalog_gpu else None
    key = f"flops_per_s.{dtype}"
    ctx.measured[key] = max(ctx.measured.get(key, 0.0), best)
    metrics: dict[str, float | int | str | None] = {
        "flops_per_s": flops,
        "flops_per_s_p90": best,
        "tflops": flops / 1e12,
        "catalogue_peak_flops_per_s": peak,
        "fraction_of_catalogue_peak": flops / peak if peak else None,
    }
    config = {**ctx.common_config(), "dtype": dtype, "n": n, "matmuls_per_step": reps}
    notes = [] if peak or not ctx.is_cuda else ["no catalogue peak for this GPU and dtype"]
    if dtype == "tf32":
        notes.append("fp32 tensors with TF32 tensor cores enabled for this workload only")
    result = ok_result("matmul", name, started, config=config, metrics=metrics, timings=timings, notes=notes)
    # Without a known peak there is nothing to diagnose: the measurement is the peak.
    return Outcome(result, {"achieved_flops_per_s": flops, "peak_flops_per_s": peak} if peak else {})


def matmul(ctx: RunContext) -> Iterator[Outcome]:
    dtypes = CUDA_MATMUL_DTYPES if ctx.is_cuda else CPU_MATMUL_DTYPES
    for i, dtype in enumerate(dtypes):
        ctx.check()
        yield matmul_one(ctx, dtype, progress=(i / len(dtypes), 1 / len(dtypes)))


def bandwidth(ctx: RunContext) -> Iterator[Outcome]:
    """Device memory bandwidth from a large copy: bytes read + bytes written per second."""
    started = now()
    size = ctx.sizes.copy_bytes
    ctx.check_cap(2 * size, "copy buffers")
    clock = DeviceClock(ctx.device)
    src = torch.ones(size // 4, device=ctx.device)
    dst = torch.empty_like(src)
    _, one = clock.time(lambda: dst.copy_(src))
    reps = max(1, round(ctx.sizes.matmul_target_s / max(one, 1e-9)))

    def step() -> dict[str, float]:
        def work() -> None:
            for _ in range(reps):
                dst.copy_(src)

        _, seconds = clock.time(work)
        return {"copy_time_s": seconds / reps}

    steps = run_steps(
        ctx, step, message="bandwidth", live=("bytes_per_s", lambda s: 2.0 * size / s["copy_time_s"])
    )
    timings = spreads(steps)
    achieved = 2.0 * size / timings["copy_time_s"].median
    best = 2.0 * size / timings["copy_time_s"].p10
    ctx.measured["bandwidth_bytes_per_s"] = max(ctx.measured.get("bandwidth_bytes_per_s", 0.0), best)
    peak = ctx.catalog_gpu.bandwidth_bytes_per_s if ctx.is_cuda and ctx.catalog_gpu else None
    metrics: dict[str, float | int | str | None] = {
        "bytes_per_s": achieved,
        "gb_per_s": achieved / GB,
        "catalogue_bytes_per_s": peak,
        "fraction_of_catalogue": achieved / peak if peak else None,
    }
    config = {**ctx.common_config(), "buffer_bytes": size, "copies_per_step": reps}
    notes = ["bytes moved = 2 x buffer (read + write) per copy"]
    if not ctx.is_cuda:
        notes.append("CPU: a copy this size is mostly served by DRAM, not caches")
    measured = {"config": config, "metrics": metrics, "timings": timings, "notes": notes}
    result = ok_result("bandwidth", "bandwidth copy", started, **measured)
    return iter(
        [Outcome(result, {"achieved_bytes_per_s": achieved, "peak_bytes_per_s": peak} if peak else {})]
    )


def transfer(ctx: RunContext) -> Iterator[Outcome]:
    """Host-to-device copies from pinned and from pageable host memory (CUDA only)."""
    if not ctx.is_cuda:
        yield Outcome(
            WorkloadResult(
                workload="transfer",
                name="host-to-device transfer",
                status="unsupported",
                config=ctx.common_config(),
                notes=["host-to-device transfer needs a CUDA device"],
                started_at=now(),
                elapsed_s=0.0,
            )
        )
        return
    size = ctx.sizes.transfer_bytes
    clock = DeviceClock(ctx.device)
    dst = torch.empty(size, dtype=torch.uint8, device=ctx.device)
    for i, pinned in enumerate((True, False)):
        ctx.check()
        started = now()
        src = torch.ones(size, dtype=torch.uint8, pin_memory=pinned)

        def step(src: torch.Tensor = src, pinned: bool = pinned) -> dict[str, float]:
            _, seconds = clock.time(lambda: dst.copy_(src, non_blocking=pinned))
            return {"copy_time_s": seconds}

        kind = "pinned" if pinned else "pageable"
        steps = run_steps(
            ctx,
            step,
            message=f"transfer {kind}",
            progress=(i / 2, 1 / 2),
            live=("bytes_per_s", lambda s: size / s["copy_time_s"]),
        )
        timings = spreads(steps)
        rate = size / timings["copy_time_s"].median
        link = (
            ctx.catalog_gpu.link_bytes_per_s
            if ctx.catalog_gpu and not ctx.catalog_gpu.nvlink_gb_per_s
            else None
        )
        metrics: dict[str, float | int | str | None] = {
            "bytes_per_s": rate,
            "gb_per_s": rate / GB,
            "catalogue_pcie_bytes_per_s": link,
            "fraction_of_catalogue": rate / link if link else None,
        }
        yield Outcome(
            ok_result(
                "transfer",
                f"host-to-device {kind}",
                started,
                config={**ctx.common_config(), "bytes": size, "pinned": pinned},
                metrics=metrics,
                timings=timings,
            )
        )
        del src


def ensure_flops(ctx: RunContext, dtype: str) -> float | None:
    """The device's peak for `dtype`: the catalogue on GPU, else a measured one (measured now if needed)."""
    peak, _ = ctx.peak_flops(dtype)
    if peak is None and _unsupported_reason(ctx, dtype) is None:
        clock = DeviceClock(ctx.device)
        n, reps, _ = choose_matmul_size(ctx, dtype, clock)
        op = _make_matmul(ctx, dtype, n)
        times = []
        for _ in range(3):
            ctx.check()

            def work() -> None:
                for _ in range(reps):
                    op()

            times.append(clock.time(work)[1] / reps)
        ctx.measured[f"flops_per_s.{dtype}"] = 2.0 * n**3 / min(times)
        peak, _ = ctx.peak_flops(dtype)
    return peak


def ensure_bandwidth(ctx: RunContext) -> float | None:
    """The device's memory bandwidth: catalogue on GPU, else measured (now if needed) with a copy."""
    peak, _ = ctx.peak_bandwidth()
    if peak is None:
        size = min(ctx.sizes.copy_bytes, 64 * 2**20)
        src = torch.ones(size // 4, device=ctx.device)
        dst = torch.empty_like(src)
        clock = DeviceClock(ctx.device)
        dst.copy_(src)
        times = sorted(clock.time(lambda: dst.copy_(src))[1] for _ in range(5))
        ctx.measured["bandwidth_bytes_per_s"] = 2.0 * size / times[0]
        peak, _ = ctx.peak_bandwidth()
    return peak
