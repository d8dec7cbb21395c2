"""The sortable table of every catalogue GPU the planner considered."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableView,
    QWidget,
)

from gpu_advisor.core.request import Purchase
from gpu_advisor.core.result import Option, Plan
from gpu_advisor.core.units import NA
from gpu_advisor.ui import theme
from gpu_advisor.ui.glossary import bound_tip, tip
from gpu_advisor.wording.plan_tables import Column, large_option_limit, option_columns, target_column_keys

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
# Where the columns do not fit at their full widths, whole columns go, never a cut cell ("NVIDIA
# GeFor…", "price unkno…"): first these details (in this order), then the price the plan is not ranked
# by (buy when renting, rent when buying), then the rest from the right, then the answer's figures
# (speed, memory, the price it is ranked by), and the request's own target columns last. GPU, count
# and fit always stay. Copy and CSV export keep every column.
HIDE_FIRST = (
    "tier",
    "machines",
    "layout",
    "bound",
    "prefill",
    "step_time",
    "mfu",
    "gpu_hours",
    "time_per_epoch",
)
ALWAYS = ("gpu", "count", "fits")  # kept even where every row is n/a ("fits" never is)
HIDE_LAST = {False: ("breakeven", "purchase", "aggregate"), True: ("breakeven", "rent", "aggregate")}
ANSWERS = ("tokens_per_s", "per_user", "memory")  # the answer's speed and fit, with the ranked price
_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


def two_lines(header: str) -> str:
    """A header of two words or more broken at the space nearest its middle: narrower columns."""
    if len(header) <= 8 or " " not in header:
        return header
    middle = len(header) / 2
    cut = min((i for i, ch in enumerate(header) if ch == " "), key=lambda i: abs(i - middle))
    return f"{header[:cut]}\n{header[cut + 1 :]}"


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
        self.hidden_keys: frozenset[str] = frozenset()  # columns the view hides to fit its width
        self.buying = False  # the plan ranks by the purchase, not the rent
        self.target_keys: frozenset[str] = frozenset()  # columns of the request's target: hidden last
        self.show_large = False  # list the options of hundreds of GPUs too
        self.folded: tuple[Option, ...] = ()  # options left out while show_large is off
        self._plan: Plan | None = None

    @property
    def columns(self) -> tuple[Column, ...]:
        return self._columns

    def set_plan(self, plan: Plan | None) -> None:
        self.beginResetModel()
        self._plan = plan
        if plan is None:
            self._options, self._best_id, self.folded = (), None, ()
        else:
            limit = large_option_limit(plan)
            listed = tuple(o for o in plan.options if o.count <= limit)
            self.folded = tuple(o for o in plan.options if o.count > limit)
            self._options = plan.options if self.show_large else listed
            # A column that reads n/a on every row (a job cost without a token budget) says nothing,
            # and takes the room of one that answers the request.
            self._columns = tuple(
                c
                for c in option_columns(plan.request.task.is_training)
                if c.key in ALWAYS or any(c.text(o) != NA for o in self._options)
            )
            self._best_id = plan.recommendation.gpu_id
            self.buying = plan.request.purchase is Purchase.BUY
            self.target_keys = target_column_keys(plan.request, [c.key for c in self._columns])
        self.endResetModel()

    def set_show_large(self, show: bool) -> None:
        """List the folded options of hundreds of GPUs too, or fold them again."""
        self.show_large = show
        self.set_plan(self._plan)

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
            return two_lines(column.header)
        if role == Qt.ItemDataRole.ToolTipRole:
            return "\n\n".join(p for p in (column.header, _header_tip(column)) if p)
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
            return self._tooltip(option, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _tooltip(self, option: Option, column: Column) -> str | None:
        """The cell's text and what it means; on the GPU, the columns left out at this width."""
        if column.key == "bound":
            meaning = bound_tip(option.speed.bound)
        elif column.key == "gpu":
            meaning = option.note
        else:
            meaning = _header_tip(column)
        parts = [column.text(option), meaning]
        if column.key == "gpu" and self.hidden_keys:
            hidden = [c for c in self._columns if c.key in self.hidden_keys]
            parts.append("\n".join(f"{c.header}: {c.text(option)}" for c in hidden))
        return "\n\n".join(p for p in parts if p) or None


def _header_tip(column: Column) -> str:
    """The column's meaning, and the glossary's explanation of its term where it has one."""
    parts = [column.help, tip(column.glossary) if column.glossary else ""]
    return "\n\n".join(p for p in parts if p)


class _SortProxy(QSortFilterProxyModel):
    def lessThan(self, left: _Index, right: _Index) -> bool:  # Qt override
        return left.data(SORT_ROLE) < right.data(SORT_ROLE)


def drop_order(keys: Sequence[str], targets: frozenset[str], buying: bool) -> list[str]:
    """The columns to leave out, least important first, until the rest fit whole (ALWAYS never)."""
    answers = {*ANSWERS, "purchase" if buying else "rent"}
    first = [k for k in (*HIDE_FIRST, *HIDE_LAST[buying]) if k in keys and k not in targets]
    later = [k for k in reversed(keys) if k not in first and k not in ALWAYS]
    rest = [k for k in later if k not in answers and k not in targets]
    return first + rest + [k for k in later if k in answers - targets] + [k for k in later if k in targets]


class OptionsTable(QTableView):
    """Options of a plan, best first; click a header to sort by that column.

    The columns fit the table's width, without sideways scrolling: two-line headers, each cell whole,
    and where the columns are too wide, whole columns left out (`drop_order`, `hidden_changed`; each
    GPU's tooltip and the caption list them). Only where GPU, count and fit alone are wider than the
    table are their cells cut.
    """

    hidden_changed = Signal()

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
        self.setWordWrap(False)  # one line per cell (a wrapped text loses its second line)
        self.setAccessibleName("GPU options")

    def set_plan(self, plan: Plan | None) -> None:
        self.options_model.set_plan(plan)
        self._fit_new_rows()

    def set_show_large(self, show: bool) -> None:
        """Show or fold the options of hundreds of GPUs (`OptionsModel.folded`)."""
        self.options_model.set_show_large(show)
        self._fit_new_rows()

    def _fit_new_rows(self) -> None:
        for column in range(self.proxy.columnCount()):
            self.setColumnHidden(column, False)
        self.resizeColumnsToContents()
        self._natural = [self.columnWidth(c) for c in range(self.proxy.columnCount())]  # each cell whole
        self.fit_columns()

    @property
    def hidden_headers(self) -> list[str]:
        """The headers of the columns left out to fit the width, in table order."""
        return [c.header for c in self.options_model.columns if c.key in self.options_model.hidden_keys]

    def fit_columns(self) -> None:
        """Column widths (and columns shown) for the width the table has now."""
        natural = getattr(self, "_natural", [])
        columns = self.options_model.columns
        if len(natural) != len(columns):
            return
        room = self.viewport().width()
        by_key = {column.key: c for c, column in enumerate(columns)}
        hidden: set[int] = set()

        def width() -> int:
            return sum(w for c, w in enumerate(natural) if c not in hidden)

        order = drop_order(
            [c.key for c in columns], self.options_model.target_keys, self.options_model.buying
        )
        for key in order:
            if width() <= room:
                break
            hidden.add(by_key[key])
        # The last column takes what is left (stretched); only GPU, count and fit wider than the table
        # share it and are cut.
        scale = min(1.0, room / max(width(), 1))
        for c in range(len(columns)):
            self.setColumnHidden(c, c in hidden)
            if c not in hidden:
                self.setColumnWidth(c, int(natural[c] * scale))
        keys = frozenset(columns[c].key for c in hidden)
        if keys != self.options_model.hidden_keys:
            self.options_model.hidden_keys = keys
            self.hidden_changed.emit()

    def viewportEvent(self, event: QEvent) -> bool:  # Qt override
        handled = super().viewportEvent(event)
        if event.type() == QEvent.Type.Resize:
            self.fit_columns()
        return handled

    def cell_text(self, row: int, header: str) -> str:
        """The text shown at a (sorted) row under a column header (for tests and exports)."""
        model = self.proxy
        for column in range(model.columnCount()):
            if model.headerData(column, Qt.Orientation.Horizontal).replace("\n", " ") == header:
                return model.index(row, column).data()
        raise KeyError(header)
