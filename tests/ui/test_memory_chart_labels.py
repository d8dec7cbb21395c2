"""D12 (ux-review-3): the memory chart's column labels are drawn whole inside the chart at the two
screenshot sizes, and the GPU they describe is named once, in the legend, not in each label."""

from __future__ import annotations

import contextlib

import pytest
from PySide6.QtGui import QFontMetrics, QImage, QPainter
from pytestqt.exceptions import TimeoutError as QtBotTimeout

from gpu_advisor.ui.plan.wizard import STEP_RESULT


def _serving_70b(form) -> None:
    """Review 3's J2: Llama 3 70B for 200 users, sharded over two GPUs (two columns)."""
    form.set_model_source("preset", "llama-3-70b")
    form.set_field("task", "inference")
    form.set_field("users", 200)
    form.set_field("tokens_per_s_per_user", 30.0)


def _drawn_ticks(chart):
    """(text, its rectangle in the chart widget's coordinates) for each bottom-axis label drawn."""
    axis = chart.getPlotItem().getAxis("bottom")
    image = QImage(chart.size(), QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(text, chart.mapFromScene(axis.mapRectToScene(rect)).boundingRect()) for rect, _f, text in texts]


@pytest.mark.parametrize("size", [(1024, 700), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_memory_chart_column_labels_are_drawn_whole_inside_the_chart(window, qtbot, size):
    _serving_70b(window.form)
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size, timeout=2000)
    window.wizard.go_to(STEP_RESULT)
    view = window.wizard.result_view
    view.tabs.setCurrentIndex(1)
    chart = view.memory_chart
    qtbot.waitUntil(chart.isVisible)
    assert len(chart.shown_rows) == 2

    line_px = QFontMetrics(chart.getPlotItem().getAxis("bottom").font()).lineSpacing()

    def cut() -> list[str]:
        """Labels elided, or whose last line (at the axis font's line spacing) falls below the chart."""
        drawn = _drawn_ticks(chart)
        if len(drawn) != 2:
            return [f"{len(drawn)} labels drawn"]
        return [
            text
            for text, rect in drawn
            if rect.top() + len(text.split("\n")) * line_px > chart.height() or "…" in text
        ]

    with contextlib.suppress(QtBotTimeout):
        qtbot.waitUntil(lambda: not cut(), timeout=2000)
    assert cut() == []
    best = view.plan.best
    # The GPU is named once, in the legend under the chart, rather than squeezed into a tick label.
    assert all(best.gpu not in text for text, _ in _drawn_ticks(chart))
    assert f"{best.count}&nbsp;×&nbsp;{best.gpu.replace(' ', '&nbsp;')}" in view.memory_legend.text()
