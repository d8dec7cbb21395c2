"""The sortable table of every catalogue GPU the planner considered."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from gpu_advisor.core.result import Option, Plan
from gpu_advisor.ui import theme
from gpu_advisor.ui.glossary import bound_tip, tip
from gpu_advisor.wording.plan_tables import Column, option_columns

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
MAX_COLUMN_PX = 170
MAX_GPU_COLUMN_PX = 240
_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


def _sort_key(value: Any) -> Any:
    """Unknown values sort after known ones in ascending order."""
    if value is None:
        return (1, 0)
    if isinstance(value, tuple):  # (fits, meets_target): best first when ascending
        return (0, tuple(not v for v in value))
    return (0, value)


class OptionsModel(QAbstractTableModel):
    """Plan options as rows; display text from the plan wording, raw values for sorting."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._options: tuple[Option, ...] = ()
        self._columns: tuple[Column, ...] = option_columns(training=False)
        self._best_id: str | None = None

    def set_plan(self, plan: Plan | None) -> None:
        self.beginResetModel()
        if plan is None:
            self._options, self._best_id = (), None
        else:
            self._options = plan.options
            self._columns = option_columns(plan.request.task.is_training)
            self._best_id = plan.recommendation.gpu_id
        self.endResetModel()

    def option(self, row: int) -> Option:
        return self._options[row]

    def rowCount(self, parent: _Index = _ROOT) -> int:  # Qt override
        return 0 if parent.isValid() else len(self._options)

    def columnCount(self, parent: _Index = _ROOT) -> int:  # Qt override
        return 0 if parent.isValid() else len(self._columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        column = self._columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.header
        if role == Qt.ItemDataRole.ToolTipRole:
            return _header_tip(column) or None
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        option = self._options[index.row()]
        column = self._columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(option)
        if role == SORT_ROLE:
            return _sort_key(column.sort_value(option))
        if role == Qt.ItemDataRole.FontRole and option.gpu_id == self._best_id:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and column.key == "fits":
            if not option.fits:
                return theme.error_color()
            return theme.ok_color() if option.meets_target else theme.warn_color()
        if role == Qt.ItemDataRole.ToolTipRole:
            if column.key == "bound":
                return bound_tip(option.speed.bound) or None
            if column.key == "gpu" and option.note:
                return option.note
            if column.key in ("gpu", "layout", "memory"):
                return column.text(option)
            return _header_tip(column) or None
        if role == Qt.ItemDataRole.TextAlignmentRole and column.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


def _header_tip(column: Column) -> str:
    """The column's meaning, and the glossary's explanation of its term where it has one."""
    parts = [column.help, tip(column.glossary) if column.glossary else ""]
    return "\n\n".join(p for p in parts if p)


class _SortProxy(QSortFilterProxyModel):
    def lessThan(self, left: _Index, right: _Index) -> bool:  # Qt override
        return left.data(SORT_ROLE) < right.data(SORT_ROLE)


class OptionsTable(QTableView):
    """Options of a plan, best first; click a header to sort by that column."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.options_model = OptionsModel(self)
        self.proxy = _SortProxy(self)
        self.proxy.setSourceModel(self.options_model)
        self.setModel(self.proxy)
        self.setSortingEnabled(True)
        self.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the planner's order until a header is clicked
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setStretchLastSection(True)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setAccessibleName("GPU options")

    def set_plan(self, plan: Plan | None) -> None:
        self.options_model.set_plan(plan)
        self.resizeColumnsToContents()
        for column in range(self.proxy.columnCount()):  # long texts are elided; the tooltip has them
            limit = MAX_GPU_COLUMN_PX if column == 0 else MAX_COLUMN_PX
            self.setColumnWidth(column, min(self.columnWidth(column), limit))

    def cell_text(self, row: int, header: str) -> str:
        """The text shown at a (sorted) row under a column header (for tests and exports)."""
        model = self.proxy
        for column in range(model.columnCount()):
            if model.headerData(column, Qt.Orientation.Horizontal) == header:
                return model.index(row, column).data()
        raise KeyError(header)
