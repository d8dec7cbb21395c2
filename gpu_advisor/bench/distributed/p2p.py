"""Point-to-point bandwidth: every ordered pair of ranks on one node, and host <-> device per GPU
(imports torch).

Rank to rank: the sender posts WINDOW messages back to back (isend), the receiver takes them and
answers with one 4-byte acknowledgement; the sender's time from the first send to the acknowledgement,
divided by WINDOW, is one message's one-way time (the acknowledgement's latency is amortised over the
window, as OSU's bandwidth test does). On GPUs, NCCL sends over NVLink or PCIe peer-to-peer where it
can; the row carries NVML's word for the link. Pairs run one at a time so they never share a link.

Host <-> device: a pinned host buffer copied to the rank's GPU and back, timed with CUDA events, one
rank at a time (the host's PCIe root and memory are shared).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist

from gpu_advisor.bench.distributed.section import P2PRecord
from gpu_advisor.bench.stats import spread

WINDOW = 8
REPEATS = 5


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _send_window(buf: torch.Tensor, ack: torch.Tensor, peer: int, device: torch.device) -> float:
    _sync(device)
    began = time.perf_counter()
    for work in [dist.isend(buf, peer) for _ in range(WINDOW)]:
        work.wait()
    dist.recv(ack, peer)
    _sync(device)
    return (time.perf_counter() - began) / WINDOW


def _receive_window(buf: torch.Tensor, ack: torch.Tensor, peer: int) -> None:
    for work in [dist.irecv(buf, peer) for _ in range(WINDOW)]:
        work.wait()
    dist.send(ack, peer)


def rank_pairs(ranks_by_node: dict[int, list[int]]) -> list[tuple[int, int, int]]:
    """(node, src, dst) for every ordered pair of ranks on the same node."""
    return [
        (node, a, b) for node, ranks in sorted(ranks_by_node.items()) for a in ranks for b in ranks if a != b
    ]


def rank_to_rank(
    pairs: list[tuple[int, int, int]],
    me: int,
    device: torch.device,
    size_bytes: int,
    *,
    describe: Callable[[int], str],
    link: Callable[[int, int], str | None],
    between_pairs: Callable[[str], None],
    repeats: int = REPEATS,
) -> list[P2PRecord]:
    """Run every pair in order; returns the rows this rank measured (as a sender).

    `between_pairs(name)` is a barrier over every rank (the idle ones too), so that pairs never overlap.
    """
    rows: list[P2PRecord] = []
    numel = max(1, size_bytes // 4)
    buf = torch.zeros(numel, dtype=torch.float32, device=device)
    ack = torch.zeros(1, dtype=torch.float32, device=device)
    for node, src, dst in pairs:
        if me == src:
            _send_window(buf, ack, dst, device)  # warm-up: connections, NCCL's peer-to-peer setup
            times = [_send_window(buf, ack, dst, device) for _ in range(repeats)]
            median = spread(times).median
            rows.append(
                P2PRecord(
                    kind="rank-to-rank",
                    node_rank=node,
                    src=describe(src),
                    dst=describe(dst),
                    link=link(src, dst),
                    bytes=numel * 4,
                    time_s=median,
                    bytes_per_s=numel * 4 / median,
                    src_rank=src,
                    dst_rank=dst,
                )
            )
        elif me == dst:
            for _ in range(repeats + 1):
                _receive_window(buf, ack, src)
        between_pairs(f"point-to-point {src}->{dst}")
    return rows


def host_device(
    device: torch.device, size_bytes: int, node: int, name: str, rank: int, repeats: int = REPEATS
) -> list[P2PRecord]:
    """Pinned host -> this rank's GPU and back (no rows on the CPU)."""
    if device.type != "cuda":
        return []
    numel = max(1, size_bytes // 4)
    host = torch.zeros(numel, dtype=torch.float32).pin_memory()
    dev = torch.empty(numel, dtype=torch.float32, device=device)
    rows = []
    copies: list[tuple[str, Callable[[], Any], str, str]] = [
        ("host-to-device", lambda: dev.copy_(host, non_blocking=True), "host", name),
        ("device-to-host", lambda: host.copy_(dev, non_blocking=True), name, "host"),
    ]
    for kind, copy, src, dst in copies:
        copy()
        times = []
        for _ in range(repeats):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            copy()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        median = spread(times).median
        rows.append(
            P2PRecord(
                kind=kind,
                node_rank=node,
                src=src,
                dst=dst,
                link="PCIe (pinned host memory)",
                bytes=numel * 4,
                time_s=median,
                bytes_per_s=numel * 4 / median,
                src_rank=rank if src != "host" else None,
                dst_rank=rank if dst != "host" else None,
            )
        )
    return rows
