"""The comparison table (from gpu_advisor.bench.compare) and which of its rows can be charted (no Qt)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CATALOGUE_PREFIX = "  catalogue"
# Rows that describe the machine rather than measure it: in the table, not in the chart.
NOT_CHARTED = ("catalogue", "RAM", "CPU cores")


@dataclass(frozen=True, slots=True)
class LoadedResults:
    path: Path
    report: Any  # gpu_advisor.bench.results.BenchReport

    @property
    def label(self) -> str:
        """The column header: the device and the file it came from."""
        return f"{self.report.device.name}\n{self.path.name}"


@dataclass(frozen=True, slots=True)
class ChartSeries:
    """One chartable row: measured values per file, and the catalogue's figure per file if given."""

    label: str
    unit: str
    measured: tuple[float | None, ...]
    catalogue: tuple[float | None, ...] | None


def parse_cell(text: str) -> float | None:
    """'1,234.5' -> 1234.5; 'n/a' or text -> None (cells are formatted by bench.compare)."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def unit_of(label: str) -> str:
    """'matmul fp32 (TFLOP/s)' -> 'TFLOP/s'."""
    return label.rpartition("(")[2].rstrip(")") if label.endswith(")") else ""


def comparison(loaded: Sequence[LoadedResults]) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """(headers, rows) of bench.compare for the loaded files; empty when none are loaded."""
    if not loaded:
        return (), ()
    from gpu_advisor.bench.compare import compare

    table = compare([(item.label, item.report) for item in loaded])
    return table.headers, table.rows


def chart_series(rows: Sequence[tuple[str, ...]]) -> list[ChartSeries]:
    """Rows with a unit and at least one number; a following catalogue row becomes its reference."""
    series: list[ChartSeries] = []
    for i, row in enumerate(rows):
        label = row[0]
        if label.strip().startswith(NOT_CHARTED) or not unit_of(label) or "error" in label:
            continue
        measured = tuple(parse_cell(cell) for cell in row[1:])
        if all(v is None for v in measured):
            continue
        catalogue = None
        if i + 1 < len(rows) and rows[i + 1][0].startswith(CATALOGUE_PREFIX):
            values = tuple(parse_cell(cell) for cell in rows[i + 1][1:])
            catalogue = values if any(v is not None for v in values) else None
        series.append(ChartSeries(label.strip(), unit_of(label), measured, catalogue))
    return series
