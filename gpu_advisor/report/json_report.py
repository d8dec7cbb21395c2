"""The recommendation as JSON (`gpu-advisor/report@1`): the plan object, the summary, and attached results."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.files import write_json_atomic
from gpu_advisor.core.result import Plan
from gpu_advisor.wording.plan import build_summary, summary_dict

REPORT_SCHEMA = "gpu-advisor/report@1"


def render_json(
    plan: Plan, results: Sequence[NamedReport] = (), now: dt.datetime | None = None
) -> dict[str, Any]:
    """`plan` is exactly `gpu-advisor plan --json`; `results` are the attached files, as bench@1 writes them."""
    now = now or dt.datetime.now().astimezone()
    return {
        "schema": REPORT_SCHEMA,
        "created": now.isoformat(timespec="seconds"),
        "summary": summary_dict(build_summary(plan), plan),
        "plan": plan.to_json_dict(),
        "results": [{"file": named.name, **named.report.to_json_dict()} for named in results],
    }


def write_json_report(plan: Plan, path: str | Path, results: Sequence[NamedReport] = ()) -> None:
    """Write the JSON report atomically."""
    write_json_atomic(path, render_json(plan, results))
