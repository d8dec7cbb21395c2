"""Reading and writing plan files (`gpu-advisor/plan@1`) and exports, for the main window's menus.

No widgets here. Errors are FileFormatError / OSError with a message that names the file and field.
Exports take the results already loaded (the Compare view's), never their paths: nothing is read twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.files import FileFormatError, read_json, write_json_atomic
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.result import Plan
from gpu_advisor.core.saved_plan import read_saved_request


def load_plan_request(path: str | Path) -> PlanRequest:
    """The request stored in a saved plan (its `inputs`), validated by the CLI's loader."""
    return read_saved_request(path)[0]


def is_results_file(path: str | Path) -> bool:
    """True for a benchmark results file (bench@1), by its schema; False for anything else, so that
    opening it as a plan names what is wrong."""
    try:
        schema = read_json(path).get("schema")
    except (FileFormatError, OSError):
        return False
    return isinstance(schema, str) and schema.startswith("gpu-advisor/bench@")


def save_plan(plan: Plan, path: str | Path) -> None:
    """The plan as JSON (the CLI's `--json` object), written atomically."""
    write_json_atomic(path, plan.to_json_dict())


def pdf_unavailable_reason() -> str | None:
    """None when PDF export works here, else why not (shown as the menu item's tooltip)."""
    try:
        from gpu_advisor.report import pdf  # noqa: F401  (imports Qt GUI classes only)
    except Exception as exc:  # missing module or a missing Qt piece: the menu says so
        return f"PDF export is not available: {exc}"
    return None


def write_json_report(plan: Plan, path: str | Path, results: Sequence[NamedReport] = ()) -> None:
    """The `gpu-advisor/report@1` JSON (plan, summary, attached results)."""
    from gpu_advisor.report.json_report import write_json_report as report_json

    report_json(plan, path, results)


def write_markdown(plan: Plan, path: str | Path, results: Sequence[NamedReport] = ()) -> None:
    from gpu_advisor.report.markdown import write_markdown as report_markdown

    report_markdown(plan, path, results)


def write_pdf(
    plan: Plan,
    path: str | Path,
    results: Sequence[NamedReport] = (),
    progress: Callable[[int, str], None] | None = None,
) -> None:
    from gpu_advisor.report.pdf import write_pdf as report_pdf

    report_pdf(plan, path, results, progress=progress)
