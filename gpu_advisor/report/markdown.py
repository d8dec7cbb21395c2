"""The recommendation as Markdown (GitHub-flavoured tables): the PDF's content without the charts."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence
from pathlib import Path

from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.files import write_bytes_atomic
from gpu_advisor.core.result import Option, Plan
from gpu_advisor.core.units import format_usd
from gpu_advisor.wording import plan_tables as tables
from gpu_advisor.wording import results as res
from gpu_advisor.wording.plan import (
    CostSummary,
    build_summary,
    cost_rows,
    gpu_line,
    rank_basis,
    verdict_text,
)
from gpu_advisor.wording.text import clip_text
from gpu_advisor.wording.tiers import tier_columns


def _safe(text: object) -> str:
    """Text as Markdown shows it, never as markup: HTML (`<img onerror=...>` from a config's
    `_name_or_path`) escaped, link brackets escaped, so a model name cannot inject HTML or a link."""
    escaped = html.escape(str(text), quote=False)
    return escaped.replace("[", "\\[").replace("]", "\\]")


def _cell(text: str) -> str:
    return _safe(clip_text(str(text))).replace("|", "\\|").replace("\n", " ")


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
    lines = [f"# GPU recommendation: {_safe(summary.title)}", ""]
    lines += [f"*{_safe(summary.subtitle)}. Prepared {now:%d %B %Y, %H:%M}.*", ""]
    lines += ["## Executive summary", "", f"**{_safe(summary.headline)}**", "", _safe(summary.reason), ""]
    verdict = verdict_text(plan)
    if verdict:
        lines += [f"**Rent or buy:** {_safe(verdict)}", ""]
    lines += _kv(summary.facts, ("", "Answer"))
    if plan.suggestions:
        head = "What would make it fit:" if not summary.has_recommendation else "What would need fewer GPUs:"
        lines += [head, "", *[f"- {_safe(s)}" for s in plan.suggestions], ""]
    columns_by_tier = tier_columns(plan)
    if columns_by_tier:
        lines += ["### The three tiers side by side", ""]
        labels = list(dict.fromkeys(label for c in columns_by_tier for label, _ in c.rows))
        rows = [["Best option", *(c.answer for c in columns_by_tier)]]
        rows += [[label, *(dict(c.rows).get(label, "") for c in columns_by_tier)] for label in labels]
        titles = [c.title + (" (recommended)" if c.recommended else "") for c in columns_by_tier]
        lines += _table(("", *titles), rows)
    lines += ["## Inputs", "", *_kv(tables.input_rows(plan), ("Input", "Value"))]
    lines += ["## Memory", "", "One device, no sharding (GiB = 2^30 bytes):", ""]
    memory_rows = tables.memory_rows(plan.memory, "sum of the above, one device, no sharding")
    lines += _table(("Component", "Size", "How it was computed"), memory_rows, (False, True))
    lines += [f"> {_safe(note)}" for note in tables.memory_notes(plan)]
    lines += [
        "",
        "Per GPU for each option, after sharding, against the GPU's memory: see the options table.",
        "",
    ]
    lines += [
        "## Options",
        "",
        f"Best first, {rank_basis(plan)}; “fits, too slow” fits in memory but misses the target.",
        "",
    ]
    columns = tables.option_columns(plan.request.task.is_training)
    rows = [[c.text(o) for c in columns] for o in plan.options]
    lines += _table([c.header for c in columns], rows, [c.numeric for c in columns])
    lines += ["## Speed", "", *_kv(tables.compute_rows(plan), ("Work", "Amount"))]
    if tables.speed_rows(plan):
        lines += _table(("GPUs", "Expected speed", "Bound by"), tables.speed_rows(plan))
    lines += ["## Cost: rent or buy", ""]
    best = plan.best
    if best is None or summary.cost is None:
        lines += ["No option fits, so there is nothing to price.", ""]
    else:
        lines += _cost_lines(plan, best, summary.cost)
    lines += ["## How the numbers were computed", ""]
    if tables.formula_rows(best):
        lines += _kv(tables.formula_rows(best), ("Quantity", "Formula"))
    lines += _table(("Constant", "Value", "Meaning and source"), tables.assumption_rows(plan))
    if tables.source_rows(best):
        lines += [
            "### Catalogue sources for the recommended GPU",
            "",
            *_kv(tables.source_rows(best), ("Key", "Source")),
        ]
    if plan.warnings or plan.suggestions:
        lines += ["### Notes from the planner", ""]
        lines += [f"- {_safe(w)}" for w in plan.warnings]
        lines += [f"- Suggestion: {_safe(s)}" for s in plan.suggestions] + [""]
    for named in results:
        lines += _results_lines(named)
    return "\n".join(lines).rstrip() + "\n"


def _cost_lines(plan: Plan, best: Option, summed: CostSummary) -> list[str]:
    cost = summed.cost
    lines = [f"For {gpu_line(best)} at {plan.request.hours_per_month:g} h/month.", ""]
    lines += _kv(cost_rows(summed), ("Cost", "USD"))
    lines += [f"**{summed.advice}**", ""]
    if cost.job_cloud_usd is not None:
        return lines
    months = [m for m in (6, 12, 24, 36) if m <= summed.horizon_months]
    rent, buy = cost.cumulative(summed.horizon_months)
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
        f"## Benchmark: {_safe(named.name)}",
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
        lines += [" ".join((res.ERROR_MEANING, res.prediction_caveat(report))).strip(), ""]
    diagnosis = res.diagnosis_rows(report)
    if diagnosis:
        lines += ["### Diagnosis", ""]
        lines += _table(res.DIAGNOSIS_HEADERS, [(d.workload, d.finding, d.fix) for d in diagnosis])
    lines += [f"{res.telemetry_title(report)}: charts in the PDF.", ""]
    return lines


def write_markdown(plan: Plan, path: str | Path, results: Sequence[NamedReport] = ()) -> None:
    """Write the Markdown report atomically (an existing file is replaced only when complete)."""
    write_bytes_atomic(path, render_markdown(plan, results).encode("utf-8"))
