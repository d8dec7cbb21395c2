"""Peak memory of a region of code: live tensor bytes, not process RSS (imports torch).

CPU: `torch.profiler.profile(profile_memory=True)` records every allocator event (+bytes on allocate,
-bytes on free). The peak is the bytes already live when the window opens (the caller knows them: the
parameters, optimizer state, caches it holds) plus the highest running total of the events. RSS is no
use here: the allocator keeps freed pages resident. Caveat (measured with torch 2.13): freeing a tensor
allocated *before* the window opened is not reported, so the block must not free any of the baseline
tensors (a training step must drop its old gradients before the window, not inside it). CUDA: `torch.cuda.max_memory_allocated` after a
reset of the peak counters, and `max_memory_reserved` for what the caching allocator held.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import torch
from torch import nn

# Kineto prints "USDT ... profiler_start/stop" lines to stderr at every profiling window; level 6
# silences them (it must be set before the first profile; a user's own setting wins).
os.environ.setdefault("KINETO_LOG_LEVEL", "6")


@dataclass
class PeakMemory:
    """Filled in when the `measure_peak` block exits."""

    peak_bytes: int | None = None  # live tensor bytes at the peak (CPU) / max allocated (CUDA)
    reserved_bytes: int | None = None  # CUDA caching allocator's max reserved; None on CPU
    baseline_bytes: int = 0  # bytes live when the window opened
    events: int = 0  # allocator events seen (CPU)


def tensor_bytes(tensors: Iterable[torch.Tensor | None]) -> int:
    """Bytes of the distinct storages behind `tensors` (views and tied weights counted once)."""
    seen: set[int] = set()
    total = 0
    for tensor in tensors:
        if tensor is None:
            continue
        storage = tensor.untyped_storage()
        key = storage.data_ptr()
        if key in seen or storage.nbytes() == 0:
            continue
        seen.add(key)
        total += storage.nbytes()
    return total


def live_training_tensors(
    model: nn.Module, optimizer: torch.optim.Optimizer | None = None
) -> list[torch.Tensor]:
    """Parameters, buffers, gradients that exist, and optimizer state tensors."""
    tensors: list[torch.Tensor] = [*model.parameters(), *model.buffers()]
    tensors += [p.grad for p in model.parameters() if p.grad is not None]
    if optimizer is not None:
        for state in optimizer.state.values():
            tensors += [v for v in state.values() if isinstance(v, torch.Tensor)]
    return tensors


def cpu_peak_from_events(deltas: Iterable[int]) -> int:
    """Highest running total of allocator deltas (never below 0: the window's start)."""
    running = peak = 0
    for delta in deltas:
        running += delta
        peak = max(peak, running)
    return peak


@contextlib.contextmanager
def _no_op_events() -> Iterator[None]:
    """Record no operator events on this thread (the profiler's allocator events stay).

    The profiler records an event per operator call besides the allocator's (a quick CPU training
    step: 3,300 of the 4,900 events), and ends by turning every event into Python objects in one call
    that holds the GIL throughout: 10-40 ms on the development machines, during which the GUI thread
    cannot run any Python (benchmarks/ui_stall.py). Only the allocator events are read, so operator
    events are switched off (RecordFunction, per thread) for the window: the same peak, a third of
    the events, a third of that pause. Where the private switch is missing, everything is recorded.
    """
    switch = getattr(torch.autograd, "_enable_record_function", None)
    if switch is None:
        yield
        return
    switch(False)
    try:
        yield
    finally:
        switch(True)


@contextlib.contextmanager
def measure_peak(device: torch.device, baseline: Iterable[torch.Tensor | None] = ()) -> Iterator[PeakMemory]:
    """Measure the peak of the block. On CPU `baseline` lists the tensors live when it starts."""
    result = PeakMemory()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        result.baseline_bytes = torch.cuda.memory_allocated(device)
        yield result
        torch.cuda.synchronize(device)
        result.peak_bytes = torch.cuda.max_memory_allocated(device)
        result.reserved_bytes = torch.cuda.max_memory_reserved(device)
        return
    result.baseline_bytes = tensor_bytes(baseline)
    with (
        torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof,
        _no_op_events(),
    ):
        yield result
    events = [
        e
        for e in prof.profiler.kineto_results.events()
        if e.name() == "[memory]" and e.device_type() == torch.autograd.DeviceType.CPU
    ]
    events.sort(key=lambda e: e.start_ns())
    result.events = len(events)
    result.peak_bytes = result.baseline_bytes + cpu_peak_from_events(e.nbytes() for e in events)
