"""The probe's clock and its events file (JSON lines). Standard library only.

Events, one JSON object a line, each with `event`, `pid` and `t` (time.monotonic(), the same clock in
every process of the machine):

- `start`: `schema` ("gpu-advisor/probe-events@1"), `rank` (torch.distributed's RANK, if set).
- `step`: `epoch` (index from 0), `step_s` (since the previous step or the epoch's start; null for an
  epoch's first step when nothing started its clock), `data_wait_s` (the part spent waiting for the
  batch), `samples`, `tokens` (null when not given).
- `epoch`: `index`, `time_s` (from the epoch's start to `epoch_end`), `step_time_s` (the sum of its
  steps' times: what `time_s` has beyond it ran outside the steps), `steps`, `samples`, `tokens`,
  `data_wait_s`, `peak_memory_bytes`, `memory_kind` (what that peak is), `peak_rss_bytes`.
"""

from __future__ import annotations

import gc
import json
import math
import operator
import os
import sys
import time
from collections.abc import Iterator
from typing import Any, TextIO, TypeVar

EVENTS_ENV = "GPU_ADVISOR_EVENTS"
EVENTS_SCHEMA = "gpu-advisor/probe-events@1"
# What `peak_memory_bytes` measured: the CUDA caching allocator's peak over the epoch, or (on CPU,
# where torch keeps no peak) the bytes of tensors alive when the epoch ended.
CUDA_PEAK = "cuda_max_allocated"
CPU_LIVE = "cpu_live_tensors_at_epoch_end"

T = TypeVar("T")


class EventWriter:
    """Keeps one process's step and epoch clock and appends its events to `path`."""

    def __init__(self, path: str) -> None:
        self._pid = os.getpid()
        try:
            # Line-buffered: every event reaches the file when written, so a killed run keeps its steps.
            self._file: TextIO | None = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            print(f"gpu_advisor.probe: cannot write {path} ({exc}); not measuring", file=sys.stderr)
            self._file = None
        self._epoch = 0
        self._epoch_t0: float | None = None  # None: no epoch running
        self._last_t = 0.0  # the previous step's end, or the epoch's start
        self._wait_s = 0.0  # data wait of the step in progress
        self._steps = self._samples = self._tokens = 0
        self._epoch_wait_s = self._epoch_step_s = 0.0
        _reset_peak_rss()
        self._write({"event": "start", "schema": EVENTS_SCHEMA, "rank": _rank()}, time.monotonic())

    def _write(self, event: dict[str, Any], t: float) -> None:
        if self._file is None or os.getpid() != self._pid:  # a forked DataLoader worker: not ours
            return
        event["pid"] = self._pid
        event["t"] = t
        try:
            self._file.write(json.dumps(event, separators=(",", ":"), allow_nan=False) + "\n")
        except Exception:  # disk full, closed at exit, anything: lose events, never the training
            self._file = None

    def epoch_start(self, *, only_if_idle: bool = False) -> None:
        if only_if_idle and self._epoch_t0 is not None:
            return
        now = time.monotonic()
        self._epoch_t0 = self._last_t = now
        self._wait_s = 0.0

    def step_start(self) -> None:
        now = time.monotonic()
        if self._epoch_t0 is None:
            self.epoch_start()
            return
        self._wait_s = max(self._wait_s, now - self._last_t)

    def timed(self, iterator: Iterator[T]) -> Iterator[T]:
        """Yield from `iterator`, adding each `next()`'s duration to the current step's data wait."""
        clock = time.monotonic
        while True:
            t0 = clock()
            try:
                item = next(iterator)
            except StopIteration:
                return
            self._wait_s += clock() - t0
            yield item

    def step(self, samples: object, tokens: object) -> None:
        samples, tokens = count(samples), count(tokens)
        now = time.monotonic()
        if self._epoch_t0 is None:  # nothing started the clock: this step only starts it
            self._epoch_t0 = now
            step_s = None
        else:
            step_s = now - self._last_t
        wait = self._wait_s
        self._write(
            {
                "event": "step",
                "epoch": self._epoch,
                "step_s": step_s,
                "data_wait_s": wait,
                "samples": samples,
                "tokens": tokens,
            },
            now,
        )
        self._steps += 1
        self._samples += samples or 0
        self._tokens += tokens or 0
        self._epoch_wait_s += wait
        self._epoch_step_s += step_s or 0.0
        self._last_t = now
        self._wait_s = 0.0

    def epoch_end(self) -> None:
        now = time.monotonic()
        peak, kind = _peak_memory()
        self._write(
            {
                "event": "epoch",
                "index": self._epoch,
                "time_s": None if self._epoch_t0 is None else now - self._epoch_t0,
                "step_time_s": self._epoch_step_s,
                "steps": self._steps,
                "samples": self._samples,
                "tokens": self._tokens,
                "data_wait_s": self._epoch_wait_s,
                "peak_memory_bytes": peak,
                "memory_kind": kind,
                "peak_rss_bytes": _peak_rss_bytes(),
            },
            now,
        )
        _reset_peak_rss()
        self._epoch += 1
        self._epoch_t0 = None
        self._wait_s = self._epoch_wait_s = self._epoch_step_s = 0.0
        self._steps = self._samples = self._tokens = 0


# Counts past this are not counts of anything a loop processes (and readers treat them as absent).
MAX_COUNT = 2**63 - 1


def count(value: object) -> int | None:
    """A step's `samples` or `tokens` as a plain int: Python and NumPy integers (operator.index), 0-d
    tensors and arrays (.item()), integral floats; None for anything else (a string, a negative, NaN,
    a huge number), so whatever a loop passes is never an error in it."""
    try:
        if value is None or isinstance(value, bool):
            return None
        try:
            number = operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            item = getattr(value, "item", None)
            value = item() if callable(item) else value
            if isinstance(value, float):
                if not math.isfinite(value) or value != int(value):
                    return None
                value = int(value)
            number = operator.index(value)  # type: ignore[arg-type]
        return number if 0 <= number <= MAX_COUNT else None
    except Exception:
        return None


def _rank() -> int | None:
    text = os.environ.get("RANK")
    return int(text) if text and text.isdigit() else None


def _peak_memory() -> tuple[int | None, str | None]:
    """(bytes, kind): the CUDA peak since the last epoch end, else live CPU tensor bytes; None without torch."""
    torch = sys.modules.get("torch")  # used only if the script imported it
    if torch is None:
        return None, None
    try:
        if torch.cuda.is_initialized():
            peak = int(torch.cuda.max_memory_allocated())
            torch.cuda.reset_peak_memory_stats()
            return peak, CUDA_PEAK
        return _live_cpu_tensor_bytes(torch), CPU_LIVE
    except Exception:  # a probe never stops the training it measures
        return None, None


def _live_cpu_tensor_bytes(torch: Any) -> int:
    """Bytes of the distinct CPU storages behind every live tensor (parameters, gradients, state)."""
    seen: dict[int, int] = {}
    tensor = torch.Tensor
    for obj in gc.get_objects():
        # type(), not isinstance(): isinstance reads __class__, which some module proxies warn about
        if issubclass(type(obj), tensor) and obj.device.type == "cpu":
            try:
                storage = obj.untyped_storage()
                seen[storage.data_ptr()] = storage.nbytes()
            except (RuntimeError, NotImplementedError):  # meta, fake or sparse tensors have none
                continue
    return sum(seen.values())


_CLEAR_REFS = "/proc/self/clear_refs"
_STATUS = "/proc/self/status"


def _peak_rss_bytes() -> int | None:
    """The process's peak resident memory since the last reset (Linux VmHWM), else since it started."""
    try:
        with open(_STATUS, encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # kB
    except OSError:
        pass
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, kB elsewhere
    except (ImportError, OSError):
        return None


def _reset_peak_rss() -> None:
    """Linux: writing 5 to clear_refs resets VmHWM to the current RSS, so each epoch has its own peak."""
    try:
        with open(_CLEAR_REFS, "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        pass
