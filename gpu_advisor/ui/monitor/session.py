"""One Monitor run's state, without Qt: its stage, how far it got, the time left for the whole run,
how it ended, its results and its errors. The panel feeds it the worker's signals and only draws it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from gpu_advisor.core.units import format_duration
from gpu_advisor.ui.monitor.run_status import Countdown
from gpu_advisor.ui.monitor.runs import BenchmarkRun, ClusterRun, CommandRun, RunResult
from gpu_advisor.wording.checklist import stopped_text

if TYPE_CHECKING:
    from gpu_advisor.bench.options import ProgressEvent
    from gpu_advisor.bench.results import WorkloadResult

Stage = Literal["idle", "starting", "running", "stopping", "ended"]
Outcome = Literal["finished", "stopped", "failed"]
BAR_STEPS = 1000  # the progress bar's range


@dataclass
class RunSession:
    """The current (or last) run. Times come from `clock` (seconds, monotonic) so tests can drive it."""

    clock: Callable[[], float] = time.monotonic
    stage: Stage = "idle"
    outcome: Outcome | None = None
    run: RunResult | None = None
    results: list[WorkloadResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    fraction: float | None = None  # of the whole run, from the latest progress event
    workload: str | None = None  # the workload running now
    message: str = ""
    started_s: float = 0.0
    ended_s: float = 0.0
    countdown: Countdown = field(init=False)

    def __post_init__(self) -> None:
        self.countdown = Countdown(self.clock)

    # ---- what the worker says ------------------------------------------------------------------
    def start(self) -> None:
        """A new run: everything of the last one goes."""
        self.stage, self.outcome, self.run = "starting", None, None
        self.results, self.errors = [], []
        self.fraction, self.workload, self.message = None, None, ""
        self.started_s = self.ended_s = self.clock()
        self.countdown.reset()

    def running_now(self) -> None:
        self.stage = "running"

    def progress(self, event: ProgressEvent) -> None:
        """A progress event: `fraction` and `eta_s` are the whole run's (bench.options.ProgressEvent)."""
        self.fraction, self.workload, self.message = event.fraction, event.workload, event.message
        self.countdown.update(event.eta_s)

    def result(self, result: WorkloadResult) -> None:
        self.results.append(result)

    def stop_asked(self) -> None:
        if self.running:
            self.stage = "stopping"

    def finished(self, run: RunResult | None, stop_asked: bool) -> None:
        """The run ended with `run` (None: a cluster run stopped before it had a report)."""
        self.run = run
        if run is not None and not isinstance(run, CommandRun):
            self.results = list(run.results)  # diagnosed from every sample of the run
        cancelled = any(r.status == "cancelled" for r in self.results)
        self.outcome = "stopped" if stop_asked or cancelled or run is None else "finished"
        self._end()

    def failed(self, message: str) -> None:
        self.errors.append(message)
        self.outcome = "failed"
        self._end()

    def _end(self) -> None:
        self.stage, self.ended_s = "ended", self.clock()

    # ---- what the panel draws ------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.stage in ("starting", "running", "stopping")

    @property
    def elapsed_s(self) -> float:
        return (self.clock() if self.running else self.ended_s) - self.started_s

    @property
    def time_left_s(self) -> float | None:
        """Seconds left for the whole run (never growing), None while unknown or once it ended."""
        return self.countdown.left() if self.running else None

    def bar_value(self) -> int | None:
        """The progress bar's value out of BAR_STEPS; None for a busy bar (no known length). A run
        that did not finish keeps the bar where it got to: never full for a run that was not."""
        if self.outcome == "finished":
            return BAR_STEPS
        if self.fraction is None:
            return None if self.running else 0
        return round(BAR_STEPS * self.fraction)

    def status_text(self) -> str:
        """The line beside the bar while the run goes (the message, then the whole run's time left),
        or how it ended (a watched command's ending is worded by its own pane: see wording.command)."""
        if self.stage == "idle":
            return ""
        if self.stage == "starting":
            return "Starting… (loading PyTorch)"
        if self.stage == "stopping":
            return "Stopping…"
        if self.running:
            left = self.time_left_s
            if left is None:
                tail = ""
            elif left >= 1.0:
                tail = f" — about {format_duration(left)} left"
            else:
                tail = " — finishing"
            return f"{self.message or 'Running…'}{tail}"
        if self.outcome == "failed":
            return "Failed"
        if self.outcome == "stopped":
            return stopped_text(self.fraction, self.elapsed_s)
        return f"Finished after {format_duration(self.elapsed_s)}"

    @property
    def cluster(self) -> ClusterRun | None:
        return self.run if isinstance(self.run, ClusterRun) else None

    @property
    def command(self) -> CommandRun | None:
        return self.run if isinstance(self.run, CommandRun) else None

    @property
    def benchmark(self) -> BenchmarkRun | None:
        return self.run if isinstance(self.run, BenchmarkRun) else None
