"""The recommendation as Markdown (GitHub-flavoured tables): report.outline's sections, the PDF's
content with each chart replaced by its numbers or a pointer to the PDF."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.files import write_bytes_atomic
from gpu_advisor.core.result import Plan
from gpu_advisor.report import outline as ol
from gpu_advisor.wording import distributed as cluster_words
from gpu_advisor.wording.text import clip_text


def _cell(text: str) -> str:
    return clip_text(str(text)).replace("|", "\\|").replace("\n", " ")


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[bool] = ()) -> list[str]:
    align = ["---:" if i < len(numeric) and numeric[i] else "---" for i in range(len(headers))]
    out = ["| " + " | ".join(_cell(h) for h in headers) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return [*out, ""]


def _grid_cell(cell: ol.Cell, key_values: bool) -> str:
    text = f"{cell.text} ({cell.note})" if cell.note else cell.text
    return f"**{text}**" if cell.bold and not key_values and text else text


def _block(block: ol.Block, results: Sequence[NamedReport]) -> list[str]:
    if isinstance(block, ol.Title):
        return [f"# {block.kicker}: {block.text}", "", f"*{'. '.join(block.lines)}.*", ""]
    if isinstance(block, ol.Heading):
        return ["#" * block.level + " " + block.text, ""]
    if isinstance(block, ol.Text):
        if block.label:
            return [f"**{block.label}** {block.text}", ""]
        bold = block.style in ("headline", "advice")
        return [f"**{block.text}**" if bold else block.text, ""]
    if isinstance(block, ol.Bullets):
        return [*(f"- {item}" for item in block.items), ""]
    if isinstance(block, ol.Grid):
        headers = block.head if block.key_values else tuple(h for h, _, _ in block.columns)
        rows = [[_grid_cell(c, block.key_values) for c in row] for row in block.rows]
        return _table(headers, rows, [num for _, _, num in block.columns])
    if isinstance(block, ol.Chart):
        return [line for inner in block.fallback for line in _block(inner, results)]
    if isinstance(block, ol.ClusterRun):
        distributed = results[block.index].report.distributed
        if distributed is None:
            return []
        return [f"Cluster run: {cluster_words.backend_line(distributed)} (tables and charts in the PDF).", ""]
    return []


def render_markdown(plan: Plan, results: Sequence[NamedReport] = (), now: dt.datetime | None = None) -> str:
    """The whole report as one Markdown string."""
    lines: list[str] = []
    for section in ol.outline(plan, results, now):
        if section.heading is not None:
            lines += _block(section.heading, results)
        for block in section.blocks:
            lines += _block(block, results)
    return "\n".join(lines).rstrip() + "\n"


def write_markdown(plan: Plan, path: str | Path, results: Sequence[NamedReport] = ()) -> None:
    """Write the Markdown report atomically (an existing file is replaced only when complete)."""
    write_bytes_atomic(path, render_markdown(plan, results).encode("utf-8"))
