"""Timing steps on a device: warm-up, synchronisation, many steps, cancellation (imports torch).

On CUDA a step is timed with CUDA events recorded around it on the current stream and waited for;
on the CPU with `time.perf_counter` (CPU ops are synchronous). The stop event is checked between
steps, so a run stops within one step of being asked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import torch

from gpu_advisor.bench.context import RunContext

T = TypeVar("T")


class DeviceClock:
    """Times work on one device, synchronising around it."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.cuda = device.type == "cuda"

    def sync(self) -> None:
        if self.cuda:
            torch.cuda.synchronize(self.device)

    def time(self, fn: Callable[[], T]) -> tuple[T, float]:
        """Run `fn` and return its result and the seconds the device spent on it."""
        if self.cuda:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            result = fn()
            end.record()
            end.synchronize()
            return result, start.elapsed_time(end) / 1e3  # elapsed_time is in ms
        begin = time.perf_counter()
        result = fn()
        return result, time.perf_counter() - begin


def run_steps(
    ctx: RunContext,
    step: Callable[[], dict[str, float]],
    *,
    message: str,
    warmup: int | None = None,
    min_steps: int | None = None,
    max_steps: int | None = None,
    duration_s: float | None = None,
    progress: tuple[float, float] = (0.0, 1.0),
    live: tuple[str, Callable[[dict[str, float]], float]] | None = None,
) -> list[dict[str, float]]:
    """Warm up, then time steps until `duration_s` has passed (at least `min_steps`, at most `max_steps`).

    `step()` returns its own timings, e.g. {"step_time_s": ...}. `progress` = (start, span) of this
    loop within the workload's progress. `live` = (metric key, rate of one step's timings): each
    timed step's rate goes to `ctx.report_step`, so a plot can follow the workload while it runs.
    """
    sizes = ctx.sizes
    warmup = sizes.warmup_steps if warmup is None else warmup
    min_steps = sizes.min_steps if min_steps is None else min_steps
    max_steps = sizes.max_steps if max_steps is None else max_steps
    duration_s = ctx.duration_s if duration_s is None else duration_s
    start, span = progress
    for _ in range(warmup):
        ctx.check()
        step()
    ctx.progress(start, f"{message}: timing")
    steps: list[dict[str, float]] = []
    began = time.monotonic()
    while len(steps) < max_steps and (len(steps) < min_steps or time.monotonic() - began < duration_s):
        ctx.check()
        steps.append(step())
        if live is not None:
            ctx.report_step(live[0], live[1](steps[-1]))
        elapsed = time.monotonic() - began
        done = max(
            min(1.0, len(steps) / max(1, min_steps)) * min(1.0, elapsed / duration_s), len(steps) / max_steps
        )
        if len(steps) % 5 == 0 or done >= 1.0:
            ctx.progress(start + span * min(1.0, done), f"{message}: step {len(steps)}")
    return steps
