"""Median and spread of per-step measurements (no torch)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from gpu_advisor.bench.results import Spread
from gpu_advisor.telemetry.stats import percentile


def spread(values: Iterable[float]) -> Spread:
    """Median, 10th and 90th percentiles, min and max of at least one value."""
    ordered = sorted(float(v) for v in values)
    if not ordered:
        raise ValueError("spread of no values")
    return Spread(
        median=percentile(ordered, 50.0),
        p10=percentile(ordered, 10.0),
        p90=percentile(ordered, 90.0),
        min=ordered[0],
        max=ordered[-1],
        n=len(ordered),
    )


def spreads(steps: Sequence[Mapping[str, float]]) -> dict[str, Spread]:
    """One Spread per key of the per-step dicts (keys carry the unit: step_time_s, input_wait_s)."""
    keys = dict.fromkeys(k for step in steps for k in step)
    return {k: spread(step[k] for step in steps if k in step) for k in keys}
