"""Reading results files: a benchmark's (gpu-advisor/bench@1) or a watched command's
(gpu-advisor/monitor@1, viewed as a run of one `command` workload by `bench.watched`).

Apart from `bench.results` so that the results model does not import the watched command's reader,
which imports the results model (the circle results -> watched -> monitor -> results).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gpu_advisor.bench.results import SCHEMA, BenchReport, NamedReport, ResultsFileError, describe_error
from gpu_advisor.bench.watched import report_from_monitor_dict
from gpu_advisor.core.files import FileFormatError, read_json


def report_from_dict(data: dict[str, Any], name: str = "results") -> BenchReport:
    """Validate a parsed results object; ResultsFileError names `name` and the field. A watched
    command's file (gpu-advisor/monitor@1) is read as a run of one `command` workload."""
    if data.get("schema") == "gpu-advisor/monitor@1":
        return report_from_monitor_dict(data, name)
    if data.get("schema") != SCHEMA:
        raise ResultsFileError(f"{name}: schema: expected {SCHEMA!r}, found {data.get('schema')!r}")
    try:
        return BenchReport.model_validate(data)
    except ValidationError as exc:
        raise ResultsFileError(f"{name}: {describe_error(exc)}") from None


def load_report(path: str | Path) -> BenchReport:
    """Read and validate a results file. Raises ResultsFileError naming the file and the field."""
    try:
        data = read_json(path)
    except FileFormatError as exc:
        raise ResultsFileError(str(exc)) from None
    return report_from_dict(data, str(path))


def load_named(path: str | Path) -> NamedReport:
    """A results file loaded and validated, named by its file name."""
    return NamedReport(Path(path).name, load_report(path))
