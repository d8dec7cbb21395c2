"""What keeps the window answering during a run: the engine loaded ahead, the GIL handed over
quickly while a job runs, axes that move in steps and stop on round numbers."""

from __future__ import annotations

import sys
import threading

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QWidget

from gpu_advisor.ui.main_window import MainWindow
from gpu_advisor.ui.monitor.controls import RunControls
from gpu_advisor.ui.monitor.live_plots import LivePlots, round_top
from gpu_advisor.ui.monitor.series import TELEMETRY_CHANNELS, RingSeries
from gpu_advisor.ui.workers import JobRunner
from tests.ui.conftest import FakeBackend


def test_axes_top_out_at_round_numbers():
    assert [round_top(v) for v in (1.0, 1.15, 7.0, 101.0, 1234.0, 2600.0, 0.45)] == [
        1.0,
        1.2,
        8.0,
        120.0,
        1500.0,
        3000.0,
        0.5,
    ]


def test_a_finished_run_leaves_every_plot_on_the_same_time_range_past_the_last_point(qtbot):
    telemetry, throughput = RingSeries(1000, len(TELEMETRY_CHANNELS)), RingSeries(100, 1)
    plots = LivePlots(telemetry, throughput, window_s=120.0)
    qtbot.addWidget(plots)
    throughput.restart(("train", "tokens_per_s"))
    for i in range(200):
        t = 0.1 * i
        telemetry.append(t, (50.0, 1.0, np.nan, 40.0, 2000.0))
        throughput.append(t, (1000.0,))
        plots.refresh()  # moves at most two plots a tick
    plots.stop()  # the last tick: every plot follows
    ranges = {key: tuple(plot.getPlotItem().getViewBox().viewRange()[0]) for key, plot in plots.plots.items()}
    assert len(set(ranges.values())) == 1
    low, high = next(iter(ranges.values()))
    assert low == 0 and 19.9 <= high <= 24.0  # the last point (19.9 s) is on screen, a step ahead at most


def test_a_job_runs_with_a_short_switch_interval_and_the_old_one_comes_back(qtbot):
    before = sys.getswitchinterval()
    runner = JobRunner("test", switch_interval_s=0.0005)
    seen: list[float] = []
    release = threading.Event()

    def job(context):
        seen.append(sys.getswitchinterval())
        release.wait(5)
        return "done"

    with qtbot.waitSignal(runner.run_finished, timeout=5000):
        runner.start(job)
        qtbot.waitUntil(lambda: bool(seen), timeout=5000)
        release.set()
    assert seen == [0.0005] and sys.getswitchinterval() == before
    runner.shutdown()


def test_prepare_runs_on_the_worker_thread_before_the_next_job(qtbot):
    runner = JobRunner("test")
    order: list[str] = []
    main = threading.get_ident()

    def prepare():
        order.append("prepare" if threading.get_ident() != main else "prepare on the GUI thread")

    with qtbot.waitSignal(runner.run_finished, timeout=5000):
        runner.prepare(prepare)
        runner.start(lambda context: order.append("job"))
    assert order == ["prepare", "job"]
    runner.shutdown()


def test_the_monitor_loads_the_engine_once_it_is_shown(window, qtbot):
    monitor = window.monitor
    assert isinstance(monitor.backend, FakeBackend) and not monitor.prepared
    window.tabs.setCurrentWidget(monitor)
    qtbot.waitUntil(lambda: monitor.prepared, timeout=5000)  # a toy backend loads nothing ahead


def test_a_busy_cursor_while_the_engine_loads_and_the_normal_one_after(window, qtbot, monkeypatch):
    # PyTorch's import can hold the window up to a second: the cursor says so while it lasts.
    while QApplication.overrideCursor() is not None:  # one left by a window closed while it loaded
        QApplication.restoreOverrideCursor()
    monitor = window.monitor
    release = threading.Event()
    monkeypatch.setattr(monitor.backend, "prepare", lambda: release.wait(5), raising=False)
    window.tabs.setCurrentWidget(monitor)
    qtbot.waitUntil(lambda: QApplication.overrideCursor() is not None, timeout=5000)
    assert QApplication.overrideCursor().shape() == Qt.CursorShape.BusyCursor and not monitor.prepared
    release.set()
    qtbot.waitUntil(lambda: monitor.prepared, timeout=5000)
    assert QApplication.overrideCursor() is None


class _Events(QObject):
    """Counts the events of some types each watched widget receives."""

    def __init__(self, types) -> None:
        super().__init__()
        self.types = set(types)
        self.seen: list[tuple[QEvent.Type, QObject]] = []

    def eventFilter(self, watched, event) -> bool:  # Qt override
        if event.type() in self.types:
            self.seen.append((event.type(), watched))
        return False


def test_moving_the_progress_bar_paints_nothing_before_the_event_loop_runs(qtbot):
    # QProgressBar.setValue repaints at once, and a synchronous repaint paints every dirty widget
    # of the window (the live plots: a whole frame inside one signal handler).
    controls = RunControls()
    qtbot.addWidget(controls)
    paints = _Events({QEvent.Type.Paint})
    controls.progress.installEventFilter(paints)
    controls.show()
    qtbot.waitUntil(lambda: bool(paints.seen), timeout=2000)  # on screen, painted once
    paints.seen.clear()
    controls.progress.setValue(500)
    controls.progress.setRange(0, 2000)
    assert paints.seen == [] and controls.progress.value() == 500
    qtbot.waitUntil(lambda: bool(paints.seen), timeout=2000)  # painted with the next paint


def test_the_run_status_text_changes_without_laying_the_window_out_again(qtbot):
    controls = RunControls()
    qtbot.addWidget(controls)
    controls.show()
    qtbot.waitExposed(controls)
    QApplication.processEvents()
    layouts = _Events({QEvent.Type.LayoutRequest})
    for widget in (controls, *controls.findChildren(QWidget)):
        widget.installEventFilter(layouts)
    height = controls.time_left.height()
    controls.time_left.setText("train: step 40 — about 1 minute 20 s left, a long line of status text")
    QApplication.processEvents()
    assert [w for _, w in layouts.seen if w is controls or w.layout() is not None] == []
    assert controls.time_left.height() == height > 0 and controls.time_left.isVisible()


def test_a_new_step_redraws_the_throughput_plot_alone(qtbot):
    telemetry, throughput = RingSeries(1000, len(TELEMETRY_CHANNELS)), RingSeries(100, 1)
    plots = LivePlots(telemetry, throughput, window_s=120.0)
    qtbot.addWidget(plots)
    throughput.restart(("train", "tokens_per_s"))
    telemetry.append(0.5, (50.0, 1.0, np.nan, 40.0, 2000.0))
    throughput.append(0.6, (1000.0,))
    plots.refresh()
    changed: list[str] = []
    for key, curve in plots.curves.items():
        curve.sigPlotChanged.connect(lambda _item, key=key: changed.append(key))
    throughput.append(0.7, (1100.0,))  # a step, no new sample
    plots.refresh()
    assert changed == ["throughput"]
    telemetry.append(1.0, (60.0, 1.0, np.nan, 41.0, 2100.0))  # a sample, no new step
    changed.clear()
    plots.refresh()
    assert "throughput" not in changed and "utilisation_pct" in changed
    _x, y = plots.curves["utilisation_pct"].getData()
    assert list(y) == [50.0, 60.0]


def test_a_benchmark_starts_once_the_window_has_drawn_the_run_s_first_frame(qtbot, dialogs):
    # Start lays out and paints the plots anew: a benchmark taking the CPU and the GIL meanwhile
    # doubled that frame under load.
    painted_before_run: list[bool] = []
    paints = _Events({QEvent.Type.Paint})

    class Backend(FakeBackend):
        def run(self, request, context, on_sample, on_step=None):
            painted_before_run.append(any(w is viewport for _, w in paints.seen for viewport in views))
            return super().run(request, context, on_sample, on_step)

    window = MainWindow(backend=Backend(steps=3))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    monitor = window.monitor
    window.tabs.setCurrentWidget(monitor)
    views = [plot.viewport() for plot in monitor.plots.plots.values()]
    for viewport in views:
        viewport.installEventFilter(paints)
    with qtbot.waitSignal(monitor.runner.run_finished, timeout=5000):
        monitor.start()
    assert painted_before_run == [True]


def test_starting_and_a_long_result_detail_leave_the_plots_their_size(window, qtbot):
    # A plot laid out anew draws its axes again: a card taking a third line mid-run cost a whole
    # frame (every plot under the row), and so did the progress bar appearing at the first start.
    window.resize(1280, 800)
    monitor = window.monitor
    window.tabs.setCurrentWidget(monitor)
    qtbot.waitUntil(monitor.controls.isVisible, timeout=5000)
    QApplication.processEvents()
    controls = monitor.controls.height()  # no progress bar shown before the first run
    monitor.start()
    qtbot.waitUntil(lambda: monitor.plots.isVisible() and monitor.cards_row.isVisible(), timeout=5000)
    QApplication.processEvents()
    assert monitor.progress.isVisible() and monitor.controls.height() == controls
    size = monitor.plots.size()
    monitor.cards_row.prediction_card.set(
        "memory +5%",
        "152.2 MiB predicted, 144.2 MiB measured; step time -23% (CPU: not meaningful for a GPU plan)",
    )
    QApplication.processEvents()
    assert monitor.plots.size() == size
    with qtbot.waitSignal(monitor.runner.run_finished, timeout=5000):
        monitor.stop()


def test_a_benchmark_at_1024x700_leaves_each_plot_room_for_three_readable_ticks(window, qtbot):
    window.resize(1024, 700)
    window.show()
    monitor = window.monitor
    window.tabs.setCurrentWidget(monitor)
    qtbot.waitUntil(monitor.controls.isVisible, timeout=5000)
    monitor.start()
    qtbot.waitUntil(lambda: monitor.plots.isVisible() and monitor.cards_row.isVisible(), timeout=5000)
    QApplication.processEvents()
    assert window.height() == 700
    shown = [plot for plot in monitor.plots.plots.values() if plot.isVisible()]
    line = shown[0].fontMetrics().lineSpacing()
    assert len(shown) >= 3 and all(p.getPlotItem().getViewBox().height() >= 6 * line for p in shown)
    with qtbot.waitSignal(monitor.runner.run_finished, timeout=5000):
        monitor.stop()
