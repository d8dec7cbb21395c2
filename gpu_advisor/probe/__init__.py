"""Measure your own training loop: steps, epochs, the wait for data and peak memory.

    from gpu_advisor import probe
    for batch in probe.wrap(loader):      # times each wait for the next batch
        ...train on batch...
        probe.step(samples=len(batch))
    probe.epoch_end()

Standard library only; torch is used when the script has imported it (peak memory), never imported
here. The events go, one JSON object a line, to the file named by the environment variable
GPU_ADVISOR_EVENTS, which `gpu-advisor monitor` sets for the command it runs. Without it every call
returns at once and nothing is written. Ready-made callbacks: `gpu_advisor.probe.hf` (Hugging Face
Trainer) and `gpu_advisor.probe.lightning` (PyTorch Lightning).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import suppress
from typing import TypeVar

from gpu_advisor.probe.events import EVENTS_ENV, EventWriter

__all__ = ["EVENTS_ENV", "epoch_end", "epoch_start", "step", "step_start", "wrap"]

T = TypeVar("T")

_path = os.environ.get(EVENTS_ENV)
# One writer per process; None outside `gpu-advisor monitor`, so each call costs one comparison.
_writer: EventWriter | None = EventWriter(_path) if _path else None


def _disable(exc: BaseException) -> None:
    """A probe never raises into the loop it measures: on any fault it says so once and stops."""
    global _writer
    _writer = None
    with suppress(Exception):
        print(f"gpu_advisor.probe: stopped measuring ({type(exc).__name__}: {exc})", file=sys.stderr)


def step(samples: object = None, tokens: object = None) -> None:
    """One optimiser step finished; `samples` and `tokens` it processed, where known (ints, NumPy
    integers or 0-d tensors; anything else is recorded as unknown)."""
    if _writer is not None:
        try:
            _writer.step(samples, tokens)
        except Exception as exc:
            _disable(exc)


def epoch_end() -> None:
    """The epoch finished: writes its time, steps, samples, data wait and peak memory."""
    if _writer is not None:
        try:
            _writer.epoch_end()
        except Exception as exc:
            _disable(exc)


def epoch_start() -> None:
    """Optional: start the epoch's clock now (else the first `wrap` iteration or the first step does)."""
    if _writer is not None:
        try:
            _writer.epoch_start()
        except Exception as exc:
            _disable(exc)


def step_start() -> None:
    """Optional: the batch is in hand and the step's work begins; the time since the previous step
    counts as data wait. Callbacks use it where the loader is not wrapped."""
    if _writer is not None:
        try:
            _writer.step_start()
        except Exception as exc:
            _disable(exc)


def wrap(iterable: Iterable[T]) -> Iterable[T]:
    """`iterable` itself outside `monitor`; inside, an iterable that times each wait for the next item."""
    if _writer is None:
        return iterable
    return _Timed(iterable, _writer)


class _Timed(Iterable[T]):
    """Iterating starts the epoch's clock; each `next()` adds its duration to the step's data wait."""

    def __init__(self, iterable: Iterable[T], writer: EventWriter) -> None:
        self._iterable = iterable
        self._writer = writer

    def __len__(self) -> int:
        return len(self._iterable)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[T]:
        self._writer.epoch_start(only_if_idle=True)
        return self._writer.timed(iter(self._iterable))
