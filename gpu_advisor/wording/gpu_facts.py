"""A detected GPU's facts in words: the dicts that `telemetry.describe_machine` gives per GPU (and that
a results file keeps), read by `doctor` and by the benchmark report's machine rows."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gpu_advisor.core.units import format_bytes, format_watts

# Each fact a GPU's dict may hold, by key, and how it reads; a missing or empty one is left out.
_FACTS: dict[str, Callable[[Any], str]] = {
    "memory_total_bytes": format_bytes,
    "power_limit_w": lambda w: f"limit {format_watts(w)}",
    "driver_version": lambda v: f"driver {v}",
    "cuda_driver_version": lambda v: f"CUDA {v}",
    "mig_mode": lambda _: "MIG enabled",
    "uuid": str,
    "pci_bus_id": lambda bus: f"PCI {bus}",
    "error": lambda why: f"error: {why}",
}


def gpu_facts(gpu: Mapping[str, Any], keys: Iterable[str]) -> list[str]:
    """The facts among `keys` (in that order) that `gpu` holds, each in its words."""
    return [_FACTS[key](gpu[key]) for key in keys if gpu.get(key)]
