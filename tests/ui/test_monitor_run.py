"""A benchmark run you can follow: idle state, checklist, live throughput, honest progress, latest values."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gpu_advisor.ui.main_window import MainWindow
from tests.ui.conftest import FakeBackend
from tests.ui.test_monitor import _start


def _window(qtbot, backend: FakeBackend) -> MainWindow:
    window = MainWindow(backend=backend)
    qtbot.addWidget(window)
    window.show()
    return window


def _statuses(monitor) -> dict[str, str]:
    table = monitor.checklist
    return {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}


def test_before_a_run_a_note_and_the_planned_list_instead_of_empty_plots(window):
    monitor = window.monitor
    window.tabs.setCurrentWidget(monitor)
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData("all"))
    assert monitor.idle_note.isVisible() and "Start" in monitor.idle_note.text()
    assert not monitor.plots.isVisible()  # no six empty plots
    assert not monitor.progress.isVisible()  # no empty bar that reads as a text field
    assert not monitor.cards_row.isVisible()
    statuses = _statuses(monitor)
    assert list(statuses) == [
        "Matrix multiply",
        "Memory bandwidth",
        "Training step",
        "Inference",
        "Data loader",
        "Host ↔ device transfer",
    ]
    assert set(statuses.values()) == {"waiting"}
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData("command"))
    assert not monitor.checklist.isVisible()  # a watched command is no list of workloads


def test_the_list_shows_the_running_workload_then_its_figures_and_verdict(qtbot, dialogs):
    window = _window(qtbot, FakeBackend(steps=None))
    monitor = window.monitor
    _start(window, qtbot, "all")
    assert monitor.plots.isVisible() and not monitor.idle_note.isVisible()
    qtbot.waitUntil(lambda: monitor.session.workload == "train", timeout=5000)
    monitor.refresh_texts()
    statuses = _statuses(monitor)
    assert statuses["Training step"] == "▶ running" and statuses["Matrix multiply"] == "waiting"
    with qtbot.waitSignal(monitor.runner.run_finished, timeout=5000):
        monitor.stop()
    table = monitor.checklist
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "train bench-gpt2-test")
    assert table.item(row, 1).text() == "■ stopped"
    statuses = _statuses(monitor)
    assert statuses["Inference"] == "– not run"  # never started: not "waiting" forever
    window.close()


def test_a_finished_workload_keeps_its_figures_and_its_verdict_reads_in_the_diagnosis(qtbot, dialogs):
    window = _window(qtbot, FakeBackend(steps=5))
    monitor = window.monitor
    _start(window, qtbot)
    qtbot.waitUntil(lambda: not monitor.running, timeout=5000)
    table = monitor.checklist
    assert table.rowCount() == 1
    cells = [table.item(0, c).text() for c in range(table.columnCount())]
    assert cells[:3] == ["train bench-gpt2-test", "✓ done", "250.0 ms"]
    assert "1,234 tokens/s" in cells[3] and cells[4] == "2.8 GiB" and cells[5] == "Compute-bound"
    table.selectRow(0)
    assert "train bench-gpt2-test: Compute-bound" in monitor.diagnosis.text()
    window.close()


def test_each_step_is_plotted_live_with_its_latest_value_in_the_title(qtbot, dialogs):
    window = _window(qtbot, FakeBackend(steps=None))
    monitor = window.monitor
    _start(window, qtbot)
    qtbot.waitUntil(lambda: len(monitor.throughput) >= 3, timeout=5000)  # before any workload ended
    assert not monitor.results
    monitor.plots.refresh()
    monitor.refresh_texts()
    x, y = monitor.plots.curves["throughput"].getData()
    assert len(x) >= 3 and y[0] == 1000.0  # the fake's first step: 1,000 tokens/s
    title = monitor.plots.plots["throughput"].getPlotItem().titleLabel.text
    assert f"Throughput: <b>{monitor.plots.latest_text('throughput')}</b>" in title
    axis = monitor.plots.plots["throughput"].getPlotItem().getAxis("bottom").labelText
    assert axis == "time (s), train steps"  # which workload's steps the line follows
    assert monitor.plots.latest_text("throughput").endswith("tokens/s")
    assert monitor.plots.latest_text("utilisation_pct").endswith("%")
    assert monitor.plots.latest_text("memory_gib") == "0.5 GiB"  # the fake's 500 MB process
    # every axis from zero, so 1,000 -> 1,010 tokens/s is not blown up into a cliff
    low, high = monitor.plots.plots["throughput"].getPlotItem().getViewBox().viewRange()[1]
    assert low == 0 and high > 1000
    low, high = monitor.plots.plots["utilisation_pct"].getPlotItem().getViewBox().viewRange()[1]
    assert (low, high) == (0, 100)
    with qtbot.waitSignal(monitor.runner.run_finished, timeout=5000):
        monitor.stop()
    window.close()


def test_a_stopped_run_says_where_it_stopped_and_the_bar_stays_there(qtbot, dialogs):
    window = _window(qtbot, FakeBackend(steps=None))  # progress 50 % until stopped
    monitor = window.monitor
    _start(window, qtbot)
    qtbot.waitUntil(lambda: monitor.progress.value() == 500, timeout=5000)
    with qtbot.waitSignal(monitor.runner.run_finished, timeout=5000):
        monitor.stop()
    assert monitor.progress.value() == 500  # not 100 %
    assert monitor.time_left.text().startswith("Stopped at 50% after ")
    window.close()


def test_a_finished_run_fills_the_bar(qtbot, dialogs):
    window = _window(qtbot, FakeBackend(steps=3))
    monitor = window.monitor
    _start(window, qtbot)
    qtbot.waitUntil(lambda: not monitor.running, timeout=5000)
    assert monitor.progress.value() == 1000 and monitor.time_left.text().startswith("Finished after")
    window.close()


def test_plots_take_no_tab_stop(window):
    assert all(plot.focusPolicy() == Qt.FocusPolicy.NoFocus for plot in window.monitor.plots.plots.values())


def test_quick_is_offered_for_benchmarks_only(window):
    monitor = window.monitor
    window.tabs.setCurrentWidget(monitor)
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData("command"))
    assert not monitor.quick_check.isVisible() and monitor.command_edit.isVisible()
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData("train"))
    assert monitor.quick_check.isVisible()


def test_the_processes_tab_lists_this_app_on_a_cpu(window, qtbot):
    import os

    monitor = window.monitor
    window.tabs.setCurrentWidget(monitor)
    monitor.lists.setCurrentWidget(monitor.processes)
    table = monitor.processes
    qtbot.waitUntil(lambda: table.rowCount() >= 1, timeout=3000)
    pids = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert str(os.getpid()) in pids
    row = pids.index(str(os.getpid()))
    assert table.item(row, 3).text().endswith(("MiB", "GiB"))  # resident memory, binary units
    assert table.isColumnHidden(4) and table.isColumnHidden(5)  # no GPU columns on a CPU
    monitor.lists.setCurrentWidget(monitor.checklist)
    assert not table.timer.isActive()  # no reading while nobody looks
