"""`gpu-advisor report PLAN.json [--results R.json ...] --pdf FILE [--markdown FILE] [--json FILE]`.

PLAN.json is a saved plan (`gpu-advisor plan ... --save`, or the app's Save): its inputs are validated
and planned again, so the report always matches the current catalogue. A bad file is one line
naming the file and the field (exit code 2), never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from gpu_advisor.core.result import Plan

T = TypeVar("T")

PAGE_SIZE_CHOICES = ("A4", "Letter")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the `report` subcommand."""
    p = sub.add_parser(
        "report",
        help="write a PDF, Markdown or JSON report of a saved plan, with benchmark results",
        description="Render a saved plan (and optionally benchmark results) as a PDF recommendation, "
        "Markdown or JSON.",
    )
    p.add_argument("plan_file", metavar="PLAN.json", help="a plan saved with `gpu-advisor plan ... --save`")
    p.add_argument(
        "--results",
        metavar="R.json",
        nargs="+",
        action="extend",
        default=[],
        help="benchmark results (`gpu-advisor bench --json FILE`) to attach",
    )
    p.add_argument("--pdf", metavar="FILE", help="write the PDF report here")
    p.add_argument("--markdown", metavar="FILE", help="write a Markdown report here")
    p.add_argument("--json", metavar="FILE", help="write a JSON report (plan + results) here")
    p.add_argument("--page-size", choices=PAGE_SIZE_CHOICES, default="A4", help="PDF paper size (default A4)")
    p.set_defaults(func=cmd_report)


def load_saved_plan(path: str | Path) -> tuple[Plan, dict[str, Any]]:
    """Validate a saved plan file and plan its inputs again. Returns (Plan, the file's data).

    Raises UserInputError naming the file and the field (the words of core.saved_plan, as the app's).
    """
    from gpu_advisor.core.errors import UserInputError as CliError
    from gpu_advisor.core.recommend import plan
    from gpu_advisor.core.saved_plan import read_saved_request

    request, data = read_saved_request(path)
    try:
        return plan(request), data
    except KeyError as exc:  # a GPU restriction the catalogue no longer has
        raise CliError(f"{path}: inputs.{str(exc.args[0]) if exc.args else exc}") from None


def cmd_report(args: argparse.Namespace) -> int:
    from gpu_advisor.bench.loading import load_named
    from gpu_advisor.core.errors import UserInputError as CliError
    from gpu_advisor.core.files import FileFormatError

    if not (args.pdf or args.markdown or args.json):
        raise CliError("nothing to write: give --pdf FILE, --markdown FILE or --json FILE")
    result, data = load_saved_plan(args.plan_file)
    _note_changes(args.plan_file, data, result)
    attached = []
    for name in args.results:
        try:
            attached.append(load_named(name))
        except FileFormatError as exc:
            raise CliError(str(exc)) from None
    if args.pdf:
        from gpu_advisor.report.pdf import write_pdf

        pages = write_file(lambda p: write_pdf(result, p, attached, page_size=args.page_size), args.pdf)
        print(f"wrote {args.pdf} ({pages} page{'s' if pages != 1 else ''}, {args.page_size})")
    if args.markdown:
        from gpu_advisor.report.markdown import write_markdown

        write_file(lambda p: write_markdown(result, p, attached), args.markdown)
        print(f"wrote {args.markdown}")
    if args.json:
        from gpu_advisor.report.json_report import write_json_report

        write_file(lambda p: write_json_report(result, p, attached), args.json)
        print(f"wrote {args.json}")
    return 0


def write_file(writer: Callable[[Path], T], path: str) -> T:
    """writer(Path(path)); an OSError is one line naming the file (the plan and report commands)."""
    from gpu_advisor.core.errors import UserInputError as CliError

    try:
        return writer(Path(path))
    except OSError as exc:
        raise CliError(f"{path}: cannot write ({exc.strerror or exc})") from None


def _note_changes(path: str, data: dict[str, Any], result) -> None:
    """Say so when planning again gives a different answer than the saved one (the catalogue changed)."""
    saved = data.get("recommendation")
    if not isinstance(saved, dict):
        return
    rec = result.recommendation
    if (saved.get("gpu_id"), saved.get("count")) != (rec.gpu_id, rec.count):
        was = f"{saved.get('count')} x {saved.get('gpu')}" if saved.get("gpu") else "nothing"
        now = f"{rec.count} x {rec.gpu}" if rec.gpu else "nothing"
        print(
            f"note: {path} recommended {was}; planned again with today's catalogue it is {now}",
            file=sys.stderr,
        )
