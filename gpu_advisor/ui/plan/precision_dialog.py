"""'Memory by precision': the chosen model's job at fp32, bf16, fp8, int8 and int4 side by side."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpu_advisor.ui import theme
from gpu_advisor.ui.plan.form import PlanForm
from gpu_advisor.ui.table_export import add_table_actions
from gpu_advisor.wording.precision import (
    PRECISION_HEADERS,
    WHOLE_JOB_NOTE,
    precision_cells,
    precision_headers,
    precision_shape,
)


class PrecisionDialog(QDialog):
    """Non-modal: it follows the form, so changing the task or the batch updates the table."""

    def __init__(
        self,
        form: PlanForm,
        report_error: Callable[[str, str], None],
        folder: Callable[[], str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Memory by precision")
        self._form = form
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.table = QTableWidget(0, len(PRECISION_HEADERS))
        self.table.setAccessibleName("Memory by precision")
        self.table.setHorizontalHeaderLabels(list(PRECISION_HEADERS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setToolTip("Right-click to copy the table or export it as CSV.")
        add_table_actions(self.table, "memory-by-precision", report_error, folder)
        note = QLabel(WHOLE_JOB_NOTE)
        note.setWordWrap(True)
        theme.mute(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)
        layout.addWidget(note)
        layout.addWidget(buttons)
        self.resize(760, 330)
        form.plan_ready.connect(lambda _plan: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        request = self._form.request
        rows = self._form.precision_table()
        serving = request is not None and not request.task.is_training
        if request is None:
            self.title.setText("Fix the marked fields of the plan to see its memory by precision.")
        else:
            self.title.setText(
                f"<b>{escape(request.model.name)}</b>, {escape(precision_shape(request, self._form.answer_users()))}: "
                "only the precision changes."
            )
        headers = precision_headers(serving)
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(list(headers))
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(precision_cells(row, serving)):
                item = QTableWidgetItem(text)
                if c >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if row.chosen:
                    font = QFont(item.font())
                    font.setBold(True)
                    item.setFont(font)
                if row.total_bytes is None:
                    item.setToolTip(row.reason)
                self.table.setItem(r, c, item)

    def cell(self, precision: str, column: int) -> str:
        """The text of a precision's row (tests)."""
        for r in range(self.table.rowCount()):
            if self.table.item(r, 0).text().split(" ")[0] == precision:
                return self.table.item(r, column).text()
        raise KeyError(precision)
