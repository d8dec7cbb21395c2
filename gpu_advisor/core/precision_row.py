"""A row of the precision side-by-side table (core.precision_table makes them; the faces word them)."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.core.precision import Precision


@dataclass(frozen=True, slots=True)
class PrecisionRow:
    """The job at one precision. Sizes in bytes; None with `reason` where the task cannot use it."""

    precision: Precision
    weight_format: str = ""
    bytes_per_weight: float | None = None
    weights_bytes: int | None = None
    total_bytes: int | None = None
    kv_cache_bytes: int | None = None  # of total_bytes (serving: the cache is stored at the precision)
    reason: str = ""
    chosen: bool = False  # the request's own precision
