"""Summarise the events `gpu_advisor.probe` writes while a watched command runs, as they arrive.

The events (gpu_advisor.probe.events describes each; bench.probe_tail reads them from the file) are
folded into a `StepAggregate` one at a time: counts, sums, per-epoch records and a bounded reservoir
of step times for the quantiles, so memory stays flat however long the run, and the summary costs
the same at a million steps as at ten. Its `steps()` and `epochs()` are the `steps` and `epochs`
sections of the monitor@1 file. The events are the command's, not ours: a value that is not a finite,
non-negative number (or an integer past 2^63) counts as absent. When several processes write (one per
torch.distributed rank), rank 0's events are summarised, else the first process's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from gpu_advisor.bench.results import Spread
from gpu_advisor.telemetry.stats import percentile

Event = dict[str, Any]


class StepsSummary(BaseModel):
    """Every step the probe saw; rates over the timed steps' total time (input wait included)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    count: int
    step_time: Spread | None  # median and spread of the timed steps (seconds)
    total_s: float  # sum of the timed steps: their mean is total_s / step_time.n
    data_wait_s: float
    data_wait_fraction: float | None  # of total_s
    samples: int | None
    tokens: int | None
    steps_per_s: float | None
    samples_per_s: float | None
    tokens_per_s: float | None


class EpochRecord(BaseModel):
    """One finished epoch."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    index: int
    time_s: float | None
    step_time_s: float = 0.0  # sum of its steps' times
    steps: int
    samples: int | None
    tokens: int | None
    data_wait_s: float
    peak_memory_bytes: int | None
    memory_kind: str | None  # probe.events.CUDA_PEAK or CPU_LIVE
    peak_rss_bytes: int | None


# Step times kept for the median and the 10th/90th percentiles: a uniform sample of every timed step
# (reservoir sampling), so quantiles stay within about 1 percentile point of exact at any length.
RESERVOIR_STEPS = 10_000
# Epoch records kept per process; a run with more says so (MonitorReport keeps the first ones).
MAX_EPOCHS = 10_000
# Processes tracked (ranks of one machine, plus strays); events of further processes are ignored.
MAX_PROCESSES = 256
MAX_COUNT = 2**63 - 1


def _num(value: Any) -> float | None:
    """A finite, non-negative number as float; None otherwise (NaN, infinity, negative, text)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and value > MAX_COUNT:
        return None
    number = float(value)
    return number if math.isfinite(number) and number >= 0 else None


def _int(value: Any) -> int | None:
    """A count: a non-negative int up to 2^63 - 1; None otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_COUNT else None


@dataclass(frozen=True)
class StepCounters:
    """The main process's running totals at one moment: `rate_since` compares two of them."""

    timed: int = 0
    total_s: float = 0.0
    samples: int = 0  # of the timed steps
    tokens: int = 0
    last_t: float | None = None  # the last step's time on the probe's clock (time.monotonic())

    def rate_since(self, before: StepCounters) -> tuple[float, float, str] | None:
        """(time of the last step, rate, unit) over the timed steps between `before` and now:
        samples/s where they give samples, else tokens/s, else steps/s. None without a timed step."""
        seconds = self.total_s - before.total_s
        if self.timed <= before.timed or seconds <= 0 or self.last_t is None:
            return None
        for amount, unit in (
            (self.samples - before.samples, "samples/s"),
            (self.tokens - before.tokens, "tokens/s"),
            (self.timed - before.timed, "steps/s"),
        ):
            if amount > 0:
                return self.last_t, amount / seconds, unit
        return None


class _Process:
    """One process's running aggregates."""

    def __init__(self, seed: int) -> None:
        self.count = 0
        self.timed = 0
        self.total_s = self.wait_s = 0.0
        self.min_s = math.inf
        self.max_s = 0.0
        self.samples = self.tokens = 0  # over every step
        self.samples_known = self.tokens_known = False
        self.timed_samples = self.timed_tokens = 0
        self.timed_samples_known = self.timed_tokens_known = False
        self.last_t: float | None = None
        self.reservoir: list[float] = []
        self._sorted: list[float] | None = None
        self._random = random.Random(seed)
        self.epochs: list[EpochRecord] = []
        self.epochs_dropped = 0

    def step(self, e: Event) -> None:
        self.count += 1
        samples, tokens = _int(e.get("samples")), _int(e.get("tokens"))
        if samples is not None:
            self.samples += samples
            self.samples_known = True
        if tokens is not None:
            self.tokens += tokens
            self.tokens_known = True
        t = _num(e.get("t"))
        if t is not None:
            self.last_t = t
        step_s = _num(e.get("step_s"))
        if not step_s:  # absent, or 0: an untimed step (the epoch's first, with nothing before it)
            return
        self.timed += 1
        self.total_s += step_s
        self.wait_s += _num(e.get("data_wait_s")) or 0.0
        self.min_s = min(self.min_s, step_s)
        self.max_s = max(self.max_s, step_s)
        if samples is not None:
            self.timed_samples += samples
            self.timed_samples_known = True
        if tokens is not None:
            self.timed_tokens += tokens
            self.timed_tokens_known = True
        if len(self.reservoir) < RESERVOIR_STEPS:
            self.reservoir.append(step_s)
        else:  # Algorithm R: the timed-th step replaces a kept one with probability RESERVOIR/timed
            slot = self._random.randrange(self.timed)
            if slot >= RESERVOIR_STEPS:
                return
            self.reservoir[slot] = step_s
        self._sorted = None

    def epoch(self, e: Event) -> None:
        index = _int(e.get("index"))
        if index is None:
            return
        if len(self.epochs) >= MAX_EPOCHS:
            self.epochs_dropped += 1
            return
        kind = e.get("memory_kind")
        self.epochs.append(
            EpochRecord(
                index=index,
                time_s=_num(e.get("time_s")),
                step_time_s=_num(e.get("step_time_s")) or 0.0,
                steps=_int(e.get("steps")) or 0,
                samples=_int(e.get("samples")) or None,
                tokens=_int(e.get("tokens")) or None,
                data_wait_s=_num(e.get("data_wait_s")) or 0.0,
                peak_memory_bytes=_int(e.get("peak_memory_bytes")),
                memory_kind=kind[:100] if isinstance(kind, str) else None,
                peak_rss_bytes=_int(e.get("peak_rss_bytes")),
            )
        )

    def spread(self) -> Spread | None:
        if not self.timed:
            return None
        if self._sorted is None:
            self._sorted = sorted(self.reservoir)
        kept = self._sorted
        return Spread(
            median=percentile(kept, 50.0),
            p10=percentile(kept, 10.0),
            p90=percentile(kept, 90.0),
            min=self.min_s,
            max=self.max_s,
            n=self.timed,
        )

    def summary(self) -> StepsSummary | None:
        if not self.count:
            return None
        total = self.total_s

        def per_s(amount: int, known: bool) -> float | None:
            return amount / total if known and amount and total > 0 else None

        return StepsSummary(
            count=self.count,
            step_time=self.spread(),
            total_s=total,
            data_wait_s=self.wait_s,
            data_wait_fraction=self.wait_s / total if total > 0 else None,
            samples=self.samples if self.samples_known and self.samples else None,
            tokens=self.tokens if self.tokens_known and self.tokens else None,
            steps_per_s=self.timed / total if total > 0 else None,
            samples_per_s=per_s(self.timed_samples, self.timed_samples_known),
            tokens_per_s=per_s(self.timed_tokens, self.timed_tokens_known),
        )


class StepAggregate:
    """The probe's events folded as they arrive; `steps()`, `epochs()` and `counters()` at any time."""

    def __init__(self) -> None:
        self._processes: dict[int | None, _Process] = {}
        self._first_pid: int | None = None
        self._rank0_pid: int | None = None
        self._seen_any = False
        self.events = 0  # events folded

    def add(self, events: Iterable[Event]) -> None:
        for e in events:
            self.add_one(e)

    def add_one(self, e: Event) -> None:
        kind = e.get("event")
        if kind not in ("start", "step", "epoch"):
            return
        pid = _int(e.get("pid"))
        if not self._seen_any:
            self._seen_any, self._first_pid = True, pid
        if kind == "start":
            if self._rank0_pid is None and _int(e.get("rank")) == 0:
                self._rank0_pid = pid
            return
        process = self._processes.get(pid)
        if process is None:
            if len(self._processes) >= MAX_PROCESSES:
                return
            process = self._processes[pid] = _Process(seed=len(self._processes))
        self.events += 1
        if kind == "step":
            process.step(e)
        else:
            process.epoch(e)

    def _main(self) -> _Process | None:
        pid = self._rank0_pid if self._rank0_pid is not None else self._first_pid
        return self._processes.get(pid)

    def steps(self) -> StepsSummary | None:
        """The `steps` section; None when the probe reported no step."""
        main = self._main()
        return None if main is None else main.summary()

    def epochs(self) -> list[EpochRecord]:
        """The `epochs` section: one record per finished epoch of the main process (the first
        MAX_EPOCHS)."""
        main = self._main()
        return [] if main is None else list(main.epochs)

    def epochs_dropped(self) -> int:
        main = self._main()
        return 0 if main is None else main.epochs_dropped

    def counters(self) -> StepCounters:
        main = self._main()
        if main is None:
            return StepCounters()
        return StepCounters(main.timed, main.total_s, main.timed_samples, main.timed_tokens, main.last_t)


def summarize_steps(events: Iterable[Event]) -> StepsSummary | None:
    """The `steps` section of these events; None when the probe reported no step."""
    aggregate = StepAggregate()
    aggregate.add(events)
    return aggregate.steps()


def summarize_epochs(events: Iterable[Event]) -> list[EpochRecord]:
    """The `epochs` section of these events."""
    aggregate = StepAggregate()
    aggregate.add(events)
    return aggregate.epochs()
