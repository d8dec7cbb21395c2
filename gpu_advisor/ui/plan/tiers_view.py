"""The three tiers side by side: one column per tier with its best option and what it needs."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gpu_advisor.core.result import Plan
from gpu_advisor.wording.tiers import TierColumn, tier_columns


class TierColumnBox(QGroupBox):
    """One tier: its answer in bold, then (label, text) rows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        self.answer = QLabel()
        self.answer.setObjectName("tier_answer")
        self.answer.setWordWrap(True)  # a long GPU name wraps rather than widening the page
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.answer)
        layout.addWidget(self.body, 1)

    def show_column(self, column: TierColumn) -> None:
        self.setTitle(column.title + (" — recommended" if column.recommended else ""))
        self.answer.setText(f"<h3>{escape(column.answer)}</h3>")
        self.body.setText(
            "<br>".join(f"<b>{escape(label)}:</b> {escape(text)}" for label, text in column.rows)
        )
        self.setAccessibleName(f"{column.title}: {column.answer}")


class TiersView(QWidget):
    """Data center, workstation and consumer desktop in three columns."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        self.columns = [TierColumnBox() for _ in range(3)]
        for box in self.columns:
            layout.addWidget(box, 1)

    def show_plan(self, plan: Plan) -> None:
        for box, column in zip(self.columns, tier_columns(plan), strict=False):
            box.show_column(column)

    def column_text(self, index: int) -> str:
        """Everything one column shows, as plain text (for tests)."""
        box = self.columns[index]
        return f"{box.title()}\n{box.answer.text()}\n{box.body.text()}"
