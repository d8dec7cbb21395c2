"""Any table's contents to the clipboard (Ctrl+C, tab-separated: spreadsheets paste it as cells) or
to a CSV file, from its context menu. The texts are the ones shown, units included."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QAbstractItemModel, Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QFileDialog

CSV_FILTER = "CSV (*.csv);;All files (*)"


def with_suffix(path: Path, suffix: str) -> Path:
    """`path` as typed, with `suffix` ('.csv') added when it has none: a save dialog's 'plan' is 'plan.json'."""
    return path if path.suffix else path.with_name(path.name + suffix)


def table_rows(view: QAbstractItemView, selected_only: bool = False) -> list[list[str]]:
    """The header row (with the row headers' column when there are any), then each row's texts.
    `selected_only`: the rows with a selected cell (all rows when none is)."""
    model: QAbstractItemModel = view.model()
    columns, rows = model.columnCount(), model.rowCount()
    vertical = [model.headerData(r, Qt.Orientation.Vertical) for r in range(rows)]
    # Row labels that are real words (Compare's 'matmul fp32'), not Qt's default numbers 1, 2, 3.
    labelled = any(isinstance(v, str) and v and v != str(r + 1) for r, v in enumerate(vertical))
    selection = view.selectionModel()
    chosen = sorted({index.row() for index in selection.selectedIndexes()}) if selection else []
    wanted = chosen if selected_only and chosen else list(range(rows))
    head = [
        str(model.headerData(c, Qt.Orientation.Horizontal) or "").replace("\n", " ") for c in range(columns)
    ]
    out = [([""] if labelled else []) + head]
    for r in wanted:
        cells = [str(model.index(r, c).data() or "") for c in range(columns)]
        out.append(([str(vertical[r] or "")] if labelled else []) + cells)
    return out


def copy_table(view: QAbstractItemView) -> None:
    """The selected rows (or the whole table) as tab-separated text on the clipboard."""
    text = "\n".join("\t".join(row) for row in table_rows(view, selected_only=True))
    QGuiApplication.clipboard().setText(text)


def write_csv(view: QAbstractItemView, path: Path) -> None:
    """The whole table as CSV, written atomically (OSError on failure)."""
    from gpu_advisor.core.files import write_bytes_atomic

    buffer = io.StringIO()
    csv.writer(buffer).writerows(table_rows(view))
    write_bytes_atomic(path, buffer.getvalue().encode("utf-8"))


def add_table_actions(
    view: QAbstractItemView, name: str, report_error: Callable[[str, str], None], folder: Callable[[], str]
) -> None:
    """Give `view` Copy (Ctrl+C) and 'Export as CSV…' in its context menu. `name` is the default file
    name; `report_error(title, text)` shows a failure; `folder()` is where the dialog opens."""
    copy = QAction("&Copy", view)
    copy.setShortcut(QKeySequence.StandardKey.Copy)
    copy.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    copy.triggered.connect(lambda: copy_table(view))
    export = QAction("Export as CS&V…", view)

    def export_dialog() -> None:
        chosen, _ = QFileDialog.getSaveFileName(
            view, "Export table", str(Path(folder()) / f"{name}.csv"), CSV_FILTER
        )
        if not chosen:
            return
        path = with_suffix(Path(chosen), ".csv")
        try:
            write_csv(view, path)
        except OSError as exc:
            report_error("Table not exported", f"{path}: {exc.strerror or exc}")

    export.triggered.connect(export_dialog)
    view.addActions([copy, export])
    view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
