"""Any window size down to 1024 x 700: every view fits, the estimate moves under the form, and no
legend or note is drawn over a chart."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QWidget

from gpu_advisor.ui.main_window import VIEW_COMPARE, VIEW_MONITOR, VIEW_PLAN
from gpu_advisor.ui.plan.wizard import STEP_RESULT, STEP_WORKLOAD

MIN_SIZE = (1024, 700)


def _rect(widget: QWidget, window: QWidget) -> QRect:
    """The widget's rectangle in window coordinates."""
    return QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())


def _resize(window, qtbot, width: int, height: int) -> None:
    window.resize(width, height)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (width, height), timeout=2000)


def test_the_window_goes_down_to_1024_by_700_on_every_view(window, qtbot, results_files):
    window.form.set_model_source("preset", "llama-3-8b")
    window.import_results(list(results_files))
    for view in (VIEW_PLAN, VIEW_MONITOR, VIEW_COMPARE):
        window.tabs.setCurrentIndex(view)
        for step in range(STEP_RESULT + 1):
            if view == VIEW_PLAN:
                window.wizard.go_to(step)
            hint = window.minimumSizeHint()
            assert hint.width() <= MIN_SIZE[0] and hint.height() <= MIN_SIZE[1], (view, step, hint)
    _resize(window, qtbot, *MIN_SIZE)


def test_a_narrow_window_puts_the_live_estimate_under_the_form(window, qtbot):
    wizard = window.wizard
    window.form.set_model_source("preset", "llama-3-8b")
    wizard.go_to(STEP_WORKLOAD)
    _resize(window, qtbot, 1920, 1080)
    assert not wizard.estimate_below
    estimate, form = _rect(wizard.estimate_scroll, window), _rect(wizard.stack, window)
    assert estimate.left() >= form.right()  # beside
    _resize(window, qtbot, *MIN_SIZE)
    qtbot.waitUntil(lambda: wizard.estimate_below, timeout=2000)
    qtbot.waitUntil(
        lambda: _rect(wizard.estimate_scroll, window).top() > _rect(wizard.stack, window).bottom()
    )
    estimate = _rect(wizard.estimate_scroll, window)
    assert estimate.width() > 0.6 * window.width()  # a strip as wide as the form, not a squeezed column
    assert estimate.height() >= 6 * window.fontMetrics().height()


def test_legends_and_notes_never_cover_a_chart_at_the_minimum_size(window, qtbot, results_files):
    window.form.set_model_source("preset", "llama-3-8b")
    _resize(window, qtbot, *MIN_SIZE)
    window.wizard.go_to(STEP_RESULT)
    view = window.wizard.result_view
    qtbot.waitUntil(lambda: view.memory_legend.text() != "")
    pairs = [
        (view.memory_legend, view.memory_chart),
        (view.cost_note, view.cost_chart),
    ]
    window.import_results(list(results_files))
    compare = window.compare
    pairs.append((compare.chart_legend, compare.chart))
    for legend, chart in pairs:
        window.tabs.setCurrentIndex(VIEW_COMPARE if chart is compare.chart else VIEW_PLAN)
        for i in range(view.tabs.count()):  # the result view's tab that holds the chart
            if view.tabs.widget(i).isAncestorOf(chart):
                view.tabs.setCurrentIndex(i)
        qtbot.waitUntil(chart.isVisible, timeout=2000)
        assert not _rect(legend, window).intersects(_rect(chart, window)), legend.text()[:40]
        assert chart.height() >= 120  # still a chart, not a sliver
