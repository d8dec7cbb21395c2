"""The report's time-cost frontier: for a token budget without a deadline, the recommended GPU and
recipe at each scale, time to train against the job's rent (the CLI prints the same table and the
GUI's tier card the same figures as a sentence, both from wording.plan_tables)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from gpu_advisor.core.result import Plan
from gpu_advisor.wording.plan_tables import FRONTIER_HEADERS, frontier_rows, frontier_title

if TYPE_CHECKING:
    from gpu_advisor.report.document import ReportDocument

WIDTHS = (15, 30, 30, 25)  # percent of the body


def add_frontier(doc: ReportDocument, plan: Plan) -> None:
    """A heading, one sentence and the table, the recommended scale highlighted; nothing when the
    plan has no frontier. Every cell is a number or a fixed word: escaped all the same."""
    rows = frontier_rows(plan)
    if not rows:
        return
    doc.heading(3, frontier_title(plan))
    doc.add(
        "<p>No deadline was given: the plan is sized to finish within the default duration. Each row "
        "is the same GPU and recipe at another scale; where the rent climbs faster than the time "
        "falls, scaling stops paying.</p>"
    )
    columns = [(h, w, h != "") for h, w in zip(FRONTIER_HEADERS, WIDTHS, strict=True)]
    doc.table(
        columns,
        [[html.escape(cell) for cell in row] for row in rows],
        8,
        [row[3] == "recommended" for row in rows],
    )
