"""Compare machines: load several results files; a table and a bar chart side by side."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFontMetrics
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

from gpu_advisor.bench.compare import Comparison
from gpu_advisor.core.files import FileFormatError
from gpu_advisor.core.units import format_bytes
from gpu_advisor.ui import theme
from gpu_advisor.ui.compare.rows import (
    ChartSeries,
    LoadedResults,
    chart_names,
    chart_series,
    cluster_curves,
    comparison,
)
from gpu_advisor.ui.dialogs import ErrorReporter
from gpu_advisor.wording.compare import CompareLine, better_text, compare_lines, relative_text
from gpu_advisor.wording.distributed import CurveChart

BAR_WIDTH = 0.38
BAR_X_MARGINS = (0.7, 0.7)  # x units left of the first bar and right of the last
CHART_SIDE_MARGIN_PX = 10  # pyqtgraph's margins around the plot area
BAR_LABEL_GAP_PX = 8  # between two bars' labels
CHART_MAX_WIDTH_PX = 640
CHART_GAP_PX = 8
MIN_FILE_COLUMN_PX = 110  # "1,234 tokens/s" whole; below it the table scrolls sideways


def elide_labels(names: list[str], metrics: QFontMetrics, slot_px: int) -> list[str]:
    """Each bar's label within its slot, elided in the middle (two runs of one machine differ at the
    end of their file names: 'this-mac…cpu' and 'this-mac…stopped', not 'this-machine-…' twice)."""
    return [metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, max(slot_px, 0)) for name in names]


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
        self.comparison: Comparison | None = None
        self.lines: list[CompareLine] = []  # the table's worded lines
        self.series: list[ChartSeries] = []
        self.curves: list[CurveChart] = []  # cluster runs: bus bandwidth against message size
        self.add_button = QPushButton("&Add results…")
        self.add_button.setToolTip(
            "Load gpu-advisor/bench@1 files saved by the Monitor or `gpu-advisor bench --json`."
        )
        self.remove_button = QPushButton("&Remove")
        self.clear_button = QPushButton("C&lear")
        self.files = QListWidget()
        self.files.setAccessibleName("Loaded results files")
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.files.setMaximumHeight(4 * self.files.fontMetrics().height() + 8)
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

        self.table = QTableWidget(0, 0)
        self.table.setAccessibleName("Comparison of results files")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        # A long cell (a watched run's command line) is cut in its middle, whole in its tooltip.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # The last column ("better") as wide as its words: stretched, it took 580 px at 1920.
        self.table.horizontalHeader().setStretchLastSection(False)
        self.table.viewport().installEventFilter(self)  # the files' columns share the table's width
        self._natural_widths: list[int] = []

        self.baseline_combo = QComboBox()
        self.baseline_combo.setAccessibleName("Baseline file")
        self.baseline_combo.setToolTip(
            "The file the others are compared with: each other file gets a column of its change against "
            "it, marked better or worse (the last column says which way is better for each row)."
        )
        self.baseline_combo.currentIndexChanged.connect(lambda _i: self._fill_table())
        self.metric_combo = QComboBox()
        self.metric_combo.setAccessibleName("Workload to chart")
        self.chart = pg.PlotWidget()
        self.chart.setMenuEnabled(False)
        self.chart.hideButtons()
        self.chart.getPlotItem().getViewBox().setMouseEnabled(x=False, y=False)
        self.chart.setMinimumWidth(360)
        self.chart.installEventFilter(self)  # bar labels follow the chart's width
        self.chart_legend = QLabel()
        self.chart_legend.setWordWrap(True)
        chart_box = QWidget()
        chart_layout = QVBoxLayout(chart_box)
        # Room between the splitter's handle and the chart's axis title (the handle's grip drew on it).
        chart_layout.setContentsMargins(CHART_GAP_PX, 0, 0, 0)
        metric_row = QHBoxLayout()
        metric_label = QLabel("&Chart:")
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
        splitter.setSizes([720, 480])
        # In a wide window the table takes the rest (a column per file and per comparison: at 1920 px
        # they were cut at the splitter while the bars spread over 760 px).
        chart_box.setMaximumWidth(CHART_MAX_WIDTH_PX)
        self.splitter = splitter

        baseline_row = QHBoxLayout()
        baseline_label = QLabel("Relative t&o:")
        baseline_label.setBuddy(self.baseline_combo)
        baseline_row.addWidget(baseline_label)
        baseline_row.addWidget(self.baseline_combo, 1)
        baseline_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addWidget(self.hint)
        layout.addLayout(top)
        layout.addLayout(baseline_row)
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
            self.files.addItem(f"{item.label.replace(chr(10), ' — ')}   ({created})")
        self.comparison = comparison(self.loaded) if self.loaded else None
        self.lines = compare_lines(self.comparison) if self.comparison else []
        baseline = self.baseline_combo.currentIndex()
        self.baseline_combo.blockSignals(True)
        self.baseline_combo.clear()
        self.baseline_combo.addItems([item.label.replace("\n", " — ") for item in self.loaded])
        self.baseline_combo.setCurrentIndex(baseline if 0 <= baseline < len(self.loaded) else 0)
        self.baseline_combo.setEnabled(len(self.loaded) > 1)
        self.baseline_combo.blockSignals(False)
        self._fill_table()
        for button in (self.remove_button, self.clear_button):
            button.setEnabled(bool(self.loaded))
        self.series = chart_series(self.comparison) if self.comparison else []
        self.curves = cluster_curves(self.loaded)
        current = self.metric_combo.currentText()
        self.metric_combo.blockSignals(True)
        self.metric_combo.clear()
        self.metric_combo.addItems([s.label for s in self.series])
        self.metric_combo.addItems([f"{c.title} against message size" for c in self.curves])
        index = self.metric_combo.findText(current)
        if index < 0 and self.series:  # the first figure that the most files have, not an empty chart
            most = max(sum(v is not None for v in s.measured) for s in self.series)
            index = next(
                i for i, s in enumerate(self.series) if sum(v is not None for v in s.measured) == most
            )
        self.metric_combo.setCurrentIndex(max(0, index))
        self.metric_combo.blockSignals(False)
        self.redraw_chart()

    def _fill_table(self) -> None:
        """The files' columns, then each other file against the baseline, then which way is better."""
        names = list(self.comparison.names) if self.comparison else []
        baseline = max(0, self.baseline_combo.currentIndex())
        others = [i for i in range(len(names)) if i != baseline]
        short = chart_names(self.loaded)
        headers = [*names, *(f"{short[i]}\nvs {short[baseline]}" for i in others)]
        if names:
            headers.append("better")
        rows = {row.label: row for row in self.comparison.rows} if self.comparison else {}
        self.table.clear()
        self.table.setColumnCount(len(headers))
        self.table.setRowCount(len(self.lines))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setVerticalHeaderLabels([line.label for line in self.lines])
        for r, line in enumerate(self.lines):
            row = None if line.reference else rows.get(line.label)
            cells = list(line.cells)
            if row is not None:
                cells += [relative_text(row, i, baseline) for i in others] + [better_text(row)]
            if line.reference:  # the catalogue's figures for the row above
                self.table.verticalHeaderItem(r).setForeground(theme.muted_color())
            for c, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if c < len(names):
                    cell.setToolTip(text)  # whole, where the column cuts it
                if line.reference or c >= len(names) + len(others):
                    cell.setForeground(theme.muted_color())
                elif text.endswith("(better)"):
                    cell.setForeground(theme.ok_color())
                elif text.endswith("(worse)"):
                    cell.setForeground(theme.warn_color())
                self.table.setItem(r, c, cell)  # "same" in the text colour: neither better nor worse
        self.table.resizeColumnsToContents()
        self._natural_widths = [self.table.columnWidth(c) for c in range(self.table.columnCount())]
        self._fit_file_columns()

    def _fit_file_columns(self) -> None:
        """The files' columns share what the comparison columns leave of the table's width, equally,
        each no wider than the widest needs: one long command line no longer pushes the other files
        out of view."""
        files = len(self.comparison.names) if self.comparison else 0
        natural = self._natural_widths
        if not files or len(natural) != self.table.columnCount():
            return
        room = self.table.viewport().width() - sum(natural[files:])
        width = max(MIN_FILE_COLUMN_PX, min(max(natural[:files]), room // files))
        for c in range(files):
            self.table.setColumnWidth(c, width)

    def relative(self, row_label: str, column: int) -> str:
        """The change of the column-th file against the baseline on a row ('' for the baseline)."""
        baseline = max(0, self.baseline_combo.currentIndex())
        if column == baseline or self.comparison is None:
            return ""
        return relative_text(self.comparison.row(row_label), column, baseline)

    def cell(self, row_label: str, column: int) -> str:
        """The text in the line labelled `row_label` for the column-th file (tests, exports)."""
        line = next(line for line in self.lines if line.label == row_label)
        return line.cells[column]

    def charted(self) -> ChartSeries | None:
        index = self.metric_combo.currentIndex()
        return self.series[index] if 0 <= index < len(self.series) else None

    def charted_curves(self) -> CurveChart | None:
        """The bus-bandwidth chart chosen, when the chosen chart is one (listed after the bars)."""
        index = self.metric_combo.currentIndex() - len(self.series)
        return self.curves[index] if 0 <= index < len(self.curves) else None

    def redraw_chart(self) -> None:
        item = self.chart.getPlotItem()
        item.clear()
        item.getAxis("bottom").setTicks(None)
        item.setLabel("bottom", "")
        self.chart.setToolTip("")
        curves = self.charted_curves()
        if curves is not None:
            self._draw_curves(curves)
            return
        series = self.charted()
        fg = theme.plot_foreground().name()
        if series is None:
            item.setTitle("Load results to compare" if not self.loaded else "Nothing to chart", color=fg)
            self.chart_legend.setText("")
            return
        x = np.arange(len(series.measured), dtype=float)
        measured = np.array([np.nan if v is None else v for v in series.measured])
        measured_color, catalogue_color = theme.series_color(0), theme.series_color(1)
        known = ~np.isnan(measured)
        item.addItem(
            pg.BarGraphItem(
                x=x[known] - BAR_WIDTH / 2, height=measured[known], width=BAR_WIDTH, brush=measured_color
            )
        )
        tops = list(measured[known])
        if series.catalogue is not None:
            cat = np.array([np.nan if v is None else v for v in series.catalogue])
            has = ~np.isnan(cat)
            item.addItem(
                pg.BarGraphItem(
                    x=x[has] + BAR_WIDTH / 2,
                    height=cat[has],
                    width=BAR_WIDTH,
                    brush=None,
                    pen=pg.mkPen(catalogue_color, width=2),
                )
            )
            tops += list(cat[has])
        assert self.comparison is not None
        names = chart_names(self.loaded)
        self._label_bars()
        # The bars' names in full (their labels may be elided); names from users' files, as text.
        files = "; ".join(escape(loaded.label.replace("\n", " — ")) for loaded in self.loaded)
        self.chart.setToolTip(f"<p>Bars, left to right: {files}</p>")
        item.setLabel("left", series.unit)
        item.setTitle(f"{series.label} ({series.better})" if series.better else series.label, color=fg)
        item.setYRange(0, (max(tops) if tops else 1.0) * 1.1 or 1.0, padding=0)
        item.setXRange(-BAR_X_MARGINS[0], len(names) - 1 + BAR_X_MARGINS[1], padding=0)
        legend = f'<span style="color:{measured_color.name()}">■</span> measured'
        if series.catalogue is not None:
            legend += f'&nbsp;&nbsp; <span style="color:{catalogue_color.name()}">□</span> catalogue peak'
        self.chart_legend.setText(legend)

    def _label_bars(self) -> None:
        """Name the bars, each label as wide as its bar's slot (again when the chart is resized)."""
        item = self.chart.getPlotItem()  # None once the chart is closed
        if self.charted() is None or not self.loaded or item is None:
            return
        names = chart_names(self.loaded)
        axis = item.getAxis("bottom")
        plot_px = self.chart.width() - item.getAxis("left").width() - 2 * CHART_SIDE_MARGIN_PX
        # Bars one x unit apart, in an x range of the bars plus the margins either side.
        unit_px = plot_px / (len(names) - 1 + sum(BAR_X_MARGINS))
        slot_px = int(unit_px) - BAR_LABEL_GAP_PX
        axis.setTicks([list(enumerate(elide_labels(names, QFontMetrics(axis.font()), slot_px)))])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if watched is self.chart and event.type() == QEvent.Type.Resize:
            self._label_bars()
        elif watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_file_columns()
        return super().eventFilter(watched, event)

    def _draw_curves(self, chart: CurveChart) -> None:
        """Lines of bus bandwidth over message size (log2 axis, labelled in bytes), one per file."""
        item = self.chart.getPlotItem()
        legend = []
        tops: list[float] = []
        for i, curve in enumerate(chart.curves):
            color = theme.series_color(i)
            x = np.log2(np.array(curve.sizes_bytes, dtype=float))
            item.addItem(
                pg.PlotDataItem(
                    x,
                    np.array(curve.values),
                    pen=pg.mkPen(color, width=2),
                    symbol="o",
                    symbolSize=5,
                    symbolBrush=color,
                    symbolPen=None,
                )
            )
            tops += list(curve.values)
            legend.append(f'<span style="color:{color.name()}">■</span> {escape(curve.label)}')
        sizes = sorted({b for c in chart.curves for b in c.sizes_bytes})
        lo, hi = int(np.log2(sizes[0])), int(np.ceil(np.log2(sizes[-1])))
        step = max(1, (hi - lo) // 6)
        ticks = [(k, format_bytes(2**k)) for k in range(lo, hi + 1, step)]
        item.getAxis("bottom").setTicks([ticks])
        item.setLabel("bottom", "message size")
        item.setLabel("left", chart.unit)
        item.setTitle(f"{chart.title} (higher is better)", color=theme.plot_foreground().name())
        item.setXRange(lo - 0.3, hi + 0.3, padding=0)
        item.setYRange(0, (max(tops) if tops else 1.0) * 1.1 or 1.0, padding=0)
        self.chart_legend.setText("&nbsp;&nbsp; ".join(legend) + "<br>nccl-tests bus bandwidth (median time)")

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "chart"):
            theme.style_plot(self.chart)
            self.redraw_chart()
        super().changeEvent(event)
