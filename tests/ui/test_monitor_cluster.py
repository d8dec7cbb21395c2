"""The Monitor starts a real cluster run on this machine (torchrun, 2 gloo ranks, toy sizes): live host
telemetry while it runs, the cluster's figures on the cards when it ends, the results savable."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt

from gpu_advisor.bench import load_report
from gpu_advisor.core.units import format_bandwidth, format_duration
from gpu_advisor.ui.main_window import MainWindow
from gpu_advisor.ui.monitor.backend import CLUSTER_WORKLOAD, BenchBackend
from gpu_advisor.ui.monitor.monitor_panel import usable_cores

pytestmark = pytest.mark.slow


@pytest.fixture
def cluster_window(qtbot, dialogs):
    window = MainWindow(backend=BenchBackend(toy=True))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.close()


def _choose_cluster(monitor, nproc: int = 2) -> None:
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData(CLUSTER_WORKLOAD))
    monitor.device_combo.setCurrentIndex(monitor.device_combo.count() - 1)  # the CPU
    monitor.controls.nproc_spin.setValue(nproc)


def test_the_processes_box_shows_only_for_a_cluster_run(cluster_window):
    monitor = cluster_window.monitor
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData("train"))
    assert monitor.controls.nproc_spin.isHidden()
    _choose_cluster(monitor)
    assert not monitor.controls.nproc_spin.isHidden()


def test_before_a_cluster_run_the_note_speaks_of_its_ranks_not_of_a_workload_list(cluster_window):
    """ux-review-3 D24: cluster mode has no workload list; the idle note said 'the list shows each
    workload…'."""
    monitor = cluster_window.monitor
    _choose_cluster(monitor)
    note = monitor.idle_note.text()
    assert "list shows each workload" not in note
    assert "torchrun" in note and "Processes tab" in note and "bus bandwidth" in note
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData("train"))
    assert "list shows each workload" in monitor.idle_note.text()


def test_a_two_process_cluster_run_from_the_monitor(cluster_window, qtbot, dialogs, tmp_path, monkeypatch):
    monitor = cluster_window.monitor
    cluster_window.tabs.setCurrentWidget(monitor)
    _choose_cluster(monitor)
    # A machine already busy at the start (every core loaded): the ranks wait for cores, and it is said.
    cores = usable_cores()
    monkeypatch.setattr(os, "getloadavg", lambda: (float(cores), float(cores), float(cores)))
    with qtbot.waitSignal(monitor.runner.run_finished, timeout=180_000):
        qtbot.mouseClick(monitor.start_button, Qt.MouseButton.LeftButton)
    assert dialogs == []
    section = monitor.report.distributed
    assert section.world_size == 2 and section.backend == "gloo"
    assert monitor.telemetry.total_appended >= 1  # the machine, sampled while the ranks ran
    assert monitor.time_left.text().startswith("Finished")
    scaling = section.scaling
    assert monitor.step_card.value.text() == format_duration(scaling.step_time_s[-1])
    assert monitor.step_card.caption.text() == "Time per step (DDP)"
    link = section.link("all_reduce", "intra-node")
    peak = max(section.rows("all_reduce", "intra-node"), key=lambda r: r.busbw_bytes_per_s)
    assert monitor.prediction_card.value.text() == format_bandwidth(peak.busbw_bytes_per_s)
    assert format_bandwidth(link.busbw_bytes_per_s) in monitor.prediction_card.detail.text()  # the largest's
    # ux-review-3 D24: the rate plot got each message size's bus bandwidth as it was measured (the
    # plot keeps the current collective's sweep: the last one's, once the run ended)
    last = section.collectives[-1]
    sweep = section.rows(last.op, last.scope)
    assert monitor.throughput.tag == (f"{last.op.replace('_', '-')} ({last.scope})", "busbw_bytes_per_s")
    assert len(monitor.throughput) == len(sweep)
    assert monitor.throughput.latest()[1][0] == pytest.approx(sweep[-1].busbw_bytes_per_s)
    axis = monitor.plots.plots["throughput"].getPlotItem().getAxis("bottom").labelText
    assert axis.endswith("message sizes")
    assert "gloo on CPU, 2 ranks on 1 node" in monitor.diagnosis.text()
    assert f"2 ranks shared {cores} CPU core" in monitor.diagnosis.text()
    assert "0 of them idle" in monitor.diagnosis.text()
    assert monitor.save_button.isEnabled() and not monitor.calibrate_button.isEnabled()
    path = tmp_path / "cluster.json"
    assert monitor.save_results(path)
    assert load_report(path).distributed.world_size == 2
