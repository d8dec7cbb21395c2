"""What each GPU runs natively and how it is sold: resources/support.json (every entry sourced).

Compute capability (NVIDIA) or gfx target (AMD), the precisions with tensor/matrix-core math, and the
baseboard sizes SXM/OAM parts are sold in. A bf16 request on a part without bf16 runs as fp16 with loss
scaling (training) or serves in fp16 (inference); the option says so.
"""

from __future__ import annotations

from functools import cache

from .files import parse_json
from .paths import resource


@cache
def _table() -> dict:
    return parse_json(resource("support.json").read_text(encoding="utf-8"), "built-in support.json")


def support_fields(gpu_id: str) -> dict:
    """The GpuSpec fields support.json sets for a GPU (empty for a GPU it does not list)."""
    entry = _table()["gpus"].get(gpu_id)
    if entry is None:
        return {}
    sources = _table()["sources"]
    cited = "; ".join(f"[{k}] {sources[k]}" for k in (s.strip() for s in entry["source"].split(";")))
    return {
        "compute_capability": entry["compute_capability"],
        "gfx_target": entry["gfx_target"],
        "native_precisions": tuple(entry["native"]),
        "baseboard_gpus": None if entry["baseboard_gpus"] is None else tuple(entry["baseboard_gpus"]),
        "support_source": cited,
    }


def gpus_bought_per_machine(baseboard_gpus: tuple[int, ...] | None, gpus_per_machine: int) -> int:
    """SXM/OAM parts come on whole baseboards: the smallest board that holds the machine's GPUs;
    cards (PCIe, NVL, desktop) are bought one by one."""
    if not baseboard_gpus:
        return gpus_per_machine
    fitting = [b for b in sorted(baseboard_gpus) if b >= gpus_per_machine]
    return fitting[0] if fitting else gpus_per_machine


def gpus_bought(baseboard_gpus: tuple[int, ...] | None, machines: int, gpus_per_machine: int) -> int:
    return machines * gpus_bought_per_machine(baseboard_gpus, gpus_per_machine)
