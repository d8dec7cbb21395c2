"""The Monitor's "My command" mode: its runner, what a watched command's run hands from the monitor
thread to the window (the probe's events as they arrive, the file its output goes to), the output
pane and the throughput it plots, saving that output beside the results, and the run as a
calibration for the plan."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from gpu_advisor.bench.monitor import MonitorReport
from gpu_advisor.bench.probe_events import EpochRecord, Event, StepAggregate, StepCounters, StepsSummary
from gpu_advisor.bench.results import BenchReport, ResultsFileError
from gpu_advisor.bench.run_calibration import calibration_from_run
from gpu_advisor.bench.watched import bench_view
from gpu_advisor.core.files import write_atomic
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.telemetry.samples import Sample
from gpu_advisor.ui.monitor.backend import BenchBackend, MonitorRequest
from gpu_advisor.ui.monitor.output_pane import OutputPane
from gpu_advisor.ui.monitor.runs import CommandRun, RunResult
from gpu_advisor.ui.monitor.series import RingSeries
from gpu_advisor.ui.workers import JobRunner
from gpu_advisor.wording.command import command_cards, ending, live_cards
from gpu_advisor.wording.monitor import Cards

CardTexts = tuple[Cards, tuple[str, str, str, str] | None]  # the cards, and the captions they take


class CommandLive:
    """The probe's events so far, folded as they arrive (on the monitor thread; read on the GUI thread,
    at a cost that does not grow with the run), and the log."""

    def __init__(self) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="gpu-advisor-command-"))
        self.log_path = self._folder / "output.log"
        self._aggregate = StepAggregate()
        self._lock = threading.Lock()

    def add(self, events: list[Event]) -> None:
        with self._lock:
            self._aggregate.add(events)

    def summary(self) -> tuple[StepsSummary | None, list[EpochRecord], StepCounters]:
        """The steps and epochs so far, and the running totals the throughput plot differences."""
        with self._lock:
            return self._aggregate.steps(), self._aggregate.epochs(), self._aggregate.counters()

    def close(self) -> None:
        """Remove the temporary log (when the next run starts, or the window closes)."""
        shutil.rmtree(self._folder, ignore_errors=True)


def log_path_beside(results: Path) -> Path:
    """'run.json' -> 'run.log': where the command's full output is saved with its results."""
    return results.with_suffix(".log")


def save_log(log: Path, results: Path) -> Path:
    """Copy the command's output beside the results file (atomically); returns where it went."""
    target = log_path_beside(results)
    write_atomic(target, lambda tmp: shutil.copyfile(log, tmp), expected_size=log.stat().st_size)
    return target


def command_calibration(report: MonitorReport, request: PlanRequest | None) -> tuple[float, str] | None:
    """(measured MFU, where it came from) of a watched GPU run for the plan's model, or None where the
    run gives none (on the CPU, no tokens reported, no training plan): bench.run_calibration says why."""
    if request is None or not request.task.is_training:
        return None
    try:
        calibration = calibration_from_run(
            bench_view(report), request, f"your command ({report.created[:10]})"
        )
    except ResultsFileError:
        return None
    return (calibration.mfu, calibration.source) if calibration.mfu is not None else None


class CommandWatch:
    """A watched command's side of the Monitor: the runner it starts from, its live events and
    output, the output pane, and its steps' rate on the throughput plot. The panel composes it."""

    def __init__(
        self, output_pane: OutputPane, show_output: Callable[[bool], None], throughput: RingSeries
    ) -> None:
        # The command starts from this runner's thread and inherits that thread's priority: normal,
        # not the benchmark thread's (a niced thread cannot give its nice back).
        self.runner = JobRunner("gpu-advisor command")
        self.output_pane = output_pane
        self._show_tab = show_output  # the pane's tab shows (and comes to the front) or hides
        self._throughput = throughput
        self.live: CommandLive | None = None  # the current or last command's events and output
        self._plotted = StepCounters()
        self._started_mono = 0.0

    def start(
        self,
        backend: BenchBackend,
        request: MonitorRequest,
        on_sample: Callable[[Sample], None],
        started_mono: float,
    ) -> MonitorRequest:
        """Run the command on the runner's thread; returns the request with its output's log path."""
        self.forget()
        live = self.live = CommandLive()
        self._plotted, self._started_mono = StepCounters(), started_mono
        request = replace(request, log_path=str(live.log_path))
        self._show_tab(True)
        self.output_pane.set_status("Running…")
        self.output_pane.show_message("")
        self.runner.start(lambda context: backend.run(request, context, on_sample, live.add))
        return request

    def forget(self) -> None:
        """A new run starts (a benchmark's, or the next command's): the last command's output goes."""
        if self.live is not None:
            self.live.close()
            self.live = None
        self._show_tab(False)

    def ended(self, report: MonitorReport) -> str:
        """How the command ended, in the pane (in the error colour if badly); the status's words."""
        status, failed = ending(report)
        self.output_pane.set_status(status, failed)
        return status

    def failed_to_start(self, message: str) -> None:
        if self.live is not None:
            self.output_pane.set_status("Failed to start", failed=True)
            self.output_pane.show_message(message)

    def refresh(self, run: CommandRun | None, running: bool) -> CardTexts | None:
        """The 1 Hz refresh: the output's tail, one throughput point, and the cards to show (None
        when no command is being watched or was the last run)."""
        if run is not None:
            self._show_output()
            return command_cards(run.report)
        if self.live is None or not running:
            return None
        steps, epochs, counters = self.live.summary()
        self._show_output()
        self._plot_rate(counters)
        return live_cards(steps, epochs, time.monotonic() - self._started_mono)

    def _show_output(self) -> None:
        if self.live is not None:
            self.output_pane.show_tail(self.live.log_path)

    def _plot_rate(self, counters: StepCounters) -> None:
        """One throughput point per refresh: the rate of the steps the probe reported since the last."""
        point = counters.rate_since(self._plotted)
        self._plotted = counters
        if point is None:
            return
        t_mono, rate, unit = point
        if self._throughput.tag != ("your command", unit):  # the plot's unit and steps label follow it
            self._throughput.restart(("your command", unit))
        # The probe's clock is time.monotonic(), the same in every process of the machine.
        self._throughput.append(t_mono - self._started_mono, (rate,))

    def with_log_beside(self, run: RunResult, path: Path) -> BenchReport | MonitorReport:
        """The report to save at `path`: a command's, with its whole output copied beside it."""
        if isinstance(run, CommandRun) and self.live is not None and self.live.log_path.exists():
            log = save_log(self.live.log_path, path)
            return run.report.model_copy(update={"log": log.name})
        return run.report

    def shutdown(self) -> None:
        self.runner.shutdown()
        if self.live is not None:
            self.live.close()
