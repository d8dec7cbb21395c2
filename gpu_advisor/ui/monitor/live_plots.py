"""Six live pyqtgraph plots redrawn at 15 Hz from ring buffers (pyqtgraph's scrollingPlots recipe).

Each curve is created once with peak downsampling and clip-to-view; every tick copies the ring into
preallocated arrays and calls setData(skipFiniteCheck=True, connect='finite'): NaN (unknown) shows
as a gap. Nothing is drawn per sample. Every y axis starts at zero and spans at least its plot's
minimum, so a steady reading looks steady; each title prints the latest reading (nvitop's habit),
refreshed with the texts at 1 Hz.

Axes are what a redraw costs: a plot whose range changed lays out and draws its ticks again (about
4 ms of Python a plot on the development machines, against under 1 ms for a new curve), and a
repaint holds the GUI thread. So the time axis moves on in steps (a thirtieth of the window), at
most two plots a tick (the others follow on the next ticks, 67 ms apart), and each y axis tops out
at a round number, which changes only when a reading outgrows it (benchmarks/ui_stall.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from gpu_advisor.core.units import (
    GIB,
    NA,
    format_bytes,
    format_celsius,
    format_mhz,
    format_pct,
    format_rate,
    format_watts,
)
from gpu_advisor.telemetry.channels import CHANNELS
from gpu_advisor.ui import theme
from gpu_advisor.ui.glossary import tip
from gpu_advisor.ui.monitor.series import TELEMETRY_CHANNELS, RingSeries
from gpu_advisor.wording.checklist import live_rate_unit

REDRAW_HZ = 15


@dataclass(frozen=True)
class PlotSpec:
    key: str
    gpu_title: str
    cpu_title: str
    unit: str
    tooltip: str = ""
    # Smallest y span shown, in the plot's unit, so that a flat line is not blown up into noise
    # (a steady 2596 MHz clock should look steady). None: as small as the data.
    min_span: float | None = None


PLOT_MIN_SPAN = {
    "utilisation_pct": 100.0,
    "memory_gib": 0.5,
    "power_w": 50.0,
    "temperature_c": 10.0,
    "clock_mhz": 500.0,
}
PLOTS = (
    *(
        PlotSpec(c.key, c.gpu_label, c.cpu_label, c.unit, c.tooltip, PLOT_MIN_SPAN[c.key])
        for c in CHANNELS  # telemetry.channels: one row per telemetry plot
    ),
    PlotSpec(
        "throughput",
        "Throughput",
        "Throughput",
        "per s",
        "Each timed step's rate as the workload runs, in the unit of its result.\n" + tip("throughput"),
    ),
)
# The latest reading in each telemetry plot's title, from the plot's unit.
LATEST_TEXT: dict[str, Callable[[float], str]] = {
    "utilisation_pct": lambda v: format_pct(v / 100),
    # in GiB as the axis, but a process of a few MiB reads in MiB rather than "0.0 GiB"
    "memory_gib": lambda v: format_bytes(v * GIB, "GiB" if v >= 0.05 else None),
    "power_w": format_watts,
    "temperature_c": format_celsius,
    "clock_mhz": format_mhz,
}
# Below this height two rows of plots are each too low to read (ticks run into each other at ~90 px).
TWO_ROWS_MIN_HEIGHT_PX = 330
# Below this height the one row of plots is low (a window at its least): two y ticks, no x axis title.
LOW_ROW_HEIGHT_PX = 150
HEADROOM = 1.15  # the y axis reaches at least 15 % above the highest visible point
X_STEP_FRACTION = 1 / 30  # the time axis moves on by this share of the window at a time
MIN_X_STEP_S = 1.0
MIN_X_SPAN_S = 10.0  # the time axis spans at least this much from the start of a run
X_AXES_PER_REDRAW = 2  # plots moved onto a new time range per tick
ROUND_TOPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)  # times a power of ten


def round_top(value: float) -> float:
    """The smallest 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten at or above `value`."""
    if value <= 0 or not math.isfinite(value):
        return value
    power = 10.0 ** math.floor(math.log10(value))
    return next(m * power for m in ROUND_TOPS if m * power >= value * (1 - 1e-12))


class LivePlots(QWidget):
    """The monitor's plots; `start()`/`stop()` the redraw timer, `refresh()` draws once.

    A metric with no reading at all on this machine (power on a CPU, a temperature psutil cannot
    read) gets no plot: the others take its room and a line below names what is not measured.
    """

    def __init__(
        self, telemetry: RingSeries, throughput: RingSeries, window_s: float, parent: QWidget | None = None
    ):
        super().__init__(parent)
        if telemetry.channels != len(TELEMETRY_CHANNELS):
            raise ValueError("telemetry buffer must have one channel per TELEMETRY_CHANNELS")
        self._telemetry = telemetry
        self._throughput = throughput
        self.window_s = window_s
        self._gpu_mode = False
        self._throughput_unit = "tokens/s"
        self._rate_workload = ""  # the workload whose steps the throughput plot shows
        # Preallocated read buffers (STYLE.md: no allocation per redraw).
        self._t = np.empty(telemetry.capacity)
        self._v = np.empty((telemetry.channels, telemetry.capacity))
        self._tp_t = np.empty(throughput.capacity)
        self._tp_v = np.empty((1, throughput.capacity))
        self._tp_scaled = np.empty(throughput.capacity)
        self._tp_scale = 1.0  # base units per plotted unit of the throughput curve
        self._drawn_versions = (-1, -1)  # ring versions at the last redraw: nothing new, no redraw
        self._n = self._m = 0  # points of each ring in the read buffers
        self._unavailable: set[str] = set()  # channels with no reading at all on this machine
        self._unmeasured: set[str] = set()  # channels this run cannot read, known when it starts
        self.redraws = 0  # ticks that drew something (tests and the stall benchmark read it)
        self.points_drawn = 0  # points handed to the curves on the last redraw
        self.plots: dict[str, pg.PlotWidget] = {}
        self.curves: dict[str, pg.PlotDataItem] = {}
        self._grid = QGridLayout()
        self._grid.setSpacing(6)
        self.unavailable_note = QLabel()
        self.unavailable_note.setEnabled(False)  # muted palette colour
        self.unavailable_note.setVisible(False)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(self._grid, 1)
        column.addWidget(self.unavailable_note)
        for i, spec in enumerate(PLOTS):
            plot = pg.PlotWidget()
            plot.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a plot has nothing to do with the keyboard
            plot.setMenuEnabled(False)
            plot.hideButtons()
            plot.setMinimumHeight(100)
            plot.setToolTip(spec.tooltip)
            item = plot.getPlotItem()
            item.setLabel("bottom", "time (s)")
            for side in ("bottom", "left"):  # no unit on these axes: no SI prefix to choose, and
                item.getAxis(side).enableAutoSIPrefix(False)  # choosing it redoes the label each move
            item.getViewBox().setMouseEnabled(x=False, y=False)
            curve = item.plot(pen=pg.mkPen(theme.series_color(i), width=2))
            curve.setDownsampling(auto=True, method="peak")
            curve.setClipToView(True)
            item.disableAutoRange()
            item.setYRange(0, spec.min_span or 1.0, padding=0)
            self.plots[spec.key] = plot
            self.curves[spec.key] = curve
        self._latest: dict[str, str] = {}
        self._columns = 0  # of the plots' grid as placed
        self._placed_low = False  # and whether they were placed in one low row
        self._titles: dict[str, tuple[str, str]] = {}  # (title, axis label) as set, by plot key
        self._y_tops: dict[str, float] = {}  # the top of each y axis as set
        self._x_ranges: dict[str, tuple[float, float]] = {}  # each plot's time range as set
        self._x_target: tuple[float, float] | None = None  # the time range every plot moves to
        self._place_plots()
        self._restyle()
        self.timer = QTimer(self)
        self.timer.setInterval(round(1000 / REDRAW_HZ))
        self.timer.timeout.connect(self.refresh)

    # ---- control -----------------------------------------------------------------------------------
    def set_mode(self, gpu: bool, throughput_unit: str = "tokens/s") -> None:
        """GPU metrics or host metrics (CPU mode); changes the titles."""
        self._unavailable = set()
        self._unmeasured = set()
        self._gpu_mode = gpu
        self._throughput_unit = throughput_unit
        self._place_plots()
        self._restyle()

    def latest_text(self, key: str) -> str:
        """The reading printed in a plot's title ('' before the first)."""
        return self._latest.get(key, "")

    def refresh_titles(self) -> None:
        """Print each plot's latest reading in its title (the texts' 1 Hz, not every redraw)."""
        latest = self._telemetry.latest()
        texts: dict[str, str] = {}
        if latest is not None:
            for c, key in enumerate(TELEMETRY_CHANNELS):
                value = float(latest[1][c])
                texts[key] = NA if np.isnan(value) else LATEST_TEXT[key](value)
        rate = self._throughput.latest()
        tag = self._throughput.tag
        if rate is not None and isinstance(tag, tuple) and not np.isnan(rate[1][0]):
            # in the plot's own unit, so that the title and the axis read alike
            texts["throughput"] = format_rate(float(rate[1][0]) / self._tp_scale, self._throughput_unit)
        self._latest = texts
        self._set_titles()  # sets only the titles whose text changed

    def start(self, unmeasured: set[str] | None = None) -> None:
        """A run starts: redraw at REDRAW_HZ. The plots of `unmeasured` channels (known to have no
        reading in this run, e.g. a CPU's power) make room now, with the rest of the start's layout,
        rather than a second into the run when the data shows it: that would lay every plot out and
        draw it again at once, mid-run."""
        self._unmeasured = set(unmeasured or ())
        if not self._unmeasured <= self._unavailable:
            self._unavailable |= self._unmeasured
            self._place_plots()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        self.refresh()
        self._move_x_axes(limit=None)  # no later tick to finish the step

    # ---- drawing -----------------------------------------------------------------------------------
    def _title(self, spec: PlotSpec) -> str:
        return spec.gpu_title if self._gpu_mode else spec.cpu_title

    def _place_plots(self) -> None:
        """Grid the plots that have readings (three columns, two when four or fewer; one row when the
        area is too low for two readable rows); hide the rest."""
        shown = [spec for spec in PLOTS if spec.key not in self._unavailable]
        columns = len(shown) if self._one_row() else 3 if len(shown) > 4 else 2
        self._columns = columns
        for spec in PLOTS:
            self._grid.removeWidget(self.plots[spec.key])
            self.plots[spec.key].setVisible(spec.key not in self._unavailable)
        low = self._placed_low = self._low()
        for i, spec in enumerate(shown):
            self._grid.addWidget(self.plots[spec.key], i // columns, i % columns)
            # one low row: the curve gets the time axis label's line (the ticks still say seconds)
            self.plots[spec.key].getPlotItem().getAxis("bottom").showLabel(not low)
            self._set_y_ticks(spec.key)
        missing = [self._title(spec) for spec in PLOTS if spec.key in self._unavailable]
        self.unavailable_note.setText(
            f"Not measured on this machine: {', '.join(missing)}." if missing else ""
        )
        self.unavailable_note.setVisible(bool(missing))

    def _one_row(self) -> bool:
        return self.height() < TWO_ROWS_MIN_HEIGHT_PX

    def _low(self) -> bool:
        return self.height() < LOW_ROW_HEIGHT_PX

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        shown = sum(spec.key not in self._unavailable for spec in PLOTS)
        wanted = shown if self._one_row() else 3 if shown > 4 else 2
        if wanted != self._columns or self._low() != self._placed_low:
            self._place_plots()
        super().resizeEvent(event)

    def _restyle(self) -> None:
        for spec in PLOTS:
            theme.style_plot(self.plots[spec.key])
        self._titles.clear()
        self._set_titles()

    def _set_titles(self) -> None:
        """Each plot's title, with its latest reading; only the ones that changed (a title is laid out
        again on every change)."""
        fg = theme.plot_foreground().name()
        tag = self._throughput.tag
        # a cluster run's rate points are its collectives' message sizes (their bus bandwidth)
        per_size = isinstance(tag, tuple) and str(tag[1]).startswith("busbw")
        for spec in PLOTS:
            # With a reading the title is short, "CPU clock: 2,100 MHz" (the reading carries the axis's
            # unit), so that four plots fit in one row at 1024 px.
            throughput = spec.key == "throughput"
            unit = self._throughput_unit if throughput else spec.unit
            latest = self._latest.get(spec.key)
            name = "Bus bandwidth" if throughput and per_size else self._title(spec)
            title = f"{name}: <b>{latest}</b>" if latest else f"{name} ({unit})"
            # the throughput's workload is under its axis (a new one relabels it): short titles
            points = "message sizes" if per_size else "steps"
            steps = f"time (s), {self._rate_workload} {points}" if throughput and self._rate_workload else ""
            if self._titles.get(spec.key) != (title, steps):
                self._titles[spec.key] = (title, steps)
                item = self.plots[spec.key].getPlotItem()
                item.setTitle(title, color=fg, size="10pt")
                if throughput:
                    item.setLabel("bottom", steps or "time (s)")

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        if event.type() == QEvent.Type.PaletteChange and self.plots:
            self._restyle()
        super().changeEvent(event)

    def refresh(self) -> None:
        """Copy the rings that changed into the preallocated arrays and hand them to their curves.

        Skipped when no point arrived since the last redraw: samples come at 2-10 Hz, so most 15 Hz
        ticks cost nothing (the GIL stays with the workload thread). A new step's rate alone redraws
        the throughput plot alone, and a new sample the telemetry plots: a curve handed the same
        data is drawn again all the same (its path, its bounds, its plot's paint), and steps come
        up to 15 times a second.
        """
        versions = (self._telemetry.version, self._throughput.version)
        if versions == self._drawn_versions:
            self._move_x_axes()  # the plots a step left for this tick
            return
        telemetry_new = versions[0] != self._drawn_versions[0]
        throughput_new = versions[1] != self._drawn_versions[1]
        self._drawn_versions = versions
        if telemetry_new:
            self._n = self._telemetry.read_into(self._t, self._v)
        if throughput_new:
            self._m = self._throughput.read_into(self._tp_t, self._tp_v)
        n, m = self._n, self._m
        if not n and not m:
            for curve in self.curves.values():
                curve.setData([], [])
            return
        latest = max(self._t[n - 1] if n else 0.0, self._tp_t[m - 1] if m else 0.0)
        step = max(MIN_X_STEP_S, self.window_s * X_STEP_FRACTION)
        x_max = max(MIN_X_SPAN_S, math.ceil(latest / step) * step)
        x_min = max(0.0, x_max - self.window_s)
        moved = (x_min, x_max) != self._x_target  # what is visible changed: the y axes follow
        if telemetry_new:
            unavailable = set(self._unmeasured)
            for c, key in enumerate(TELEMETRY_CHANNELS):
                self.curves[key].setData(self._t[:n], self._v[c, :n], skipFiniteCheck=True, connect="finite")
                if n >= 3 and np.isnan(self._v[c, :n]).all():
                    unavailable.add(key)
            if unavailable != self._unavailable:
                self._unavailable = unavailable
                self._place_plots()
        if telemetry_new or moved:
            visible = self._t[:n] >= x_min
            for c, spec in enumerate(PLOTS[: len(TELEMETRY_CHANNELS)]):
                self._fit_y(spec, self._v[c, :n][visible])
        if throughput_new:
            self._draw_throughput(m)
        if throughput_new or moved:
            self._fit_y(PLOTS[-1], self._tp_scaled[:m][self._tp_t[:m] >= x_min])
        self._x_target = (x_min, x_max)
        self._move_x_axes()
        self.redraws += 1
        self.points_drawn = n + m

    def _move_x_axes(self, limit: int | None = X_AXES_PER_REDRAW) -> None:
        """Put up to `limit` plots (None: all) whose time range is not the target's onto it."""
        target = self._x_target
        if target is None:
            return
        for key, plot in self.plots.items():
            if self._x_ranges.get(key) == target:
                continue
            if limit is not None:
                if limit <= 0:
                    return
                limit -= 1
            self._x_ranges[key] = target
            plot.getPlotItem().setXRange(*target, padding=0)

    def _draw_throughput(self, m: int) -> None:
        """The live rate in the unit its largest value reads best in (GFLOP/s on a CPU, TFLOP/s on a GPU)."""
        values = self._tp_v[0, :m]
        tag = self._throughput.tag
        if m and isinstance(tag, tuple) and not np.isnan(values).all():
            workload, key = tag
            unit, self._tp_scale = live_rate_unit(key, float(np.nanmax(values)))
            if (unit, workload) != (self._throughput_unit, self._rate_workload):
                self._throughput_unit, self._rate_workload = unit, workload
                self.refresh_titles()  # the latest reading too: a new workload, a new unit
        np.divide(values, self._tp_scale, out=self._tp_scaled[:m])
        self.curves["throughput"].setData(
            self._tp_t[:m], self._tp_scaled[:m], skipFiniteCheck=True, connect="finite"
        )

    def _fit_y(self, spec: PlotSpec, visible: np.ndarray) -> None:
        """From zero to a little above the highest visible point, and never less than the minimum span."""
        finite = visible[np.isfinite(visible)]
        top = round_top(float(finite.max()) * HEADROOM) if finite.size else 0.0
        if spec.key == "utilisation_pct":
            top = 100.0
        top = max(top, spec.min_span or 0.0)
        if top <= 0:
            top = 1.0
        if self._y_tops.get(spec.key) != top:  # a new range relays the axis out: only on a change
            self._y_tops[spec.key] = top
            self.plots[spec.key].getPlotItem().setYRange(0, top, padding=0)
            self._set_y_ticks(spec.key)

    def _set_y_ticks(self, key: str) -> None:
        """One low row has room for two ticks (0 and the top), not the five or six pyqtgraph chooses."""
        top = self._y_tops.get(key)
        spacing = (top, top) if self._placed_low and top else ()
        self.plots[key].getPlotItem().getAxis("left").setTickSpacing(*spacing)
