"""What a watched command's run hands from the monitor thread to the window (the probe's events as
they arrive, the file its output goes to), saving that output beside the results, and the run as a
calibration for the plan."""

from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path

from gpu_advisor.bench.monitor import MonitorReport
from gpu_advisor.bench.probe_events import Event
from gpu_advisor.bench.results import ResultsFileError
from gpu_advisor.bench.run_calibration import calibration_from_run
from gpu_advisor.bench.watched import bench_view
from gpu_advisor.core.files import write_atomic
from gpu_advisor.core.request import PlanRequest


class CommandLive:
    """The probe's events so far (appended on the monitor thread, read on the GUI thread) and the log."""

    def __init__(self) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="gpu-advisor-command-"))
        self.log_path = self._folder / "output.log"
        self._events: list[Event] = []
        self._lock = threading.Lock()

    def add(self, events: list[Event]) -> None:
        with self._lock:
            self._events.extend(events)

    def events(self) -> list[Event]:
        with self._lock:
            return list(self._events)

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
