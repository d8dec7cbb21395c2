"""Compare machines: load several results files; a table and a bar chart side by side."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpu_advisor.core.files import FileFormatError
from gpu_advisor.ui import theme
from gpu_advisor.ui.compare.rows import LoadedResults, Row, rows_for, workload_names
from gpu_advisor.ui.dialogs import ErrorReporter

COLUMNS = (
    ("Machine", "machine"),
    ("Workload", "workload"),
    ("Status", "status"),
    ("Measured", "rate_text"),
    ("Step time", "step_time"),
    ("Peak memory", "peak_memory"),
    ("Prediction error", "prediction_error"),
    ("Catalogue", "catalogue"),
)
BAR_WIDTH = 0.38


def _default_loader(path: Path) -> Any:
    from gpu_advisor.ui.monitor.backend import BenchBackend

    return BenchBackend.load_results(path)


class CompareView(QWidget):
    """`add_files(paths)` loads results (one error dialog for all bad files); the rest stay usable."""

    def __init__(
        self, errors: ErrorReporter, loader: Callable[[Path], Any] = _default_loader, parent=None
    ) -> None:
        super().__init__(parent)
        self._errors = errors
        self._loader = loader
        self.loaded: list[LoadedResults] = []
        self.rows: list[Row] = []
        self.add_button = QPushButton("&Add results…")
        self.add_button.setToolTip(
            "Load gpu-advisor/bench@1 files saved by the Monitor or `gpu-advisor bench --json`."
        )
        self.remove_button = QPushButton("&Remove")
        self.clear_button = QPushButton("C&lear")
        self.files = QListWidget()
        self.files.setAccessibleName("Loaded results files")
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.files.setMaximumHeight(110)
        self.hint = QLabel(
            "Load results files saved on candidate machines (Monitor ▸ Save results, or File ▸ Import results)."
        )
        self.hint.setWordWrap(True)
        top = QHBoxLayout()
        buttons = QVBoxLayout()
        for button in (self.add_button, self.remove_button, self.clear_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        top.addWidget(self.files, 1)
        top.addLayout(buttons)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([c[0] for c in COLUMNS])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSortingEnabled(True)
        self.table.setAlternatingRowColors(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)

        self.metric_combo = QComboBox()
        self.metric_combo.setAccessibleName("Workload to chart")
        self.chart = pg.PlotWidget()
        self.chart.setMenuEnabled(False)
        self.chart.hideButtons()
        self.chart.getPlotItem().getViewBox().setMouseEnabled(x=False, y=False)
        self.chart.setMinimumWidth(360)
        self.chart_legend = QLabel()
        self.chart_legend.setWordWrap(True)
        chart_box = QWidget()
        chart_layout = QVBoxLayout(chart_box)
        chart_layout.setContentsMargins(0, 0, 0, 0)
        metric_row = QHBoxLayout()
        metric_label = QLabel("C&hart:")
        metric_label.setBuddy(self.metric_combo)
        metric_row.addWidget(metric_label)
        metric_row.addWidget(self.metric_combo, 1)
        chart_layout.addLayout(metric_row)
        chart_layout.addWidget(self.chart, 1)
        chart_layout.addWidget(self.chart_legend)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.table)
        splitter.addWidget(chart_box)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addWidget(self.hint)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self.add_button.clicked.connect(self._add_dialog)
        self.remove_button.clicked.connect(self.remove_selected)
        self.clear_button.clicked.connect(self.clear)
        self.metric_combo.currentIndexChanged.connect(lambda _i: self.redraw_chart())
        theme.style_plot(self.chart)
        self._refresh()

    # ---- loading ---------------------------------------------------------------------------------
    def _add_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        paths, _ = QFileDialog.getOpenFileNames(
            self, "Add results", "", "Benchmark results (*.json);;All files (*)"
        )
        self.add_files(Path(p) for p in paths)

    def add_files(self, paths: Iterable[Path]) -> int:
        """Load each file; bad ones are reported together in one dialog. Returns how many loaded."""
        problems: list[str] = []
        count = 0
        for path in paths:
            path = Path(path)
            if any(item.path == path for item in self.loaded):
                continue
            try:
                report = self._loader(path)
            except FileFormatError as exc:
                problems.append(str(exc))
                continue
            except OSError as exc:
                problems.append(f"{path}: {exc.strerror or exc}")
                continue
            self.loaded.append(LoadedResults(path, report))
            count += 1
        if count:
            self._refresh()
        if problems:
            self._errors.error("Cannot load results", "\n\n".join(problems))
        return count

    def remove_selected(self) -> None:
        rows = sorted((self.files.row(i) for i in self.files.selectedItems()), reverse=True)
        for row in rows:
            del self.loaded[row]
        self._refresh()

    def clear(self) -> None:
        self.loaded.clear()
        self._refresh()

    # ---- display ---------------------------------------------------------------------------------
    def _refresh(self) -> None:
        self.files.clear()
        for item in self.loaded:
            created = str(getattr(item.report, "created", ""))[:16].replace("T", " ")
            self.files.addItem(f"{item.machine_label}   ({created})")
        self.rows = rows_for(self.loaded)
        self.table.setSortingEnabled(False)
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            for c, (_, attr) in enumerate(COLUMNS):
                cell = QTableWidgetItem(str(getattr(row, attr)))
                if attr == "rate_text" and row.rate is not None:
                    cell.setData(Qt.ItemDataRole.UserRole, row.rate)
                self.table.setItem(r, c, cell)
        self.table.setSortingEnabled(True)
        self.table.resizeColumnsToContents()
        for button in (self.remove_button, self.clear_button):
            button.setEnabled(bool(self.loaded))
        current = self.metric_combo.currentText()
        self.metric_combo.blockSignals(True)
        self.metric_combo.clear()
        self.metric_combo.addItems(workload_names(self.rows))
        index = self.metric_combo.findText(current)
        self.metric_combo.setCurrentIndex(max(0, index))
        self.metric_combo.blockSignals(False)
        self.redraw_chart()

    def chart_bars(self) -> list[tuple[str, float, float | None, str]]:
        """(machine, measured, catalogue peak or None, unit) for the charted workload."""
        name = self.metric_combo.currentText()
        return [
            (r.machine, r.rate, r.catalogue_rate, r.unit)
            for r in self.rows
            if r.workload == name and r.rate is not None
        ]

    def redraw_chart(self) -> None:
        item = self.chart.getPlotItem()
        item.clear()
        bars = self.chart_bars()
        if not bars:
            item.setTitle("Load results to compare", color=theme.plot_foreground().name())
            self.chart_legend.setText("")
            return
        unit = bars[0][3]
        x = np.arange(len(bars), dtype=float)
        measured = np.array([b[1] for b in bars])
        measured_color, catalogue_color = theme.series_color(0), theme.series_color(1)
        item.addItem(
            pg.BarGraphItem(x=x - BAR_WIDTH / 2, height=measured, width=BAR_WIDTH, brush=measured_color)
        )
        catalogue = [(i, b[2]) for i, b in enumerate(bars) if b[2] is not None]
        if catalogue:
            item.addItem(
                pg.BarGraphItem(
                    x=np.array([i for i, _ in catalogue]) + BAR_WIDTH / 2,
                    height=np.array([v for _, v in catalogue]),
                    width=BAR_WIDTH,
                    brush=None,
                    pen=pg.mkPen(catalogue_color, width=2),
                )
            )
        item.getAxis("bottom").setTicks([[(i, b[0].split(" — ")[0][:28]) for i, b in enumerate(bars)]])
        item.setLabel("left", unit)
        item.setTitle(self.metric_combo.currentText(), color=theme.plot_foreground().name())
        top = max([*measured, *(v for _, v in catalogue)])
        item.setYRange(0, top * 1.1 or 1.0, padding=0)
        item.setXRange(-0.7, len(bars) - 0.3, padding=0)
        legend = f'<span style="color:{measured_color.name()}">■</span> measured'
        if catalogue:
            legend += f'&nbsp;&nbsp; <span style="color:{catalogue_color.name()}">□</span> catalogue peak'
        self.chart_legend.setText(legend)

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "chart"):
            theme.style_plot(self.chart)
            self.redraw_chart()
        super().changeEvent(event)
