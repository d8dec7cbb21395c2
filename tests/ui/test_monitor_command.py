"""'My command' in the Monitor tab, driven like a user: a failing, a killed, a missing and an
instrumented command, each a real subprocess."""

from __future__ import annotations

import os
import shlex
import sys

import pytest
from PySide6.QtGui import QTextDocument

from gpu_advisor.ui import theme
from gpu_advisor.ui.main_window import VIEW_COMPARE, MainWindow
from gpu_advisor.ui.monitor.backend import BenchBackend


@pytest.fixture
def monitor(qtbot, dialogs):
    window = MainWindow(backend=BenchBackend(toy=True))
    qtbot.addWidget(window)
    panel = window.monitor
    panel.device_combo.setCurrentIndex(panel.device_combo.count() - 1)
    panel.workload_combo.setCurrentIndex(panel.workload_combo.findData("command"))
    yield panel
    window.close()


def _run(qtbot, monitor, command: str) -> None:
    monitor.command_edit.setText(command)
    monitor.start()
    assert monitor.output_pane.status.text() == "Running…"
    qtbot.waitUntil(lambda: not monitor.running, timeout=60_000)


def _python(code: str) -> str:
    return shlex.join([sys.executable, "-c", code])


def _in_error_colour(label) -> bool:
    return theme.error_color().name() in label.styleSheet()


def _shown(label) -> str:
    """What a label shows a reader: its rich text rendered, entities decoded."""
    doc = QTextDocument()
    doc.setHtml(label.text())
    return doc.toPlainText()


def test_a_failing_command_shows_its_exit_code_and_output_and_opens_in_compare(
    qtbot, monitor, dialogs, tmp_path
):
    _run(
        qtbot,
        monitor,
        _python("import sys; print('epoch 1'); print('Traceback: boom', file=sys.stderr); sys.exit(3)"),
    )
    assert dialogs == []
    pane = monitor.output_pane
    assert pane.status.text() == "Failed (exit code 3)" and _in_error_colour(pane.status)
    assert pane.last_line() == "Traceback: boom"
    assert "epoch 1" in pane.output.toPlainText()
    assert monitor.time_left.text().startswith("Failed (exit code 3) after")
    # the failure leads the diagnosis, and no full progress bar suggests a success (D16)
    assert _shown(monitor.diagnosis).startswith("Failed (exit code 3) — the command did not finish")
    assert not monitor.progress.isVisible()
    # no probe: the first card is the command's duration, not a step time
    assert monitor.step_card.caption.text() == "Duration"
    assert "instrument the script with gpu_advisor.probe" in monitor.throughput_card.detail.text()
    saved = tmp_path / "run.json"
    assert monitor.save_results(saved)
    assert "Traceback: boom" in (tmp_path / "run.log").read_text()
    window = monitor.window()
    assert window.import_results([saved]) == 1
    assert window.tabs.currentIndex() == VIEW_COMPARE
    assert window.compare.cell("command exit code", 0) == "3"


def test_a_killed_command_says_by_which_signal(qtbot, monitor, dialogs):
    _run(qtbot, monitor, "sh -c 'echo last words; kill -KILL $$'")
    pane = monitor.output_pane
    assert pane.status.text() == "Killed (SIGKILL)" and _in_error_colour(pane.status)
    assert pane.last_line() == "last words"


def test_a_missing_executable_fails_to_start_and_says_why(qtbot, monitor, dialogs):
    _run(qtbot, monitor, "no-such-program-xyz --epochs 1")
    pane = monitor.output_pane
    assert pane.status.text() == "Failed to start" and _in_error_colour(pane.status)
    assert "'no-such-program-xyz' not found" in pane.last_line()
    assert monitor.diagnosis.text().startswith("No diagnosis") and "Running" not in monitor.diagnosis.text()
    assert "'no-such-program-xyz' not found" in _shown(monitor.diagnosis)  # not "&#x27;" (D17)
    assert dialogs and dialogs[-1][0] == "Run failed"


def test_a_command_runs_at_normal_priority(qtbot, monitor):
    _run(qtbot, monitor, "sh -c 'ps -o ni= -p $$'")
    assert int(monitor.output_pane.last_line()) == os.nice(0)  # not the benchmark thread's +5
    assert monitor.output_pane.status.text() == "Finished (exit code 0)"
    assert not _in_error_colour(monitor.output_pane.status)


def test_the_probes_steps_and_epochs_show_in_the_cards(qtbot, monitor):
    code = (
        "import time\n"
        "from gpu_advisor import probe\n"
        "for epoch in range(2):\n"
        "    for i in probe.wrap(range(4)):\n"
        "        time.sleep(0.03)\n"
        "        probe.step(samples=16)\n"
        "    probe.epoch_end()\n"
    )
    _run(qtbot, monitor, _python(code))
    assert monitor.step_card.caption.text() == "Time per step"
    assert monitor.step_card.detail.text().startswith("median of 8 steps")
    assert monitor.throughput_card.value.text().endswith("samples/s")
    assert monitor.prediction_card.caption.text() == "Time per epoch"
    assert monitor.prediction_card.detail.text().startswith("mean of 2:")


def test_steps_show_while_the_command_runs_and_stop_ends_it(qtbot, monitor):
    code = (
        "import time\n"
        "from gpu_advisor import probe\n"
        "for i in probe.wrap(range(5)):\n"
        "    time.sleep(0.02)\n"
        "    probe.step(samples=4)\n"
        "probe.epoch_end()\n"
        "print('waiting', flush=True)\n"
        "time.sleep(60)\n"
    )
    monitor.command_edit.setText(_python(code))
    monitor.start()
    qtbot.waitUntil(lambda: monitor.prediction_card.detail.text().startswith("mean of 1:"), timeout=30_000)
    assert monitor.running and monitor.step_card.detail.text().startswith("median of 5 steps; running")
    qtbot.waitUntil(lambda: monitor.output_pane.last_line() == "waiting", timeout=10_000)
    monitor.stop()
    qtbot.waitUntil(lambda: not monitor.running, timeout=30_000)
    assert monitor.output_pane.status.text() == "Stopped by you (SIGTERM)"


def test_a_gpu_run_of_my_command_calibrates_the_plan(qtbot, dialogs):
    from gpu_advisor.core.catalog import default_catalog
    from gpu_advisor.core.presets import get_preset
    from gpu_advisor.core.request import PlanRequest
    from gpu_advisor.telemetry import NvmlSource
    from tests.telemetry.fake_nvml import FakeGpu, FakeNvml

    # NVML faked at the hardware boundary (an H100); the steps are the real command's.
    window = MainWindow(backend=BenchBackend(toy=True, nvml=NvmlSource(nvml_module=FakeNvml([FakeGpu()]))))
    qtbot.addWidget(window)
    request = PlanRequest(model=get_preset("llama-2-7b"), task="lora", gpu="nvidia-h100-sxm")
    window.form.load_request(request)
    qtbot.waitUntil(lambda: window.form.request is not None)
    monitor = window.monitor
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData("command"))
    code = (
        "import time\n"
        "from gpu_advisor import probe\n"
        "for i in probe.wrap(range(10)):\n"
        "    time.sleep(0.02)\n"
        "    probe.step(samples=1, tokens=128)\n"
    )
    _run(qtbot, monitor, _python(code))
    tokens_per_s = monitor.report.steps.tokens_per_s
    assert monitor.calibrate_button.isEnabled()
    monitor.calibrate_button.click()
    peak = default_catalog().find("nvidia-h100-sxm").peak_flops_per_s("bf16")
    flops_per_token = window.form.plan.to_json_dict()["compute"]["flops_per_token"]
    assert window.settings.calibration.mfu == pytest.approx(tokens_per_s * flops_per_token / peak)
    assert window.form.assumption("mfu") == pytest.approx(window.settings.calibration.mfu)
    window.close()


def _readable(plot) -> bool:
    """Room for three y ticks with a line between each (ux-review-3 D14: ~40 px plots ran them together)."""
    return plot.getPlotItem().getViewBox().height() >= 6 * plot.fontMetrics().lineSpacing()


def test_a_failed_commands_output_is_a_tab_and_leaves_each_plot_readable_at_1024x700(qtbot, monitor):
    window = monitor.window()
    window.resize(1024, 700)
    window.show()
    window.tabs.setCurrentWidget(monitor)
    _run(qtbot, monitor, _python("import sys; print('Traceback: CUDA out of memory'); sys.exit(1)"))
    qtbot.waitUntil(lambda: "CUDA out of memory" in monitor.output_pane.last_line(), timeout=5000)
    assert window.height() == 700  # the window did not grow to fit
    assert monitor.lists.currentWidget() is monitor.output_pane
    shown = [plot for plot in monitor.plots.plots.values() if plot.isVisible()]
    assert len(shown) >= 3 and all(_readable(plot) for plot in shown)


def test_a_low_window_keeps_each_plot_readable_with_fewer_ticks(qtbot, monitor):
    window = monitor.window()
    window.resize(1024, 540)  # below the Monitor's compact height: the window stops at its least
    window.show()
    window.tabs.setCurrentWidget(monitor)
    _run(qtbot, monitor, _python("import sys; print('Traceback: CUDA out of memory'); sys.exit(1)"))
    qtbot.waitUntil(lambda: "CUDA out of memory" in monitor.output_pane.last_line(), timeout=5000)
    window.resize(1024, 540)  # the compact cards let it go lower: the user drags on
    qtbot.wait(200)
    assert window.height() < 600
    line = monitor.fontMetrics().lineSpacing()
    assert monitor.step_card.detail.height() <= line + 1  # the cards keep one line of detail
    shown = [plot for plot in monitor.plots.plots.values() if plot.isVisible()]
    assert len(shown) >= 3
    for plot in shown:
        view = plot.getPlotItem().getViewBox()
        low, top = view.viewRange()[1]
        ticks = plot.getPlotItem().getAxis("left").tickValues(low, top, view.height())
        labels = set(ticks[0][1])  # the major ticks: the labelled ones
        # every tick label has a line of its own: no "100 80 60 40 20 0" run together
        assert len(labels) * line <= view.height(), (plot.getPlotItem().titleLabel.text, labels)
