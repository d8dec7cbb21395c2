"""Small read-only cards for the monitor's figures."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget


class Card(QFrame):
    """A caption, a large value and a line of detail."""

    def __init__(self, caption: str, tooltip: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setToolTip(tooltip)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)
        self.default_caption = caption
        self.caption = title = QLabel(caption)
        title.setEnabled(False)  # muted palette colour
        self.value = QLabel("—")
        font = self.value.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.value.setFont(font)
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        self.detail.setEnabled(False)
        for label in (self.value, self.detail):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(title)
        layout.addWidget(self.value)
        layout.addWidget(self.detail)
        layout.addStretch(1)

    def set(self, value: str, detail: str = "", caption: str | None = None) -> None:
        """Show a value; `caption` replaces the card's title for this run (None: its usual one)."""
        self.caption.setText(caption or self.default_caption)
        self.value.setText(value)
        self.detail.setText(detail)
