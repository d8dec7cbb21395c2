"""Bandwidth conventions of NVIDIA's nccl-tests, and the message sizes a sweep visits. No torch.

nccl-tests (github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md) reports two rates per collective:

- algorithm bandwidth, algbw = S / t, where S is the operation's size in bytes: the buffer each rank
  holds for all_reduce and broadcast, the gathered output for all_gather, the input for reduce_scatter
  (all equal to count x element size x ranks for the sharded ones);
- bus bandwidth, busbw = algbw x factor(n): the rate each link carries in the optimal ring/tree
  algorithm, comparable to a link's hardware peak and independent of the rank count n:
  all_reduce 2(n-1)/n, all_gather and reduce_scatter (n-1)/n, broadcast (and reduce) 1.
"""

from __future__ import annotations

from collections.abc import Callable

COLLECTIVES: tuple[str, ...] = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")
# Each message holds float32 elements, nccl-tests' default data type.
ELEMENT_BYTES = 4
MIN_MESSAGE_BYTES = 8

_BUS_FACTOR: dict[str, Callable[[int], float]] = {
    "all_reduce": lambda n: 2.0 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
}


def bus_factor(op: str, ranks: int) -> float:
    """nccl-tests' busbw / algbw for `op` over `ranks` ranks (KeyError for an unknown op)."""
    if ranks < 1:
        raise ValueError("ranks must be at least 1")
    return _BUS_FACTOR[op](ranks)


def algorithm_bandwidth(size_bytes: int, time_s: float) -> float:
    """algbw = S / t in bytes per second."""
    if time_s <= 0:
        raise ValueError("time_s must be positive")
    return size_bytes / time_s


def bus_bandwidth(op: str, size_bytes: int, time_s: float, ranks: int) -> float:
    """busbw = algbw x the op's factor (module docstring)."""
    return algorithm_bandwidth(size_bytes, time_s) * bus_factor(op, ranks)


def is_sharded(op: str) -> bool:
    """all_gather and reduce_scatter split the operation's size into one chunk per rank."""
    return op in ("all_gather", "reduce_scatter")


def message_bytes(op: str, requested_bytes: int, ranks: int) -> int:
    """The operation size actually run for a requested size: whole float32 elements, and for the
    sharded ops a whole number of elements per rank (rounded up, as small sizes must hold one each)."""
    quantum = ELEMENT_BYTES * (ranks if is_sharded(op) else 1)
    return max(quantum, -(-requested_bytes // quantum) * quantum)


def message_sizes(max_bytes: int, *, min_bytes: int = MIN_MESSAGE_BYTES, factor: int = 2) -> list[int]:
    """min_bytes, min_bytes x factor, ... up to max_bytes (inclusive when on the ladder), like
    nccl-tests' `-b 8 -e MAX -f 2`."""
    if factor < 2:
        raise ValueError("factor must be at least 2")
    sizes = []
    size = min_bytes
    while size <= max_bytes:
        sizes.append(size)
        size *= factor
    return sizes or [min_bytes]
