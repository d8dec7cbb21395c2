"""The window opens on the Plan view alone; Monitor and Compare are built when first opened."""

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
