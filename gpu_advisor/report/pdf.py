"""The PDF recommendation: QTextDocument laid out page by page into a QPdfWriter, with a footer.

QTextDocument has no footer, so each page is drawn here: the document's slice for that page through
a clip rectangle, then "Page N of M" below it. Headings are kept with what follows them by moving a
heading that would end a page to the next one. The file is written atomically: a failure leaves no
partial file and keeps an existing one intact.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRectF, QSizeF, Qt, QUrl
from PySide6.QtGui import (
    QFont,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextCursor,
    QTextDocument,
    QTextTable,
)

from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.files import check_writable, write_bytes_atomic
from gpu_advisor.core.result import Plan
from gpu_advisor.report.chartkit import INK, MUTED, PRINT_DPI
from gpu_advisor.report.document import ReportDocument, build_document
from gpu_advisor.report.qtapp import ensure_gui_app, report_font_family
from gpu_advisor.wording.plan import plan_title

PAGE_SIZES = {"A4": QPageSize.PageSizeId.A4, "Letter": QPageSize.PageSizeId.Letter}
MARGINS_MM = QMarginsF(18, 16, 18, 20)  # left, top, right, bottom; the footer sits in the bottom one
FOOTER_GAP_MM = 6
BODY_FONT_PT = 9.0
# A heading with less than this much of its page left moves to the next page with its content.
KEEP_WITH_NEXT_PT = 60.0
EDGE_DOTS = 1.0  # see _render
# A table of at most this many rows is kept on one page (with the heading above it).
SHORT_TABLE_ROWS = 6
MAX_PAGE_BREAKS = 400  # a bound, not a target: a few per page at most

Progress = Callable[[int, str], None]


def write_pdf(
    plan: Plan,
    path: str | Path,
    results: Sequence[NamedReport] = (),
    page_size: str = "A4",
    progress: Progress | None = None,
) -> int:
    """Write the PDF report of `plan` (and any attached benchmark results) to `path`; return the page count.

    `page_size` is "A4" or "Letter". `progress(percent, step)` is called as the work advances; an
    exception raised from it cancels the export and leaves `path` as it was. Needs a QGuiApplication
    (one is created, offscreen, when none exists and this is the main thread). Raises OSError with
    the target path when it cannot be written.
    """
    if page_size not in PAGE_SIZES:
        raise ValueError(f"page_size: expected one of {', '.join(PAGE_SIZES)}, got {page_size!r}")
    path = Path(path)
    check_writable(path)
    report = progress or (lambda _pct, _step: None)
    report(0, "preparing")
    ensure_gui_app()
    # Qt's PDF writer does not report a failed write (a full disk truncates the file silently), so
    # the PDF is made in memory and written by Python, which raises, then checked on disk.
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    pages = _render(plan, buffer, results, page_size, report)
    buffer.close()
    data = bytes(buffer.data().data())
    if not (data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")):
        raise OSError(errno.EIO, "Qt produced an incomplete PDF", str(path))
    write_bytes_atomic(path, data)
    report(100, "done")
    return pages


def _render(
    plan: Plan, target: QIODevice, results: Sequence[NamedReport], page_size: str, report: Progress
) -> int:
    writer = QPdfWriter(target)
    writer.setTitle(f"GPU recommendation: {plan_title(plan)}")
    writer.setCreator("GPU Advisor")
    writer.setResolution(PRINT_DPI)
    writer.setPageLayout(
        QPageLayout(
            QPageSize(PAGE_SIZES[page_size]),
            QPageLayout.Orientation.Portrait,
            MARGINS_MM,
            QPageLayout.Unit.Millimeter,
        )
    )
    dpi = writer.resolution()
    body = writer.pageLayout().paintRectPixels(dpi)  # inside the margins, in device dots
    width_pt = body.width() * 72 / dpi
    content = build_document(plan, results, width_pt, PRINT_DPI, step=lambda s: report(15, s))
    report(40, "layout")
    doc = QTextDocument()
    doc.documentLayout().setPaintDevice(writer)
    body_font = QFont(report_font_family())
    body_font.setPointSizeF(BODY_FONT_PT)
    # No "fi"/"fl" ligatures: text copied or extracted from the PDF then reads as typed.
    body_font.setFeature(QFont.Tag("liga"), 0)
    doc.setDefaultFont(body_font)
    doc.setDocumentMargin(0)
    for name, image in content.images.items():
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"chart:{name}"), image)
    page_h = float(body.height())
    _paginate(doc, content, QSizeF(body.width(), page_h), KEEP_WITH_NEXT_PT * dpi / 72)
    total = doc.pageCount()
    painter = QPainter()
    if not painter.begin(writer):
        raise OSError(errno.EIO, "Qt could not start the PDF")
    # Charts go in losslessly (Flate, not JPEG): lines and text stay sharp.
    painter.setRenderHint(QPainter.RenderHint.LosslessImageRendering)
    try:
        footer_font = QFont(report_font_family())
        footer_font.setPointSizeF(7.5)
        footer_y = body.bottom() + FOOTER_GAP_MM / 25.4 * dpi
        footer = QRectF(0, footer_y, body.width(), 12 / 72 * dpi)
        title = plan_title(plan)
        for page in range(total):
            if page:
                writer.newPage()
            report(45 + 55 * page // total, f"page {page + 1} of {total}")
            painter.save()
            painter.translate(0, -page * page_h)
            # A dot inside the page's edges: a line that starts exactly where the next page begins
            # (a heading moved there) counts as on this page too, and is written into its text
            # layer, unseen: copied, searched or read aloud as this page's last line.
            doc.drawContents(
                painter, QRectF(0, page * page_h + EDGE_DOTS, body.width(), page_h - 2 * EDGE_DOTS)
            )
            painter.restore()
            painter.setFont(footer_font)
            painter.setPen(MUTED)
            painter.drawText(
                footer, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, f"GPU Advisor · {title}"
            )
            painter.setPen(INK)
            painter.drawText(
                footer,
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                f"Page {page + 1} of {total}",
            )
    finally:
        painter.end()
    return total


def _paginate(doc: QTextDocument, content: ReportDocument, page: QSizeF, keep: float) -> None:
    """Lay the report out so that no table row straddles two pages and no heading ends a page.

    QTextDocument moves a table row to the next page only when none of its cells has a line that
    fits; otherwise the row is cut in two. And it has no "keep with next" for headings. So: lay out,
    find the topmost problem, put a page break before that row (a new table, header repeated) or
    heading, and lay out again from fresh HTML, until there is none. Fixes only push content
    down, so each round settles everything above the fix.
    """
    breaks: set[str] = set()
    for _ in range(MAX_PAGE_BREAKS):
        doc.setHtml(content.html(frozenset(breaks)))
        doc.setPageSize(page)
        problems = [
            p
            for p in (
                _first_lonely_heading(doc, page.height(), keep),
                _first_straddling_row(doc, page.height()),
                _first_split_short_table(doc, page.height()),
            )
            if p is not None and content.break_for(p[1]) not in breaks
        ]
        if not problems:
            return
        breaks.add(content.break_for(min(problems)[1]))


def _first_lonely_heading(doc: QTextDocument, page_h: float, keep: float) -> tuple[float, str] | None:
    """(top, anchor) of the first heading parted from what follows it.

    Parted: the first line after it (text, a table row, a chart) starts on a later page, or less
    than `keep` of the page is left below the heading.
    """
    layout = doc.documentLayout()
    block = doc.begin()
    while block.isValid():
        if block.blockFormat().headingLevel():
            rect = layout.blockBoundingRect(block)
            page = int(rect.top() // page_h)
            anchor = _anchor(block)
            nxt = block.next()
            next_top = rect.bottom()
            if nxt.isValid() and nxt.layout().lineCount():
                next_top = layout.blockBoundingRect(nxt).top() + nxt.layout().lineAt(0).y()
            parted = int(next_top // page_h) > page or (page + 1) * page_h - rect.bottom() < keep
            # A heading and its line of introduction belong with the chart or table they introduce.
            after = nxt.next() if nxt.isValid() and _is_intro(nxt) else None
            if after is not None and after.isValid() and after.layout().lineCount():
                after_top = layout.blockBoundingRect(after).top() + after.layout().lineAt(0).y()
                parted = parted or int(after_top // page_h) > page
            if anchor and rect.top() % page_h >= 1 and parted:
                return rect.top(), anchor
        block = block.next()
    return None


def _is_intro(block) -> bool:
    """A paragraph of text outside a table (not a heading, a list item or an image): the line that
    introduces the block after it."""
    if block.blockFormat().headingLevel() or block.textList() is not None:
        return False
    if QTextCursor(block).currentTable() is not None:
        return False
    text = block.text()
    return bool(text.strip()) and "\ufffc" not in text  # U+FFFC: an image's object character


def _first_straddling_row(doc: QTextDocument, page_h: float) -> tuple[float, str] | None:
    """(top, anchor) of the topmost table row cut by a page boundary (anchors: see document.Table)."""
    layout = doc.documentLayout()
    for frame in doc.rootFrame().childFrames():
        if not isinstance(frame, QTextTable):
            continue
        for r in range(frame.format().headerRowCount(), frame.rows()):
            top, bottom, anchor = float("inf"), float("-inf"), None
            for c in range(frame.columns()):
                cell = frame.cellAt(r, c)
                block = doc.findBlock(cell.firstPosition())
                last = doc.findBlock(cell.lastPosition())
                top = min(top, layout.blockBoundingRect(block).top())
                bottom = max(bottom, layout.blockBoundingRect(last).bottom())
                if c == 0:
                    anchor = _anchor(block)
            if anchor is None or bottom - top > page_h / 2:
                continue
            if int(top // page_h) != int((bottom - 1) // page_h):
                return top, anchor
    return None


def _first_split_short_table(doc: QTextDocument, page_h: float) -> tuple[float, str] | None:
    """(top, anchor of its first row) of the first table of at most SHORT_TABLE_ROWS rows that runs
    onto a second page: a few rows read together, so the table moves whole (its heading with it)."""
    layout = doc.documentLayout()
    for frame in doc.rootFrame().childFrames():
        if not isinstance(frame, QTextTable):
            continue
        first = frame.format().headerRowCount()
        if not 0 < frame.rows() - first <= SHORT_TABLE_ROWS:
            continue
        start = doc.findBlock(frame.cellAt(first, 0).firstPosition())
        top = layout.blockBoundingRect(start).top()
        bottom = max(
            layout.blockBoundingRect(doc.findBlock(frame.cellAt(frame.rows() - 1, c).lastPosition())).bottom()
            for c in range(frame.columns())
        )
        anchor = _anchor(start)
        if anchor is None or bottom - top > page_h / 2:
            continue
        if int(top // page_h) != int((bottom - 1) // page_h):
            return top, anchor
    return None


def _anchor(block) -> str | None:
    it = block.begin()
    while not it.atEnd():
        names = it.fragment().charFormat().anchorNames()
        if names:
            return names[0]
        it += 1
    return None
