"""'Exact trace' beside the live estimate: one step of the real model traced on fake tensors in the
background, its bytes shown beside the formulas' and used as the plan's memory basis.

The trace runs on a worker thread (ui.workers.JobRunner, started on first use) and never blocks the
window; a trace of inputs that changed meanwhile is dropped by the form. A model the formulas only
approximate is traced as soon as it is chosen, and again (debounced) after each change of the inputs
its trace depends on, as the CLI traces the final inputs: the GUI and the CLI plan from the same bytes.
A change (a second model) while a trace runs queues a trace of the new inputs.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QGridLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.result import Plan
from gpu_advisor.ui import theme
from gpu_advisor.ui.plan.fields import ErrorLabel
from gpu_advisor.ui.plan.form import PlanForm
from gpu_advisor.ui.workers import JobRunner, RunContext

TRACE_NICE_INCREMENT = 5  # the window wins the CPU while a trace runs
# An approximated model is traced again this long after the last input change (typing "128" is three
# changes; a trace takes seconds to a minute on two cores).
AUTO_TRACE_DEBOUNCE_MS = 700
PENDING_TEXT = "Approximate memory (formulas): the trace of these inputs is pending…"


def run_trace(request: PlanRequest, config: dict[str, Any] | None, context: RunContext | None = None) -> Any:
    """Trace the request's model (its config.json, or one made from its shape). Runs on the worker;
    the trace itself runs in a child process with a deadline (bench.trace_child), ended by Stop."""
    from gpu_advisor.bench.trace_child import trace_in_child

    report = context.report_progress if context is not None else (lambda _m: None)
    stop = context.stop if context is not None else None
    return trace_in_child(request, config, on_progress=report, stop=stop)


class TracePanel(QWidget):
    """The Exact trace button, its progress, and formula against trace per component."""

    def __init__(self, form: PlanForm, parent: QWidget | None = None, tracer=run_trace) -> None:
        super().__init__(parent)
        self._form = form
        self._tracer = tracer
        self._runner: JobRunner | None = None
        self._pending_request: PlanRequest | None = None
        self._auto_timer = QTimer(self)
        self._auto_timer.setSingleShot(True)
        self._auto_timer.setInterval(AUTO_TRACE_DEBOUNCE_MS)
        self._auto_timer.timeout.connect(self._auto_trace)
        self.button = QPushButton("E&xact trace")
        self.button.setToolTip(
            "Run one step of the real model on fake tensors (PyTorch, transformers) and plan from the "
            "exact bytes; no memory is used"
        )
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setMaximumHeight(6)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setObjectName("trace_status")
        self.error = ErrorLabel()
        self.error.setObjectName("trace_error")
        self.table = QGridLayout()
        self.table.setHorizontalSpacing(10)
        self.table.setVerticalSpacing(2)
        self.peak = QLabel()
        self.peak.setWordWrap(True)
        self.peak.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.busy)
        layout.addWidget(self.status)
        layout.addWidget(self.error)
        layout.addLayout(self.table)
        layout.addWidget(self.peak)
        self.cells: list[tuple[str, str, str, str, bool]] = []

        self.button.clicked.connect(self.start)
        form.request_changed.connect(self._request_changed)
        form.model_changed.connect(self._model_changed)
        form.trace_changed.connect(self._trace_changed)
        form.plan_ready.connect(self.show_plan)
        self._request_changed(form.request)
        self._show_rows([])

    # ---- running -----------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._runner is not None and self._runner.running

    def _jobs(self) -> JobRunner:
        if self._runner is None:
            self._runner = JobRunner("gpu-advisor trace", TRACE_NICE_INCREMENT, self)
            self._runner.progress_changed.connect(lambda m: self.status.setText(f"Tracing: {m}…"))
            self._runner.run_finished.connect(self._finished)
            self._runner.run_failed.connect(self._failed)
        return self._runner

    def start(self) -> None:
        """Trace the current inputs in the background."""
        request = self._form.request
        if request is None:
            return
        self._pending_request = request
        self.error.set_message(None)
        self.busy.show()
        self.button.setEnabled(False)
        self.status.setText("Tracing on fake tensors (no memory is used)…")
        config = self._form.model_config
        tracer = self._tracer
        self._jobs().start(lambda context: tracer(request, config, context))

    def shutdown(self) -> None:
        if self._runner is not None:
            self._runner.shutdown()

    def _finished(self, result: Any) -> None:
        self.busy.hide()
        self.button.setEnabled(self._form.request is not None)
        if self._form.request is None or self._pending_request is None:
            return
        if self._without_trace(self._form.request) != self._without_trace(self._pending_request):
            if self._wants_auto_trace():  # queued: the new inputs (or model) are traced now
                self._auto_trace()
            else:
                self.status.setText("The inputs changed while tracing: trace again.")
            return
        self._form.set_trace(result)

    def _failed(self, message: str) -> None:
        self.busy.hide()
        self.button.setEnabled(self._form.request is not None)
        self.status.setText("")
        self.error.set_message(message.removeprefix("trace: "))

    @staticmethod
    def _without_trace(request: PlanRequest) -> PlanRequest:
        return request.model_copy(update={"trace": None})

    # ---- following the form ------------------------------------------------------------------------
    def _request_changed(self, request: PlanRequest | None) -> None:
        self.button.setEnabled(request is not None and not self.running)
        if self._wants_auto_trace():
            self.status.setText(PENDING_TEXT)
            self._auto_timer.start()  # restarted by each change: traced once the inputs settle

    def _model_changed(self, _spec: object) -> None:
        # The form validates the new model after announcing it: look once control returns.
        QTimer.singleShot(0, self._auto_trace)

    def _wants_auto_trace(self) -> bool:
        """A model the formulas only approximate, valid inputs and no trace of them."""
        form = self._form
        return not form.model_exact and form.request is not None and form.trace is None

    def _auto_trace(self) -> None:
        """Trace an approximated model's inputs (once the running trace, of older inputs, is done)."""
        self._auto_timer.stop()
        if self._wants_auto_trace() and not self.running:
            self.start()

    def _trace_changed(self, trace: Any) -> None:
        if trace is None:
            had_rows = bool(self.cells)
            self._show_rows([])
            if self._wants_auto_trace():
                self.status.setText(PENDING_TEXT)
            elif not self.running:
                self.status.setText(
                    "Memory from the formulas; the inputs changed: trace again."
                    if had_rows
                    else "Memory from the formulas. Exact trace measures the real architecture."
                )
            self.peak.setText("")

    def show_plan(self, plan: Plan) -> None:
        """Formula and trace per component, from the plan's comparison."""
        comparison = plan.trace
        if comparison is None:
            self._trace_changed(None)
            return
        from gpu_advisor.wording.trace import comparison_rows, trace_summary

        self._show_rows(comparison_rows(comparison))
        self.status.setText("The plan's memory comes from the trace; '!' marks a difference over 10%.")
        self.peak.setText(trace_summary(comparison.trace) + ".")

    def _show_rows(self, rows: list[tuple[str, str, str, str, bool]]) -> None:
        while self.table.count():
            widget = self.table.takeAt(0).widget()
            if widget is not None:  # gone now, not at the next event loop turn (no overdrawn rows)
                widget.hide()
                widget.setParent(None)
                widget.deleteLater()
        self.cells = list(rows)
        if not rows:
            return
        for col, text in enumerate(("", "formula", "trace")):
            head = QLabel(f"<b>{text}</b>")
            self.table.addWidget(
                head, 0, col, Qt.AlignmentFlag.AlignRight if col else Qt.AlignmentFlag.AlignLeft
            )
        for row, (name, formula, traced, diff, flagged) in enumerate(rows, start=1):
            cells = (f"{'! ' if flagged else ''}{name}", formula, traced)
            for col, text in enumerate(cells):
                label = QLabel(text)
                label.setToolTip(f"{name}: formula {formula}, trace {traced} ({diff})")
                if flagged:
                    label.setStyleSheet(f"color: {theme.error_color().name()}")
                align = Qt.AlignmentFlag.AlignRight if col else Qt.AlignmentFlag.AlignLeft
                self.table.addWidget(label, row, col, align)
