"""The Plan view: four input pages, then the recommendation; a live estimate beside the inputs.

The recommendation page (tier card, charts, tables, assumptions) is built when first needed, or by
`build_result_view()` once the window is on screen: its charts import pyqtgraph and numpy, which
the input pages do not need (benchmarks/ui_startup.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QBoxLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gpu_advisor.ui.plan.budget_page import BudgetPage
from gpu_advisor.ui.plan.estimate_panel import EstimatePanel, EstimateScroll
from gpu_advisor.ui.plan.fields import ErrorLabel, FormPage
from gpu_advisor.ui.plan.form import PlanForm
from gpu_advisor.ui.plan.model_page import ModelPage
from gpu_advisor.ui.plan.workload_pages import TrafficPage, WorkloadPage
from gpu_advisor.ui.startup import import_steps, pyqtgraph_steps

if TYPE_CHECKING:
    from gpu_advisor.ui.plan.recommendation_view import RecommendationView

STEP_MODEL, STEP_WORKLOAD, STEP_TRAFFIC, STEP_BUDGET, STEP_RESULT = range(5)
STEP_TITLES = ("1  Model", "2  Workload", "3  Traffic / target", "4  Budget", "5  Recommendation")
# Below this width of the Plan view the live estimate moves under the form: beside it, the steps list,
# the widest page (about 650 px) and the estimate with a traced memory table (about 300 px) need
# about 1,150 px.
SIDE_BY_SIDE_MIN_WIDTH_PX = 1150
# Beside the form, the estimate takes what the widest page leaves, within these bounds: wide enough
# for a GPU name and its tier on one line, and no wider than its longest lines read well.
ESTIMATE_WIDTH_PX = (260, 420)


def _scrolled(page: QWidget) -> QScrollArea:
    scroll = QScrollArea()
    scroll.setWidget(page)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a frameless page takes no Tab stop of its own
    return scroll


class PlanWizard(QWidget):
    """Next is enabled only while the current page has no validation message."""

    step_changed = Signal(int)
    result_view_built = Signal(object)  # the RecommendationView, once built

    def __init__(self, form: PlanForm, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.form = form
        self.model_page = ModelPage(form)
        self.workload_page = WorkloadPage(form)
        self.traffic_page = TrafficPage(form)
        self.budget_page = BudgetPage(form)
        self.pages: tuple[FormPage, ...] = (
            self.model_page,
            self.workload_page,
            self.traffic_page,
            self.budget_page,
        )
        self._result_view: RecommendationView | None = None
        self.estimate = EstimatePanel(form)
        self.estimate_scroll = EstimateScroll(self.estimate)  # scrolls rather than growing the window

        self.steps = QListWidget()
        self.steps.setAccessibleName("Plan steps")
        self.steps.setFixedWidth(175)
        self.steps.setStyleSheet(
            "QListWidget::item { padding: 6px 4px; }"
        )  # spacing only: colours stay the system's
        for title in STEP_TITLES:
            self.steps.addItem(QListWidgetItem(title))
        self.stack = QStackedWidget()
        for page in self.pages:
            self.stack.addWidget(_scrolled(page))
        self.stack.addWidget(QWidget())  # the recommendation's place until it is built

        self.blocked = ErrorLabel()
        self.blocked.setObjectName("blocked_reason")
        self.back_button = QPushButton("◀ Bac&k")
        self.next_button = QPushButton("&Next ▶")
        self.next_button.setDefault(True)
        for button in (self.back_button, self.next_button):
            button.setMinimumWidth(150)
            button.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        bar = QHBoxLayout()
        bar.addWidget(self.blocked, 1)
        bar.addStretch(0)
        bar.addWidget(self.back_button)
        bar.addWidget(self.next_button)

        form_column = QVBoxLayout()
        form_column.addWidget(self.stack, 1)
        form_column.addLayout(bar)
        self.content = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.content.addLayout(form_column, 1)
        self.content.addWidget(self.estimate_scroll)
        body = QHBoxLayout(self)
        body.addWidget(self.steps)
        body.addLayout(self.content, 1)
        self._set_estimate_below(False)

        self.back_button.clicked.connect(self.back)
        self.next_button.clicked.connect(self.next)
        self.steps.currentRowChanged.connect(self._step_clicked)
        QShortcut(QKeySequence("Ctrl+Return"), self, activated=self.next)
        form.errors_changed.connect(self._errors_changed)
        self._step = STEP_MODEL
        self._errors_changed(form.errors)
        self.go_to(STEP_MODEL)

    # ---- the recommendation page, built on first use ---------------------------------------------
    @property
    def result_view(self) -> RecommendationView:
        """The recommendation page, built on first use (shown, or read here)."""
        if self._result_view is None:
            self.build_result_view()
        assert self._result_view is not None
        return self._result_view

    @property
    def result_view_ready(self) -> bool:
        """True once the recommendation page is built (reading `result_view` builds it)."""
        return self._result_view is not None

    def result_view_steps(self) -> list[Callable[[], object]]:
        """build_result_view() in pieces (its imports one by one, then the build), for an event loop
        to run one per turn while the window stays responsive."""
        return [
            *pyqtgraph_steps(),  # the charts' library, the heaviest part
            *import_steps("gpu_advisor.ui.plan.recommendation_view"),
            self.build_result_view,
        ]

    def build_result_view(self) -> None:
        """Build the recommendation page (if not built yet) with the latest plan and messages."""
        if self._result_view is not None:
            return
        from gpu_advisor.ui.plan.recommendation_view import RecommendationView

        view = RecommendationView(self.form)
        self._result_view = view
        # Scrolled like the pages, so that the recommendation's own minimum height (its charts) does
        # not set the window's: at 700 px the form and the estimate under it need that room.
        placeholder = self.stack.widget(STEP_RESULT)
        self.stack.insertWidget(STEP_RESULT, _scrolled(view))
        self.stack.removeWidget(placeholder)
        placeholder.deleteLater()
        self.form.plan_ready.connect(view.show_plan)
        view.assumptions.show_errors(self.form.errors)
        if self.form.plan is not None:
            view.show_plan(self.form.plan)
        self.result_view_built.emit(view)

    def shutdown(self) -> None:
        """End the background work of the Hub field and the trace (window closing)."""
        self.model_page.hub.shutdown()
        self.estimate.trace.shutdown()

    # ---- state ------------------------------------------------------------------------------------
    @property
    def step(self) -> int:
        return self._step

    def step_errors(self, step: int, errors: Mapping[str, str] | None = None) -> dict[str, str]:
        """Messages that block leaving `step` (fields no page owns count against the last page)."""
        errors = self.form.errors if errors is None else errors
        if step >= STEP_RESULT:
            return dict(errors)
        owned = set().union(*(p.fields for p in self.pages))
        mine = self.pages[step].fields
        return {
            f: m
            for f, m in errors.items()
            if f in mine or (step == STEP_BUDGET and f not in owned and not f.startswith("assumptions."))
        }

    def first_blocked_step(self) -> int:
        """The first page with a message, or STEP_RESULT when every page is valid."""
        return next((s for s in range(STEP_RESULT) if self.step_errors(s)), STEP_RESULT)

    # ---- navigation -------------------------------------------------------------------------------
    def go_to(self, step: int) -> None:
        step = max(STEP_MODEL, min(step, self.first_blocked_step()))
        if step == STEP_RESULT and self.form.plan_now() is None:
            step = STEP_BUDGET
        if step == STEP_RESULT:
            self.build_result_view()
        self._step = step
        self.stack.setCurrentIndex(step)
        self.steps.blockSignals(True)
        self.steps.setCurrentRow(step)
        self.steps.blockSignals(False)
        self.estimate_scroll.setVisible(step != STEP_RESULT)
        self._update_buttons()
        self.step_changed.emit(step)

    # ---- layout and keys ----------------------------------------------------------------------------
    @property
    def estimate_below(self) -> bool:
        """True when the live estimate sits under the form (a narrow window), False beside it."""
        return self.content.direction() == QBoxLayout.Direction.TopToBottom

    def _set_estimate_below(self, below: bool) -> None:
        self.content.setDirection(
            QBoxLayout.Direction.TopToBottom if below else QBoxLayout.Direction.LeftToRight
        )
        self.estimate.set_compact(below)
        if below:  # a strip under the form, as wide as it, scrolling past ~11 lines
            self.estimate_scroll.setMinimumSize(0, 6 * self.fontMetrics().height())
            self.estimate_scroll.setMaximumSize(16_777_215, 14 * self.fontMetrics().height())
        else:  # as wide as its content needs (EstimateScroll's minimum), and what the form leaves
            self.estimate_scroll.setMinimumSize(0, 0)
            self.estimate_scroll.setMaximumSize(16_777_215, 16_777_215)

    def _estimate_width(self, width: int) -> int:
        """The estimate's width beside the form, in a Plan view `width` px wide."""
        margins = self.layout().contentsMargins()
        spacing = 2 * max(self.layout().spacing(), 0)
        page = max(p.minimumSizeHint().width() for p in self.pages)
        page += self.stack.currentWidget().verticalScrollBar().sizeHint().width()
        spare = width - margins.left() - margins.right() - spacing - self.steps.width() - page
        return max(ESTIMATE_WIDTH_PX[0], min(ESTIMATE_WIDTH_PX[1], spare))

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        below = event.size().width() < SIDE_BY_SIDE_MIN_WIDTH_PX
        if below != self.estimate_below:
            self._set_estimate_below(below)
        self.estimate_scroll.preferred_width = 0 if below else self._estimate_width(event.size().width())
        self.estimate_scroll.updateGeometry()
        super().resizeEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        """Enter on an input page presses Next (the key reaches here when the field does not use it);
        not in the Hugging Face field, where Enter fetches the model."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self._step < STEP_RESULT:
            focus = self.focusWidget()
            if not (isinstance(focus, QLineEdit) and self.model_page.hub.isAncestorOf(focus)):
                self.next()
                event.accept()
                return
        super().keyPressEvent(event)

    def next(self) -> None:
        if self.next_button.isEnabled() and self._step < STEP_RESULT:
            self.go_to(self._step + 1)

    def back(self) -> None:
        if self._step > STEP_MODEL:
            self.go_to(self._step - 1)

    def show_result(self) -> None:
        """Jump to the recommendation if every page is valid (e.g. after opening a plan file)."""
        self.go_to(STEP_RESULT)

    def _step_clicked(self, row: int) -> None:
        if row >= 0 and row != self._step:
            self.go_to(row)

    # ---- validation display -------------------------------------------------------------------------
    def _errors_changed(self, errors: Mapping[str, str]) -> None:
        for page in self.pages:
            page.show_errors(errors)
        if self._result_view is not None:
            self._result_view.assumptions.show_errors(errors)
        reachable = self.first_blocked_step()
        for row in range(self.steps.count()):
            item = self.steps.item(row)
            enabled = row <= reachable
            flags = item.flags()
            item.setFlags(
                flags | Qt.ItemFlag.ItemIsEnabled if enabled else flags & ~Qt.ItemFlag.ItemIsEnabled
            )
        self._update_buttons()

    def _update_buttons(self) -> None:
        step = self._step
        blocking = self.step_errors(step) if step < STEP_RESULT else {}
        self.next_button.setVisible(step < STEP_RESULT)
        self.next_button.setEnabled(not blocking)
        self.next_button.setText("&Show recommendation ▶" if step == STEP_BUDGET else "&Next ▶")
        self.back_button.setEnabled(step > STEP_MODEL)
        # Alt+E is the Edit menu, Alt+B the budget page's Buy.
        self.back_button.setText("◀ Ed&it inputs" if step == STEP_RESULT else "◀ Bac&k")
        if blocking:
            page = self.pages[step]
            text = "; ".join(f"{page.field_name(field)}: {msg}" for field, msg in blocking.items())
            self.blocked.set_message(f"Fix before continuing — {text}")
        else:
            self.blocked.set_message(None)
