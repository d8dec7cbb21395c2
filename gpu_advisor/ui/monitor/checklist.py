"""The Monitor's checklist: every workload of a benchmark run with its status, figures and verdict."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from gpu_advisor.ui import theme
from gpu_advisor.wording.checklist import CHECKLIST_HEADERS, STATUS_TEXT, ChecklistLine

STATUS_COLUMN, VERDICT_COLUMN = 1, 5


class ChecklistTable(QTableWidget):
    """Read-only rows of `wording.checklist` lines; the selected row's verdict is `selected_line()`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(CHECKLIST_HEADERS), parent)
        self.setHorizontalHeaderLabels(list(CHECKLIST_HEADERS))
        self.setAccessibleName("Workloads of the run")
        self.setToolTip(
            "Each workload of the run: waiting, running, then its figures and what limited it.\n"
            "Select a row to read its diagnosis below."
        )
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setWordWrap(False)
        # Tab moves on to the next control (the arrows walk the rows): it walked ~30 cells first.
        self.setTabKeyNavigation(False)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        # Fixed widths that fit 1024 px without a sideways scroll bar; a cut text shows whole in its
        # tooltip, and the verdict takes what is left.
        header = self.horizontalHeader()
        em = self.fontMetrics().horizontalAdvance("M")
        # The status column holds a stopped run's '■ stopped' whole (it read '■ stopp…').
        stopped = self.fontMetrics().horizontalAdvance(STATUS_TEXT["cancelled"]) + em
        for column, width_em in enumerate((15, 7, 6, 20, 6)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            title = header.fontMetrics().horizontalAdvance(CHECKLIST_HEADERS[column]) + 2 * em
            least = stopped if column == STATUS_COLUMN else 0
            header.resizeSection(column, max(width_em * em, title, least))  # never a clipped title
        header.setStretchLastSection(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.lines: list[ChecklistLine] = []

    def set_lines(self, lines: Sequence[ChecklistLine]) -> None:
        """Show `lines`, keeping the selected row when the list only grew or changed in place."""
        lines = list(lines)
        if lines == self.lines:
            return
        selected = self.currentRow()
        self.lines = lines
        self.setRowCount(len(lines))
        for row, line in enumerate(lines):
            for column, text in enumerate(line.cells()):
                item = self.item(row, column)
                if item is None:
                    item = QTableWidgetItem()
                    self.setItem(row, column, item)
                item.setText(text)
                item.setToolTip(line.verdict_detail if column == VERDICT_COLUMN else text)
                item.setForeground(self._color(line, column))
                item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if 0 <= selected < len(lines):
            self.selectRow(selected)

    def _color(self, line: ChecklistLine, column: int):
        pal = self.palette()
        if column == STATUS_COLUMN:
            if line.status == "ok":
                return theme.ok_color(pal)
            if line.status in ("oom", "error"):
                return theme.error_color(pal)
            if line.status in ("waiting", "skipped", "unsupported"):
                return theme.muted_color(pal)
        if column == VERDICT_COLUMN and line.severity in ("warning", "critical"):
            return theme.warn_color(pal)
        return pal.color(pal.ColorRole.Text)

    def selected_line(self) -> ChecklistLine | None:
        row = self.currentRow()
        return self.lines[row] if 0 <= row < len(self.lines) else None
