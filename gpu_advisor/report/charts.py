"""The report's charts, drawn with QPainter: memory breakdown, rent against buy, telemetry.

Each chart has a `paint_*` function (any QPainter, a rectangle in points) and a `*_image` function
that renders it at print resolution. Units are written on every axis.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter, QPen

from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.estimates import COMPONENTS, OWNERSHIP_MONTHS
from gpu_advisor.core.result import Option, Plan
from gpu_advisor.core.units import GIB, format_months, format_usd_short
from gpu_advisor.report import palette
from gpu_advisor.report.chartkit import (
    GRID,
    INK,
    MUTED,
    PALETTE,
    PRINT_DPI,
    Axes,
    draw_legend,
    draw_message,
    draw_series,
    draw_title,
    font,
    nice_ticks,
    plot_area,
    render_image,
)
from gpu_advisor.telemetry.channels import CHANNELS
from gpu_advisor.telemetry.samples import GpuSample, HostSample, Sample, of_gpu
from gpu_advisor.wording.answer import answer_pair
from gpu_advisor.wording.plan import COMPONENT_LABELS, CostCurve, cost_curve, gpu_line, memory_text
from gpu_advisor.wording.results import telemetry_title
from gpu_advisor.wording.shortlist import shortlist

COMPONENT_COLORS = {name: QColor(palette.COMPONENT_COLORS[name]) for name in COMPONENTS}
RENT, BUY = QColor(palette.RENT), QColor(palette.BUY)
OVER = QColor("#C62828")  # a footprint beyond the GPU's memory
MEMORY_CHART_ROWS = 6


# ---- memory -----------------------------------------------------------------------------------------
def memory_chart_options(plan: Plan, limit: int = MEMORY_CHART_ROWS) -> list[Option]:
    """The recommended option first, then the options table's others (wording.shortlist) in the
    planner's order: the chart draws no option the table leaves out."""
    chosen: list[Option] = []
    best = plan.best
    if best is not None:
        chosen.append(best)
    for option in shortlist(plan).shown:
        if len(chosen) >= limit:
            break
        if option is not best:
            chosen.append(option)
    return chosen


def overhead_label(options: Sequence[Option]) -> str:
    """The grey segment's legend: it holds a serving engine's unused reserve where one is drawn
    (vLLM leaves 10% of the card), not only the CUDA context and fragmentation."""
    reserve = any((o.per_gpu.overhead_parts or {}).get("engine_reserve_bytes", 0) > 0 for o in options)
    return "CUDA context + fragmentation + engine reserve" if reserve else COMPONENT_LABELS["overhead"]


def memory_chart_size(plan: Plan, width_pt: float) -> tuple[float, float]:
    rows = len(memory_chart_options(plan))
    return width_pt, 70 + 20 * max(rows, 1)


def paint_memory_chart(p: QPainter, rect: QRectF, plan: Plan) -> None:
    """Per-GPU memory of the best options, stacked by component, against each GPU's memory."""
    options = memory_chart_options(plan)
    top = rect.top() + draw_title(p, rect, "Memory per GPU, by component, against the GPU's memory")
    present = [c for c in COMPONENTS if any(getattr(o.per_gpu_components, c) for o in options)]
    labels = {**COMPONENT_LABELS, "overhead": overhead_label(options)}
    legend = [(labels[c], COMPONENT_COLORS[c], "box") for c in present]
    legend.append(("GPU memory", INK, "line"))
    top += draw_legend(p, rect.left(), top, legend, max_width=rect.width())
    if not options:
        draw_message(p, rect.adjusted(0, top - rect.top(), 0, 0), "No GPU in the catalogue was considered.")
        return
    p.setFont(font(7.5))
    fm = QFontMetricsF(p.font())
    labels = [gpu_line(o) for o in options]
    label_w = min(max(fm.horizontalAdvance(t) for t in labels) + 8, rect.width() * 0.38)
    value_w = max(fm.horizontalAdvance(memory_text(o)) for o in options) + 8
    hi = max(max(o.per_gpu_bytes, o.gpu_memory_bytes) for o in options) / GIB
    ticks = nice_ticks(0, hi * 1.02)
    area = QRectF(rect.left() + label_w, top + 4, rect.width() - label_w - value_w, 0)
    area.setBottom(rect.bottom() - 2 * fm.height() - 8)
    axes = Axes(area, ticks, [0.0, 1.0])
    axes.draw_frame(p, "GiB per GPU (1 GiB = 2^30 bytes)", "", y_format=lambda _: "")
    row_h = area.height() / len(options)
    for i, (option, label) in enumerate(zip(options, labels, strict=True)):
        y0 = area.top() + i * row_h
        bar = QRectF(0, y0 + row_h * 0.2, 0, row_h * 0.6)
        p.setPen(INK if option is plan.best else MUTED)
        p.setFont(font(7.5, bold=option is plan.best))
        text = fm.elidedText(label, Qt.TextElideMode.ElideRight, label_w - 8)
        p.drawText(QRectF(rect.left(), y0, label_w - 6, row_h), Qt.AlignmentFlag.AlignVCenter, text)
        x = 0.0
        for c in COMPONENTS:
            size = getattr(option.per_gpu_components, c) / GIB
            if size <= 0:
                continue
            left, right = axes.px(x), axes.px(min(x + size, ticks[-1]))
            p.fillRect(QRectF(left, bar.top(), max(right - left, 0.4), bar.height()), COMPONENT_COLORS[c])
            x += size
        cap_x = axes.px(option.gpu_memory_bytes / GIB)
        over = option.per_gpu_bytes > option.gpu_memory_bytes
        p.setPen(QPen(OVER if over else INK, 1.6))
        p.drawLine(QLineF(cap_x, bar.top() - 3, cap_x, bar.bottom() + 3))
        p.setPen(OVER if over else INK)
        p.setFont(font(7.5))
        p.drawText(
            QRectF(area.right() + 6, y0, value_w, row_h), Qt.AlignmentFlag.AlignVCenter, memory_text(option)
        )


def memory_chart_image(plan: Plan, width_pt: float = 480, dpi: int = PRINT_DPI) -> QImage:
    """The memory chart at print resolution."""
    w, h = memory_chart_size(plan, width_pt)
    return render_image(lambda p, r: paint_memory_chart(p, r, plan), w, h, dpi)


# ---- cost -------------------------------------------------------------------------------------------
def _cost_title(curve: CostCurve, hours: float) -> str:
    """'Cumulative cost: rent 2 × A or buy 4 × B at 730 h/month' ('rent or buy 2 × A' for one GPU)."""
    if curve.rent_what and curve.buy_what and curve.rent_what != curve.buy_what:
        what = f"rent {curve.rent_what} or buy {curve.buy_what}"
    else:
        what = f"rent or buy {curve.rent_what or curve.buy_what}"
    return f"The training job: {what}" if curve.job else f"Cumulative cost: {what} at {hours:g} h/month"


def paint_cost_chart(p: QPainter, rect: QRectF, plan: Plan, option: Option | None = None) -> None:
    """Cumulative cost of renting against buying (purchase + electricity), break-even marked: the
    verdict's rental against its purchase, or one option's own prices when `option` is given."""
    curve = cost_curve(plan, option)
    months = curve.x[-1]
    rent, buy = curve.rent, curve.buy
    title = _cost_title(curve, plan.request.hours_per_month)
    top = rect.top() + draw_title(p, rect, title)
    legend = []
    if rent[0] is not None:
        legend.append(("Rent (cloud price)", RENT, "line"))
    if buy[0] is not None:
        legend.append(("Buy (GPUs + server + electricity)", BUY, "line"))
    if curve.breakeven_months is not None and curve.breakeven_months <= months:
        legend.append(("Break-even", PALETTE[5], "dash"))
    top += draw_legend(p, rect.left(), top, legend, max_width=rect.width())
    values = [v for v in (*rent, *buy) if v is not None]
    if not values:
        draw_message(
            p, rect.adjusted(0, top - rect.top(), 0, 0), "No cloud or purchase price in the catalogue."
        )
        return
    y_ticks = nice_ticks(0, max(values) * 1.02)
    if curve.job:
        x_ticks = nice_ticks(0, months)
    else:
        step = 6 if months <= 36 else 12 if months <= 72 else 24
        x_ticks = [float(m) for m in range(0, int(months) + 1, step)]
        if x_ticks[-1] < months:
            x_ticks.append(x_ticks[-1] + step)
    body = rect.adjusted(0, top - rect.top(), 0, 0)
    area = plot_area(body, y_ticks, format_usd_short)
    axes = Axes(area, x_ticks, y_ticks)
    axes.draw_frame(p, curve.x_label, "cumulative cost (USD)", y_format=format_usd_short)
    xs = curve.x
    if rent[0] is not None:
        draw_series(p, axes, xs, rent, RENT, 1.6)
    if buy[0] is not None:
        draw_series(p, axes, xs, buy, BUY, 1.6)
    be = curve.breakeven_months
    if not curve.job and be is not None and be <= x_ticks[-1] and curve.breakeven_usd is not None:
        y = curve.breakeven_usd
        pen = QPen(PALETTE[5], 1.0)
        pen.setStyle(Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.drawLine(QLineF(axes.px(be), area.bottom(), axes.px(be), area.top()))
        p.setBrush(PALETTE[5])
        p.drawEllipse(axes.point(be, y), 2.6, 2.6)
        p.setFont(font(7.5, bold=True))
        p.setPen(PALETTE[5])
        # The label sits at the top of the marker line, clear of both cost lines (which start low).
        text = f"break-even after {format_months(be)} ({format_usd_short(y)})"
        fm = QFontMetricsF(p.font())
        tx = axes.px(be) + 4
        if tx + fm.horizontalAdvance(text) > area.right():
            tx = axes.px(be) - 4 - fm.horizontalAdvance(text)
        p.drawText(QPointF(tx, area.top() + fm.ascent() + 2), text)
    if not curve.job and months > OWNERSHIP_MONTHS:
        pen = QPen(MUTED, 0.8)
        pen.setStyle(Qt.PenStyle.DotLine)
        p.setPen(pen)
        p.drawLine(QLineF(axes.px(OWNERSHIP_MONTHS), area.top(), axes.px(OWNERSHIP_MONTHS), area.bottom()))


def cost_chart_image(
    plan: Plan, option: Option | None = None, width_pt: float = 480, dpi: int = PRINT_DPI
) -> QImage | None:
    """The rent-against-buy chart for an option (the recommended one by default); None without prices."""
    if option is None:
        pair = answer_pair(plan)
        if plan.best is None or (pair.rent is None and pair.buy is None):
            return None
    elif option.cost.cloud_usd_per_month is None and option.cost.purchase_usd is None:
        return None
    return render_image(lambda p, r: paint_cost_chart(p, r, plan, option), width_pt, width_pt * 0.42, dpi)


# ---- telemetry --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Series:
    label: str
    ys: tuple[float | None, ...]
    dashed: bool = False


@dataclass(frozen=True)
class Panel:
    title: str
    y_label: str
    series: tuple[Series, ...]
    y_max: float | None = None  # fixed top (100 for percentages)


def _telemetry(named: NamedReport) -> tuple[Sample, ...]:
    """The samples to chart: the benchmarked GPU's readings only when NVML named it, else every GPU's."""
    samples = named.report.telemetry.samples
    nvml_index = named.report.device.nvml_index
    return samples if nvml_index is None else of_gpu(samples, nvml_index)


def _gpu_series(
    samples: Sequence[Sample], label: str, get: Callable[[GpuSample], float | None], dashed: bool = False
) -> list[Series]:
    indices = sorted({g.index for s in samples for g in s.gpus})
    out = []
    for idx in indices:
        ys = []
        for s in samples:
            g = next((g for g in s.gpus if g.index == idx), None)
            ys.append(None if g is None else get(g))
        if any(v is not None for v in ys):
            out.append(Series(f"GPU {idx} {label}".strip(), tuple(ys), dashed))
    return out


def _host_series(
    samples: Sequence[Sample], label: str, get: Callable[[HostSample], float | None]
) -> list[Series]:
    ys = tuple(get(s.host) for s in samples)
    return [Series(label, ys)] if any(v is not None for v in ys) else []


# The legend's words for a channel's lines (telemetry.channels has what each line reads).
GPU_LINE = {"clock_mhz": "SM"}
HOST_LINE = {
    "utilisation_pct": "host CPU",
    "memory_gib": "process RSS",
    "temperature_c": "CPU",
    "clock_mhz": "CPU",
}


def _extra_series(samples: Sequence[Sample], key: str) -> list[Series]:
    """Lines a panel shows beside its channel's: the host's whole RAM, each GPU's power limit."""
    if key == "memory_gib":
        return _host_series(
            samples, "host RAM", lambda h: None if h.ram_used_bytes is None else h.ram_used_bytes / GIB
        )
    if key == "power_w":
        return _gpu_series(samples, "limit", lambda g: g.power_limit_w, dashed=True)
    return []


def telemetry_panels(named: NamedReport) -> list[Panel]:
    """The panels that have data, one per telemetry channel: utilisation, memory (GiB), power,
    temperature, clocks."""
    samples = _telemetry(named)
    candidates = [
        Panel(
            c.title,
            c.axis_label,
            (
                *_gpu_series(samples, GPU_LINE.get(c.key, ""), c.gpu_value),
                *(_host_series(samples, HOST_LINE[c.key], c.host_value) if c.host_field else ()),
                *_extra_series(samples, c.key),
            ),
            100.0 if c.unit == "%" else None,
        )
        for c in CHANNELS
    ]
    return [panel for panel in candidates if panel.series]


def paint_panel(p: QPainter, rect: QRectF, panel: Panel, ts: Sequence[float]) -> None:
    top = rect.top() + draw_title(p, rect, panel.title, 8.0)
    colors = {s.label: PALETTE[i % len(PALETTE)] for i, s in enumerate(panel.series)}
    for s in panel.series:
        if s.dashed:  # a limit shares its GPU's colour
            colors[s.label] = colors.get(s.label.replace(" limit", ""), MUTED)
    legend = [(s.label, colors[s.label], "dash" if s.dashed else "line") for s in panel.series]
    top += draw_legend(p, rect.left(), top, legend, 6.5, max_width=rect.width())
    values = [v for s in panel.series for v in s.ys if v is not None and math.isfinite(v)]
    y_hi = panel.y_max if panel.y_max is not None else max(values, default=1.0) * 1.05
    y_ticks = nice_ticks(0, max(y_hi, 1e-9), target=4)
    x_ticks = nice_ticks(0, max(ts[-1] if ts else 1.0, 1e-3), target=5)
    area = plot_area(rect.adjusted(0, top - rect.top(), 0, 0), y_ticks, tick_pt=6.5)
    axes = Axes(area, x_ticks, y_ticks)
    axes.draw_frame(p, "time (s)", panel.y_label, tick_pt=6.5)
    for s in panel.series:
        draw_series(p, axes, ts, s.ys, colors[s.label], 1.0, s.dashed)


def telemetry_chart_size(named: NamedReport, width_pt: float) -> tuple[float, float]:
    rows = math.ceil(len(telemetry_panels(named)) / 2)
    return width_pt, 14 + rows * 150


def paint_telemetry(p: QPainter, rect: QRectF, named: NamedReport) -> None:
    """Two columns of panels over the run's time axis."""
    panels = telemetry_panels(named)
    samples = named.report.telemetry.samples
    top = rect.top() + draw_title(p, rect, telemetry_title(named.report))
    if not panels or not samples:
        draw_message(p, rect.adjusted(0, top - rect.top(), 0, 0), "No telemetry was recorded.")
        return
    t0 = samples[0].t_s
    ts = [s.t_s - t0 for s in samples]
    col_w = rect.width() / 2
    row_h = (rect.bottom() - top) / math.ceil(len(panels) / 2)
    p.setPen(QPen(GRID, 0.5))
    for i, panel in enumerate(panels):
        cell = QRectF(rect.left() + (i % 2) * col_w, top + (i // 2) * row_h, col_w, row_h).adjusted(
            2, 6, -8, -2
        )
        paint_panel(p, cell, panel, ts)


def telemetry_chart_image(named: NamedReport, width_pt: float = 480, dpi: int = PRINT_DPI) -> QImage | None:
    """The telemetry panels of one results file; None when it has no samples."""
    if not named.report.telemetry.samples or not telemetry_panels(named):
        return None
    w, h = telemetry_chart_size(named, width_pt)
    return render_image(lambda p, r: paint_telemetry(p, r, named), w, h, dpi)
