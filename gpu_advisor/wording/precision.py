"""How the precision side-by-side table reads (the Plan view's 'Memory by precision' and its CSV)."""

from __future__ import annotations

from collections.abc import Sequence

from gpu_advisor.core.precision_row import PrecisionRow
from gpu_advisor.core.units import format_bytes

PRECISION_HEADERS = ("Precision", "Weights stored as", "Bytes per weight", "Weights", "Whole job, one device")
WHOLE_JOB_NOTE = (
    "Whole job: the plan's memory on one device without sharding (weights, gradients, optimizer, "
    "activations, KV cache and overhead) with only the precision changed. MiB = 2^20 bytes, "
    "GiB = 2^30 bytes."
)


def precision_cells(row: PrecisionRow) -> tuple[str, ...]:
    """A row's texts in PRECISION_HEADERS order; a precision the task cannot use says why."""
    name = f"{row.precision.value} (chosen)" if row.chosen else row.precision.value
    if row.total_bytes is None:
        return (name, row.reason, "", "", "")
    per_weight = "" if row.bytes_per_weight is None else f"{row.bytes_per_weight:.3g} B"
    return (
        name,
        row.weight_format,
        per_weight,
        format_bytes(row.weights_bytes),
        format_bytes(row.total_bytes),
    )


def precision_lines(rows: Sequence[PrecisionRow]) -> list[tuple[str, ...]]:
    return [precision_cells(row) for row in rows]
