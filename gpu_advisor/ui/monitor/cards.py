"""Small read-only cards for the monitor's figures."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

from gpu_advisor.wording.monitor import Cards

DETAIL_LINES = 3
NO_MAXIMUM = 16_777_215  # Qt's QWIDGETSIZE_MAX


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
        # Room for three lines from the start: a detail that wraps mid-run would otherwise make the
        # row taller, and every plot under it be laid out and drawn again at once (48 ms of the
        # window's time when a CPU run's prediction detail took a third line at 1280 px).
        self.detail.setMinimumHeight(DETAIL_LINES * self.detail.fontMetrics().lineSpacing())
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
        self.detail.setToolTip(detail)  # the whole of it where a compact card cuts it to a line

    def set_compact(self, compact: bool) -> None:
        """One line of detail (a low window: the plots need the room), else DETAIL_LINES."""
        line = self.detail.fontMetrics().lineSpacing()
        self.detail.setMinimumHeight((1 if compact else DETAIL_LINES) * line)
        self.detail.setMaximumHeight(line if compact else NO_MAXIMUM)


class CardRow(QWidget):
    """The monitor's four cards in a row; `show(cards, captions)` fills them."""

    def __init__(self, throughput_tip: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.step_card = Card("Time per step", "Median wall time of one timed step (after warm-up).")
        self.throughput_card = Card("Throughput", throughput_tip)
        self.memory_card = Card(
            "Peak memory",
            "Peak allocated device memory (GPU) or live tensor bytes (CPU); MiB = 2^20 bytes, GiB = 2^30.",
        )
        self.prediction_card = Card(
            "Predicted vs measured", "The sizing engine's prediction for the same workload, and its error."
        )
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        for i, card in enumerate(self.cards):
            grid.addWidget(card, 0, i)
            grid.setColumnStretch(i, 1)

    @property
    def cards(self) -> tuple[Card, Card, Card, Card]:
        return (self.step_card, self.throughput_card, self.memory_card, self.prediction_card)

    def set_compact(self, compact: bool) -> None:
        for card in self.cards:
            card.set_compact(compact)

    def show_texts(self, cards: Cards, captions: tuple[str, str, str, str] | None = None) -> None:
        """The cards' texts; `captions` retitle the four cards for this run (a cluster run's figures)."""
        titles = captions or (None, None, None, None)
        self.step_card.set(cards.step_time, cards.step_detail, titles[0])
        self.throughput_card.set(cards.throughput, cards.throughput_detail, titles[1])
        self.memory_card.set(cards.peak_memory, cards.memory_detail, titles[2])
        self.prediction_card.set(cards.prediction, cards.prediction_detail, titles[3])
