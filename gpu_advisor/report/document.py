"""The PDF report's body as Qt rich text (the HTML subset QTextDocument understands) plus its charts.

Page one holds the answer; each later section starts with a heading that pdf.py keeps with what
follows it. Tables use relative column widths and wrap text, so they never run off the page.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtGui import QImage

from gpu_advisor import __version__
from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.result import Plan
from gpu_advisor.report import charts
from gpu_advisor.report.frontier import add_frontier
from gpu_advisor.wording import plan_tables as tables
from gpu_advisor.wording import results as res
from gpu_advisor.wording.plan import (
    Summary,
    build_summary,
    buy_text,
    cost_rows,
    gpu_line,
    rent_text,
    speed_text,
    verdict_text,
)
from gpu_advisor.wording.text import clip_text
from gpu_advisor.wording.tiers import tier_columns

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
    """The whole report for a body `width_pt` points wide; charts rendered at `dpi`."""
    doc = ReportDocument()
    summary = build_summary(plan)
    now = now or dt.datetime.now().astimezone()
    _page_one(doc, plan, summary, results, now, width_pt, dpi, step)
    doc.heading(2, "Inputs", new_page=True)
    doc.kv(tables.input_rows(plan), 32)
    step("memory chart")
    _memory(doc, plan, width_pt, dpi)
    doc.heading(2, "Options")
    doc.add(
        "<p>Every GPU the planner considered, best first: the smallest layout that fits and meets the "
        "target; “fits, too slow” fits in memory but misses the target. Rent is per hour for all "
        "the GPUs; Purchase = the GPUs plus each machine without its GPUs (desktop, workstation tower "
        "or 8-GPU server, with its source in the cost formula).</p>"
    )
    _options_table(doc, plan)
    _speed(doc, plan)
    _cost(doc, plan, summary)
    _working(doc, plan)
    for i, named in enumerate(results):
        step(f"benchmark {named.name}")
        _results(doc, named, i, width_pt, dpi)
    return doc


def _page_one(doc, plan, summary, results, now, width_pt, dpi, step) -> None:
    doc.add("<p class='kicker'>GPU RECOMMENDATION</p>")
    doc.heading(1, summary.title)
    doc.add(
        f"<p class='muted'>{escape(summary.subtitle)}<br>"
        f"Prepared {now:%d %B %Y, %H:%M} by GPU Advisor {escape(__version__)}</p>"
    )
    doc.heading(2, "Executive summary")
    doc.add(f"<p class='headline'>{escape(summary.headline)}</p>")
    doc.add(f"<p class='lead'>{escape(summary.reason)}</p>")
    verdict = verdict_text(plan)
    if verdict:
        doc.add(f"<p class='advice'>Rent or buy: {escape(verdict)}</p>")
    doc.kv(summary.facts, 24)
    for named in results:
        best = plan.best
        line = res.attached_line(
            named.name, named.report, best.gpu if best else None, best.gpu_id if best else None
        )
        if line:
            doc.add(f"<p>{escape(line)}</p>")
    _tiers(doc, plan)
    if plan.best is not None:
        step("cost chart")
        # Page one holds the answer, the verdict and the tiers; the chart starts the next page whole.
        doc.heading(2, "Rent or buy over time", new_page=True)
        doc.add(_image(doc, "cost", charts.cost_chart_image(plan, None, width_pt, dpi), dpi))
        _runners_up(doc, plan)
        if plan.suggestions:
            doc.heading(3, "What else you could change")
            doc.add(f"<ul>{''.join(f'<li>{escape(s)}</li>' for s in plan.suggestions)}</ul>")
    else:
        if plan.suggestions:
            doc.heading(3, "What would make it fit")
            doc.add(f"<ul>{''.join(f'<li>{escape(s)}</li>' for s in plan.suggestions)}</ul>")
        step("memory chart")
        doc.add(_image(doc, "memory-summary", charts.memory_chart_image(plan, width_pt, dpi), dpi))
    if plan.warnings:
        n = len(plan.warnings)
        doc.add(
            f"<p class='muted small'>{n} note{'s' if n != 1 else ''} from the planner "
            f"{'are' if n != 1 else 'is'} listed under \u201cHow the numbers were computed\u201d.</p>"
        )


def _tiers(doc: ReportDocument, plan: Plan) -> None:
    """The three tiers side by side: one column per tier, one row per figure."""
    columns = tier_columns(plan)
    if not columns:
        return
    doc.heading(3, "The three tiers side by side")
    heads = [("", 16, False)] + [
        (escape(c.title + (" (recommended)" if c.recommended else "")), 28, False) for c in columns
    ]
    labels = list(dict.fromkeys(["Why not", *(label for c in columns for label, _ in c.rows)]))
    labels = [label for label in labels if any(label in dict(c.rows) for c in columns)]
    rows = [["<b>Best option</b>", *(f"<b>{escape(c.answer)}</b>" for c in columns)]]
    for label in labels:
        rows.append([escape(label), *(escape(dict(c.rows).get(label, "")) for c in columns)])
    doc.table(heads, rows, 7.5)


def _runners_up(doc: ReportDocument, plan: Plan, limit: int = 3) -> None:
    """The next best options that fit, for a reader who cannot buy the first choice."""
    others = [o for o in plan.options if o.fits and o.meets_target and o is not plan.best][:limit]
    if not others:
        return
    doc.heading(3, "Next best options")
    rows = [
        [escape(gpu_line(o)), escape(speed_text(o)), escape(rent_text(o.cost)), escape(buy_text(o.cost))]
        for o in others
    ]
    doc.table([("GPUs", 26, False), ("Speed", 40, False), ("Rent", 17, True), ("Buy", 17, True)], rows, 8)


def _memory(doc: ReportDocument, plan: Plan, width_pt: float, dpi: int) -> None:
    doc.heading(2, "Memory")
    doc.add(
        "<p>Each option's memory per GPU after the planner's sharding, by component; the black mark is "
        "the GPU's memory (red where the footprint does not fit).</p>"
    )
    doc.add(_image(doc, "memory", charts.memory_chart_image(plan, width_pt, dpi), dpi))
    doc.heading(3, "One device, no sharding")
    doc.table(
        [("Component", 20, False), ("Size", 13, True), ("How it was computed", 67, False)],
        [
            [f"<b>{escape(c)}</b>" if c == "Total" else escape(c), escape(v), escape(f)]
            for c, v, f in tables.memory_rows(plan.memory, "sum of the above, one device, no sharding")
        ],
        7.5,
    )
    for note in tables.memory_notes(plan):
        doc.add(f"<p class='small muted'>{escape(note)}</p>")


# The PDF's options table: the columns that fit a page (key, width in %); the GPU cell also names the
# tier and layout, so those columns are not repeated.
PDF_OPTION_COLUMNS = {
    True: (
        ("count", 5),
        ("fits", 7),
        ("memory", 10),
        ("step_time", 8),
        ("tokens_per_s", 8),
        ("time_to_train", 9),
    ),
    False: (("count", 5), ("fits", 7), ("memory", 10), ("prefill", 8), ("per_user", 8), ("aggregate", 9)),
}
PDF_TAIL_COLUMNS = (("bound", 9), ("rent", 8), ("purchase", 9), ("breakeven", 9))


def _options_table(doc: ReportDocument, plan: Plan) -> None:
    if not plan.options:
        doc.add("<p>No GPU in the catalogue could be sized for this job.</p>")
        return
    training = plan.request.task.is_training
    by_key = {c.key: c for c in tables.option_columns(training)}
    keys = PDF_OPTION_COLUMNS[training]
    if plan.request.epoch_tokens is not None:  # a dataset: time per epoch says more than time per step
        keys = tuple(("time_per_epoch", w) if k == "step_time" else (k, w) for k, w in keys)
    chosen = [(by_key[k], w) for k, w in (*keys, *PDF_TAIL_COLUMNS)]
    columns = [("GPU", 100 - sum(w for _, w in chosen), False)]
    columns += [(c.header, w, c.numeric) for c, w in chosen]
    rows = []
    for option in plan.options:
        gpu = (
            f"<b>{escape(option.gpu)}</b><br><span style='color:#616e7c;'>"
            f"{escape(by_key['tier'].text(option))} · {escape(option.layout.describe())}</span>"
        )
        rows.append([gpu, *(escape(c.text(option)) for c, _ in chosen)])
    doc.table(columns, rows, 7, [o is plan.best for o in plan.options])


def _speed(doc: ReportDocument, plan: Plan) -> None:
    doc.heading(2, "Speed")
    doc.kv(tables.compute_rows(plan), 32)
    speed_rows = tables.speed_rows(plan)
    if speed_rows:
        doc.heading(3, "The cheapest options that fit")
        doc.table(
            [("GPUs", 27, False), ("Expected speed", 58, False), ("Bound by", 15, False)],
            [[escape(a), escape(b), escape(c)] for a, b, c in speed_rows],
            8,
            [i == 0 and plan.best is not None for i in range(len(speed_rows))],
        )
    add_frontier(doc, plan)  # report/frontier.py: time and rent by scale, without a deadline


def _cost(doc: ReportDocument, plan: Plan, summary: Summary) -> None:
    doc.heading(2, "Cost: rent or buy")
    summed = summary.cost
    if summed is None or summary.best is None:
        doc.add("<p>No option fits, so there is nothing to price.</p>")
        return
    doc.add(f"<p>For {escape(gpu_line(summary.best))}; the chart is on page 2.</p>")
    rows = cost_rows(summed)
    doc.kv(rows, 32)
    doc.add(f"<p class='advice'>{escape(summed.advice)}</p>")


def _working(doc: ReportDocument, plan: Plan) -> None:
    doc.heading(2, "How the numbers were computed")
    formulas = tables.formula_rows(plan.best)
    if formulas:
        doc.heading(3, "Formulas for the recommended option")
        doc.kv(formulas, 16, 8)
    doc.heading(3, "Assumptions")
    doc.table(
        [("Constant", 31, False), ("Value", 15, False), ("Meaning and source", 54, False)],
        [[escape(k), escape(v), escape(m)] for k, v, m in tables.assumption_rows(plan)],
        7.5,
    )
    sources = tables.source_rows(plan.best)
    if sources:
        doc.heading(3, "Catalogue sources for the recommended GPU")
        doc.kv(sources, 16, 7.5)
    if plan.warnings or plan.suggestions:
        doc.heading(3, "Notes from the planner")
        items = [f"<li>{escape(w)}</li>" for w in plan.warnings]
        items += [f"<li>Suggestion: {escape(s)}</li>" for s in plan.suggestions]
        doc.add(f"<ul class='small'>{''.join(items)}</ul>")


def _results(doc: ReportDocument, named: NamedReport, index: int, width_pt: float, dpi: int) -> None:
    report = named.report
    doc.heading(2, f"Benchmark: {named.name}", new_page=True)
    doc.heading(3, "Machine")
    doc.kv(res.machine_rows(report), 24)
    if report.distributed is not None:  # a cluster run (bench --nproc / --distributed)
        from gpu_advisor.report.cluster import add_cluster_section

        add_cluster_section(doc, report.distributed, index, width_pt, dpi, _image)
    if report.results:
        doc.heading(3, "Results")
        doc.table(
            [
                (res.RESULT_HEADERS[0], 26, False),
                (res.RESULT_HEADERS[1], 12, False),
                (res.RESULT_HEADERS[2], 24, True),
                (res.RESULT_HEADERS[3], 38, False),
            ],
            [
                [escape(r.workload), escape(r.status), escape(r.time), escape(r.numbers)]
                for r in res.result_rows(report)
            ],
            7.5,
        )
        doc.add(f"<p class='small muted'>{escape(res.memory_note(report))}.</p>")
    checks = res.prediction_rows(report)
    if checks:
        doc.heading(3, "Measured against predicted")
        widths = (30, 12, 11, 11, 6, 12, 12, 6)
        doc.table(
            [(h, w, i >= 2) for i, (h, w) in enumerate(zip(res.PREDICTION_HEADERS, widths, strict=True))],
            [[escape(cell) for cell in c.cells()] for c in checks],
            7.5,
        )
        caveat = res.prediction_caveat(report)
        doc.add(f"<p class='small muted'>{escape(' '.join((res.ERROR_MEANING, caveat)).strip())}</p>")
    diagnosis = res.diagnosis_rows(report)
    if diagnosis:
        doc.heading(3, "Diagnosis")
        doc.table(
            [
                (res.DIAGNOSIS_HEADERS[0], 26, False),
                (res.DIAGNOSIS_HEADERS[1], 42, False),
                (res.DIAGNOSIS_HEADERS[2], 32, False),
            ],
            [[escape(d.workload), escape(d.finding), escape(d.fix)] for d in diagnosis],
            7.5,
        )
    image = charts.telemetry_chart_image(named, width_pt, dpi)
    if image is not None:
        doc.heading(3, "Telemetry")
        doc.add(_image(doc, f"telemetry-{index}", image, dpi))
    else:
        doc.add("<p class='muted'>No telemetry samples in this file.</p>")
    ram = res.host_ram_peak_text(report)
    if ram:
        doc.add(f"<p class='small muted'>{escape(ram)}</p>")
