"""The Monitor view: a toy workload on the real worker thread, live plots, stop, close mid-run."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gpu_advisor.ui.main_window import MainWindow
from gpu_advisor.ui.monitor.backend import BenchBackend, torch_device
from tests.ui.conftest import FakeBackend


def _points(curve) -> int:
    x, _y = curve.getData()
    return 0 if x is None else len(x)


def _start(window, qtbot, workload: str = "train") -> None:
    monitor = window.monitor
    window.tabs.setCurrentWidget(monitor)
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData(workload))
    with qtbot.waitSignal(monitor.runner.run_started, timeout=5000):
        qtbot.mouseClick(monitor.start_button, Qt.MouseButton.LeftButton)


def test_toy_workload_starts_plots_samples_and_stops_on_cancel(window, qtbot):
    monitor = window.monitor
    _start(window, qtbot)
    assert monitor.running and not monitor.start_button.isEnabled() and monitor.stop_button.isEnabled()
    curve = monitor.plots.curves["utilisation_pct"]
    # the plot's own points: a sample can land after the latest redraw, shown by the next one
    qtbot.waitUntil(lambda: monitor.plots.redraws >= 2 and _points(curve) >= 5, timeout=5000)
    x, y = curve.getData()
    assert len(x) >= 5 and 40 <= y[-1] < 60  # the fake samples' CPU load, plotted
    assert monitor.progress.value() == 500
    with qtbot.waitSignal(monitor.runner.run_finished, timeout=5000):
        qtbot.mouseClick(monitor.stop_button, Qt.MouseButton.LeftButton)
    assert window.monitor.backend.stop_seen.is_set()
    assert not monitor.running and monitor.start_button.isEnabled()
    assert monitor.time_left.text().startswith("Stopped")
    assert monitor.results[-1].status == "cancelled"


def test_a_cpu_run_cannot_calibrate_the_gpu_planner(qtbot, dialogs):
    window = MainWindow(backend=FakeBackend(steps=5))
    qtbot.addWidget(window)
    _start(window, qtbot)
    qtbot.waitUntil(lambda: not window.monitor.running, timeout=5000)
    assert window.monitor.step_card.value.text() == "250.0 ms"  # the run itself is shown
    assert window.monitor.memory_card.value.text() == "2.8 GiB"
    assert window.monitor.memory_card.detail.text() == "live tensors (CPU)"  # what the figure measures
    assert not window.monitor.calibrate_button.isEnabled()
    assert "GPU" in window.monitor.calibrate_button.toolTip()
    window.close()


def test_finished_run_fills_cards_and_feeds_calibration(qtbot, dialogs, tmp_path):
    window = MainWindow(backend=FakeBackend(steps=5, device_kind="cuda"))
    qtbot.addWidget(window)
    monitor = window.monitor
    _start(window, qtbot)
    qtbot.waitUntil(lambda: not monitor.running, timeout=5000)
    assert monitor.throughput_card.value.text() == "1,234 tokens/s"
    assert monitor.step_card.value.text() == "250.0 ms"
    assert monitor.memory_card.detail.text() == "max allocated (CUDA)"  # the report's device
    # 0.2 s predicted against 0.25 s measured; 2.9 GB against 3.0 GB
    assert monitor.prediction_card.value.text() == "memory -3%, time -20%"  # memory leads
    assert "Compute-bound" in monitor.diagnosis.text()
    assert monitor.calibrate_button.isEnabled()
    qtbot.mouseClick(monitor.calibrate_button, Qt.MouseButton.LeftButton)
    assert window.form.request.assumptions.mfu == pytest.approx(0.31)
    assert window.settings.calibration.mfu == pytest.approx(0.31)
    assert monitor.save_results(tmp_path / "run.json")
    assert BenchBackend.load_results(tmp_path / "run.json").results[-1].metrics["mfu"] == pytest.approx(0.31)
    window.close()


def test_closing_the_window_mid_run_leaves_no_thread(qtbot, dialogs):
    backend = FakeBackend()
    window = MainWindow(backend=backend)
    qtbot.addWidget(window)
    window.show()
    _start(window, qtbot)
    qtbot.waitUntil(lambda: window.monitor.telemetry.total_appended >= 2, timeout=5000)
    window.close()
    assert backend.stop_seen.is_set()
    assert not window.monitor.runner.is_thread_running()
    assert not window.tasks.is_running()


def test_bad_command_is_reported_before_anything_starts(window, dialogs):
    monitor = window.monitor
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData("command"))
    assert monitor.command_row.isVisibleTo(monitor)
    monitor.command_edit.setText("")
    monitor.start()
    assert not monitor.running
    assert dialogs[-1][0] == "Cannot run the command" and "command" in dialogs[-1][1]


def test_real_benchmark_engine_toy_run(qtbot, dialogs, tmp_path):
    window = MainWindow(backend=BenchBackend(toy=True))
    qtbot.addWidget(window)
    monitor = window.monitor
    monitor.device_combo.setCurrentIndex(monitor.device_combo.count() - 1)
    _start(window, qtbot, workload="matmul")
    qtbot.waitUntil(lambda: not monitor.running, timeout=60_000)
    assert dialogs == []
    assert {r.workload for r in monitor.results} == {"matmul"}
    assert monitor.telemetry.total_appended >= 1
    assert monitor.throughput_card.value.text().endswith("FLOP/s")  # worded like the CLI: 69.2 GFLOP/s
    assert monitor.save_results(tmp_path / "toy.json")
    window.close()


def test_my_command_is_watched_and_diagnosed(qtbot, dialogs, tmp_path):
    import sys

    window = MainWindow(backend=BenchBackend(toy=True))
    qtbot.addWidget(window)
    monitor = window.monitor
    monitor.device_combo.setCurrentIndex(monitor.device_combo.count() - 1)
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData("command"))
    monitor.command_edit.setText(f'"{sys.executable}" -c "import time; time.sleep(0.8)"')
    monitor.start()
    qtbot.waitUntil(lambda: not monitor.running, timeout=30_000)
    assert dialogs == []
    assert monitor.report.exit_code == 0 and monitor.telemetry.total_appended >= 1
    assert "exit code 0" in monitor.step_card.detail.text()
    assert monitor.diagnosis.text().startswith("<b>")
    assert monitor.save_results(tmp_path / "watch.json")
    assert '"gpu-advisor/monitor@1"' in (tmp_path / "watch.json").read_text()
    window.close()


def test_plots_of_metrics_this_machine_cannot_read_make_room_for_the_others(qtbot, dialogs):
    # The fake host samples carry CPU load and memory only: no power, temperature or clock reading.
    window = MainWindow(backend=FakeBackend(steps=5))
    qtbot.addWidget(window)
    window.show()
    monitor = window.monitor
    # Nothing known before a run (the plots sit behind the idle note until a run starts).
    assert monitor.plots.plots["power_w"].isVisibleTo(monitor.plots)
    _start(window, qtbot)
    qtbot.waitUntil(lambda: not monitor.running, timeout=5000)
    plots = monitor.plots.plots
    assert not plots["power_w"].isVisible() and not plots["temperature_c"].isVisible()
    assert plots["utilisation_pct"].isVisible() and plots["throughput"].isVisible()
    # two columns, not three (once the layout has run)
    qtbot.waitUntil(lambda: plots["utilisation_pct"].width() > monitor.plots.width() * 0.4, timeout=2000)
    note = monitor.plots.unavailable_note
    assert note.isVisible() and "Power draw" in note.text() and "CPU temperature" in note.text()
    window.close()


def test_gpus_are_listed_by_nvml_index_and_run_on_their_cuda_index(monkeypatch):
    """NVML GPU 1 is cuda:0 when CUDA_VISIBLE_DEVICES=1; NVML GPU 0 cannot run a benchmark here."""

    class TwoGpus(FakeBackend):
        def machine(self):
            gpus = [
                {
                    "index": i,
                    "name": "NVIDIA H100 80GB HBM3",
                    "uuid": f"GPU-{i}0000000-1111-2222-3333-444444444444",
                }
                for i in (0, 1)
            ]
            return {**super().machine(), "gpus": gpus}

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    first, second, cpu = TwoGpus().devices()
    assert (first.nvml_index, first.cuda_index) == (0, None)
    assert (second.nvml_index, second.cuda_index, second.kind) == (1, 0, "cuda")
    assert second.label == "GPU 1: NVIDIA H100 80GB HBM3 (cuda:0)"
    assert cpu.kind == "cpu" and cpu.nvml_index is None
    assert torch_device(second) == "cuda:0"  # not "cuda:1", the NVML index
    assert torch_device(cpu) == "cpu"
    with pytest.raises(ValueError, match="not visible to CUDA"):
        torch_device(first)
