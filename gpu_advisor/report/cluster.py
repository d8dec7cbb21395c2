"""The PDF's cluster section, for a results file that holds a cluster run: the fabric's bus bandwidth
against message size per collective (a chart, one line per scope), the bandwidth and latency table,
point-to-point links and data-parallel scaling. Words come from `wording.distributed`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape
from typing import Any

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from gpu_advisor.bench.distributed.section import DistributedSection
from gpu_advisor.core.units import format_bytes, short_number
from gpu_advisor.report.chartkit import (
    PALETTE,
    PRINT_DPI,
    Axes,
    draw_legend,
    draw_message,
    draw_series,
    draw_title,
    nice_ticks,
    plot_area,
    render_image,
)
from gpu_advisor.wording import distributed as words

PANEL_HEIGHT_PT = 150.0


def _paint_chart(p: QPainter, rect: QRectF, chart: words.CurveChart) -> None:
    top = rect.top() + draw_title(p, rect, chart.title, 8.0)
    items = [(c.label, PALETTE[i % len(PALETTE)], "line") for i, c in enumerate(chart.curves)]
    top += draw_legend(p, rect.left(), top, items, 6.5, max_width=rect.width())
    sizes = [b for c in chart.curves for b in c.sizes_bytes]
    values = [v for c in chart.curves for v in c.values]
    if not sizes:
        draw_message(p, rect, "Not measured.")
        return
    lo, hi = math.floor(math.log2(min(sizes))), math.ceil(math.log2(max(sizes)))
    hi = max(hi, lo + 1)
    step = max(1, math.ceil((hi - lo) / 6))
    x_ticks = [float(k) for k in range(lo, hi + step, step)]
    y_ticks = nice_ticks(0, max(values) * 1.05 or 1.0, target=4)
    area = plot_area(rect.adjusted(0, top - rect.top(), 0, 0), y_ticks, tick_pt=6.5)
    axes = Axes(area, x_ticks, y_ticks)
    axes.draw_frame(
        p,
        "message size",
        chart.unit,
        x_format=lambda k: format_bytes(2**k),
        y_format=short_number,
        tick_pt=6.5,
    )
    for i, curve in enumerate(chart.curves):
        xs = [math.log2(b) for b in curve.sizes_bytes]
        draw_series(p, axes, xs, list(curve.values), PALETTE[i % len(PALETTE)], 1.2)


def busbw_chart_image(
    section: DistributedSection, width_pt: float = 480, dpi: int = PRINT_DPI
) -> QImage | None:
    """Bus bandwidth against message size, two collectives a row; None when nothing was measured."""
    charts = words.busbw_charts_by_scope(section)
    if not charts:
        return None
    rows = math.ceil(len(charts) / 2)

    def paint(p: QPainter, rect: QRectF) -> None:
        col_w = rect.width() / 2
        for i, chart in enumerate(charts):
            cell = QRectF(
                rect.left() + (i % 2) * col_w, rect.top() + (i // 2) * PANEL_HEIGHT_PT, col_w, PANEL_HEIGHT_PT
            ).adjusted(2, 4, -8, -2)
            _paint_chart(p, cell, chart)

    return render_image(paint, width_pt, rows * PANEL_HEIGHT_PT, dpi)


def add_cluster_section(
    doc: Any,
    section: DistributedSection,
    index: int,
    width_pt: float,
    dpi: int,
    embed: Callable[[Any, str, QImage | None, int], str],
) -> None:
    """Append the cluster run to a report.document.ReportDocument (`doc`); `embed(doc, name, image,
    dpi)` returns the HTML that shows a chart image."""
    doc.heading(3, "Cluster run")
    doc.add(f"<p>{escape(words.backend_line(section))}.</p>")
    doc.kv(
        [
            (
                f"node {h.node_rank}",
                f"{h.hostname}: ranks {', '.join(map(str, h.ranks))}; {', '.join(sorted(set(h.devices)))}",
            )
            for h in section.hosts
        ],
        18,
        8.0,
    )
    if section.notes:
        doc.add(f"<ul class='small'>{''.join(f'<li>{escape(n)}</li>' for n in section.notes)}</ul>")
    links = words.link_rows(section)
    if links:
        doc.heading(3, "Bus bandwidth and latency")
        doc.table(
            _columns(words.LINK_HEADERS, (20, 24, 30, 26), (False, False, True, True)),
            [[escape(c) for c in row] for row in links],
            7.5,
        )
        doc.add(
            "<p class='small muted'>Bus bandwidth at the largest message measured and its peak over the sizes, latency at the smallest; "
            "NVIDIA nccl-tests' conventions (all-reduce x 2(n-1)/n, all-gather and reduce-scatter x (n-1)/n "
            "of bytes / median time).</p>"
        )
    doc.add(embed(doc, f"cluster-busbw-{index}", busbw_chart_image(section, width_pt, dpi), dpi))
    p2p = words.p2p_rows(section)
    if p2p:
        doc.heading(3, "Point to point")
        doc.table(
            _columns(words.P2P_HEADERS, (22, 22, 28, 12, 16), (False, False, False, True, True)),
            [[escape(c) for c in row] for row in p2p],
            7.5,
        )
    scaling = words.scaling_rows(section)
    if scaling:
        doc.heading(3, "Data-parallel scaling")
        doc.table(
            _columns(words.SCALING_HEADERS, (30, 16, 20, 16, 18), (False, True, True, True, True)),
            [[escape(c) for c in row] for row in scaling],
            7.5,
        )
        for line in (words.scaling_summary(section), words.fsdp_summary(section)):
            if line:
                doc.add(f"<p class='small'>{escape(line)}</p>")


def _columns(
    headers: tuple[str, ...], widths_pct: tuple[int, ...], right: tuple[bool, ...]
) -> list[tuple[str, int, bool]]:
    """A PDF table's (title, width %, right-aligned) from the headers the CLI text shares."""
    return [(h[0].upper() + h[1:], w, r) for h, w, r in zip(headers, widths_pct, right, strict=True)]
