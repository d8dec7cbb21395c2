"""The headline of a plan: tier, GPU × count, parallelism, the reason, and the key figures."""

from __future__ import annotations

import math
from html import escape

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

from gpu_advisor.core.result import Plan
from gpu_advisor.ui import theme
from gpu_advisor.ui.glossary import bound_tip, tip
from gpu_advisor.wording.plan import (
    bound_text,
    breakeven_text,
    buy_text,
    gpu_line,
    headline,
    job_rent_text,
    machine_text,
    memory_text,
    no_answer,
    plan_title,
    recipe_knobs_text,
    rent_text,
    rented,
    speed_text,
    verdict_text,
)
from gpu_advisor.wording.plan_tables import frontier_sentence

FIGURES = (
    ("machines", "Machines"),
    ("memory", "Memory per GPU"),
    ("speed", "Expected speed"),
    ("bound", "Limited by"),
    ("rent", "Rent"),
    ("buy", "Buy"),
    ("breakeven", "Break-even, this GPU"),
)
FIGURE_SPACING_PX = 28
# Where the seven figures do not fit on one line each, two rows: machines, memory, speed and bound;
# rent, buy and break-even under them (the money together).
TWO_ROW_COLUMNS = 4


class _FigureLabel(QLabel):
    """A wrapping label whose size hint is its text on one line (a wrapping QLabel hints a block)."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.setWordWrap(True)

    def sizeHint(self) -> QSize:  # Qt override
        margins = self.contentsMargins()
        # Fractional advances, rounded up, and a pixel to spare: wrapping needs no less.
        line = math.ceil(QFontMetricsF(self.font()).horizontalAdvance(self.text())) + 1
        return QSize(line + margins.left() + margins.right(), super().sizeHint().height())


class TierCard(QFrame):
    """Shows the recommendation; `figure(key)` gives each figure's text (used by tests)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        self.model_label = QLabel()
        self.tier_label = QLabel()
        self.tier_label.setObjectName("tier")
        self.gpu_label = QLabel()
        self.gpu_label.setObjectName("gpu")
        self.gpu_label.setWordWrap(True)  # the headline names two GPUs when the verdict crosses them
        self.reason_label = QLabel()
        self.reason_label.setWordWrap(True)
        self.reason_label.setObjectName("reason")
        # Each recipe knob with whose choice it is: what the user locked, what the planner chose.
        self.recipe_label = QLabel()
        self.recipe_label.setWordWrap(True)
        self.recipe_label.setObjectName("recipe")
        self.recipe_label.setTextFormat(Qt.TextFormat.PlainText)
        self.recipe_label.setToolTip(
            "(yours): a value you set on the Workload page, kept as given. (planner): left on Auto, "
            "chosen by the planner among the recipes that fit."
        )
        self.verdict_label = QLabel()
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setObjectName("verdict")
        self.verdict_label.setToolTip(
            "Rent or buy across every option that fits: the cheapest rental against the cheapest purchase "
            "(for a training job with a token budget, the job's rent against the purchase)."
        )
        self.frontier_label = QLabel()  # a token budget without a deadline: time and rent by scale
        self.frontier_label.setWordWrap(True)
        self.frontier_label.setObjectName("frontier")
        self.frontier_label.setTextFormat(Qt.TextFormat.PlainText)
        self.frontier_label.setToolTip(
            "The recommended GPU and recipe at each power-of-two scale: where more GPUs stop paying."
        )
        # What else the user could change, with its effect on cost and time (core/advice.py): on the
        # card, which every result tab shows, not only on the Overview tab.
        self.suggestions_label = QLabel()
        self.suggestions_label.setWordWrap(True)
        self.suggestions_label.setObjectName("suggestions")
        self.suggestions_label.setTextFormat(Qt.TextFormat.RichText)
        self.suggestions_label.setToolTip(
            "Each change re-planned on the recommended GPU: its job cost and time to train against the plan's."
        )
        labels = (
            self.tier_label,
            self.gpu_label,
            self.reason_label,
            self.recipe_label,
            self.model_label,
            self.verdict_label,
            self.frontier_label,
            self.suggestions_label,
        )
        for label in labels:
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Model and GPU names come from users' files: shown as text, never as markup.
        self.model_label.setTextFormat(Qt.TextFormat.PlainText)
        self.reason_label.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.model_label)
        layout.addWidget(self.tier_label)
        layout.addWidget(self.gpu_label)
        layout.addWidget(self.reason_label)
        layout.addWidget(self.recipe_label)
        layout.addWidget(self.verdict_label)
        layout.addWidget(self.frontier_label)
        layout.addWidget(self.suggestions_label)
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(FIGURE_SPACING_PX)
        self._titles: dict[str, QLabel] = {}
        self._figures: dict[str, QLabel] = {}
        for key, caption in FIGURES:
            title = _FigureLabel(caption)
            theme.mute(title)  # secondary text at 4.5:1
            value = _FigureLabel("—")
            value.setObjectName(f"figure_{key}")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self._titles[key], self._figures[key] = title, value
        self.columns = 0  # figures a row: all of them, or TWO_ROW_COLUMNS
        self._spans: list[tuple[int, int]] = []  # each grid column's (stretch, minimum width px)
        self._relayout = QTimer(self)  # the figures arranged for the width, after a resize (resizeEvent)
        self._relayout.setSingleShot(True)
        self._relayout.setInterval(0)
        self._relayout.timeout.connect(self._lay_out_for_width)
        self._place_figures(len(FIGURES))
        layout.addLayout(self.grid)
        self._figures["breakeven"].setToolTip(tip("breakeven"))

    def figure(self, key: str) -> str:
        return self._figures[key].text()

    def _lay_out_for_width(self) -> None:
        self._lay_out_figures(self.width())

    def _lay_out_figures(self, width: int) -> None:
        """The figures in one row when each fits on one line in a card `width` px wide, else in two rows
        where every figure but the speed (the longest) keeps to one line, the speed wrapping beside them.

        A grid shares its room by stretch alone (size hints aside): stretches in proportion to each
        column's one-line width give every column at least that width wherever the row fits; where it
        does not, the other columns get theirs as minimums and the speed's takes what is left. Those
        minimums are set only where they fit the width the card has, so that it can still narrow.
        """
        margins = self.layout().contentsMargins()
        room = width - margins.left() - margins.right()
        lines = {
            key: max(self._titles[key].sizeHint().width(), self._figures[key].sizeHint().width())
            for key, _ in FIGURES
        }
        columns = len(FIGURES)
        if sum(lines.values()) + FIGURE_SPACING_PX * (columns - 1) > room:
            columns = TWO_ROW_COLUMNS
        placed = columns != self.columns
        if placed:
            self._place_figures(columns)
        keys = [[key for key, _ in FIGURES[c::columns]] for c in range(columns)]
        widest = [max(lines[key] for key in column) for column in keys]
        room -= FIGURE_SPACING_PX * (columns - 1)
        speed = next(c for c, column in enumerate(keys) if "speed" in column)
        rest = room - sum(w for c, w in enumerate(widest) if c != speed)
        # The speed's column wraps down to its widest word, and so do the other figures in it (the
        # break-even under the speed in two rows): its minimum is theirs, not the speed's alone.
        speed_min = max(
            label.minimumSizeHint().width()
            for key in keys[speed]
            for label in (self._titles[key], self._figures[key])
        )
        wrap_speed = sum(widest) > room and rest >= speed_min
        spans = [
            (
                int(column == speed) if wrap_speed else natural,
                natural if wrap_speed and column != speed else 0,
            )
            for column, natural in enumerate(widest)
        ]
        spans += [(0, 0)] * (len(FIGURES) - columns)
        if spans == self._spans and not placed:
            return
        self._spans = spans
        for column, (stretch, minimum) in enumerate(spans):
            self.grid.setColumnStretch(column, stretch)
            self.grid.setColumnMinimumWidth(column, minimum)
        # The card's height for a width follows the arrangement: the layouts above it (the result page,
        # its scroll area) must ask again, not answer from what they cached for the old one. A scroll
        # area that resized the page on a stale height put its scroll bar on and off in its own resize
        # until the stack overflowed.
        self.layout().invalidate()
        self.updateGeometry()

    def _place_figures(self, columns: int) -> None:
        """Caption over value, `columns` figures a row."""
        self.columns = columns
        for title, value in zip(self._titles.values(), self._figures.values(), strict=True):
            self.grid.removeWidget(title)
            self.grid.removeWidget(value)
        for index, (key, _caption) in enumerate(FIGURES):
            row, column = 2 * (index // columns), index % columns
            self._titles[key].setContentsMargins(0, 6 if row else 0, 0, 0)  # rows of figures apart
            self.grid.addWidget(self._titles[key], row, column)
            self.grid.addWidget(self._figures[key], row + 1, column, Qt.AlignmentFlag.AlignTop)

    def minimumSizeHint(self) -> QSize:  # Qt override
        """The narrowest the card can be, whatever its width now: the figures in two rows, each down to
        its widest word. Not the layout's minimum, which includes the column minimums
        `_lay_out_figures` sets for the current width: a minimum that follows the width made the
        scroll area showing the card resize it back and forth inside its own resize (a stack overflow,
        after a re-plan on the Three tiers tab at 1024 px)."""
        hint = super().minimumSizeHint()
        layout = self.layout()
        margins = layout.contentsMargins()
        keys = [[key for key, _ in FIGURES[c::TWO_ROW_COLUMNS]] for c in range(TWO_ROW_COLUMNS)]
        figures = sum(
            max(
                label.minimumSizeHint().width()
                for key in column
                for label in (self._titles[key], self._figures[key])
            )
            for column in keys
        )
        figures += FIGURE_SPACING_PX * (TWO_ROW_COLUMNS - 1)
        others = [
            layout.itemAt(i) for i in range(layout.count()) if layout.itemAt(i).layout() is not self.grid
        ]
        content = max([figures, *(item.minimumSize().width() for item in others)])
        return QSize(content + margins.left() + margins.right(), hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        # Arranged for the new width once this resize is over, not inside it: the scroll area showing
        # the result page resizes the page from its own resize handling, and an arrangement (and so a
        # height for the width) that changed under it flipped its scroll bar on and off in a recursion
        # that overflowed the stack (a 70B re-plan on the Three tiers tab at 1024 px).
        super().resizeEvent(event)
        self._relayout.start()

    def show_plan(self, plan: Plan) -> None:
        rec = plan.recommendation
        best = plan.best
        self.model_label.setText(plan_title(plan))
        verdict = verdict_text(plan)
        self.verdict_label.setText(f"<b>Rent or buy:</b> {escape(verdict)}" if verdict else "")
        self.verdict_label.setVisible(bool(verdict))
        frontier = frontier_sentence(plan)
        self.frontier_label.setText(frontier)
        self.frontier_label.setVisible(bool(frontier))
        # With no answer the reason already quotes what would make it fit.
        changes = list(plan.suggestions) if best is not None else []
        self.suggestions_label.setText(
            "<b>What else you could change:</b> " + "<br>".join(escape(s) for s in changes) if changes else ""
        )
        self.suggestions_label.setVisible(bool(changes))
        knobs = recipe_knobs_text(best) if best is not None else ""
        self.recipe_label.setText(f"Recipe: {knobs}" if knobs else "")
        self.recipe_label.setVisible(bool(knobs))
        if rec.tier is None or best is None:
            self.tier_label.setText(f"<h2>{escape(no_answer(plan).capitalize())}</h2>")
            self.gpu_label.setText("")
            self.gpu_label.hide()  # no empty line between the heading and why
            self.reason_label.setText(rec.reason)
            for label in self._figures.values():
                label.setText("—")
            return
        self.tier_label.setText(f"<h2>{rec.tier.label} tier</h2>")
        self.gpu_label.show()
        answer = headline(plan)
        if answer.startswith(f"{rec.tier.label} tier: "):  # one GPU answers both rent and buy
            self.gpu_label.setText(f"<h3>{escape(gpu_line(best))} — {escape(best.layout.describe())}</h3>")
        else:  # the verdict's rental and purchase are different GPUs: the headline names both
            self.gpu_label.setText(
                f"<h3>{escape(answer)}</h3>{escape(gpu_line(best))}: {escape(best.layout.describe())}"
            )
        self.gpu_label.setToolTip(f"{tip('tensor_parallel')}\n\n{tip('data_parallel')}\n\n{tip('zero')}")
        self.reason_label.setText(rec.reason)
        figures = {
            "machines": machine_text(best, rented(plan, best)),
            "memory": memory_text(best),
            "speed": speed_text(best),
            "bound": bound_text(best.speed.bound),
            # The option's own prices: the headline above and the verdict below name the pair
            # when the cheapest purchase is another GPU (the card's figures keep to one line).
            "rent": job_rent_text(best) or rent_text(best.cost),
            "buy": buy_text(best.cost),
            "breakeven": breakeven_text(best.cost),
        }
        for key, text in figures.items():
            self._figures[key].setText(text)
        self._lay_out_figures(self.width())
        self._figures["bound"].setToolTip(bound_tip(best.speed.bound))
        self._figures["speed"].setToolTip(
            tip("mfu") if plan.request.task.is_training else tip("memory_bound")
        )
