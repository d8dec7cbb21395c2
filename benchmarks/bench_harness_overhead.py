"""How much does the benchmark harness cost? The matmul workload against a bare torch.utils.benchmark timing.

Runs the real matmul workload through `run_benchmark` (telemetry sampler, progress, stop checks and all)
and times the same matmul (same size, dtype and threads) with `torch.utils.benchmark.Timer`, alternating
the two a few times. Ratio = bare median time / workload median time: 1.0 means no overhead, and the
target is at least 0.9.

Usage: python benchmarks/bench_harness_overhead.py [--repeats 3] [--duration-s 3] [--device cpu]
"""

from __future__ import annotations

import argparse
import statistics

import torch
from torch.utils import benchmark

from gpu_advisor.bench import BenchOptions, run_benchmark
from gpu_advisor.bench.kernels import TORCH_DTYPES

TARGET_RATIO = 0.9


def bare_median_s(dtype: str, n: int, device: str, min_run_time_s: float) -> float:
    """torch.utils.benchmark's median for `a @ b` (it synchronises CUDA itself)."""
    gen = torch.Generator(device=device).manual_seed(n)
    a = torch.randn(n, n, dtype=TORCH_DTYPES[dtype], device=device, generator=gen)
    b = torch.randn(n, n, dtype=TORCH_DTYPES[dtype], device=device, generator=gen)
    timer = benchmark.Timer("a @ b", globals={"a": a, "b": b}, num_threads=torch.get_num_threads())
    return timer.blocked_autorange(min_run_time=min_run_time_s).median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--duration-s", type=float, default=3.0)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()

    workload: dict[str, list[float]] = {}
    bare: dict[str, list[float]] = {}
    sizes: dict[str, int] = {}
    for _ in range(args.repeats):
        report = run_benchmark(
            BenchOptions(device=args.device, workloads=["matmul"], duration_s=args.duration_s)
        )
        for r in report.results:
            if r.status != "ok" or r.config.get("dtype") not in ("fp32", "bf16"):
                continue
            dtype = str(r.config["dtype"])
            sizes[dtype] = int(r.config["n"])  # type: ignore[arg-type]
            workload.setdefault(dtype, []).append(r.timings["step_time_s"].median)
            bare.setdefault(dtype, []).append(
                bare_median_s(dtype, sizes[dtype], args.device, args.duration_s)
            )

    print(
        f"device {args.device}, torch {torch.__version__}, {torch.get_num_threads()} threads, "
        f"{args.repeats} alternating repeats of {args.duration_s:g} s each"
    )
    print(f"{'dtype':<6} {'n':>5} {'workload median (ms)':>21} {'bare Timer median (ms)':>23} {'ratio':>6}")
    worst = None
    for dtype, times in workload.items():
        w, b = statistics.median(times), statistics.median(bare[dtype])
        ratio = b / w
        worst = ratio if worst is None else min(worst, ratio)
        print(f"{dtype:<6} {sizes[dtype]:>5} {w * 1e3:>21.3f} {b * 1e3:>23.3f} {ratio:>6.3f}")
        print(
            f"       per repeat: workload {[round(t * 1e3, 3) for t in times]} ms, "
            f"bare {[round(t * 1e3, 3) for t in bare[dtype]]} ms"
        )
    verdict = "meets" if worst is not None and worst >= TARGET_RATIO else "misses"
    print(f"worst ratio {worst:.3f}: {verdict} the target of >= {TARGET_RATIO}")


if __name__ == "__main__":
    main()
