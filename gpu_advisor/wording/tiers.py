"""The three tiers side by side, as words: one column per tier for the CLI, the GUI and the PDF."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from gpu_advisor.core.result import Plan
from gpu_advisor.core.units import NA, format_watts
from gpu_advisor.wording.plan import (
    buy_text,
    gpu_line,
    job_rent_text,
    machine_text,
    rent_text,
    rented,
    speed_text,
)


@dataclass(frozen=True)
class TierColumn:
    """One tier: its title, its answer (or 'no option'), and (label, text) rows."""

    tier: str
    title: str
    answer: str
    rows: tuple[tuple[str, str], ...]
    recommended: bool


def tier_columns(plan: Plan) -> list[TierColumn]:
    """Data center, workstation, consumer: each tier's best option with what it needs."""
    out = []
    for choice in plan.tiers:
        best = plan.tier_best(choice)
        rows: tuple[tuple[str, str], ...]
        if best is None:
            rows = (("Why not", choice.reason), ("Noise", choice.noise), ("Support", choice.support))
            out.append(TierColumn(choice.tier.value, choice.tier.label, "No option", rows, False))
            continue
        renting = rented(plan, best)
        power = NA if best.cost.power_kw is None else format_watts(best.cost.power_kw * 1000)
        if renting:  # the bought machines' draw (a whole baseboard's host) is not what a rental pays
            power = "paid in the rent"
        rows = (
            ("Machines", machine_text(best, renting)),
            ("Power at the wall", power),
            ("Speed", speed_text(best)),
            ("Rent", job_rent_text(best) or rent_text(best.cost)),
            ("Buy", buy_text(best.cost)),
            ("Noise", choice.noise),
            ("Support", choice.support),
        )
        recommended = best.gpu_id == plan.recommendation.gpu_id
        out.append(TierColumn(choice.tier.value, choice.tier.label, gpu_line(best), rows, recommended))
    return out


def tiers_text(plan: Plan, width: int = 38) -> list[str]:
    """The CLI's three columns, wrapped to `width` characters each."""
    columns = tier_columns(plan)
    if not columns:
        return []
    cells = []
    for column in columns:
        mark = " (recommended)" if column.recommended else ""
        lines = [f"{column.title}{mark}", column.answer]
        for label, text in column.rows:
            lines += textwrap.wrap(f"{label}: {text}", width, subsequent_indent="  ")
        cells.append(lines)
    height = max(len(c) for c in cells)
    out = ["Three tiers side by side:"]
    for i in range(height):
        out.append("  " + " | ".join(f"{(c[i] if i < len(c) else ''):<{width}}" for c in cells).rstrip())
    return out
