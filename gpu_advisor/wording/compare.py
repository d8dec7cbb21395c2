"""How a comparison of results files reads: the rows of `bench.compare`, worded once for the CLI and the GUI.

Every cell carries its unit ('700 TFLOP/s', '144.2 MiB', '107.9 ms'), worded by `core.units` like the
benchmark summary and the report, so one figure reads the same in every face. A row with a catalogue
figure is followed by a reference line ("catalogue bf16 peak"), marked as such in the typed line.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.bench.compare import CompareRow, Comparison
from gpu_advisor.bench.results import BenchReport, as_number
from gpu_advisor.core.units import byte_unit, duration_unit, format_pct, si_unit
from gpu_advisor.wording.results import quantity_text


@dataclass(frozen=True, slots=True)
class CompareLine:
    """One line of the worded table: a row's cells, or its catalogue reference."""

    label: str
    cells: tuple[str, ...]
    reference: bool = False  # the catalogue's figures for the row above


def row_cells(row: CompareRow) -> tuple[str, ...]:
    """The row's cells; an error taken from several results says so: '-12% (worst of 2)'."""
    cells = [quantity_text(row.quantity, v, row.unit) for v in row.values]
    for i, count in enumerate(row.worst_of):
        if count > 1:
            cells[i] += f" (worst of {count})"
    return tuple(cells)


def reference_cells(row: CompareRow) -> tuple[str, ...] | None:
    """The catalogue's figures for the row, worded like it; None if the row has no catalogue figure."""
    if row.reference is None or all(v is None for v in row.reference):
        return None
    return tuple(quantity_text(row.quantity, v, row.unit) for v in row.reference)


def compare_lines(comparison: Comparison) -> list[CompareLine]:
    """Every row as a line, each followed by its catalogue line where any file has a catalogue figure;
    the rows that more of the files have come first."""
    lines = []
    # Rows that more files have first (stable otherwise): a watched run's figures before 27 rows of
    # benchmark figures it has none of.
    rows = sorted(comparison.rows, key=lambda row: -sum(v is not None for v in row.values))
    for row in rows:
        lines.append(CompareLine(row.label, row_cells(row)))
        reference = reference_cells(row)
        if reference is not None:
            lines.append(CompareLine(row.reference_label, reference, reference=True))
    return lines


def better_text(row: CompareRow) -> str:
    """'higher is better', 'lower is better', or '' where neither is."""
    if row.lower_is_better is None:
        return ""
    return "lower is better" if row.lower_is_better else "higher is better"


def axis_unit(row: CompareRow, top: float) -> tuple[str, float]:
    """The unit a chart of `row` reads in, and its scale in base units, for values up to `top`."""
    if row.quantity == "bytes":
        unit, scale = byte_unit(top)
        return unit, float(scale)
    if row.quantity == "flops":
        return si_unit(top, "FLOP/s")
    if row.quantity == "bandwidth":
        return si_unit(top, "B/s")
    if row.quantity == "duration":
        return duration_unit(top)
    if row.quantity == "fraction":
        return "%", 0.01
    return row.unit, 1.0


def relative_text(row: CompareRow, index: int, baseline: int) -> str:
    """File `index` against the `baseline` file on a measured row: '+35% (better)', '-20% (worse)',
    'same'; '' where either has no number or the row has no better way (a machine's description)."""
    value, base = as_number(row.values[index]), as_number(row.values[baseline])
    if row.lower_is_better is None or value is None or base is None or base == 0:
        return ""
    change = value / base - 1
    text = format_pct(change, signed=True)
    if text == format_pct(0.0):
        return "same"
    better = (change < 0) == row.lower_is_better
    return f"{text} ({'better' if better else 'worse'})"


def run_state(report: BenchReport) -> str:
    """'' for a run that finished; 'stopped: 3 of 6 workloads' or 'partial: 1 failed' otherwise, so a
    stopped run's missing figures are not read as the machine's."""
    results = report.results
    stopped = sum(r.status == "cancelled" for r in results)
    failed = sum(r.status == "error" for r in results)
    if stopped:
        done = len({r.workload for r in results if r.status == "ok"})
        return f"stopped: {done} of {len(report.options.get('workloads') or results)} workloads"
    if failed:
        return f"partial: {failed} failed"
    return ""
