"""`gpu-advisor --self-test`: the app end to end, headless, in a few seconds.

Opens the main window, plans a preset and checks the window shows the core's answer, runs a short
CPU workload through the monitor's real worker thread, checks that telemetry samples arrived and
were plotted, closes the window and checks no worker thread is left. Exit 0, or 1 with a message.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from gpu_advisor.core.recommend import plan as core_plan
from gpu_advisor.ui.monitor.backend import BenchBackend, bench_available

SELF_TEST_PRESET = "llama-3-8b"
SELF_TEST_WORKLOAD = "train"  # the engine's toy training run: about 2-3 s on a 2-core CPU
RUN_TIMEOUT_S = 120.0  # the first torch import alone takes seconds on a slow disk


class SelfTestError(Exception):
    pass


def wait_for(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Run the event loop until `condition()` holds; SelfTestError after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    loop = QEventLoop()
    while not condition():
        if time.monotonic() > deadline:
            raise SelfTestError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        QTimer.singleShot(20, loop.quit)
        loop.exec()


def say(message: str) -> None:
    print(f"self-test: {message}", flush=True)


def run_self_test(app: QApplication) -> int:
    from gpu_advisor.ui.main_window import MainWindow

    started = time.monotonic()
    window = MainWindow(backend=BenchBackend(toy=True))
    window.errors.show_dialogs = False  # report problems on stderr; a modal box would block forever
    try:
        window.show()
        wait_for(window.isVisible, 10, "the main window")
        say(f"main window shown in {time.monotonic() - started:.2f} s")

        form = window.form
        form.set_model_source("preset", SELF_TEST_PRESET)
        plan = form.plan_now()
        if plan is None:
            raise SelfTestError(f"planning {SELF_TEST_PRESET} failed: {form.errors}")
        expected = core_plan(form.request)
        if plan.recommendation != expected.recommendation:
            raise SelfTestError("the window's plan differs from core.plan() for the same request")
        window.tabs.setCurrentWidget(window.wizard)  # the window may open on the tab last used
        window.wizard.show_result()
        shown = window.wizard.result_view.card.gpu_label.text()
        if expected.recommendation.gpu and expected.recommendation.gpu not in shown:
            raise SelfTestError(
                f"the recommendation card shows {shown!r}, expected {expected.recommendation.gpu!r}"
            )
        say(f"planned {SELF_TEST_PRESET}: {expected.recommendation.count} x {expected.recommendation.gpu}")

        monitor = window.monitor
        window.tabs.setCurrentWidget(monitor)
        cpu_row = monitor.device_combo.count() - 1  # the CPU is always listed last
        monitor.device_combo.setCurrentIndex(cpu_row)
        if not bench_available():
            raise SelfTestError("PyTorch is not installed: the benchmark engine cannot run")
        monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData(SELF_TEST_WORKLOAD))
        run_started = time.monotonic()
        monitor.start()
        if not monitor.running:
            raise SelfTestError("the monitor did not start a run")
        wait_for(lambda: not monitor.running, RUN_TIMEOUT_S, "the CPU workload to finish")
        if monitor.report is None:
            raise SelfTestError(
                f"the run failed: {window.errors.history[-1][1] if window.errors.history else '?'}"
            )
        samples = monitor.telemetry.total_appended
        if samples < 1:
            raise SelfTestError("no telemetry samples arrived during the run")
        monitor.plots.refresh()
        if monitor.plots.points_drawn < 1:
            raise SelfTestError("samples arrived but nothing was plotted")
        say(
            f"CPU workload ran {time.monotonic() - run_started:.1f} s on the worker thread, {samples} samples plotted"
        )
    except SelfTestError as exc:
        say(f"FAILED: {exc}")
        window.close()
        return 1
    window.close()
    QCoreApplication.processEvents()
    if window.monitor.runner.is_thread_running() or window.tasks.is_running():
        say("FAILED: a worker thread is still running after the window closed")
        return 1
    say(f"ok ({time.monotonic() - started:.1f} s)")
    return 0
