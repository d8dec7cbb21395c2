"""Does the cluster benchmark's timing add to what it measures? Its collective figures against a bare
torch.distributed loop of the same op and size.

Harness: `gpu-advisor bench --nproc N --phases collectives` as a user runs it (torchrun, heartbeats,
telemetry sampler and store barriers running), each size timed op by op, the slowest rank per
iteration, the median. Bare loop: a plain torchrun script calling the same op on the same buffers 150
times in a row, each call between two perf_counter() reads (CUDA: synchronised), the slowest rank per
iteration, the median: the same statistic with nothing else running. The two alternate `--repeats`
times and each side's median over the repeats is compared. Ratio = bare time / harness time: 1.0 means
the harness adds nothing; the target is at least 0.95. The bare loop's mean is printed too: where it
is far above the median, ranks are being preempted (a busy machine), which no harness can remove.

Usage: python benchmarks/bench_distributed_overhead.py [--nproc 2] [--repeats 5] [--device cpu]
(with --device cuda: NCCL, one GPU per process).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 0.95
SIZES = (8, 64 * 2**10, 2**20)
OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")
BARE_ITERATIONS = 150
WARMUP_ITERATIONS = 5


def bare_worker(device_kind: str, out: Path) -> None:
    """Runs under torchrun: the bare loops, written by rank 0 as {"op size": [median s, mean s]}."""
    import datetime

    import torch
    import torch.distributed as dist

    cuda = device_kind == "cuda"
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"])) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if cuda else "gloo", timeout=datetime.timedelta(seconds=120))
    n = dist.get_world_size()

    def sync() -> None:
        if cuda:
            torch.cuda.synchronize(device)

    results = {}
    for op in OPS:
        for size in SIZES:
            numel = max(size // 4, n if op in ("all_gather", "reduce_scatter") else 1)
            big = torch.zeros(numel, device=device)
            small = torch.zeros(numel // n, device=device)
            run = {
                "all_reduce": lambda big=big: dist.all_reduce(big),
                "all_gather": lambda big=big, small=small: dist.all_gather_into_tensor(big, small),
                "reduce_scatter": lambda big=big, small=small: dist.reduce_scatter_tensor(small, big),
                "broadcast": lambda big=big: dist.broadcast(big, src=0),
            }[op]
            for _ in range(WARMUP_ITERATIONS):
                run()
            dist.barrier()
            times = []
            for _ in range(BARE_ITERATIONS):
                sync()
                began = time.perf_counter()
                run()
                sync()
                times.append(time.perf_counter() - began)
            slowest = torch.tensor(times, dtype=torch.float64, device=device)
            dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
            per_iteration = slowest.tolist()
            results[f"{op} {size}"] = [statistics.median(per_iteration), statistics.fmean(per_iteration)]
    if dist.get_rank() == 0:
        out.write_text(json.dumps(results))
    dist.destroy_process_group()


def harness_run(args: argparse.Namespace, path: Path) -> dict[str, float]:
    """One `gpu-advisor bench --nproc` collectives phase; the median time at each benchmarked size."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "gpu_advisor",
            "bench",
            "--nproc",
            str(args.nproc),
            "--device",
            args.device,
            "--quick",
            "--phases",
            "collectives",
            "--max-message",
            str(max(SIZES)),
            "--duration",
            str(args.budget_s),
            "--json",
            str(path),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    from gpu_advisor.bench import load_report

    rows = load_report(path).distributed.collectives
    return {f"{r.op} {r.bytes}": r.time_s for r in rows}


def bare_run(args: argparse.Namespace, path: Path) -> dict[str, list[float]]:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            f"--nproc-per-node={args.nproc}",
            __file__,
            "--bare-worker",
            str(path),
            f"--device={args.device}",
        ],
        check=True,
        stderr=subprocess.DEVNULL,
    )
    return json.loads(path.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--budget-s", type=float, default=2.0, help="harness sweep budget per collective")
    parser.add_argument("--bare-worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_worker:
        bare_worker(args.device, Path(args.bare_worker))
        return
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    harness: dict[str, list[float]] = {}
    bare: dict[str, list[float]] = {}
    bare_mean: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            for key, value in harness_run(args, Path(tmp) / f"harness-{i}.json").items():
                harness.setdefault(key, []).append(value)
            for key, (median, mean) in bare_run(args, Path(tmp) / f"bare-{i}.json").items():
                bare.setdefault(key, []).append(median)
                bare_mean.setdefault(key, []).append(mean)
    import torch

    print(
        f"{'gloo' if args.device == 'cpu' else 'nccl'} on {args.device}, {args.nproc} ranks, torch "
        f"{torch.__version__}, OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}, {args.repeats} alternating "
        "repeats (medians of the repeats)"
    )
    print(f"{'collective':<15} {'size':>9} {'harness':>11} {'bare loop':>11} {'ratio':>6} {'bare mean':>11}")
    worst = float("inf")
    ratios: list[float] = []
    for op in OPS:
        for size in SIZES:
            key = f"{op} {size}"
            if len(harness.get(key, [])) < args.repeats:
                print(f"{op:<15} {size:>9,}  the sweep stopped before this size: raise --budget-s")
                worst = 0.0
                continue
            h, b = statistics.median(harness[key]), statistics.median(bare[key])
            worst = min(worst, b / h)
            ratios.append(b / h)
            m = statistics.median(bare_mean[key])
            print(f"{op:<15} {size:>9,} {h * 1e6:>9.1f}us {b * 1e6:>9.1f}us {b / h:>6.3f} {m * 1e6:>9.1f}us")
    verdict = "PASS" if worst >= TARGET_RATIO else "FAIL"
    # A harness that added time would pull every ratio down; machine noise scatters them both ways.
    geomean = statistics.geometric_mean(ratios) if ratios else float("nan")
    print(f"geometric mean of the ratios {geomean:.3f}")
    print(f"worst ratio {worst:.3f} (target >= {TARGET_RATIO}): {verdict}")


if __name__ == "__main__":
    main()
