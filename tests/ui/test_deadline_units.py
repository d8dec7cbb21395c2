"""D19 (ux-review-3): the Deadline field takes '1 week' and '7d' (168 hours)."""

from __future__ import annotations

from PySide6.QtCore import Qt


def test_the_deadline_field_reads_a_week(wizard, qtbot):
    wizard.form.set_field("task", "finetune")
    field = wizard.traffic_page.max_hours
    for text in ("1 week", "7d"):
        field.clear()
        qtbot.keyClicks(field, text)
        qtbot.keyClick(field, Qt.Key.Key_Tab)
        assert wizard.form.value("max_hours") == 168, text
        assert "max_hours" not in wizard.form.errors
