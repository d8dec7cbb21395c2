"""The recommendation's two charts: memory components against the GPU's memory, and rent vs buy."""

from __future__ import annotations

from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QWidget

from gpu_advisor.core.estimates import COMPONENTS, MemoryEstimate
from gpu_advisor.core.result import Plan
from gpu_advisor.core.units import GIB, byte_unit, format_bytes, format_months
from gpu_advisor.ui import theme
from gpu_advisor.ui.glossary import tip
from gpu_advisor.wording.memory_parts import PART_ORDER, kv_pool_text, memory_parts
from gpu_advisor.wording.plan import cost_chart_message, cost_curve, gpu_line

BAR_WIDTH = 0.55
CHART_MIN_HEIGHT_PX = 180
CHART_HEIGHT_PX = 240
TICK_MARGIN_PX = 10  # around the plot area, and between two columns' labels
AXIS_TICK_PX = 12  # a bottom axis's line, tick and gap above its labels (pyqtgraph's defaults, 5 + 5, and 2)


def fit_label(text: str, metrics: QFontMetrics, width_px: int, max_lines: int = 3) -> str:
    """`text` wrapped at spaces onto as few lines (at most `max_lines`) as keep it `width_px` wide, a
    word or last line longer than that elided: pyqtgraph leaves out a tick label wider than its axis."""
    if metrics.horizontalAdvance(text) <= width_px:
        return text
    lines: list[str] = []
    for word in text.split(" "):
        trial = f"{lines[-1]} {word}" if lines else word
        if lines and (metrics.horizontalAdvance(trial) <= width_px or len(lines) == max_lines):
            lines[-1] = trial
        else:
            lines.append(word)
    elide = Qt.TextElideMode.ElideRight
    return "\n".join(metrics.elidedText(line, elide, max(width_px, 0)) for line in lines)


class _ValueAxis(pg.AxisItem):
    """A left axis that draws the label of a tick at the very bottom (the 0 of an axis from zero).

    With a grid, pyqtgraph's axis bounds are the plot's own, and a label half outside them is left
    out; as without a grid, half a label's height more is allowed at either end.
    """

    def boundingRect(self):  # pyqtgraph override
        return super().boundingRect().adjusted(0, -15, 0, 15)


class _ThemedPlot(pg.PlotWidget):
    """A PlotWidget that re-colours itself when the system palette changes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self._ready = False  # PlotWidget's own constructor already triggers a palette change
        super().__init__(parent, axisItems={"left": _ValueAxis("left")})
        self._ready = True
        self.setMenuEnabled(False)
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.setMinimumHeight(CHART_MIN_HEIGHT_PX)
        theme.style_plot(self)

    def sizeHint(self) -> QSize:  # Qt override
        # Asks for little height and takes what the page has: the result page scrolls as a whole, to
        # the height its parts ask for, and at 1280 x 800 the charts are to sit under the tier card.
        return QSize(super().sizeHint().width(), CHART_HEIGHT_PX)

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        if event.type() == QEvent.Type.PaletteChange and self._ready:
            theme.style_plot(self)
            self.redraw()
        super().changeEvent(event)

    def redraw(self) -> None:  # subclasses redraw their content for the new palette
        pass


def memory_columns(plan: Plan) -> list[tuple[str, MemoryEstimate]]:
    """The memory chart's columns: per GPU of the recommendation, and the job unsharded on one device.

    One column when the two differ only by the process overhead (one GPU per replica, nothing
    sharded: a single GPU, or data-parallel replicas that each hold the whole job), since two bars
    of the same height say nothing more than one. The labels are short, to read under a column at
    1024 px; the GPU is named once, in the legend's memory line.
    """
    best = plan.best
    unsharded = plan.memory
    if best is None:
        return [("unsharded, one device", unsharded)]
    per_gpu = best.per_gpu
    same = all(
        getattr(per_gpu.components, c) == getattr(unsharded.components, c)
        for c in COMPONENTS
        if c != "overhead"
    )
    if not same:
        return [("per GPU", per_gpu), ("unsharded, one device", unsharded)]
    return [("per GPU, a whole copy on each" if best.count > 1 else "per GPU", per_gpu)]


class MemoryChart(_ThemedPlot):
    """Stacked columns: the per-GPU and the unsharded footprint (one column when they are the same job),
    with the GPU's memory as a dashed line.

    The legend is HTML (`legend_html`) shown under the plot by the view, so it never covers the bars.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setToolTip(
            "Memory on one device, by component (GiB = 2^30 bytes). The dashed line is the recommended GPU's "
            "memory; a dashed box is memory the serving engine reserves and leaves unused.\n\n"
            + tip("kv_cache")
        )
        item = self.getPlotItem()
        item.setTitle("Memory per device")
        item.setLabel("left", "memory (GiB)")
        item.showGrid(x=False, y=True, alpha=0.25)
        self._plan: Plan | None = None
        self._ticks: list[str] = []  # each column's label in full, fitted to the axis when drawn
        self.shown_rows: list[tuple[str, int]] = []  # (column label, total bytes) for tests and exports
        self.legend_entries: list[tuple[str, str, str]] = []  # (colour, symbol, text)

    def show_plan(self, plan: Plan | None) -> None:
        self._plan = plan
        self.redraw()

    def _fit_ticks(self) -> None:
        """Each column's label within its share of the axis, on up to three lines."""
        item = self.getPlotItem()
        # None yet (PlotWidget's constructor resizes), or none left (a closed PlotWidget drops its item).
        if not getattr(self, "_ticks", None) or item is None:
            return
        axis = item.getAxis("bottom")
        plot_px = self.width() - item.getAxis("left").width() - 2 * TICK_MARGIN_PX
        slot_px = plot_px // len(self._ticks) - TICK_MARGIN_PX
        metrics = QFontMetrics(axis.font())
        fitted = [fit_label(text, metrics, slot_px) for text in self._ticks]
        axis.setTicks([list(enumerate(fitted))])
        # Room for every line: pyqtgraph sizes the axis to the labels as its own painter measures
        # them, a few pixels short a line, and the chart's edge cut a wrapped label's last line.
        lines = max(text.count("\n") + 1 for text in fitted)
        axis.setHeight(lines * metrics.lineSpacing() + AXIS_TICK_PX)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._fit_ticks()

    def legend_html(self) -> str:
        """The coloured entries on one wrapping line; a note without a symbol (the KV pool) under them."""
        keys = "&nbsp;&nbsp; ".join(  # an entry never wraps inside itself ("Non-PyTorch" neither)
            f'<span style="color:{color}">{symbol}</span>&nbsp;{text.replace(" ", "&nbsp;").replace("-", "&#8209;")}'
            for color, symbol, text in self.legend_entries
            if symbol
        )
        notes = [escape(text) for _, symbol, text in self.legend_entries if not symbol]
        return "<br>".join([keys, *notes])

    def redraw(self) -> None:
        item = self.getPlotItem()
        item.clear()
        self.shown_rows, self.legend_entries, self._ticks = [], [], []
        plan = self._plan
        if plan is None:
            return
        columns = memory_columns(plan)
        best = plan.best
        # GiB, as GPU memory is sold; TiB or PiB for a job far beyond any GPU (a million-sequence
        # micro-batch is 14 PiB), whose axis read '1.5e+07' in GiB.
        largest = max([memory.total_bytes for _, memory in columns] + [best.gpu_memory_bytes if best else 0])
        unit, scale = byte_unit(largest)
        if scale < GIB or largest < 10_000 * GIB:
            unit, scale = "GiB", GIB
        item.setLabel("left", f"memory ({unit})")
        starts = np.zeros(len(columns))
        x = np.arange(len(columns), dtype=float)
        # Each part in stacking order, its bytes per column (a part one column lacks is 0 there): the
        # overhead split into non-PyTorch memory, fragmentation and the engine's reserve where it was.
        sizes: dict[str, dict[int, int]] = {}
        labels: dict[str, str] = {}
        for i, (_, memory) in enumerate(columns):
            for part in memory_parts(memory):
                sizes.setdefault(part.key, {})[i] = part.size_bytes
                labels[part.key] = part.label
        fg = theme.plot_foreground()
        for key, per_column in sorted(sizes.items(), key=lambda kv: PART_ORDER.index(kv[0])):
            heights = np.array([per_column.get(i, 0) / scale for i in range(len(columns))])
            color = theme.component_color(key)
            unused = key == "engine_reserve"  # memory the engine leaves free: an outline, not a block
            pen = (
                pg.mkPen(fg, width=1, style=pg.QtCore.Qt.PenStyle.DashLine)
                if unused
                else pg.mkPen(theme.plot_background(), width=1)
            )
            drawn = heights > 0  # a column without this part gets no bar (a dashed edge would still show)
            item.addItem(
                pg.BarGraphItem(
                    x=x[drawn], y0=starts[drawn], height=heights[drawn], width=BAR_WIDTH, brush=color, pen=pen
                )
            )
            # The reserve's key is its dashed outline, in the foreground colour: its pale fill would vanish.
            self.legend_entries.append(
                (fg.name(), "▭", labels[key]) if unused else (color.name(), "■", labels[key])
            )
            starts += heights
        pools = [kv_pool_text(memory) for _, memory in columns]
        if any(pools):
            self.legend_entries.append((fg.name(), "", next(p for p in pools if p)))
        self.shown_rows = [(label, memory.total_bytes) for label, memory in columns]
        self._ticks = [f"{label}: {format_bytes(memory.total_bytes)}" for label, memory in columns]
        self._fit_ticks()
        top = float(starts.max())
        if best is not None:
            limit_gb = best.gpu_memory_bytes / scale
            item.addItem(
                pg.InfiniteLine(
                    pos=limit_gb, angle=0, pen=pg.mkPen(fg, width=2, style=pg.QtCore.Qt.PenStyle.DashLine)
                )
            )
            memory = f"GPU memory {format_bytes(best.gpu_memory_bytes)} ({gpu_line(best)})"
            self.legend_entries.append((fg.name(), "╌╌", memory))
            top = max(top, limit_gb)
        side = max(0.0, 2 - len(columns)) / 2  # a lone column as wide as one of two, centred
        item.setXRange(-0.6 - side, len(columns) - 0.4 + side, padding=0)
        item.setYRange(0, top * 1.08 or 1.0, padding=0)


class CostChart(_ThemedPlot):
    """Cumulative cost of renting against buying (purchase + electricity), break-even marked."""

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override: the break-even label's side
        super().resizeEvent(event)
        if getattr(self, "_plan", None) is not None:
            self.redraw()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setToolTip(tip("breakeven"))
        item = self.getPlotItem()
        item.setTitle("Rent or buy: cumulative cost")
        item.setLabel("bottom", "months of use")
        item.setLabel("left", "cumulative cost", units="USD")
        item.showGrid(x=True, y=True, alpha=0.25)
        self._plan: Plan | None = None
        self.message = ""
        self.legend_entries: list[tuple[str, str]] = []

    def show_plan(self, plan: Plan | None) -> None:
        self._plan = plan
        self.redraw()

    def legend_html(self) -> str:
        return "&nbsp;&nbsp; ".join(
            # A line's name may be long ('rent 4 × NVIDIA RTX PRO 6000 …'): it wraps, not the page.
            f'<span style="color:{color}">━</span>&nbsp;{text}'
            for color, text in self.legend_entries
        )

    def redraw(self) -> None:
        item = self.getPlotItem()
        item.clear()
        self.legend_entries = []
        best = None if self._plan is None else self._plan.best
        if best is None:
            self.message = "No recommendation to price."
            return
        # The verdict's pair: the rental and the purchase it compares, which may be different GPUs.
        curve = cost_curve(self._plan)
        be = curve.breakeven_months
        months = curve.x[-1]
        rent, buy = curve.rent, curve.buy
        x = np.array(curve.x, dtype=float)
        item.setLabel("bottom", curve.x_label)
        item.setTitle("Rent or buy: the training job" if curve.job else "Rent or buy: cumulative cost")
        fg = theme.plot_foreground()
        lines = (
            (rent, f"rent {curve.rent_what}", theme.rent_color()),
            (buy, f"buy {curve.buy_what} (purchase + electricity)", theme.buy_color()),
        )
        for values, text, color in lines:
            if values[0] is None:
                continue
            item.plot(x, np.array(values, dtype=float), pen=pg.mkPen(color, width=2))
            self.legend_entries.append((color.name(), text))
        self.message = cost_chart_message(self._plan, curve)
        if not curve.job and be is not None and be <= months and curve.breakeven_usd is not None:
            label = f"break-even {format_months(be)}"
            # Right of the line, or left of it when the label would not fit between it and the edge.
            plot_px = item.vb.width() or self.width() * 0.8
            right_px = (months - be) / months * plot_px
            side = 1 if right_px < QFontMetrics(self.font()).horizontalAdvance(label) + TICK_MARGIN_PX else 0
            item.addItem(
                pg.InfiniteLine(
                    pos=be,
                    angle=90,
                    pen=pg.mkPen(fg, width=1, style=pg.QtCore.Qt.PenStyle.DashLine),
                    label=label,
                    labelOpts={"position": 0.9, "color": fg, "anchors": [(side, 0), (side, 0)]},
                )
            )
            item.plot([be], [curve.breakeven_usd], pen=None, symbol="o", symbolSize=9, symbolBrush=fg)
        item.setXRange(0, months, padding=0.02)
        # Money from zero: a value axis that starts higher exaggerates the gap between the curves.
        known = [v for v in (*rent, *buy) if v is not None]
        item.setYRange(0, max(known, default=0.0) * 1.05 or 1.0, padding=0)
