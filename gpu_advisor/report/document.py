"""The PDF report's body as Qt rich text (the HTML subset QTextDocument understands) plus its charts:
report.outline's sections, rendered for the page.

Page one holds the answer; each later section starts with a heading that pdf.py keeps with what
follows it. Tables use relative column widths and wrap text, so they never run off the page.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtGui import QImage

from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.result import Plan
from gpu_advisor.report import charts
from gpu_advisor.report import outline as ol
from gpu_advisor.wording.text import clip_text

CSS_PX_PER_PT = 96 / 72  # QTextDocument sizes images in 96-dpi pixels, whatever the paint device

STYLE = """
body { color: #1f2933; }
h1 { font-size: 16pt; font-weight: bold; margin-top: 0px; margin-bottom: 4px; color: #102a43; }
h2 { font-size: 12.5pt; font-weight: bold; margin-top: 18px; margin-bottom: 6px; color: #102a43; }
h3 { font-size: 10pt; font-weight: bold; margin-top: 12px; margin-bottom: 4px; color: #243b53; }
p { margin-top: 3px; margin-bottom: 5px; }
ul { margin-top: 2px; }
.kicker { font-size: 8pt; font-weight: bold; color: #486581; margin-bottom: 0px; }
.muted { color: #616e7c; }
.small { font-size: 7.5pt; }
.headline { font-size: 14pt; font-weight: bold; color: #0b4f8a; margin-top: 4px; margin-bottom: 6px; }
.advice { font-weight: bold; margin-top: 6px; }
.lead { margin-bottom: 9px; }
th { background-color: #e4ebf2; font-weight: bold; text-align: left; }
td.num, th.num { text-align: right; }
tr.best { background-color: #e8f4ea; }
"""


def escape(text: str) -> str:
    """Text for the report's HTML: escaped, and cut where a hostile file made it absurdly long."""
    return html.escape(clip_text(text))


@dataclass
class Table:
    """A table whose rows can be split onto a new page (pdf.py decides where, after layout).

    `columns`: (header, width in %, numeric). Cells are HTML. Each row's first cell carries an anchor
    `ID:ROW` so the layout can name the row; a row named in `splits` starts a new table on a new page,
    with the header repeated.
    """

    id: str
    columns: list[tuple[str, int, bool]]
    rows: list[list[str]]
    font_pt: float = 8.0
    highlight: list[bool] = field(default_factory=list)
    header: bool = True

    def html(self, splits: frozenset[str] = frozenset()) -> str:
        head = ""
        if self.header:
            cells = "".join(
                f"<th width='{w}%' class='{'num' if num else ''}'>{escape(t)}</th>"
                for t, w, num in self.columns
            )
            head = f"<thead><tr>{cells}</tr></thead>"
        border = "border='0' style='margin-top: 5px; border-collapse: collapse;"
        opening = (
            f"<table width='100%' cellspacing='0' cellpadding='2.5' {border} font-size: {self.font_pt}pt;"
        )
        first_break = " page-break-before: always;" if f"{self.id}:0" in splits else ""
        out = [f"{opening}{first_break}'>{head}"]
        for i, row in enumerate(self.rows):
            anchor = f"{self.id}:{i}"
            if anchor in splits and i:
                out.append(f"</table>{opening} page-break-before: always;'>{head}")
            cls = " class='best'" if i < len(self.highlight) and self.highlight[i] else ""
            cells = []
            for j, (cell, (_, width, num)) in enumerate(zip(row, self.columns, strict=True)):
                mark = f"<a name='{anchor}'></a>" if j == 0 else ""
                size = "" if self.header else f" width='{width}%'"
                rule = " style='border-bottom: 0.6px solid #c7d3df;'" if self.header else ""
                cells.append(f"<td{size}{rule} class='{'num' if num else ''}'>{mark}{cell}</td>")
            out.append(f"<tr{cls}>{''.join(cells)}</tr>")
        out.append("</table>")
        return "".join(out)


@dataclass
class Heading:
    """A heading that pdf.py may move to a new page (to keep it with what follows)."""

    id: str
    level: int
    text: str
    new_page: bool = False

    def html(self, breaks: frozenset[str] = frozenset()) -> str:
        style = " style='page-break-before: always;'" if self.new_page or self.id in breaks else ""
        return f"<h{self.level}{style}><a name='{self.id}'></a>{escape(self.text)}</h{self.level}>"


@dataclass
class ReportDocument:
    """Rich text in parts (strings and splittable tables) plus the images it refers to ("chart:NAME")."""

    parts: list[str | Table | Heading] = field(default_factory=list)
    images: dict[str, QImage] = field(default_factory=dict)

    def add(self, part: str | Table | Heading) -> None:
        self.parts.append(part)

    def heading(self, level: int, text: str, new_page: bool = False) -> None:
        self.parts.append(Heading(f"h{len(self.parts)}", level, text, new_page))

    def table(self, columns, rows, font_pt: float = 8.0, highlight=(), header: bool = True) -> None:
        self.parts.append(
            Table(
                f"t{len(self.parts)}",
                list(columns),
                [list(r) for r in rows],
                font_pt,
                list(highlight),
                header,
            )
        )

    def kv(self, rows: Sequence[tuple[str, str]], first_width: int = 28, font_pt: float = 9.0) -> None:
        """A borderless two-column table of label and value."""
        self.table(
            [("", first_width, False), ("", 100 - first_width, False)],
            [[f"<b>{escape(k)}</b>", escape(v)] for k, v in rows],
            font_pt,
            header=False,
        )

    def break_for(self, anchor: str) -> str:
        """Where to break the page to move `anchor` down: a table's first row takes its heading along.

        A table that must start on the next page brings the heading (and one line of introduction)
        just above it, so they are not left alone at the bottom of the page.
        """
        table_id, _, row = anchor.partition(":")
        if row != "0":
            return anchor
        index = next((i for i, p in enumerate(self.parts) if isinstance(p, Table) and p.id == table_id), None)
        if index is None:
            return anchor
        for back in (1, 2):
            before = self.parts[index - back] if index - back >= 0 else None
            if isinstance(before, Heading):
                return before.id
            if not isinstance(before, str) or "<img" in before:
                break
        return anchor

    def html(self, breaks: frozenset[str] = frozenset()) -> str:
        """The rich text, with a page break before each heading or table row named in `breaks`."""
        body = "".join(p if isinstance(p, str) else p.html(breaks) for p in self.parts)
        return f"<html><head><style>{STYLE}</style></head><body>{body}</body></html>"


def _image(doc: ReportDocument, name: str, image: QImage | None, dpi: int) -> str:
    if image is None:
        return ""
    doc.images[name] = image
    w = image.width() / dpi * 72 * CSS_PX_PER_PT
    h = image.height() / dpi * 72 * CSS_PX_PER_PT
    return (
        f"<p align='center' style='margin-top: 10px; margin-bottom: 6px;'>"
        f"<img src='chart:{name}' width='{w:.0f}' height='{h:.0f}'></p>"
    )


def build_document(
    plan: Plan,
    results: Sequence[NamedReport] = (),
    width_pt: float = 480,
    dpi: int = charts.PRINT_DPI,
    now: dt.datetime | None = None,
    step: Callable[[str], None] = lambda _: None,
) -> ReportDocument:
    """The whole report (report.outline's sections) for a body `width_pt` points wide; charts
    rendered at `dpi`."""
    doc = ReportDocument()

    def chart(block: ol.Chart) -> None:
        step(f"{block.kind} chart")
        image: QImage | None
        if block.kind == "cost":
            image = charts.cost_chart_image(plan, None, width_pt, dpi)
        elif block.kind == "memory":
            image = charts.memory_chart_image(plan, width_pt, dpi)
        else:
            image = charts.telemetry_chart_image(results[block.index], width_pt, dpi)
        if image is None:
            if block.missing:
                doc.add(f"<p class='muted'>{escape(block.missing)}</p>")
            return
        if block.heading:
            doc.heading(3, block.heading)
        doc.add(_image(doc, block.name, image, dpi))

    for section in ol.outline(plan, results, now):
        if section.heading is not None:
            doc.heading(section.heading.level, section.heading.text, section.heading.new_page)
        for block in section.blocks:
            if isinstance(block, ol.Chart):
                chart(block)
            elif isinstance(block, ol.ClusterRun):
                from gpu_advisor.report.cluster import add_cluster_section

                distributed = results[block.index].report.distributed
                if distributed is not None:
                    add_cluster_section(doc, distributed, block.index, width_pt, dpi, _image)
            else:
                _block(doc, block)
    return doc


STYLE_CLASSES = {"headline": "headline", "lead": "lead", "advice": "advice", "muted": "muted"}


def _cell(cell: ol.Cell) -> str:
    text = f"<b>{escape(cell.text)}</b>" if cell.bold or cell.note else escape(cell.text)
    if cell.note:
        text += f"<br><span style='color:#616e7c;'>{escape(cell.note)}</span>"
    return text


def _block(doc: ReportDocument, block: ol.Block) -> None:
    """One block of the outline as rich text (charts and cluster runs: see build_document)."""
    if isinstance(block, ol.Title):
        doc.add(f"<p class='kicker'>{escape(block.kicker.upper())}</p>")
        doc.heading(1, block.text)
        doc.add(f"<p class='muted'>{'<br>'.join(escape(line) for line in block.lines)}</p>")
    elif isinstance(block, ol.Heading):
        doc.heading(block.level, block.text, block.new_page)
    elif isinstance(block, ol.Text):
        label = f"{escape(block.label)} " if block.label else ""
        if block.style == "small":
            doc.add(f"<p class='small muted'>{label}{escape(block.text)}</p>")
        else:
            cls = STYLE_CLASSES.get(block.style)
            attribute = f" class='{cls}'" if cls else ""
            doc.add(f"<p{attribute}>{label}{escape(block.text)}</p>")
    elif isinstance(block, ol.Bullets):
        items = "".join(f"<li>{escape(item)}</li>" for item in block.items)
        doc.add(f"<ul class='small'>{items}</ul>" if block.small else f"<ul>{items}</ul>")
    elif isinstance(block, ol.Grid):
        doc.table(
            list(block.columns),
            [[_cell(c) for c in row] for row in block.rows],
            block.font_pt,
            block.highlight,
            header=not block.key_values,
        )
