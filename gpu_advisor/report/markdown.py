"""The recommendation as Markdown (GitHub-flavoured tables): the PDF's content without the charts."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.cost import cumulative_costs
from gpu_advisor.core.files import write_bytes_atomic
from gpu_advisor.core.result import Plan
from gpu_advisor.core.units import format_usd
from gpu_advisor.report import content
from gpu_advisor.report.summary import CostSummary, breakeven_text, build_summary, cost_estimate, gpu_line
from gpu_advisor.wording import results as res


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[bool] = ()) -> list[str]:
    align = ["---:" if i < len(numeric) and numeric[i] else "---" for i in range(len(headers))]
    out = ["| " + " | ".join(_cell(h) for h in headers) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return [*out, ""]


def _kv(rows: Sequence[tuple[str, str]], head: tuple[str, str] = ("", "")) -> list[str]:
    return _table(head, rows)


def render_markdown(plan: Plan, results: Sequence[NamedReport] = (), now: dt.datetime | None = None) -> str:
    """The whole report as one Markdown string."""
    now = now or dt.datetime.now().astimezone()
    summary = build_summary(plan)
    lines = [f"# GPU recommendation: {summary.title}", ""]
    lines += [f"*{summary.subtitle}. Prepared {now:%d %B %Y, %H:%M}.*", ""]
    lines += ["## Executive summary", "", f"**{summary.headline}**", "", summary.reason, ""]
    lines += _kv(summary.facts, ("", "Answer"))
    if not summary.has_recommendation and plan.suggestions:
        lines += ["What would make it fit:", "", *[f"- {s}" for s in plan.suggestions], ""]
    lines += ["## Inputs", "", *_kv(content.input_rows(plan), ("Input", "Value"))]
    lines += ["## Memory", "", "One device, no sharding (GB = 10^9 bytes):", ""]
    lines += _table(("Component", "Size", "How it was computed"), content.memory_rows(plan), (False, True))
    lines += [f"> {note}" for note in plan.memory_notes]
    lines += [
        "",
        "Per GPU for each option, after sharding, against the GPU's memory: see the options table.",
        "",
    ]
    lines += [
        "## Options",
        "",
        "Best first. Fits: yes; slow = fits but misses the target; no = does not fit.",
        "",
    ]
    columns = content.option_columns(plan.request.task.is_training)
    rows = [[row[c.key] for c in columns] for row in content.option_rows(plan)]
    lines += _table([c.header for c in columns], rows, [c.align == "right" for c in columns])
    lines += ["## Speed", "", *_kv(content.compute_rows(plan), ("Work", "Amount"))]
    if content.speed_rows(plan):
        lines += _table(("GPUs", "Expected speed", "Bound by"), content.speed_rows(plan))
    lines += ["## Cost: rent or buy", ""]
    best = plan.best
    if best is None or summary.cost is None:
        lines += ["No option fits, so there is nothing to price.", ""]
    else:
        lines += _cost_lines(plan, summary.cost)
    lines += ["## How the numbers were computed", ""]
    if content.formula_rows(plan):
        lines += _kv(content.formula_rows(plan), ("Quantity", "Formula"))
    lines += _table(("Constant", "Value", "Meaning and source"), content.assumption_rows(plan))
    if content.source_rows(plan):
        lines += [
            "### Catalogue sources for the recommended GPU",
            "",
            *_kv(content.source_rows(plan), ("Key", "Source")),
        ]
    if plan.warnings or plan.suggestions:
        lines += ["### Notes from the planner", ""]
        lines += [f"- {w}" for w in plan.warnings] + [f"- Suggestion: {s}" for s in plan.suggestions] + [""]
    for named in results:
        lines += _results_lines(named)
    return "\n".join(lines).rstrip() + "\n"


def _cost_lines(plan: Plan, cost: CostSummary) -> list[str]:
    best = plan.best
    assert best is not None
    lines = [f"For {gpu_line(best)} at {plan.request.hours_per_month:g} h/month.", ""]
    lines += _kv(
        [
            ("Rent per hour", format_usd(cost.rent_usd_per_hour)),
            ("Rent per month", format_usd(cost.rent_usd_per_month)),
            ("Buy (GPUs + server)", format_usd(cost.purchase_usd)),
            ("Electricity per month (owned)", format_usd(cost.electricity_usd_per_month)),
            ("Break-even", breakeven_text(cost.breakeven_months, cost.rent_usd_per_hour, cost.purchase_usd)),
            (f"Rent for {cost.horizon_months} months", format_usd(cost.rent_total_usd)),
            (f"Buy and run for {cost.horizon_months} months", format_usd(cost.buy_total_usd)),
            ("This training job, rented", format_usd(cost.job_rent_usd)),
        ],
        ("Cost", "USD"),
    )
    lines += [f"**{cost.advice}**", ""]
    months = [m for m in (6, 12, 24, 36) if m <= cost.horizon_months]
    rent, buy = cumulative_costs(cost_estimate(best), cost.horizon_months)
    lines += ["Cumulative cost (the PDF draws this as a chart):", ""]
    lines += _table(
        ("Months", "Rent", "Buy"),
        [(str(m), format_usd(rent[m]), format_usd(buy[m])) for m in months],
        (True, True, True),
    )
    return lines


def _results_lines(named: NamedReport) -> list[str]:
    report = named.report
    lines = [
        f"## Benchmark: {named.name}",
        "",
        "### Machine",
        "",
        *_kv(res.machine_rows(report), ("", "Value")),
    ]
    lines += ["### Results", ""]
    lines += _table(
        res.RESULT_HEADERS,
        [(r.workload, r.status, r.time, r.numbers) for r in res.result_rows(report)],
        (False, False, True, False),
    )
    lines += [f"{res.memory_note(report)}.", ""]
    checks = res.prediction_rows(report)
    if checks:
        lines += ["### Measured against predicted", ""]
        lines += _table(res.PREDICTION_HEADERS, [c.cells() for c in checks], [False, False, *[True] * 6])
        lines += [res.ERROR_MEANING, ""]
    diagnosis = res.diagnosis_rows(report)
    if diagnosis:
        lines += ["### Diagnosis", ""]
        lines += _table(res.DIAGNOSIS_HEADERS, [(d.workload, d.finding, d.fix) for d in diagnosis])
    lines += [f"{res.telemetry_title(report)}: charts in the PDF.", ""]
    return lines


def write_markdown(plan: Plan, path: str | Path, results: Sequence[NamedReport] = ()) -> None:
    """Write the Markdown report atomically (an existing file is replaced only when complete)."""
    write_bytes_atomic(path, render_markdown(plan, results).encode("utf-8"))
