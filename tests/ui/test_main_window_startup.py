"""The window opens on the Plan view's input pages; the recommendation page and the first plan follow
once it is painted; Monitor and Compare are built when first opened."""

from __future__ import annotations

import os
import subprocess
import sys

from gpu_advisor.ui.compare.compare_view import CompareView
from gpu_advisor.ui.main_window import VIEW_COMPARE, VIEW_MONITOR, MainWindow
from gpu_advisor.ui.monitor.monitor_panel import MonitorPanel

OPEN_AND_REPORT = """
import sys
from gpu_advisor.app import open_main_window
app, window = open_main_window()
app.processEvents()
loaded = [m for m in ("gpu_advisor.ui.monitor.monitor_panel", "gpu_advisor.ui.compare.compare_view",
                      "gpu_advisor.bench.results", "gpu_advisor.report.pdf") if m in sys.modules]
window.tabs.setCurrentIndex(1)
print("before:", ",".join(loaded) or "-")
print("monitor:", type(window.tabs.currentWidget()).__name__)
window.close()
"""


def test_the_window_opens_without_the_monitor_compare_or_the_report_writer(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "GPU_ADVISOR_CONFIG_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", OPEN_AND_REPORT], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "before: -" in result.stdout
    assert "monitor: MonitorPanel" in result.stdout  # the tab, once opened, holds the real view


FIRST_PAINT_AND_AFTER = """
import sys, time
from gpu_advisor.app import open_main_window
app, window = open_main_window()
later = ("pyqtgraph", "numpy", "gpu_advisor.core.recommend", "gpu_advisor.ui.plan.recommendation_view")
print("built:", ",".join(m for m in later if m in sys.modules) or "-")
while not window.windowHandle() or not window.windowHandle().isExposed():
    app.processEvents()
page = window.wizard.model_page
print("first frame:", window.wizard.stack.currentWidget().isVisible(), page.search.isVisible(),
      window.menuBar().actions()[0].text(), window.form.plan)
deadline = time.monotonic() + 60
while (window.after_first_paint.pending or "Detecting" in window.hardware_label.text()) and time.monotonic() < deadline:
    app.processEvents()
gpu = window.form.plan.recommendation.gpu
print("after:", ",".join(m for m in later if m in sys.modules), window.wizard.result_view_ready,
      gpu in window.wizard.estimate.value("recommended"), "torch" in sys.modules)
window.close()
"""


def test_the_recommendation_page_and_the_first_plan_follow_the_first_paint(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "GPU_ADVISOR_CONFIG_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", FIRST_PAINT_AND_AFTER], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "built: -" in result.stdout  # none of the charts' libraries, the planner or the page
    # The first frame is the real window: the model page with its fields, the menus; no plan yet.
    assert "first frame: True True &File None" in result.stdout
    after = "after: pyqtgraph,numpy,gpu_advisor.core.recommend,gpu_advisor.ui.plan.recommendation_view"
    assert f"{after} True True False" in result.stdout


def test_a_recommendation_page_built_after_the_window_has_its_table_actions_and_calibration(
    qtbot, dialogs, backend
):
    window = MainWindow(backend=backend)
    qtbot.addWidget(window)
    window.use_calibration(0.42, "a measured run")
    assert not window.wizard.result_view_ready  # nothing shown yet, nothing built
    window.show()
    qtbot.waitUntil(lambda: window.wizard.result_view_ready, timeout=10_000)
    view = window.wizard.result_view
    assert "42.0%" in view.assumptions.calibration_note.text()
    for table in (view.options, view.memory_table):
        assert [a.text() for a in table.actions()] == ["&Copy", "Export as CS&V…"]
    qtbot.waitUntil(lambda: window.after_first_paint.pending == 0, timeout=10_000)
    assert window.form.plan is not None and view.plan is window.form.plan
    window.close()


def test_opening_a_tab_builds_its_view_in_place(window):
    names = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    tips = [window.tabs.tabToolTip(i) for i in range(window.tabs.count())]
    window.tabs.setCurrentIndex(VIEW_COMPARE)
    assert isinstance(window.tabs.currentWidget(), CompareView)
    assert window.tabs.currentWidget() is window.compare
    assert not isinstance(window.tabs.widget(VIEW_MONITOR), MonitorPanel)  # not opened yet
    monitor = window.monitor  # read: built, and put in its tab without switching to it
    assert window.tabs.widget(VIEW_MONITOR) is monitor and window.tabs.currentIndex() == VIEW_COMPARE
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == names
    assert [window.tabs.tabToolTip(i) for i in range(window.tabs.count())] == tips


def test_a_restored_monitor_tab_opens_on_the_monitor(qtbot, dialogs, backend):
    first = MainWindow(backend=backend)
    qtbot.addWidget(first)
    first.tabs.setCurrentIndex(VIEW_MONITOR)
    first.close()
    again = MainWindow(backend=backend)
    qtbot.addWidget(again)
    again.show()
    assert again.tabs.currentWidget() is again.monitor
    assert again.monitor.device_combo.count() >= 1
    again.close()
