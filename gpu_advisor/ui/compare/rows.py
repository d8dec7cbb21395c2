"""What the Compare view shows (no Qt): the loaded files, the worded table and the chartable rows.

Everything derives from `bench.compare`'s typed rows: the table's texts from `wording.compare`, the
chart's numbers from the rows' own values, scaled to one unit per chart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpu_advisor.bench.compare import Comparison, compare
from gpu_advisor.bench.results import BenchReport, NamedReport, as_number
from gpu_advisor.wording.compare import axis_unit, better_text, run_state
from gpu_advisor.wording.distributed import CurveChart, busbw_charts_by_file


@dataclass(frozen=True, slots=True)
class LoadedResults:
    path: Path
    report: BenchReport

    @property
    def label(self) -> str:
        """The column header: the device, the file it came from, and whether the run was stopped."""
        state = run_state(self.report)
        return f"{self.report.device.name}\n{self.path.name}" + (f"\n({state})" if state else "")

    @property
    def named(self) -> NamedReport:
        """The report named by its file, as a report attaches it."""
        return NamedReport(self.path.name, self.report)


@dataclass(frozen=True, slots=True)
class ChartSeries:
    """One chartable row: measured values per file and the catalogue's figure per file, in `unit`."""

    label: str
    unit: str
    measured: tuple[float | None, ...]
    catalogue: tuple[float | None, ...] | None
    better: str = ""  # "higher is better" / "lower is better"


def chart_names(loaded: Sequence[LoadedResults]) -> list[str]:
    """Short bar labels: the device, and the file as well when two files share a device name (two
    runs of one machine must not both read 'AMD EPYC')."""
    devices = [item.report.device.name for item in loaded]
    return [
        item.report.device.name if devices.count(item.report.device.name) == 1 else item.path.stem
        for item in loaded
    ]


def comparison(loaded: Sequence[LoadedResults]) -> Comparison:
    """bench.compare's rows for the loaded files, columns headed by their labels."""
    return compare([NamedReport(item.label, item.report) for item in loaded])


def _numbers(values: Sequence[object]) -> list[float]:
    return [n for v in values if (n := as_number(v)) is not None]


def chart_series(table: Comparison) -> list[ChartSeries]:
    """The measurements with at least one number, each in the unit its largest value reads best in."""
    series = []
    for row in table.rows:
        measured = _numbers(row.values)
        if not row.measured or not measured:
            continue
        references = _numbers(row.reference or ())
        unit, scale = axis_unit(row, max(measured + references))

        def scaled(values: Sequence[object], scale: float = scale) -> tuple[float | None, ...]:
            return tuple(None if (n := as_number(v)) is None else n / scale for v in values)

        series.append(
            ChartSeries(
                label=row.label,
                unit=unit,
                measured=scaled(row.values),
                catalogue=scaled(row.reference) if references and row.reference is not None else None,
                better=better_text(row),
            )
        )
    return series


def cluster_curves(loaded: Sequence[LoadedResults]) -> list[CurveChart]:
    """Bus bandwidth against message size, one chart per collective and scope, a line per file that
    holds a cluster run (none when no file does)."""
    named = [
        (f"{item.report.device.name} ({item.path.name})", item.report.distributed)
        for item in loaded
        if item.report.distributed is not None
    ]
    return busbw_charts_by_file(named) if named else []
