"""What the driver exposes and how GPUs are wired: resources/systems.json.

Each catalogue GPU gets its usable memory (what CUDA reports, with its source), its GPU-to-GPU link
inside a node, the node size and its network between nodes. Links carry their line rate, the bus
bandwidth nccl-tests measures for a large all-reduce, and a latency. Cards without a measured capacity
get one by a stated rule (HBM, GDDR with ECC, consumer GDDR).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .files import parse_json
from .paths import resource
from .units import GB, GIB

# Fractions of the label (in GiB) that CUDA exposes, measured on one card of each kind (systems.json
# "RULE": A100 80GB 79.25 / 80; L40S 44.52 / 48 and T4 14.74 / 16 with ECC; RTX 4090 23.64 / 24).
USABLE_FRACTION_HBM = 0.9906
USABLE_FRACTION_GDDR_ECC = 0.9275
USABLE_FRACTION_GDDR = 0.985


class Link(BaseModel):
    """One kind of link: per-direction line rate, all-reduce bus bandwidth, latency per collective step."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    label: str
    gb_per_s: float = Field(gt=0)
    busbw_gb_per_s: float = Field(gt=0)
    latency_us: float = Field(ge=0)
    max_gpus: int | None = Field(default=None, ge=2, description="bridges join only this many GPUs")
    source: str

    @property
    def busbw_bytes_per_s(self) -> float:
        return self.busbw_gb_per_s * GB

    @property
    def bytes_per_s(self) -> float:
        return self.gb_per_s * GB

    @property
    def latency_s(self) -> float:
        return self.latency_us * 1e-6


class NodeDefaults(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    node_gpus: int = Field(ge=1)
    scale_out: str
    nics_per_node: int = Field(ge=1)
    source: str


class GpuSystem(BaseModel):
    """A GPU's entry: links by name (keys of `links`), usable memory in GiB with its source."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    intra_link: str | None = None
    memory_usable_gib: float | None = Field(default=None, gt=0)
    memory_source: str = ""
    system: str | None = None
    scale_out: str | None = None
    nics_per_node: int | None = Field(default=None, ge=1)
    node_gpus: int | None = Field(default=None, ge=1)
    host_form: str | None = Field(default=None, description="a hosts.json machine other than the tier's")


class SystemsFile(BaseModel):
    model_config = ConfigDict(extra="allow")
    sources: dict[str, str]
    links: dict[str, Link]
    defaults: dict[str, NodeDefaults]
    gpus: dict[str, GpuSystem]


@cache
def systems() -> SystemsFile:
    """The packaged systems table, loaded once."""
    text = resource("systems.json").read_text(encoding="utf-8")
    data: Any = parse_json(text, "built-in systems.json")
    return SystemsFile.model_validate(data)


def usable_memory_rule(memory_gb: float, memory_type: str, tier: str) -> tuple[float, str]:
    """Usable GiB for a card with no measurement: the label in GiB times the fraction of its kind."""
    kind = memory_type.upper()
    if "HBM" in kind:
        return (
            memory_gb * USABLE_FRACTION_HBM,
            f"rule: HBM exposes {USABLE_FRACTION_HBM:.2%} of the label in GiB",
        )
    if "ECC" in kind or tier in ("datacenter", "workstation"):
        return (
            memory_gb * USABLE_FRACTION_GDDR_ECC,
            f"rule: GDDR with ECC exposes {USABLE_FRACTION_GDDR_ECC:.2%} of the label in GiB",
        )
    return (
        memory_gb * USABLE_FRACTION_GDDR,
        f"rule: GDDR exposes {USABLE_FRACTION_GDDR:.1%} of the label in GiB",
    )


def usable_memory_bytes(gib: float) -> int:
    return round(gib * GIB)
