"""One device's memory as the GUI's chart and table show it: each component, the overhead in the parts
that allocate it (non-PyTorch memory, fragmentation, the serving engine's reserve), and the engine's
KV pool beside the KV cache it must hold. Numbers stay numbers here; the faces format them.

The labels are the report's (wording/report_facts.py), so the PDF, the Markdown and the GUI name each
part alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.core.estimates import COMPONENTS, MemoryEstimate
from gpu_advisor.core.units import format_bytes
from gpu_advisor.wording.plan import COMPONENT_LABELS
from gpu_advisor.wording.report_facts import OVERHEAD_PART_LABELS

# The key of each overhead part as the chart colours it (report/palette.py OVERHEAD_PART_COLORS).
OVERHEAD_PART_KEYS = {
    "non_pytorch_bytes": "non_pytorch",
    "fragmentation_bytes": "fragmentation",
    "engine_reserve_bytes": "engine_reserve",
}

# Every part's key in stacking order: the components, the overhead's place taken by its parts.
PART_ORDER = tuple(
    k for c in COMPONENTS for k in ((c,) if c != "overhead" else ("overhead", *OVERHEAD_PART_KEYS.values()))
)


@dataclass(frozen=True)
class MemoryPart:
    """One stacked part of a device's memory: `key` names its colour, `formula` how it was computed."""

    key: str
    label: str
    size_bytes: int
    formula: str


def memory_parts(memory: MemoryEstimate) -> list[MemoryPart]:
    """The non-zero components in stacking order, the overhead split where the plan split it."""
    comps = memory.components
    parts: list[MemoryPart] = []
    for key in COMPONENTS:
        if key == "overhead" and memory.overhead_parts:
            for part, size in memory.overhead_parts.items():
                label, meaning = OVERHEAD_PART_LABELS.get(part, (part, ""))
                key = OVERHEAD_PART_KEYS.get(part, "overhead")
                if size:
                    parts.append(MemoryPart(key, label, size, memory.formulas.get(key, meaning)))
            continue
        size = getattr(comps, key)
        if size:
            parts.append(MemoryPart(key, COMPONENT_LABELS[key], size, memory.formulas.get(key, "")))
    return parts


def kv_pool_text(memory: MemoryEstimate) -> str:
    """'KV pool 3.6 GiB holds the users' 3.0 GiB of KV cache (84% full)', or '' without an engine pool."""
    pool = memory.kv_pool_bytes
    if pool is None:
        return ""
    kv = memory.components.kv_cache
    held = "holds" if kv <= pool else "cannot hold"
    fill = f" ({kv / pool:.0%} full)" if pool > 0 else ""
    return f"KV pool {format_bytes(pool)} {held} the users' {format_bytes(kv)} of KV cache{fill}"
