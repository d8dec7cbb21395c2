"""Collective sweeps: all_reduce, all_gather, reduce_scatter and broadcast over message sizes from
8 B up to a bound set by memory and a time budget (imports torch).

Method (as NVIDIA's nccl-tests, with per-iteration times so that a median and a spread exist):
each size is warmed up, then timed op by op on every rank (CUDA events on GPUs, perf_counter on the
CPU, whose gloo ops return when done); the per-iteration times are reduced with MAX over the group, so
an iteration lasts as long as its slowest rank, and the row holds their median and spread. The
largest size is timed first, so that the budget is planned over the whole ladder (sweep_plan) and the
largest messages, which the planner reads, are reached. Every decision that changes how many ops run
(the sizes, the iterations) is taken on values reduced over the group, so all ranks take it
identically and no rank is left waiting in a collective.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

from gpu_advisor.bench.distributed import sweep_plan as plan
from gpu_advisor.bench.distributed.conventions import (
    ELEMENT_BYTES,
    algorithm_bandwidth,
    bus_bandwidth,
    message_bytes,
    message_sizes,
)
from gpu_advisor.bench.distributed.section import CollectiveRecord
from gpu_advisor.bench.stats import spread

WARMUP_ITERATIONS = 2
FIRST_WARMUP_ITERATIONS = 5  # the first op on a group sets up connections and buffers
PROBE_ITERATIONS = 2  # the largest size, timed before the sweep to plan it (the faster one counts)
# Buffers per rank for an operation of S bytes: at most S in + S out (all_gather's output, reduce_scatter's
# input); the rest of memory stays for the other ranks on the node and the framework.
BUFFERS_PER_MESSAGE = 2
MEMORY_FRACTION = 0.5

# torch 2.13 renamed the single-tensor forms; keep working on older releases.
_ALL_GATHER = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_REDUCE_SCATTER = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor


@dataclass(frozen=True, slots=True)
class Group:
    """A set of ranks that runs collectives together, and what its measurements describe."""

    handle: Any  # a ProcessGroup; None for the default (world) group
    ranks: tuple[int, ...]  # global ranks
    scope: str  # "intra-node" | "inter-node"
    node_rank: int | None  # intra-node: the node

    @property
    def size(self) -> int:
        return len(self.ranks)

    @property
    def leader(self) -> int:
        return self.ranks[0]


class Timer:
    """Times ops one by one on this rank's device."""

    def __init__(self, device: torch.device) -> None:
        self.cuda = device.type == "cuda"

    def times(self, run: Callable[[], object], n: int) -> list[float]:
        if self.cuda:
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
            for start, end in zip(starts, ends, strict=True):
                start.record()
                run()
                end.record()
            ends[-1].synchronize()
            return [s.elapsed_time(e) / 1e3 for s, e in zip(starts, ends, strict=True)]  # ms -> s
        out = []
        for _ in range(n):
            began = time.perf_counter()
            run()
            out.append(time.perf_counter() - began)
        return out


def reduce_max(values: list[float], group: Group, device: torch.device) -> list[float]:
    """Element-wise maximum over the group (float64 keeps sub-microsecond times exact)."""
    t = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=group.handle)
    return t.tolist()


def reduce_min(value: int, device: torch.device, group: Any = None) -> int:
    t = torch.tensor([value], dtype=torch.int64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MIN, group=group)
    return int(t.item())


def memory_bound_bytes(device: torch.device, local_world_size: int) -> int:
    """The largest operation size this rank can hold twice with half of the free memory it shares."""
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        share = free
    else:
        import psutil

        share = psutil.virtual_memory().available / max(1, local_world_size)
    return int(share * MEMORY_FRACTION / BUFFERS_PER_MESSAGE)


def make_op(op: str, size_bytes: int, group: Group, device: torch.device) -> Callable[[], object]:
    """The collective as a no-argument call on preallocated buffers (zeros: sums stay finite)."""
    numel = size_bytes // ELEMENT_BYTES
    g = group.handle
    if op == "all_reduce":
        buf = torch.zeros(numel, dtype=torch.float32, device=device)
        return lambda: dist.all_reduce(buf, group=g)
    if op == "all_gather":
        inp = torch.zeros(numel // group.size, dtype=torch.float32, device=device)
        out = torch.empty(numel, dtype=torch.float32, device=device)
        return lambda: _ALL_GATHER(out, inp, group=g)
    if op == "reduce_scatter":
        inp = torch.zeros(numel, dtype=torch.float32, device=device)
        out = torch.empty(numel // group.size, dtype=torch.float32, device=device)
        return lambda: _REDUCE_SCATTER(out, inp, group=g)
    if op == "broadcast":
        buf = torch.zeros(numel, dtype=torch.float32, device=device)
        src = group.leader
        return lambda: dist.broadcast(buf, src=src, group=g)
    raise ValueError(f"unknown collective {op!r}")


def record(op: str, size_bytes: int, times_s: list[float], group: Group) -> CollectiveRecord:
    """The row for one size from the per-iteration (slowest-rank) times."""
    s = spread(times_s)
    return CollectiveRecord(
        op=op,
        bytes=size_bytes,
        time_s=s.median,
        algbw_bytes_per_s=algorithm_bandwidth(size_bytes, s.median),
        busbw_bytes_per_s=bus_bandwidth(op, size_bytes, s.median, group.size),
        scope=group.scope,
        ranks=group.size,
        node_rank=group.node_rank,
        time_p10_s=s.p10,
        time_p90_s=s.p90,
        time_min_s=s.min,
        time_max_s=s.max,
        iterations=s.n,
    )


def op_sizes(op: str, max_bytes: int, ranks: int) -> list[int]:
    """The operation sizes a sweep visits: 8 B, 16 B, ... up to `max_bytes`, each rounded to whole
    elements per rank (message_bytes), without the repeats that rounding makes; at least one."""
    sizes: list[int] = []
    for requested in message_sizes(max_bytes):
        size = message_bytes(op, requested, ranks)
        if sizes and (size <= sizes[-1] or size > max_bytes):
            continue
        sizes.append(size)
    return sizes


def sweep(
    op: str,
    group: Group,
    device: torch.device,
    *,
    max_bytes: int,
    budget_s: float,
    on_size: Callable[[int], None] | None = None,
    on_row: Callable[[CollectiveRecord], None] | None = None,
) -> list[CollectiveRecord]:
    """Time `op` at 8 B, 16 B, ... up to `max_bytes` (already agreed by every rank of the group), as
    far as `budget_s` reaches at the minimum iteration count (sweep_plan). Every group rank returns the
    same rows. `on_size(bytes)` as a size starts; `on_row(record)` as it is measured (the Monitor plots
    it)."""
    timer = Timer(device)
    began = time.monotonic()
    sizes = op_sizes(op, max_bytes, group.size)
    # The first ops on a group set up its connections; then the largest size, so that the plan knows
    # both ends of the ladder before it spends anything on the sizes between.
    first = make_op(op, sizes[0], group, device)
    small_s = min(timer.times(first, FIRST_WARMUP_ITERATIONS))
    largest = make_op(op, sizes[-1], group, device)
    large_s = min(timer.times(largest, PROBE_ITERATIONS))
    del largest
    small_s, large_s, elapsed_s = reduce_max([small_s, large_s, time.monotonic() - began], group, device)
    ends = ((sizes[0], small_s), (sizes[-1], large_s))
    predicted = plan.predicted_times(sizes, *ends)
    sizes = sizes[: plan.reachable(predicted, budget_s - elapsed_s, WARMUP_ITERATIONS)]
    rows: list[CollectiveRecord] = []
    for i, size in enumerate(sizes):
        if on_size is not None:
            on_size(size)
        run = first if i == 0 else make_op(op, size, group, device)
        warm = timer.times(run, WARMUP_ITERATIONS)
        op_s, elapsed_s = reduce_max([sum(warm) / len(warm), time.monotonic() - began], group, device)
        # Plan again from here: this size as measured, the larger ones on the line to the largest.
        rest = plan.predicted_times(sizes[i + 1 :], (size, op_s), ends[1])
        left_s = budget_s - elapsed_s - WARMUP_ITERATIONS * sum(rest)
        n = plan.iterations([op_s, *rest], left_s)[0]
        times = reduce_max(timer.times(run, n), group, device)
        rows.append(record(op, size, times, group))
        if on_row is not None:
            on_row(rows[-1])
        del run
    return rows
