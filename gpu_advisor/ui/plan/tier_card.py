"""The headline of a plan: tier, GPU × count, parallelism, the reason, and the key figures."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

from gpu_advisor.core.result import Plan
from gpu_advisor.ui.glossary import bound_tip, tip
from gpu_advisor.wording.plan import (
    bound_text,
    breakeven_text,
    buy_text,
    gpu_line,
    job_rent_text,
    machine_text,
    memory_text,
    plan_title,
    rent_text,
    speed_text,
    verdict_text,
)

FIGURES = (
    ("machines", "Machines"),
    ("memory", "Memory per GPU"),
    ("speed", "Expected speed"),
    ("bound", "Limited by"),
    ("rent", "Rent"),
    ("buy", "Buy"),
    ("breakeven", "Break-even, this GPU"),
)


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
        self.reason_label = QLabel()
        self.reason_label.setWordWrap(True)
        self.reason_label.setObjectName("reason")
        self.verdict_label = QLabel()
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setObjectName("verdict")
        self.verdict_label.setToolTip(
            "Rent or buy across every option that fits: the cheapest rental against the cheapest purchase "
            "(for a training job with a token budget, the job's rent against the purchase)."
        )
        labels = (self.tier_label, self.gpu_label, self.reason_label, self.model_label, self.verdict_label)
        for label in labels:
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Model and GPU names come from users' files: shown as text, never as markup.
        self.model_label.setTextFormat(Qt.TextFormat.PlainText)
        self.reason_label.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.model_label)
        layout.addWidget(self.tier_label)
        layout.addWidget(self.gpu_label)
        layout.addWidget(self.reason_label)
        layout.addWidget(self.verdict_label)
        grid = QGridLayout()
        grid.setHorizontalSpacing(28)
        self._figures: dict[str, QLabel] = {}
        for column, (key, caption) in enumerate(FIGURES):
            title = QLabel(caption)
            title.setEnabled(False)  # the palette's muted text colour
            value = QLabel("—")
            value.setObjectName(f"figure_{key}")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setWordWrap(True)
            grid.addWidget(title, 0, column)
            grid.addWidget(value, 1, column, Qt.AlignmentFlag.AlignTop)
            grid.setColumnStretch(column, 2 if key == "speed" else 1)
            self._figures[key] = value
        layout.addLayout(grid)
        self._figures["breakeven"].setToolTip(tip("breakeven"))

    def figure(self, key: str) -> str:
        return self._figures[key].text()

    def show_plan(self, plan: Plan) -> None:
        rec = plan.recommendation
        best = plan.best
        self.model_label.setText(plan_title(plan))
        verdict = verdict_text(plan)
        self.verdict_label.setText(f"<b>Rent or buy:</b> {escape(verdict)}" if verdict else "")
        self.verdict_label.setVisible(bool(verdict))
        if rec.tier is None or best is None:
            self.tier_label.setText("<h2>No GPU in the catalogue fits</h2>")
            self.gpu_label.setText("")
            self.reason_label.setText(rec.reason)
            for label in self._figures.values():
                label.setText("—")
            return
        self.tier_label.setText(f"<h2>{rec.tier.label} tier</h2>")
        self.gpu_label.setText(f"<h3>{escape(gpu_line(best))} — {escape(best.layout.describe())}</h3>")
        self.gpu_label.setToolTip(f"{tip('tensor_parallel')}\n\n{tip('data_parallel')}\n\n{tip('zero')}")
        self.reason_label.setText(rec.reason)
        figures = {
            "machines": machine_text(best),
            "memory": memory_text(best),
            "speed": speed_text(best),
            "bound": bound_text(best.speed.bound),
            "rent": job_rent_text(best) or rent_text(best.cost),
            "buy": buy_text(best.cost),
            "breakeven": breakeven_text(best.cost),
        }
        for key, text in figures.items():
            self._figures[key].setText(text)
        self._figures["bound"].setToolTip(bound_tip(best.speed.bound))
        self._figures["speed"].setToolTip(
            tip("mfu") if plan.request.task.is_training else tip("memory_bound")
        )
