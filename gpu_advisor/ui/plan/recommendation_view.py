"""The planner's answer: tier card, charts, options table, how each number was computed, assumptions."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gpu_advisor.core.result import Plan
from gpu_advisor.core.units import format_bytes
from gpu_advisor.ui.plan.assumptions_panel import AssumptionsPanel
from gpu_advisor.ui.plan.charts import CostChart, MemoryChart
from gpu_advisor.ui.plan.form import PlanForm
from gpu_advisor.ui.plan.options_table import OptionsTable
from gpu_advisor.ui.plan.tier_card import TierCard
from gpu_advisor.ui.plan.tiers_view import TiersView
from gpu_advisor.wording.answer import answer_pair
from gpu_advisor.wording.memory_parts import kv_pool_text, memory_parts, stack_part_rows
from gpu_advisor.wording.plan import gpu_line, rank_basis
from gpu_advisor.wording.plan_tables import (
    compute_rows,
    formula_rows,
    large_option_limit,
    large_options_text,
    memory_notes,
)
from gpu_advisor.wording.serving import answer_users_text


def _label(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    return label


class _FittingScroll(QScrollArea):
    """A scroll area that tells its AssumptionsPanel how wide it may be, so that the panel arranges
    its boxes to fit rather than scrolling sideways."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._fit = QTimer(self)  # the boxes arranged for the width, after a resize (resizeEvent)
        self._fit.setSingleShot(True)
        self._fit.setInterval(0)
        self._fit.timeout.connect(self._fit_widget)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        # Arranged once this resize is over, not inside it: a panel whose minimum width changes under
        # the scroll area's own resize handling can flip its scroll bar on and off in a recursion (the
        # result card's crash, tests/ui/test_result_replan_resize.py).
        super().resizeEvent(event)
        self._fit.start()

    def _fit_widget(self) -> None:
        width = self.maximumViewportSize().width() - self.verticalScrollBar().sizeHint().width()
        self.widget().fit_width(width)


class RecommendationView(QWidget):
    """Everything `plan()` returned, rendered; edits in the Assumptions tab re-plan through the form."""

    def __init__(self, form: PlanForm, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plan: Plan | None = None
        self._stale = False  # self.plan arrived while hidden and is not drawn yet
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        self.card = TierCard()
        layout.addWidget(self.card)
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs, 1)

        overview = QWidget()
        overview_layout = QVBoxLayout(overview)
        overview_layout.setContentsMargins(6, 6, 6, 6)  # the tab's frame is margin enough
        charts = QGridLayout()
        self.memory_chart = MemoryChart()
        self.cost_chart = CostChart()
        self.memory_legend = _label()
        self.cost_note = _label()
        charts.addWidget(self.memory_chart, 0, 0)
        charts.addWidget(self.cost_chart, 0, 1)
        charts.addWidget(self.memory_legend, 1, 0, Qt.AlignmentFlag.AlignTop)
        charts.addWidget(self.cost_note, 1, 1, Qt.AlignmentFlag.AlignTop)
        charts.setRowStretch(0, 1)
        charts.setColumnStretch(0, 1)
        charts.setColumnStretch(1, 1)
        overview_layout.addLayout(charts, 1)
        self.warnings = _label()
        self.warnings.setObjectName("warnings")
        overview_layout.addWidget(self.warnings)
        self.tabs.addTab(overview, "&Overview")
        self.tiers = TiersView()
        self.tabs.insertTab(0, self.tiers, "&Three tiers")
        self.tabs.setCurrentIndex(0)

        options_page = QWidget()
        options_layout = QVBoxLayout(options_page)
        self.options_caption = _label()
        self.options_caption.setObjectName("options_caption")
        self.options = OptionsTable()
        self.options.hidden_changed.connect(self._show_options_caption)
        options_layout.addWidget(self.options_caption)
        options_layout.addWidget(self.options, 1)
        # Options of hundreds of GPUs (512 x L4 for a 70B model), folded unless asked for.
        self.show_large_options = QCheckBox()
        self.show_large_options.toggled.connect(self.options.set_show_large)
        self.show_large_options.hide()
        options_layout.addWidget(self.show_large_options)
        self.tabs.addTab(options_page, "O&ptions")

        details = QWidget()
        details_layout = QVBoxLayout(details)
        self.memory_table = QTableWidget(0, 3)
        self.memory_table.setHorizontalHeaderLabels(
            ["Component", "Bytes (one device, unsharded)", "How it was computed"]
        )
        self.memory_table.verticalHeader().hide()
        # Rows as tall as their wrapped formulas, at any width.
        self.memory_table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.memory_table.horizontalHeader().setStretchLastSection(True)
        self.memory_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        # At least a header and five rows, and more as the page leaves; with the notes under it the
        # page scrolls (below), so neither the table nor the notes is cut.
        self.memory_table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.memory_table.setMinimumHeight(7 * self.fontMetrics().height() + 24)
        self.details_notes = _label()
        details_layout.addWidget(self.memory_table, 1)
        details_layout.addWidget(self.details_notes)
        # The notes under the table can run long (a trace, a calibration): the page scrolls, never cuts.
        details_scroll = QScrollArea()
        details_scroll.setWidget(details)
        details_scroll.setWidgetResizable(True)
        details_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        details_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        # Its content's size is not the tab's to ask for: the page takes the width and height it is given.
        details_scroll.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.tabs.addTab(details_scroll, "Ho&w it was computed")  # Alt+H is the Help menu

        self.assumptions = AssumptionsPanel(form)
        scroll = _FittingScroll()
        scroll.setWidget(self.assumptions)
        scroll.setWidgetResizable(True)
        self.tabs.addTab(scroll, "&Assumptions")

    def show_plan(self, plan: Plan) -> None:
        """Render `plan`, or, while the view is hidden (the input pages re-plan on every keystroke),
        keep it and render it when the view is next shown: the newest plan, once."""
        self.plan = plan
        self._stale = not self.isVisible()
        if not self._stale:
            self._render(plan)

    def showEvent(self, event: QShowEvent) -> None:
        if self._stale and self.plan is not None:
            self._render(self.plan)
        super().showEvent(event)

    def _render(self, plan: Plan) -> None:
        self._stale = False
        self.card.show_plan(plan)
        self.tiers.show_plan(plan)
        self.memory_chart.show_plan(plan)
        self.cost_chart.show_plan(plan)
        self.memory_legend.setText(self.memory_chart.legend_html())
        # The working of each line the chart plots: the verdict's rental and purchase may differ.
        pair = answer_pair(plan) if plan.best is not None else None
        sides = [] if pair is None else [o for o in (pair.rent, pair.buy) if o is not None] or [plan.best]
        unique = list({o.gpu_id: o for o in sides}.values())
        workings = [f"{gpu_line(o)}: {o.cost.formula}" for o in unique]
        # One GPU: its working under the chart; two: both in the tooltip (the note keeps its height).
        formula = f"<br><i>{escape(unique[0].cost.formula)}</i>" if len(unique) == 1 else ""
        self.cost_note.setToolTip("\n\n".join(workings) if len(unique) > 1 else "")
        self.cost_note.setText(f"{self.cost_chart.legend_html()}<br>{self.cost_chart.message}{formula}")
        notes = [f"⚠ {escape(w)}" for w in plan.warnings]
        notes += [f"<b>Suggestion:</b> {escape(s)}" for s in plan.suggestions]
        self.warnings.setText("<br>".join(notes))
        self.warnings.setVisible(bool(notes))
        self.options.set_plan(plan)
        folded = self.options.options_model.folded
        self.show_large_options.setText(f"Show {large_options_text(len(folded), large_option_limit(plan))}")
        self.show_large_options.setVisible(bool(folded))
        self._show_options_caption()
        self._show_details(plan)
        users = answer_users_text(plan) or plan.assumptions.get("concurrent_users_from_requests_per_s")
        self.assumptions.set_derived_note(
            f"Concurrent users from the requests per second: {users}" if users else ""
        )

    def _show_options_caption(self) -> None:
        if self.plan is None:
            return
        text = f"Best first, {rank_basis(self.plan)}; click a column header to sort by it."
        hidden = self.options.hidden_headers
        if hidden:
            text += f" Not shown at this width: {', '.join(hidden)} (in each GPU's tooltip, and in copies)."
        self.options_caption.setText(text)

    def _show_details(self, plan: Plan) -> None:
        # The answer's GPU as the engine fills it (overhead in its parts, the KV pool); unsharded
        # on one device when there is no answer.
        best = plan.best
        memory = best.per_gpu if best is not None else plan.memory
        where = f"per GPU, {gpu_line(best)}" if best is not None else "one device, unsharded"
        self.memory_table.setHorizontalHeaderLabels(["Component", f"Bytes ({where})", "How it was computed"])
        rows = []
        for p in memory_parts(memory):
            rows.append((p.label, p.size_bytes, p.formula))
            rows += stack_part_rows(memory, p.key)  # the training stack's buffers inside it
        rows.append(("Total", memory.total_bytes, "sum of the above"))
        if memory.kv_pool_bytes is not None:
            rows.append(("KV pool (engine)", memory.kv_pool_bytes, kv_pool_text(memory)))
        if best is not None and plan.memory.total_bytes != memory.total_bytes:
            rows.append(("Unsharded, one device", plan.memory.total_bytes, "the whole job on one device"))
        self.memory_table.setRowCount(len(rows))
        for i, (name, n_bytes, formula) in enumerate(rows):
            self.memory_table.setItem(i, 0, QTableWidgetItem(name))
            self.memory_table.setItem(i, 1, QTableWidgetItem(f"{format_bytes(n_bytes)}  ({n_bytes:,} bytes)"))
            self.memory_table.setItem(i, 2, QTableWidgetItem(formula))
        self.memory_table.resizeColumnsToContents()
        compute = ", ".join(f"{label} = {value}" for label, value in compute_rows(plan))
        notes = [f"Compute: {escape(compute)}"] + [f"Note: {escape(n)}" for n in memory_notes(plan)]
        notes += [f"{escape(k)}: {escape(v)}" for k, v in formula_rows(plan.best)]
        self.details_notes.setText("<br>".join(notes))
