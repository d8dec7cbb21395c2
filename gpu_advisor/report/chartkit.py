"""A small chart kit on QPainter: axes with nice ticks, lines with gaps, legends, images at print dpi.

Everything is drawn in points (1/72 inch) so that a chart looks the same on paper at any resolution;
`render_image` scales the painter to the requested dots per inch. Works with the offscreen platform:
it needs a QGuiApplication (for fonts) but no widgets.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QImage, QPainter, QPainterPath, QPen

from gpu_advisor.core.units import short_number
from gpu_advisor.report import palette
from gpu_advisor.report.qtapp import ensure_gui_app, report_font_family

PRINT_DPI = 300  # crisp on paper; a half-page chart is about 2,000 x 900 pixels
INK = QColor("#1f2933")
MUTED = QColor("#616e7c")
GRID = QColor("#d9e2ec")
# Colour-blind-safe categorical palette (Okabe & Ito), shared with the GUI's charts.
PALETTE = tuple(QColor(c) for c in palette.SERIES)


def font(size_pt: float, bold: bool = False) -> QFont:
    """The report's font at a point size."""
    f = QFont(report_font_family())
    f.setPointSizeF(size_pt)
    f.setBold(bold)
    return f


def render_image(
    paint: Callable[[QPainter, QRectF], None], width_pt: float, height_pt: float, dpi: int = PRINT_DPI
) -> QImage:
    """Paint a chart of `width_pt` x `height_pt` points into an opaque image at `dpi`."""
    ensure_gui_app()
    scale = dpi / 72.0
    image = QImage(round(width_pt * scale), round(height_pt * scale), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    # The image says 72 dpi so that a 9 pt font is 9 units; the painter scale turns units into dots.
    dots_per_meter = round(72 / 0.0254)
    image.setDotsPerMeterX(dots_per_meter)
    image.setDotsPerMeterY(dots_per_meter)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.scale(scale, scale)
        paint(painter, QRectF(0, 0, width_pt, height_pt))
    finally:
        painter.end()
    # Tell viewers and the PDF engine the true resolution.
    image.setDotsPerMeterX(round(dpi / 0.0254))
    image.setDotsPerMeterY(round(dpi / 0.0254))
    return image


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Round tick values (1, 2, 2.5, 5 x 10^k steps) covering [lo, hi]."""
    if not math.isfinite(lo) or not math.isfinite(hi):
        return [0.0, 1.0]
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(target, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    ticks = []
    value = first
    while value <= hi + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    if ticks[-1] < hi:
        ticks.append(round(value, 12))
    return ticks


@dataclass
class Axes:
    """Maps data coordinates into a plot rectangle (points) and draws the frame, grid and ticks."""

    rect: QRectF
    x_ticks: list[float]
    y_ticks: list[float]

    @property
    def x_range(self) -> tuple[float, float]:
        return self.x_ticks[0], self.x_ticks[-1]

    @property
    def y_range(self) -> tuple[float, float]:
        return self.y_ticks[0], self.y_ticks[-1]

    def px(self, x: float) -> float:
        lo, hi = self.x_range
        return self.rect.left() + (x - lo) / (hi - lo) * self.rect.width()

    def py(self, y: float) -> float:
        lo, hi = self.y_range
        return self.rect.bottom() - (y - lo) / (hi - lo) * self.rect.height()

    def point(self, x: float, y: float) -> QPointF:
        return QPointF(self.px(x), self.py(y))

    def draw_frame(
        self,
        p: QPainter,
        x_label: str,
        y_label: str,
        x_format: Callable[[float], str] = short_number,
        y_format: Callable[[float], str] = short_number,
        tick_pt: float = 7.0,
    ) -> None:
        """Grid lines, tick labels and axis titles (with their units)."""
        p.save()
        p.setFont(font(tick_pt))
        fm = QFontMetricsF(p.font())
        p.setPen(QPen(GRID, 0.5))
        for y in self.y_ticks:
            p.drawLine(QLineF(self.rect.left(), self.py(y), self.rect.right(), self.py(y)))
        for x in self.x_ticks:
            p.drawLine(QLineF(self.px(x), self.rect.top(), self.px(x), self.rect.bottom()))
        p.setPen(QPen(MUTED, 0.8))
        p.drawLine(QLineF(self.rect.bottomLeft(), self.rect.bottomRight()))
        p.drawLine(QLineF(self.rect.bottomLeft(), self.rect.topLeft()))
        p.setPen(INK)
        for y in self.y_ticks:
            text = y_format(y)
            w = fm.horizontalAdvance(text)
            p.drawText(QPointF(self.rect.left() - w - 3, self.py(y) + fm.ascent() / 2 - 1), text)
        for x in self.x_ticks:
            text = x_format(x)
            w = fm.horizontalAdvance(text)
            p.drawText(QPointF(self.px(x) - w / 2, self.rect.bottom() + fm.ascent() + 2), text)
        p.setPen(MUTED)
        w = fm.horizontalAdvance(x_label)
        p.drawText(QPointF(self.rect.center().x() - w / 2, self.rect.bottom() + 2 * fm.height() + 2), x_label)
        if y_label:
            p.save()
            p.translate(
                self.rect.left() - _y_tick_width(fm, self.y_ticks, y_format) - 8, self.rect.center().y()
            )
            p.rotate(-90)
            w = fm.horizontalAdvance(y_label)
            p.drawText(QPointF(-w / 2, 0), y_label)
            p.restore()
        p.restore()


def _y_tick_width(fm: QFontMetricsF, ticks: Sequence[float], fmt: Callable[[float], str]) -> float:
    return max(fm.horizontalAdvance(fmt(t)) for t in ticks)


def plot_area(
    outer: QRectF,
    y_ticks: Sequence[float],
    y_format: Callable[[float], str] = short_number,
    title_pt: float = 0.0,
    legend_pt: float = 0.0,
    tick_pt: float = 7.0,
) -> QRectF:
    """The plot rectangle inside `outer`, leaving room for the title, legend, tick labels and titles."""
    fm = QFontMetricsF(font(tick_pt))
    left = _y_tick_width(fm, y_ticks, y_format) + fm.height() + 12
    top = title_pt + legend_pt + 4
    bottom = 2 * fm.height() + 8
    return QRectF(
        outer.left() + left, outer.top() + top, outer.width() - left - 8, outer.height() - top - bottom
    )


def draw_title(p: QPainter, rect: QRectF, text: str, size_pt: float = 9.0) -> float:
    """A bold title at the top left, wrapped where it is wider than `rect`; returns its height in points."""
    p.save()
    p.setFont(font(size_pt, bold=True))
    p.setPen(INK)
    fm = QFontMetricsF(p.font())
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)
    box = QRectF(rect.left(), rect.top(), rect.width(), rect.height())
    height = fm.boundingRect(box, flags, text).height()
    p.drawText(box, flags, text)
    p.restore()
    return max(height, fm.height()) + 2


def draw_legend(
    p: QPainter,
    left: float,
    top: float,
    items: Sequence[tuple[str, QColor, str]],
    size_pt: float = 7.0,
    max_width: float | None = None,
) -> float:
    """Swatches in a row (wrapping at `max_width`): (label, colour, "box" | "line" | "dash"). Returns height."""
    p.save()
    p.setFont(font(size_pt))
    fm = QFontMetricsF(p.font())
    x, y = left, top
    line_h = fm.height() + 2
    for label, color, kind in items:
        w = 12 + 3 + fm.horizontalAdvance(label) + 10
        if max_width is not None and x > left and x + w > left + max_width:
            x, y = left, y + line_h
        mid = y + line_h / 2
        if kind == "box":
            p.fillRect(QRectF(x, mid - 4, 12, 8), color)
        else:
            pen = QPen(color, 1.6)
            if kind == "dash":
                pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.drawLine(QLineF(x, mid, x + 12, mid))
        p.setPen(INK)
        p.drawText(QPointF(x + 15, y + fm.ascent() + 1), label)
        x += w
    p.restore()
    return y + line_h - top


def draw_series(
    p: QPainter,
    axes: Axes,
    xs: Sequence[float],
    ys: Sequence[float | None],
    color: QColor,
    width: float = 1.2,
    dashed: bool = False,
) -> None:
    """A line through the points, with a gap wherever y is None (unknown is not zero)."""
    pen = QPen(color, width)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    if dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    path = QPainterPath()
    drawing = False
    for x, y in zip(xs, ys, strict=True):
        if y is None or not math.isfinite(y):
            drawing = False
            continue
        pt = axes.point(x, y)
        if drawing:
            path.lineTo(pt)
        else:
            path.moveTo(pt)
            drawing = True
    p.save()
    p.setClipRect(axes.rect.adjusted(-1, -1, 1, 1))
    p.setPen(pen)
    p.setBrush(QBrush(Qt.BrushStyle.NoBrush))
    p.drawPath(path)
    p.restore()


def draw_message(p: QPainter, rect: QRectF, text: str) -> None:
    """A grey centred note where a chart has nothing to show."""
    p.save()
    p.setFont(font(7.5))
    p.setPen(MUTED)
    p.drawText(rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, text)
    p.restore()
