"""The live estimate beside the wizard: updates as the inputs change (debounced by the form)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QFormLayout, QFrame, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from gpu_advisor.core.recipe import chosen_words
from gpu_advisor.core.result import Option, Plan
from gpu_advisor.core.units import format_bytes, format_count
from gpu_advisor.ui.glossary import bound_tip, tip
from gpu_advisor.ui.plan.form import PlanForm
from gpu_advisor.ui.plan.trace_panel import TracePanel
from gpu_advisor.wording.plan import bound_text, buy_text, gpu_line, no_answer, rent_text, speed_text

ROWS = (
    ("model", "Model"),
    ("memory", "Memory, one device"),
    ("kv_cache", "of which KV cache"),
    ("recommended", "Recommended"),
    ("recipe", "Training recipe"),
    ("speed", "Speed"),
    ("bound", "Limited by"),
    ("cost", "Cost"),
)


def recipe_text(plan: Plan, best: Option) -> str:
    """The recommended option's training recipe as the headline names it: 'With gradient checkpointing
    and micro-batch 4 (the planner's choice); 16 sequences per step (1 replica x 4 x 4 accumulation)',
    'Without gradient checkpointing at micro-batch 1 (the planner's choice); ...' when the planner kept
    the request's defaults, 'As you gave it; ...' when the user set both."""
    recipe, source = best.recipe, best.recipe_source
    if recipe is None or source is None:
        return "none (inference)"
    words = chosen_words(plan.request, recipe, source)
    if words:
        head = f"With {words} (the planner's choice)"
    elif "planner" in (source["grad_checkpointing"], source["micro_batch"]):
        checkpointing = "with" if recipe["grad_checkpointing"] else "without"
        head = f"{checkpointing.capitalize()} gradient checkpointing at micro-batch {recipe['micro_batch']} (the planner's choice)"
    else:
        head = "As you gave it"
    replicas = best.layout.data
    return (
        f"{head}; {recipe['global_batch']:,} sequences per step ({replicas:,} "
        f"{'replica' if replicas == 1 else 'replicas'} × micro-batch {recipe['micro_batch']} × "
        f"{recipe['grad_accum']:,} accumulation)"
    )


class EstimatePanel(QFrame):
    """A compact summary of the current plan, or why there is none."""

    def __init__(self, form: PlanForm, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h3>Live estimate</h3>"))
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setEnabled(False)
        layout.addWidget(self.status)
        self.grid = grid = QFormLayout()
        grid.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        self._values: dict[str, QLabel] = {}
        for key, caption in ROWS:
            value = QLabel("—")
            value.setWordWrap(True)
            value.setObjectName(f"estimate_{key}")
            value.setTextFormat(Qt.TextFormat.PlainText)  # model and GPU names from users' files
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            title = QLabel(f"<b>{caption}</b>")
            grid.addRow(title, value)
            self._values[key] = value
        self._values["kv_cache"].setToolTip(tip("kv_cache"))
        layout.addLayout(grid)
        self.precision_button = QPushButton("Memor&y by precision…")
        self.precision_button.setToolTip(
            "This model's memory at fp32, bf16, fp8, int8 and int4 side by side, the rest of the plan "
            "unchanged (like accelerate estimate-memory)."
        )
        layout.addWidget(self.precision_button)
        layout.addWidget(QLabel("<h3>Exact memory</h3>"))
        self.trace = TracePanel(form)
        layout.addWidget(self.trace)
        layout.addStretch(1)
        form.plan_ready.connect(self.show_plan)
        form.request_changed.connect(self._request_changed)
        self._request_changed(form.request)

    def set_compact(self, compact: bool) -> None:
        """Under the form (a narrow window): captions beside their values, to save height."""
        self.grid.setRowWrapPolicy(
            QFormLayout.RowWrapPolicy.DontWrapRows if compact else QFormLayout.RowWrapPolicy.WrapAllRows
        )

    def value(self, key: str) -> str:
        return self._values[key].text()

    def _request_changed(self, request: object) -> None:
        if request is None:
            self.status.setText(
                "Fix the marked field to update the estimate (the figures below are from the last valid inputs)."
            )
        else:
            self.status.setText("Updating…")

    def show_plan(self, plan: Plan) -> None:
        self.status.setText("Updated as you type.")
        model = plan.request.model
        self._values["model"].setText(f"{model.name}, {format_count(model.total_params())} parameters")
        comps = plan.memory.components
        basis = "traced" if plan.trace is not None else "formulas"
        self._values["memory"].setText(f"{format_bytes(comps.total)} without sharding ({basis})")
        self._values["kv_cache"].setText(
            format_bytes(comps.kv_cache) if comps.kv_cache else "none (training)"
        )
        best = plan.best
        if best is None:
            self._values["recommended"].setText(no_answer(plan))
            for key in ("recipe", "speed", "bound", "cost"):
                self._values[key].setText("—")
            return
        self._values["recommended"].setText(f"{gpu_line(best)} ({best.tier.label})")
        self._values["recipe"].setText(recipe_text(plan, best))
        self._values["speed"].setText(speed_text(best))
        self._values["bound"].setText(bound_text(best.speed.bound))
        self._values["bound"].setToolTip(bound_tip(best.speed.bound))
        self._values["cost"].setText(f"rent {rent_text(best.cost)}; buy {buy_text(best.cost)}")


class EstimateScroll(QScrollArea):
    """The estimate's scroll area: never narrower than the panel's widest unbreakable line (a word, a
    button, the trace table) plus a vertical scroll bar, so that nothing in it is cut at the right edge
    (it scrolls up and down only). `preferred_width` is what it asks for when the window has room."""

    def __init__(self, panel: EstimatePanel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preferred_width = 0
        self.setWidget(panel)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        panel.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        # The panel's own layout changed (trace rows, a longer name): the wizard's layout must ask again.
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)

    def minimumSizeHint(self) -> QSize:  # Qt override
        hint = super().minimumSizeHint()
        panel = self.widget()
        if panel is None:
            return hint
        width = panel.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width()
        return QSize(width + 2 * self.frameWidth(), hint.height())

    def sizeHint(self) -> QSize:  # Qt override
        hint = super().sizeHint()
        return QSize(max(self.preferred_width, self.minimumSizeHint().width()), hint.height())
