"""The Monitor view: choose a device and a workload, run it on the worker thread, watch it live.

Samples go straight from the sampler thread into a ring buffer; the plots redraw from it at 15 Hz
and the texts refresh at 1 Hz (friture's habit), so a fast run never floods the event loop.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gpu_advisor.core.units import format_duration
from gpu_advisor.telemetry.samples import Sample
from gpu_advisor.ui.dialogs import ErrorReporter
from gpu_advisor.ui.glossary import tip
from gpu_advisor.ui.monitor.backend import (
    COMMAND_WORKLOAD,
    CPU_MODE_TEXT,
    BenchBackend,
    DeviceChoice,
    MonitorRequest,
    parse_command,
    planned_workloads,
)
from gpu_advisor.ui.monitor.cards import CardRow
from gpu_advisor.ui.monitor.command_run import CommandWatch, command_calibration
from gpu_advisor.ui.monitor.controls import RunControls
from gpu_advisor.ui.monitor.live_plots import LivePlots
from gpu_advisor.ui.monitor.output_pane import OutputPane
from gpu_advisor.ui.monitor.run_area import RunArea
from gpu_advisor.ui.monitor.runs import CommandRun, RunResult
from gpu_advisor.ui.monitor.series import TELEMETRY_CHANNELS, RingSeries, telemetry_values
from gpu_advisor.ui.monitor.session import BAR_STEPS, RunSession
from gpu_advisor.ui.settings import AppSettings
from gpu_advisor.ui.startup import AfterNextPaint
from gpu_advisor.ui.table_export import with_suffix
from gpu_advisor.ui.workers import JobRunner
from gpu_advisor.wording.checklist import checklist
from gpu_advisor.wording.distributed import CLUSTER_CAPTIONS, cluster_cards, shared_cores_note
from gpu_advisor.wording.monitor import Cards, cards_for, measured_mfu, pick_result

if TYPE_CHECKING:
    from gpu_advisor.bench.monitor import MonitorReport
    from gpu_advisor.bench.options import ProgressEvent
    from gpu_advisor.bench.results import BenchReport, WorkloadResult
    from gpu_advisor.core.request import PlanRequest
    from gpu_advisor.ui.workers import RunContext

TEXT_REFRESH_MS = 1000
RUNNING_TEXT = "Running…"
# The benchmark thread (and the PyTorch threads it starts) runs at a lower CPU priority than the
# window, so a run that keeps every core busy does not make the window stutter (benchmarks/ui_stall.py).
WORKER_NICE_INCREMENT = 5
# The GIL changes hands within 0.1 ms (Python's default: 5 ms) while a benchmark runs, so that a
# repaint of the plots, which takes the GIL for every Python call Qt makes into pyqtgraph, is not
# held up by a workload running Python in a loop (decode steps, the data loader). It costs the
# workload nothing while the window is idle: the GIL only changes hands when the GUI asks for it.
# Against 0.5 ms, the data-loader workload's gaps over 15 ms held the GUI blocked on the GIL for a
# median of 51 ms a run instead of 128 (4 runs each, benchmarks/ui_stall.py --attribute 15).
WORKER_SWITCH_INTERVAL_S = 0.0001
RING_CAPACITY = 36_000  # one hour at 10 samples/s
# PyTorch loads on the worker thread this long after the Monitor is first shown: after its first paint,
# and once, before the user can have chosen a workload and pressed Start (BenchBackend.prepare).
PREPARE_DELAY_MS = 300
# Below this height (the window below ~690 px; 1024x700 gives the panel 633) the cards keep one line
# of detail: the plots need the room. Above any panel's least height without it, or a window at its
# least would never get there.
COMPACT_HEIGHT_PX = 620
RESULTS_FILTER = "Benchmark results (*.json);;All files (*)"
# The longest a benchmark waits for the window to draw the run's first frame before it starts.
FIRST_FRAME_WAIT_S = 0.5


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity), as the cluster launcher counts them."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class MonitorPanel(QWidget):
    """Start/Stop a run; plots, cards and diagnosis follow it. `shutdown()` on window close."""

    calibration_chosen = Signal(float, str)  # measured MFU, where it came from
    run_state_changed = Signal(bool)  # True when a run starts, False when it ends

    def __init__(
        self, backend: BenchBackend, settings: AppSettings, errors: ErrorReporter, parent=None
    ) -> None:
        super().__init__(parent)
        self.backend = backend
        self._errors = errors
        self._settings = settings
        self.runner = JobRunner(
            "gpu-advisor monitor",
            nice_increment=WORKER_NICE_INCREMENT,
            switch_interval_s=WORKER_SWITCH_INTERVAL_S,
        )
        # The plan a watched run calibrates (its model turns the run's tokens/s into an MFU); the window sets it.
        self.plan_request: Callable[[], PlanRequest | None] = lambda: None
        self.telemetry = RingSeries(RING_CAPACITY, len(TELEMETRY_CHANNELS))
        self.throughput = RingSeries(4096, 1)
        self.session = RunSession()  # the run's state; this panel only draws it
        self._run_started_wall: float = 0.0
        self._request: MonitorRequest | None = None
        self._cores_at_start: tuple[int, float] | None = None  # (usable cores, 1-min load) of a CPU run
        self._planned: list[tuple[str, str]] = []  # (workload key, label) of the run's checklist
        self._prepare_asked = False
        self.prepared = False  # the benchmark engine (torch) is loaded, ahead of the first run

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        self.controls = RunControls()
        layout.addWidget(self.controls)
        c = self.controls  # the panel's own names for the controls (tests and the tools use them)
        self.device_combo, self.workload_combo, self.quick_check = (
            c.device_combo,
            c.workload_combo,
            c.quick_check,
        )
        self.start_button, self.stop_button, self.progress, self.time_left = (
            c.start_button,
            c.stop_button,
            c.progress,
            c.time_left,
        )
        self.command_row, self.command_edit, self.folder_edit = c.command_row, c.command_edit, c.folder_edit
        self.mode_banner = QLabel()
        self.mode_banner.setWordWrap(True)
        self.mode_banner.setToolTip(tip("cpu_mode"))
        layout.addWidget(self.mode_banner)
        self.cards_row = CardRow(tip("throughput"))
        self.cards_row.setVisible(False)  # until the first run: four empty cards say nothing
        row = self.cards_row
        self.step_card, self.throughput_card = row.step_card, row.throughput_card
        self.memory_card, self.prediction_card = row.memory_card, row.prediction_card
        layout.addWidget(self.cards_row)
        self.plots = LivePlots(self.telemetry, self.throughput, settings.plot_window_s)
        self.output_pane = OutputPane()
        self.run_area = area = RunArea(self.plots, self.output_pane)
        self.checklist, self.processes, self.lists = area.checklist, area.processes, area.lists
        self.idle_note = area.idle_note
        self.checklist.itemSelectionChanged.connect(self._show_selected_verdict)
        layout.addWidget(area, 1)
        self.command = CommandWatch(self.output_pane, area.show_output, self.throughput)  # "My command"
        self.command_runner = self.command.runner
        bottom = QHBoxLayout()
        self.diagnosis = QLabel("Diagnosis appears when a workload finishes.")
        # always rich text: its texts are escaped HTML (an auto-format label showed "&#x27;" literally)
        self.diagnosis.setTextFormat(Qt.TextFormat.RichText)
        self.diagnosis.setWordWrap(True)
        self.diagnosis.setToolTip(tip("diagnosis"))
        # Two lines' room, so that a verdict that wraps does not shrink the plots mid-run (see Card).
        self.diagnosis.setMinimumHeight(2 * self.diagnosis.fontMetrics().lineSpacing())
        self.save_button = QPushButton("&Save results…")
        self.save_button.setToolTip(
            "Save the run as a gpu-advisor/bench@1 JSON file, to compare machines later."
        )
        self.calibrate_button = QPushButton("Use as ca&libration")
        self.calibrate_button.setToolTip(
            "Use this run's measured MFU in the planner instead of the default.\n"
            "Available after a training run on an NVIDIA GPU: a CPU's efficiency says nothing about "
            "a GPU's. For your own command: a run that reports its tokens (probe.step(tokens=...)), "
            "turned into an MFU with the plan's model.\n\n" + tip("mfu")
        )
        for button in (self.save_button, self.calibrate_button):
            button.setEnabled(False)
        bottom.addWidget(self.diagnosis, 1)
        bottom.addWidget(self.save_button)
        bottom.addWidget(self.calibrate_button)
        layout.addLayout(bottom)

        self.text_timer = QTimer(self)
        self.text_timer.setInterval(TEXT_REFRESH_MS)
        self.text_timer.timeout.connect(self.refresh_texts)
        for runner in (self.runner, self.command_runner):
            runner.run_started.connect(self._run_started)
            runner.progress_changed.connect(self._progress_changed)
            runner.partial_result.connect(self._result_arrived)
            runner.run_finished.connect(self._run_finished)
            runner.run_failed.connect(self._run_failed)
        self.runner.prepared.connect(self._prepared)
        self._prepare_timer = QTimer(self)  # a child: it dies with the panel, never fires after it
        self._prepare_timer.setSingleShot(True)
        self._prepare_timer.setInterval(PREPARE_DELAY_MS)
        self._prepare_timer.timeout.connect(self._prepare_engine)
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.save_button.clicked.connect(self.save_dialog)
        self.calibrate_button.clicked.connect(self.use_as_calibration)
        self.device_combo.currentIndexChanged.connect(self._device_changed)
        self.workload_combo.currentIndexChanged.connect(self._show_plan)
        self.refresh_devices()
        self._set_running(False)
        self.progress.setVisible(False)  # an empty bar before any run reads as a text field
        self._show_plan()

    # ---- loading the engine ahead -------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        self.cards_row.set_compact(self.height() < COMPACT_HEIGHT_PX)
        super().resizeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:  # Qt override
        super().showEvent(event)
        if not self._prepare_asked:
            self._prepare_asked = True
            self._prepare_timer.start()

    def _prepare_engine(self) -> None:
        # PyTorch's import can hold the window up to a second: a busy cursor says so while it lasts
        # (the cursor is drawn by the window system, so it shows while the app cannot paint).
        QApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
        self.runner.prepare(self.backend.prepare)

    def _prepared(self) -> None:
        if not self.prepared:
            QApplication.restoreOverrideCursor()
        self.prepared = True

    # ---- devices and settings ------------------------------------------------------------------------
    def refresh_devices(self) -> None:
        self.device_combo.clear()
        for device in self.backend.devices():
            self.device_combo.addItem(device.label, device)
        self._device_changed()

    def apply_settings(self, settings: AppSettings) -> None:
        self._settings = settings
        self.plots.window_s = settings.plot_window_s

    def _device(self) -> DeviceChoice:
        return self.device_combo.currentData()

    def _device_changed(self, _index: int = 0) -> None:
        device = self.device_combo.currentData()
        if device is None:
            return
        if device.nvml_index is None:
            gpu_note = "" if self.backend.has_gpu() else " — no GPU was found"
            self.mode_banner.setText(
                f"<b>{CPU_MODE_TEXT}</b>{gpu_note}: workloads run on the CPU and the plots show host telemetry "
                "(CPU load, process memory, CPU clock). Figures describe this CPU, not a GPU."
            )
        else:
            self.mode_banner.setText(f"Watching {device.label} through {self.backend.gpu_library()}.")
        self.plots.set_mode(gpu=device.nvml_index is not None)
        index = device.nvml_index
        self.processes.set_source(None if index is None else partial(self.backend.gpu_processes, index))

    def _show_plan(self, _index: int = 0) -> None:
        """Idle: the checklist lists what Start will run, every line 'waiting'."""
        if self.running or self.results or self.report is not None:
            return
        self._planned = planned_workloads(self.workload_combo.currentData())
        self.checklist.set_lines(checklist(self._planned, [], None))
        self.run_area.show_checklist(bool(self._planned))
        self.run_area.set_idle_workload(self.workload_combo.currentData())

    # ---- running -----------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.runner.running or self.command_runner.running

    def request(self) -> MonitorRequest:
        return MonitorRequest(
            device=self._device(),
            workload=self.workload_combo.currentData(),
            quick=self.quick_check.isChecked(),
            interval_s=self._settings.sample_interval_s,
            command=self.command_edit.text(),
            working_dir=self.folder_edit.text(),
            nproc=self.controls.nproc_spin.value(),
        )

    def start(self) -> None:
        """Start the chosen workload on the worker thread (ignored while one runs)."""
        if self.running:
            return
        request = self.request()
        if request.workload == COMMAND_WORKLOAD:
            try:
                parse_command(request.command, request.working_dir)
            except ValueError as exc:
                self._errors.error("Cannot run the command", str(exc))
                return
        self._request = request
        # CPU ranks beyond the cores idle at the start wait for one (review 3, D24): said at the end.
        self._cores_at_start = (usable_cores(), os.getloadavg()[0]) if request.device.kind == "cpu" else None
        self.telemetry.clear()
        self.throughput.restart(None)
        self.session.start()
        self._planned = planned_workloads(request.workload)
        self.checklist.set_lines(checklist(self._planned, [], None))
        self.run_area.show_checklist(bool(self._planned))
        self.run_area.show_plots()
        self.cards_row.setVisible(True)
        self.progress.setVisible(True)
        self.progress.setValue(0)
        self._run_started_wall = time.time()
        ring, nvml_index, t0 = self.telemetry, request.device.nvml_index, self._run_started_wall
        rates = self.throughput

        def on_sample(sample: Sample) -> None:  # sampler thread: touches only the ring buffer
            ring.append(sample.wall_time - t0, telemetry_values(sample, nvml_index))

        def on_step(workload: str, key: str, rate: float) -> None:  # worker thread: the ring only
            if rates.tag != (workload, key):  # a new workload: a new unit, a fresh plot
                rates.restart((workload, key))
            rates.append(time.time() - t0, (rate,))

        backend = self.backend
        first_frame = threading.Event()  # set once the run's first frame is painted

        def job(context: RunContext) -> RunResult | None:  # worker thread
            # Start takes a whole frame to draw (the plots laid out and painted anew): let the window
            # draw it before the benchmark takes the CPU and the GIL, which under load more than
            # doubled that frame (benchmarks/ui_stall.py). The wait is bounded: never stuck on it.
            first_frame.wait(FIRST_FRAME_WAIT_S)
            return backend.run(request, context, on_sample, on_step=on_step)

        if request.workload == COMMAND_WORKLOAD:
            self._request = self.command.start(backend, request, on_sample, self.session.started_s)
        else:
            self.command.forget()
            self.runner.start(job)
        self._set_running(True)
        self.time_left.setText(self.session.status_text())
        self.diagnosis.setText(RUNNING_TEXT)
        self.plots.start(self.backend.unmeasured_channels(request.device))
        self.text_timer.start()
        # The window paints every changed widget in one pass: once the progress bar (always changed
        # here) is painted, the next pass of the event loop comes after the whole frame.
        self.progress.update()
        AfterNextPaint(self.progress, first_frame.set)

    def stop(self) -> None:
        """Ask the run to stop; it ends within one step."""
        if self.running:
            self.runner.stop()
            self.command_runner.stop()
            self.session.stop_asked()
            self.time_left.setText(self.session.status_text())

    def shutdown(self) -> None:
        """Window closing: stop the run, end the worker thread and wait for it."""
        self.text_timer.stop()
        self.plots.timer.stop()
        self.runner.shutdown()
        self.command.shutdown()

    def _set_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        for widget in (
            self.device_combo,
            self.workload_combo,
            self.quick_check,
            self.command_row,
            self.controls.nproc_spin,
        ):
            widget.setEnabled(not running)
        self.run_state_changed.emit(running)

    # ---- worker signals (GUI thread) -----------------------------------------------------------------
    @property
    def report(self) -> BenchReport | MonitorReport | None:
        """The last run's report (bench@1, or monitor@1 for a watched command)."""
        return None if self.session.run is None else self.session.run.report

    @property
    def results(self) -> list[WorkloadResult]:
        return self.session.results

    def _run_started(self) -> None:
        self.session.running_now()
        self.time_left.setText(self.session.status_text())

    def _progress_changed(self, progress: ProgressEvent) -> None:
        self.session.progress(progress)
        value = self.session.bar_value()
        if value is None:
            self.progress.setRange(0, 0)  # busy indicator: a watched command has no known length
        else:
            self.progress.setRange(0, BAR_STEPS)
            self.progress.setValue(value)

    def _result_arrived(self, result: WorkloadResult) -> None:
        self.session.result(result)

    def _run_finished(self, run: RunResult | None) -> None:
        self.session.finished(run, stop_asked=self.runner.stop_event.is_set())
        self._end_run()
        command = self.session.command
        if command is not None:
            ended = self.command.ended(command.report)
            self.time_left.setText(f"{ended} after {format_duration(self.session.elapsed_s)}")
            # a watched command has no known length: a full bar would read as a success
            self.progress.setVisible(command.report.exit_code == 0 and command.report.interrupted is None)
        else:
            self.time_left.setText(self.session.status_text())

    def _run_failed(self, message: str) -> None:
        self.session.failed(message)
        self._end_run()
        self.time_left.setText(self.session.status_text())
        self.diagnosis.setText(f"No diagnosis: the run did not complete ({escape(message)}).")
        self.command.failed_to_start(message)
        self._errors.error("Run failed", message)

    def _end_run(self) -> None:
        self.plots.stop()
        self.text_timer.stop()
        self._set_running(False)
        self.progress.setRange(0, BAR_STEPS)
        self.progress.setValue(self.session.bar_value() or 0)
        self.refresh_texts()
        if self.diagnosis.text() == RUNNING_TEXT:  # no workload gave a verdict
            self.diagnosis.setText("No diagnosis: no workload of this run gave a verdict.")
        self.save_button.setEnabled(self.report is not None)
        self.calibrate_button.setEnabled(self.calibration() is not None)

    # ---- texts (1 Hz) --------------------------------------------------------------------------------
    def refresh_texts(self) -> None:
        session = self.session
        if self.running and session.running and session.message:
            self.time_left.setText(session.status_text())
        if self._planned:
            self.checklist.set_lines(
                checklist(self._planned, self.results, session.workload, finished=not self.running)
            )
        self.plots.refresh_titles()
        command = self.command.refresh(session.command, self.running)
        cluster = session.cluster
        if command is not None:
            self._show(*command)
        elif cluster is not None and cluster.report.distributed is not None:
            cards = cluster_cards(cluster.report.distributed)  # bench.distributed
            if self._cores_at_start is not None and self._request is not None:
                shared = shared_cores_note(self._request.nproc, *self._cores_at_start)
                if shared:
                    cards = replace(cards, diagnosis_detail=f"{cards.diagnosis_detail} {shared}")
            self._show(cards, CLUSTER_CAPTIONS)
        else:
            self._show(cards_for(self.results, self._device_kind()))

    def _device_kind(self) -> str:
        """What the cards describe: the finished run's device, else the one the run was started on."""
        device = None if self.session.run is None else self.session.run.device
        if device is not None:
            return device.kind
        return self._request.device.kind if self._request is not None else self._device().kind

    def _show(self, cards: Cards, captions: tuple[str, str, str, str] | None = None) -> None:
        """The cards' texts (`captions` retitle them for this run) and the diagnosis."""
        self.cards_row.show_texts(cards, captions)
        if self.checklist.selected_line() is not None:
            self._show_selected_verdict()
        elif cards.diagnosis_title:
            self.diagnosis.setText(
                f"<b>{escape(cards.diagnosis_title)}</b> — {escape(cards.diagnosis_detail)}"
            )

    def _show_selected_verdict(self) -> None:
        """The diagnosis box reads the selected workload's verdict, the same words as its row."""
        line = self.checklist.selected_line()
        if line is None or not line.verdict:
            return
        self.diagnosis.setText(
            f"<b>{escape(line.label)}: {escape(line.verdict)}</b> — {escape(line.verdict_detail)}"
        )

    # ---- results ---------------------------------------------------------------------------------------
    def calibration(self) -> tuple[float, str] | None:
        """(measured MFU, description) from the last GPU run's training result, if it measured one.

        The planner's MFU is a GPU's efficiency against its tensor-core peak; a CPU run's (against the
        CPU's own matmul peak) does not carry over, so CPU runs offer no calibration.
        """
        run = self.session.run
        if isinstance(run, CommandRun):  # a watched command: its tokens/s for the plan's model
            return command_calibration(run.report, self.plan_request())
        if run is None or run.device.kind != "cuda":
            return None
        device = run.device
        train = [r for r in self.results if r.workload == "train" and r.status == "ok"]
        result = pick_result(train) if train else None
        if result is None:
            return None
        mfu = measured_mfu(result)
        if mfu is None:
            return None
        return mfu, f"{result.name} on {device.name}, {run.report.created[:10]}"

    def use_as_calibration(self) -> None:
        calibration = self.calibration()
        if calibration is not None:
            self.calibration_chosen.emit(*calibration)

    def save_dialog(self) -> None:
        folder = self._settings.last_folder or str(Path.home())
        path, _ = QFileDialog.getSaveFileName(self, "Save results", folder, RESULTS_FILTER)
        if path:
            self.save_results(with_suffix(Path(path), ".json"))

    def save_results(self, path: Path) -> bool:
        run = self.session.run
        if run is None:
            return False
        try:
            report = self.command.with_log_beside(run, path)  # a command's output goes beside it
            self.backend.save_results(report, path)
        except OSError as exc:
            self._errors.error("Results not saved", f"{path}: {exc.strerror or exc}")
            return False
        self.time_left.setText(f"Saved {path.name}")
        return True
