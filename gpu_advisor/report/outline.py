"""The report's outline: one list of sections that the PDF (`document.py`) and the Markdown
(`markdown.py`) both render, so the two cannot drift apart.

Blocks hold plain text (each face escapes and styles it); a chart names what it draws and what the
Markdown shows in its place. No Qt here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpu_advisor import __version__
from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.result import Plan
from gpu_advisor.core.units import format_bytes, format_usd
from gpu_advisor.wording import plan_tables as tables
from gpu_advisor.wording import results as res
from gpu_advisor.wording.plan import (
    Summary,
    build_summary,
    buy_text,
    cost_rows,
    gpu_line,
    job_rent_text,
    rank_basis,
    rent_text,
    speed_text,
    verdict_text,
)
from gpu_advisor.wording.report_facts import memory_part_rows, target_line
from gpu_advisor.wording.shortlist import runners_up, shortlist
from gpu_advisor.wording.tiers import tier_columns


@dataclass(frozen=True)
class Title:
    kicker: str
    text: str
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    new_page: bool = False  # the PDF starts a page here


@dataclass(frozen=True)
class Text:
    text: str
    style: str = ""  # "", "headline", "lead", "advice" (bold), "muted", "small"
    label: str = ""  # a bold lead-in ("Rent or buy:")


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]
    small: bool = False


@dataclass(frozen=True)
class Cell:
    text: str
    bold: bool = False
    note: str = ""  # a second, muted line (the PDF) or a parenthesis (the Markdown)


@dataclass(frozen=True)
class Grid:
    """A table: `columns` (header, width in % on the page, numeric); a key-value grid has no header
    row on the page, and `head` names its columns in the Markdown."""

    columns: tuple[tuple[str, int, bool], ...]
    rows: tuple[tuple[Cell, ...], ...]
    font_pt: float = 8.0
    highlight: tuple[bool, ...] = ()
    key_values: bool = False
    head: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class Chart:
    """A chart: `kind` "cost", "memory" or "telemetry" (of results file `index`). The PDF puts
    `heading` above it, or `missing` where there is nothing to draw; the Markdown shows `fallback`."""

    kind: str
    name: str
    index: int = 0
    heading: str = ""
    missing: str = ""
    fallback: tuple[Block, ...] = ()


@dataclass(frozen=True)
class ClusterRun:
    """Results file `index`'s cluster run (the PDF's tables and charts of report.cluster)."""

    index: int


Block = Title | Heading | Text | Bullets | Grid | Chart | ClusterRun


@dataclass
class Section:
    heading: Heading | None
    blocks: list[Block] = field(default_factory=list)


def kv(rows: Sequence[tuple[str, str]], first_width: int = 28, font_pt: float = 9.0, head=("", "")) -> Grid:
    """A two-column grid of label (bold on the page) and value."""
    return Grid(
        ((head[0], first_width, False), (head[1], 100 - first_width, False)),
        tuple((Cell(k, bold=True), Cell(v)) for k, v in rows),
        font_pt,
        key_values=True,
        head=head,
    )


def grid(columns, rows, font_pt: float = 8.0, highlight=()) -> Grid:
    return Grid(
        tuple(columns),
        tuple(tuple(c if isinstance(c, Cell) else Cell(c) for c in row) for row in rows),
        font_pt,
        tuple(highlight),
    )


def outline(plan: Plan, results: Sequence[NamedReport] = (), now: dt.datetime | None = None) -> list[Section]:
    """The whole report, section by section."""
    summary = build_summary(plan)
    now = now or dt.datetime.now().astimezone()
    sections = [
        Section(
            None,
            [
                Title(
                    "GPU recommendation",
                    summary.title,
                    (summary.subtitle, f"Prepared {now:%d %B %Y, %H:%M} by GPU Advisor {__version__}"),
                )
            ],
        ),
        _summary(plan, summary, results),
        *_answer_detail(plan, summary),
        Section(Heading(2, "Inputs"), [kv(tables.input_rows(plan), 32, head=("Input", "Value"))]),
        _memory(plan),
        _options(plan),
        _speed(plan),
        _cost(plan, summary),
        _working(plan),
    ]
    sections += [_results(named, i) for i, named in enumerate(results)]
    return sections


def _summary(plan: Plan, summary: Summary, results: Sequence[NamedReport]) -> Section:
    blocks: list[Block] = [Text(summary.headline, "headline"), Text(target_line(plan), "advice")]
    blocks.append(Text(summary.reason, "lead"))
    verdict = verdict_text(plan)
    if verdict:
        blocks.append(Text(verdict, "advice", label="Rent or buy:"))
    blocks.append(kv(summary.facts, 24, head=("", "Answer")))
    best = plan.best
    for named in results:
        line = res.attached_line(
            named.name, named.report, best.gpu if best else None, best.gpu_id if best else None
        )
        if line:
            blocks.append(Text(line))
    columns = tier_columns(plan)
    if columns:
        blocks.append(Heading(3, "The three tiers side by side"))
        heads = [("", 16, False)] + [
            (c.title + (" (recommended)" if c.recommended else ""), 28, False) for c in columns
        ]
        labels = list(dict.fromkeys(["Why not", *(label for c in columns for label, _ in c.rows)]))
        labels = [label for label in labels if any(label in dict(c.rows) for c in columns)]
        rows = [[Cell("Best option", bold=True), *(Cell(c.answer, bold=True) for c in columns)]]
        rows += [[label, *(dict(c.rows).get(label, "") for c in columns)] for label in labels]
        blocks.append(grid(heads, rows, 7.5))
    if plan.warnings:
        n = len(plan.warnings)
        blocks.append(
            Text(
                f"{n} note{'s' if n != 1 else ''} from the planner {'are' if n != 1 else 'is'} listed "
                "under \u201cHow the numbers were computed\u201d.",
                "small",
            )
        )
    return Section(Heading(2, "Executive summary"), blocks)


def _answer_detail(plan: Plan, summary: Summary) -> list[Section]:
    """After page one: the cost over time and the runners-up, or what would make the job fit."""
    if plan.best is None:
        blocks: list[Block] = []
        if plan.suggestions:
            blocks += [Heading(3, "What would make it fit"), Bullets(tuple(plan.suggestions))]
        blocks.append(Chart("memory", "memory-summary"))
        return [Section(None, blocks)]
    blocks = [Chart("cost", "cost", fallback=_cumulative(plan, summary))]
    others = runners_up(plan)
    if others:
        blocks.append(Heading(3, "Next best options"))
        # a training job's rent is the job's, as on page 1 (not $/h and $/month)
        rows = [
            [gpu_line(o), speed_text(o), job_rent_text(o) or rent_text(o.cost), buy_text(o.cost)]
            for o in others
        ]
        blocks.append(
            grid([("GPUs", 26, False), ("Speed", 40, False), ("Rent", 17, True), ("Buy", 17, True)], rows)
        )
    if plan.suggestions:
        blocks += [Heading(3, "What else you could change"), Bullets(tuple(plan.suggestions))]
    # Page one holds the answer, the verdict and the tiers; the chart starts the next page whole.
    return [Section(Heading(2, "Rent or buy over time", new_page=True), blocks)]


def _cumulative(plan: Plan, summary: Summary) -> tuple[Block, ...]:
    """The cost chart's numbers as a table (a job's rent has no curve over months)."""
    best = plan.best
    summed = summary.cost
    if best is None or summed is None or best.cost.job_cloud_usd is not None:
        return ()
    months = [m for m in (6, 12, 24, 36) if m <= summed.horizon_months]
    rent, buy = best.cost.cumulative(summed.horizon_months)
    rows = [(str(m), format_usd(rent[m]), format_usd(buy[m])) for m in months]
    return (
        Text(f"Cumulative cost of {gpu_line(best)} (the PDF draws this as a chart):"),
        grid([("Months", 20, True), ("Rent", 40, True), ("Buy", 40, True)], rows),
    )


def _memory(plan: Plan) -> Section:
    blocks: list[Block] = [
        Text(
            "Each option's memory per GPU after the planner's sharding, by component; the black mark is "
            "the GPU's memory (red where the footprint does not fit)."
        ),
        Chart(
            "memory",
            "memory",
            fallback=(Text("Per GPU for each option, after sharding: see the options table."),),
        ),
        Heading(3, "One device, no sharding"),
    ]
    rows = memory_part_rows(plan.memory, "sum of the above, one device, no sharding")
    columns = [("Component", 20, False), ("Size", 13, True), ("How it was computed", 67, False)]
    blocks.append(grid(columns, [(Cell(c, bold=c == "Total"), v, f) for c, v, f in rows], 7.5))
    blocks += [Text(note, "small") for note in tables.memory_notes(plan)]
    option = plan.best or (plan.options[0] if plan.options else None)
    if option is not None:
        blocks.append(Heading(3, f"On each GPU of {gpu_line(option)}"))
        total = f"of {format_bytes(option.gpu_memory_bytes)} on the GPU"
        parts = memory_part_rows(option.per_gpu, total)
        blocks.append(grid(columns, [(Cell(c, bold=c == "Total"), v, f) for c, v, f in parts], 7.5))
    return Section(Heading(2, "Memory"), blocks)


# The options table's columns (key, width in %); the GPU cell also names the tier and layout.
OPTION_COLUMNS = {
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
TAIL_COLUMNS = (("bound", 9), ("rent", 8), ("purchase", 9), ("breakeven", 9))


def _options(plan: Plan) -> Section:
    heading = Heading(2, "Options")
    if not plan.options:
        return Section(heading, [Text("No GPU in the catalogue could be sized for this job.")])
    intro = Text(
        f"The options worth a look, best first ({rank_basis(plan)}): the smallest layout of each GPU that "
        "fits and meets the target; \u201cfits, too slow\u201d fits in memory but misses the target. Rent "
        "is per hour for all the GPUs; Purchase = the GPUs plus each machine without its GPUs (desktop, "
        "workstation tower or 8-GPU server, with its source in the cost formula)."
    )
    training = plan.request.task.is_training
    by_key = {c.key: c for c in tables.option_columns(training)}
    keys = OPTION_COLUMNS[training]
    if plan.request.epoch_tokens is not None:  # a dataset: time per epoch says more than time per step
        keys = tuple(("time_per_epoch", w) if k == "step_time" else (k, w) for k, w in keys)
    chosen = [(by_key[k], w) for k, w in (*keys, *TAIL_COLUMNS)]
    columns = [("GPU", 100 - sum(w for _, w in chosen), False)]
    columns += [(c.header, w, c.numeric) for c, w in chosen]
    listed = shortlist(plan)
    rows = [
        [
            Cell(o.gpu, note=f"{by_key['tier'].text(o)} · {o.layout.describe()}"),
            *(c.text(o) for c, _ in chosen),
        ]
        for o in listed.shown
    ]
    blocks: list[Block] = [intro, grid(columns, rows, 7, [o is plan.best for o in listed.shown])]
    blocks += [Text(line, "small") for line in listed.folded_lines()]
    return Section(heading, blocks)


def _speed(plan: Plan) -> Section:
    blocks: list[Block] = [kv(tables.compute_rows(plan), 32, head=("Work", "Amount"))]
    speed_rows = tables.speed_rows(plan)
    if speed_rows:
        blocks.append(Heading(3, "The cheapest options that fit"))
        blocks.append(
            grid(
                [("GPUs", 27, False), ("Expected speed", 58, False), ("Bound by", 15, False)],
                speed_rows,
                8,
                [i == 0 and plan.best is not None for i in range(len(speed_rows))],
            )
        )
    blocks += _frontier(plan)
    return Section(Heading(2, "Speed"), blocks)


FRONTIER_WIDTHS = (15, 30, 30, 25)  # percent of the body


def _frontier(plan: Plan) -> list[Block]:
    """Without a deadline: the recommended GPU and recipe at each scale, time to train against the
    job's rent (the rows the CLI prints), the recommended scale highlighted; nothing otherwise."""
    rows = tables.frontier_rows(plan)
    if not rows:
        return []
    intro = (
        "No deadline was given: the plan is sized to finish within the default duration. Each row is the "
        "same GPU and recipe at another scale; where the rent climbs faster than the time falls, scaling "
        "stops paying."
    )
    columns = [(h, w, h != "") for h, w in zip(tables.FRONTIER_HEADERS, FRONTIER_WIDTHS, strict=True)]
    return [
        Heading(3, tables.frontier_title(plan)),
        Text(intro),
        grid(columns, rows, 8, [row[3] == "recommended" for row in rows]),
    ]


def _cost(plan: Plan, summary: Summary) -> Section:
    heading = Heading(2, "Cost: rent or buy")
    summed = summary.cost
    if summed is None or summary.best is None:
        return Section(heading, [Text("No option fits, so there is nothing to price.")])
    return Section(
        heading,
        [
            Text(f"For {gpu_line(summary.best)} at {plan.request.hours_per_month:g} h/month."),
            kv(cost_rows(summed), 32, head=("Cost", "USD")),
            Text(summed.advice, "advice"),
        ],
    )


def _working(plan: Plan) -> Section:
    blocks: list[Block] = []
    formulas = tables.formula_rows(plan.best)
    if formulas:
        blocks += [
            Heading(3, "Formulas for the recommended option"),
            kv(formulas, 16, 8, ("Quantity", "Formula")),
        ]
    blocks.append(Heading(3, "Assumptions"))
    blocks.append(
        grid(
            [("Assumption", 31, False), ("Value", 15, False), ("Meaning and source", 54, False)],
            tables.assumption_rows(plan),
            7.5,
        )
    )
    sources = tables.source_rows(plan.best)
    if sources:
        blocks.append(Heading(3, "Catalogue sources for the recommended GPU"))
        blocks.append(kv(sources, 16, 7.5, ("Key", "Source")))
    if plan.warnings or plan.suggestions:
        blocks.append(Heading(3, "Notes from the planner"))
        items = [*plan.warnings, *(f"Suggestion: {s}" for s in plan.suggestions)]
        blocks.append(Bullets(tuple(items), small=True))
    return Section(Heading(2, "How the numbers were computed"), blocks)


def _results(named: NamedReport, index: int) -> Section:
    report = named.report
    blocks: list[Block] = [Heading(3, "Machine"), kv(res.machine_rows(report), 24, head=("", "Value"))]
    if report.distributed is not None:  # a cluster run (bench --nproc / --distributed)
        blocks.append(ClusterRun(index))
    if report.results:
        widths = (26, 12, 24, 38)
        blocks.append(Heading(3, "Results"))
        blocks.append(
            grid(
                [(h, w, i == 2) for i, (h, w) in enumerate(zip(res.RESULT_HEADERS, widths, strict=True))],
                [(r.workload, r.status, r.time, r.numbers) for r in res.result_rows(report)],
                7.5,
            )
        )
        blocks.append(Text(f"{res.memory_note(report)}.", "small"))
    checks = res.prediction_rows(report)
    if checks:
        widths = (30, 12, 11, 11, 6, 12, 12, 6)
        blocks.append(Heading(3, "Measured against predicted"))
        blocks.append(
            grid(
                [(h, w, i >= 2) for i, (h, w) in enumerate(zip(res.PREDICTION_HEADERS, widths, strict=True))],
                [c.cells() for c in checks],
                7.5,
            )
        )
        blocks.append(Text(" ".join((res.ERROR_MEANING, res.prediction_caveat(report))).strip(), "small"))
    diagnosis = res.diagnosis_rows(report)
    if diagnosis:
        widths = (26, 42, 32)
        blocks.append(Heading(3, "Diagnosis"))
        blocks.append(
            grid(
                [(h, w, False) for h, w in zip(res.DIAGNOSIS_HEADERS, widths, strict=True)],
                [(d.workload, d.finding, d.fix) for d in diagnosis],
                7.5,
            )
        )
    blocks.append(
        Chart(
            "telemetry",
            f"telemetry-{index}",
            index,
            heading="Telemetry",
            missing="No telemetry samples in this file.",
            fallback=(Text(f"{res.telemetry_title(report)}: charts in the PDF."),),
        )
    )
    ram = res.host_ram_peak_text(report)
    if ram:
        blocks.append(Text(ram, "small"))
    title = f"Watched command: {named.name}" if res.is_watched(report) else f"Benchmark: {named.name}"
    return Section(Heading(2, title, new_page=True), blocks)
