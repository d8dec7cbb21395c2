"""Does `gpu-advisor bench --nproc N --quick` report the bus bandwidth the fabric gives? Its all_reduce
figures against a bare torch.distributed loop of the same op and sizes, run side by side.

Product: `gpu-advisor bench --nproc N --device D --quick --phases collectives --collectives all_reduce`
as a user runs it (the launcher, torchrun, heartbeats, telemetry sampler, store barriers), read back
from its JSON: the bus bandwidth of every size, of the largest message and the peak over sizes.
Bare loop: nccl-tests' method (src/common.cu) in a plain torchrun script: a warm-up pass over every
size, then per size one op, a barrier, ITERATIONS ops in a row between two clock reads (CUDA:
synchronised), the time per op averaged over the ranks, busbw = S / t x 2(n-1)/n. It runs the sizes
the product measured in the same repeat. The bare loop's per-op median is printed too: the product
takes per-op medians, so it should sit between the two, never far above the median.

The two alternate (product, bare, bare, product, ...) `--repeats` times so that the other load on the
machine falls on both alike; each figure is the median over the repeats, the ratio is product / bare
(nccl-tests' block figure). Target: at least 0.95 for the largest message and for the peak.

Usage: python benchmarks/bench_cluster_busbw.py [--nproc 2] [--repeats 5] [--device cpu] [--all-phases]
(--all-phases: the whole quick run, point-to-point and scaling after the collectives; slower.)
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
ITERATIONS = 20  # nccl-tests' default -n
WARMUP_ITERATIONS = 5  # nccl-tests' -w is 1 after a pass over all sizes; 5 is kinder on a CPU
OP = "all_reduce"
MIB = 2**20


def bare_worker(device_kind: str, sizes: list[int], out: Path) -> None:
    """Runs under torchrun: rank 0 writes {size: [block time s, per-op median s]} for OP."""
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

    buffers = {size: torch.zeros(size // 4, device=device) for size in sizes}
    for buf in buffers.values():  # nccl-tests: warm-up for all sizes first
        for _ in range(WARMUP_ITERATIONS):
            dist.all_reduce(buf)
    sync()
    results = {}
    for size, buf in buffers.items():
        dist.all_reduce(buf)
        sync()
        dist.barrier()
        began = time.perf_counter()
        for _ in range(ITERATIONS):
            dist.all_reduce(buf)
        sync()
        block = (time.perf_counter() - began) / ITERATIONS
        per_op = []
        for _ in range(ITERATIONS):
            t0 = time.perf_counter()
            dist.all_reduce(buf)
            sync()
            per_op.append(time.perf_counter() - t0)
        # nccl-tests averages the block time over the ranks; the per-op times: slowest rank per op.
        block_t = torch.tensor([block], dtype=torch.float64, device=device)
        dist.all_reduce(block_t)
        slowest = torch.tensor(per_op, dtype=torch.float64, device=device)
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        results[str(size)] = [block_t.item() / n, statistics.median(slowest.tolist())]
    if dist.get_rank() == 0:
        out.write_text(json.dumps(results))
    dist.destroy_process_group()


def product_run(
    args: argparse.Namespace, path: Path
) -> tuple[dict[int, float], float, int, float, int, float]:
    """One quick cluster bench: ({size: busbw}, largest busbw, its size, peak busbw, its size, wall s)."""
    command = [sys.executable, "-m", "gpu_advisor", "bench", "--nproc", str(args.nproc)]
    command += ["--device", args.device, "--quick", "--json", str(path)]
    if not args.all_phases:
        command += ["--phases", "collectives", "--collectives", OP]
    began = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"the product's run failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    wall_s = time.monotonic() - began
    from gpu_advisor.bench.loading import load_report

    section = load_report(path).distributed
    assert section is not None
    rows = section.rows(OP, "intra-node")
    link = section.link(OP, "intra-node")
    assert link is not None and rows
    peak = max(rows, key=lambda r: r.busbw_bytes_per_s)
    by_size = {r.bytes: r.busbw_bytes_per_s for r in rows}
    return by_size, link.busbw_bytes_per_s, link.largest_bytes, peak.busbw_bytes_per_s, peak.bytes, wall_s


def bare_run(args: argparse.Namespace, sizes: list[int], path: Path) -> dict[int, tuple[float, float]]:
    """{size: (block busbw, per-op median busbw)}."""
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
            "--sizes",
            ",".join(str(s) for s in sizes),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    factor = 2 * (args.nproc - 1) / args.nproc
    found = json.loads(path.read_text())
    return {int(s): (int(s) / t[0] * factor, int(s) / t[1] * factor) for s, t in found.items()}


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--all-phases", action="store_true", help="the whole quick run, not only all_reduce")
    parser.add_argument("--bare-worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_worker:
        bare_worker(args.device, [int(s) for s in args.sizes.split(",")], Path(args.bare_worker))
        return
    product: dict[int, list[float]] = {}
    block: dict[int, list[float]] = {}
    median: dict[int, list[float]] = {}
    largest: list[tuple[float, float]] = []  # (product, bare block) at the product's largest message
    peaks: list[tuple[float, float]] = []  # (product's peak, bare block's peak over the same sizes)
    walls: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            path = Path(tmp) / f"product-{i}.json"
            bare_first = i % 2 == 1  # P B, B P, P B, ...: drifting load falls on both sides alike
            if bare_first:
                sizes = sorted(product) or [8 * 2**k for k in range(22)]
                bare = bare_run(args, sizes, Path(tmp) / f"bare-{i}.json")
            found, big, big_bytes, peak, peak_bytes, wall_s = product_run(args, path)
            if not bare_first or set(found) - set(bare):
                bare = bare_run(args, sorted(found), Path(tmp) / f"bare-{i}.json")
            walls.append(wall_s)
            for size, busbw in found.items():
                product.setdefault(size, []).append(busbw)
                block.setdefault(size, []).append(bare[size][0])
                median.setdefault(size, []).append(bare[size][1])
            largest.append((big, bare[big_bytes][0]))
            peaks.append((peak, max(bare[s][0] for s in found)))
            print(
                f"repeat {i + 1}/{args.repeats} (load {_load()}): product {big / 1e6:.0f} MB/s at "
                f"{big_bytes / MIB:g} MiB, peak {peak / 1e6:.0f} MB/s at {peak_bytes / MIB:g} MiB; "
                f"bare {bare[big_bytes][0] / 1e6:.0f} MB/s at {big_bytes / MIB:g} MiB, "
                f"peak {peaks[-1][1] / 1e6:.0f} MB/s",
                flush=True,
            )
    import torch

    print()
    print(
        f"{OP}, {'gloo' if args.device == 'cpu' else 'nccl'} on {args.device}, {args.nproc} ranks, torch "
        f"{torch.__version__}, {os.cpu_count()} cores, {args.repeats} alternating repeats; medians over "
        f"the repeats; product run {statistics.median(walls):.1f} s (median wall time)"
    )
    header = f"{'size':>9} {'product':>10} {'bare block':>11} {'ratio':>6} {'bare per-op':>12} {'runs':>5}"
    print(header)
    print("-" * len(header))
    for size in sorted(product):
        if size < MIB:
            continue
        p, b, m = (statistics.median(x[size]) for x in (product, block, median))
        label = f"{size / MIB:g} MiB"
        runs = len(product[size])
        print(
            f"{label:>9} {p / 1e6:>7.0f} MB/s {b / 1e6:>6.0f} MB/s {p / b:>6.3f} {m / 1e6:>7.0f} MB/s {runs:>5}"
        )
    verdicts = []
    for name, pairs in (("largest message", largest), ("peak over sizes", peaks)):
        p = statistics.median(x[0] for x in pairs)
        b = statistics.median(x[1] for x in pairs)
        ratio = p / b
        verdicts.append(ratio >= TARGET_RATIO)
        print(
            f"{name}: product {p / 1e6:.0f} MB/s, bare loop {b / 1e6:.0f} MB/s, ratio {ratio:.3f} "
            f"(target >= {TARGET_RATIO}): {'PASS' if ratio >= TARGET_RATIO else 'FAIL'}"
        )
    sys.exit(0 if all(verdicts) else 1)


if __name__ == "__main__":
    main()
