"""The Assumptions tab arranges its boxes for the window's width after each resize (never inside the
scroll area's own resize, where a changed minimum width could recurse like the result card's crash)."""

from __future__ import annotations

from gpu_advisor.ui.plan.wizard import STEP_RESULT


def _resize(window, qtbot, width: int, height: int) -> None:
    window.resize(width, height)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (width, height), timeout=2000)


def _settled_columns(qtbot, panel, scroll) -> int:
    """The boxes a row once the deferred arrangement ran: the panel then fits the viewport."""
    qtbot.waitUntil(lambda: panel.width() <= scroll.viewport().width(), timeout=2000)
    return panel.group_columns


def test_the_assumptions_boxes_rearrange_for_a_narrower_window_without_scrolling_sideways(window, qtbot):
    form, wizard = window.form, window.wizard
    form.set_field("task", "finetune")
    wizard.go_to(STEP_RESULT)
    view = wizard.result_view
    view.tabs.setCurrentIndex(view.tabs.indexOf(view.assumptions.parentWidget().parentWidget()))
    panel = view.assumptions
    scroll = panel.parentWidget().parentWidget()
    _resize(window, qtbot, 1920, 1080)
    wide = _settled_columns(qtbot, panel, scroll)
    for _ in range(3):  # back and forth: each resize ends arranged, and the window survives it
        _resize(window, qtbot, 1024, 700)
        narrow = _settled_columns(qtbot, panel, scroll)
        _resize(window, qtbot, 1920, 1080)
        assert _settled_columns(qtbot, panel, scroll) == wide
    assert 1 <= narrow < wide
    _resize(window, qtbot, 1024, 700)
    _settled_columns(qtbot, panel, scroll)
    assert not scroll.horizontalScrollBar().isVisible()
    assert not window.grab().isNull()
