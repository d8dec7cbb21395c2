"""The GPU catalogue: resources/gpus.json (every figure sourced) plus the user's own additions.

Users add or override GPUs with `gpus.json` in their config folder, same format as the packaged file
(a `gpus` list; an entry whose `id` matches a built-in one replaces it). A bad user file is reported
and skipped; the built-in catalogue still loads.
"""

from __future__ import annotations

import json
import re
from functools import cache, cached_property
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import field_message
from .files import parse_json, read_text_file
from .paths import USER_GPUS_FILENAME, config_dir, resource
from .precision import Tier
from .support import support_fields
from .systems import Link, NodeDefaults, systems, usable_memory_bytes, usable_memory_rule
from .units import GB

# Upper bounds on a catalogue figure, about ten times the largest shipping part (B200: 4,500 dense
# fp8 TFLOP/s, 8,000 GB/s, 1,800 GB/s NVLink 5, 1,000 W; GPUs sell for tens of thousands of dollars
# and rent for a few dollars an hour): a figure beyond one is a typo or a broken user file, and
# would turn the planner's arithmetic into overflow.
MAX_TFLOPS = 50_000.0
MAX_GB_PER_S = 100_000.0
MAX_WATTS = 20_000.0
MAX_PURCHASE_USD = 10_000_000.0
MAX_USD_PER_HOUR = 10_000.0
# Lower bounds, about a hundredth of the smallest catalogued figure (fp32 8.1 TFLOPS, 273 GB/s, 12 GB,
# a $0.59/h rental, 70 W): a figure below one is a typo, and a tiny peak divides a token budget into
# an infinite time (1e-300 TFLOPS gave gpu_hours = inf and a traceback from plan --json).
MIN_TFLOPS = 0.05
MIN_GB_PER_S = 1.0
MIN_MEMORY_GB = 0.1
MIN_WATTS = 1.0
MIN_USD = 0.0001
MAX_NAME_CHARS = 200
MAX_SOURCE_CHARS = 2000
# When a price was observed: a day, a month or a year ("2026-06-15", "2026-06", "2026").
PRICE_DATE = r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$"


class DensePeaks(BaseModel):
    """Dense tensor-core peaks in TFLOPS (TOPS for int8); fp32 is the CUDA-core peak. None = unknown."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    fp32: float | None = Field(default=None, ge=MIN_TFLOPS, le=MAX_TFLOPS)
    tf32: float | None = Field(default=None, ge=MIN_TFLOPS, le=MAX_TFLOPS)
    bf16: float | None = Field(default=None, ge=MIN_TFLOPS, le=MAX_TFLOPS)
    fp16: float | None = Field(default=None, ge=MIN_TFLOPS, le=MAX_TFLOPS)
    fp8: float | None = Field(default=None, ge=MIN_TFLOPS, le=MAX_TFLOPS)
    int8: float | None = Field(default=None, ge=MIN_TFLOPS, le=MAX_TFLOPS)


class GpuSpec(BaseModel):
    """One accelerator SKU as its sources describe it."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    vendor: str = Field(max_length=MAX_NAME_CHARS)
    tier: Tier
    arch: str = ""
    memory_gb: float = Field(ge=MIN_MEMORY_GB, le=10_000)
    memory_type: str = ""
    memory_bandwidth_gb_per_s: float | None = Field(default=None, ge=MIN_GB_PER_S, le=MAX_GB_PER_S)
    dense_peak_tflops: DensePeaks
    tdp_w: float | None = Field(default=None, ge=MIN_WATTS, le=MAX_WATTS)
    nvlink_gb_per_s: float | None = Field(default=None, ge=0, le=MAX_GB_PER_S)
    pcie_gen: int | None = Field(default=None, ge=1, le=7)
    pcie_lanes: int | None = Field(default=None, ge=1, le=32)
    form_factor: str = ""
    year: int | None = Field(default=None, ge=1990, le=2100)
    purchase_usd: float | None = Field(default=None, ge=MIN_USD, le=MAX_PURCHASE_USD)
    cloud_usd_per_hour: float | None = Field(default=None, ge=MIN_USD, le=MAX_USD_PER_HOUR)
    cloud_price_date: str | None = Field(default=None, pattern=PRICE_DATE)
    sources: str = Field(min_length=1, description="Where each figure came from")
    # Where and when each price was seen, and whether the part is still sold new.
    purchase_price_date: str | None = Field(
        default=None, pattern=PRICE_DATE, description="when the purchase price was observed"
    )
    purchase_source: str = Field(default="", max_length=MAX_SOURCE_CHARS)
    cloud_source: str = Field(default="", max_length=MAX_SOURCE_CHARS)
    on_sale: bool = Field(default=True, description="False: no longer sold new (kept for owners and renters)")
    on_sale_source: str = Field(default="", max_length=MAX_SOURCE_CHARS, description="who reported it, when")
    price_note: str = Field(default="", max_length=MAX_SOURCE_CHARS, description="why a price is absent")
    user_defined: bool = False
    # What the driver exposes and how the GPUs are wired (resources/systems.json; a user's gpus.json may
    # set them too). None: derived by the stated rules in core.systems.
    memory_usable_gib: float | None = Field(
        default=None, gt=0, le=10_000, description="as CUDA reports it, GiB"
    )
    memory_source: str = ""
    intra_link: str | None = Field(default=None, description="a link name from systems.json")
    node_gpus: int | None = Field(default=None, ge=1, le=1024)
    scale_out: str | None = Field(default=None, description="the network between nodes (systems.json)")
    nics_per_node: int | None = Field(default=None, ge=1, le=64)
    system_source: str = ""
    host_form: str | None = Field(
        default=None,
        description="the machine (hosts.json) when not the tier's usual one: a self-contained box",
    )
    # What it runs natively (resources/support.json). None / empty: not recorded.
    compute_capability: str | None = Field(default=None, pattern=r"^[0-9]+\.[0-9]+$")
    gfx_target: str | None = Field(default=None, pattern=r"^gfx[0-9a-f]+$")
    native_precisions: tuple[str, ...] = ()
    baseboard_gpus: tuple[int, ...] | None = Field(
        default=None, description="GPU counts SXM/OAM baseboards are sold in; None = per card"
    )
    support_source: str = ""

    @field_validator("nvlink_gb_per_s")
    @classmethod
    def _no_link_or_a_real_one(cls, value: float | None) -> float | None:
        if value is not None and 0 < value < MIN_GB_PER_S:
            raise ValueError(f"0 (no NVLink) or at least {MIN_GB_PER_S:g} GB/s")
        return value

    def buyable(self) -> bool:
        """Whether a Buy answer may offer this part unasked: it is still sold new."""
        return self.on_sale

    def runs_natively(self, dtype: str) -> bool | None:
        """Whether the part has tensor math for `dtype`; None when support is not recorded."""
        return None if not self.native_precisions else dtype in self.native_precisions

    @cached_property
    def memory_bytes(self) -> int:
        """Usable memory: what the driver reports (an "80 GB" HBM card exposes about 79.2 GiB)."""
        return usable_memory_bytes(self.usable_memory()[0])

    def usable_memory(self) -> tuple[float, str]:
        """(GiB the driver exposes, where that figure comes from)."""
        if self.memory_usable_gib is not None:
            return self.memory_usable_gib, self.memory_source or "catalogue"
        return usable_memory_rule(self.memory_gb, self.memory_type, self.tier.value)

    @property
    def memory_label_bytes(self) -> int:
        """The vendor's label in decimal bytes ("80 GB")."""
        return round(self.memory_gb * GB)

    @cached_property
    def form(self) -> str:
        """'datacenter-sxm', 'datacenter-pcie', 'workstation' or 'consumer': the usual node it sits in
        ('desktop-box' and the like where systems.json names the machine, e.g. a DGX Spark)."""
        if self.host_form is not None:
            return self.host_form
        if self.tier is Tier.DATACENTER:
            boards = ("SXM", "OAM", "HGX", "DGX")
            return (
                "datacenter-sxm" if any(b in self.form_factor.upper() for b in boards) else "datacenter-pcie"
            )
        return self.tier.value

    def node(self) -> NodeDefaults:
        """GPUs per node, the network between nodes and its NICs per node (catalogue, else defaults)."""
        return self._node

    @cached_property
    def _node(self) -> NodeDefaults:
        base = systems().defaults[self.form]
        return NodeDefaults(
            node_gpus=self.node_gpus or base.node_gpus,
            scale_out=self.scale_out or base.scale_out,
            nics_per_node=self.nics_per_node or base.nics_per_node,
            source=self.system_source or base.source,
        )

    def intra_link_spec(self) -> Link:
        """The GPU-to-GPU link inside a node: the catalogue's, else NVLink by generation, else PCIe."""
        links = systems().links
        name = self.intra_link
        if name is None:
            if self.nvlink_gb_per_s and self.vendor != "NVIDIA":
                name = "infinity-fabric"
            elif self.nvlink_gb_per_s:
                gen = {"Volta": "nvlink2", "Ampere": "nvlink3", "Hopper": "nvlink4", "Blackwell": "nvlink5"}
                name = next((v for k, v in gen.items() if self.arch.startswith(k)), "nvlink-bridge")
                if self.nvlink_gb_per_s < 300:  # consumer and workstation bridges (RTX 3090, A6000)
                    name = "nvlink-bridge"
            else:
                name = f"pcie{min(5, max(3, self.pcie_gen or 4))}"
        return links[name]

    def scale_out_spec(self) -> Link:
        return systems().links[self.node().scale_out]

    @property
    def bandwidth_bytes_per_s(self) -> float | None:
        return None if self.memory_bandwidth_gb_per_s is None else self.memory_bandwidth_gb_per_s * GB

    def peak_flops_per_s(self, dtype: str) -> float | None:
        """Dense peak FLOP/s for a compute dtype ('bf16', 'fp8', ...), None when unknown/unsupported."""
        tflops = getattr(self.dense_peak_tflops, dtype)
        return None if tflops is None else tflops * 1e12

    @property
    def link_bytes_per_s(self) -> float:
        """GPU-to-GPU bandwidth one way: NVLink where present, else PCIe (x16 per-direction figures)."""
        if self.nvlink_gb_per_s:
            return self.nvlink_gb_per_s * GB / 2  # catalogue holds the bidirectional aggregate
        per_lane_gb = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}.get(self.pcie_gen or 4, 1.969)
        return per_lane_gb * (self.pcie_lanes or 16) * GB

    @property
    def link_name(self) -> str:
        if self.nvlink_gb_per_s:
            return "NVLink" if self.vendor == "NVIDIA" else "Infinity Fabric"
        return f"PCIe Gen{self.pcie_gen or '?'}"


class CatalogFile(BaseModel):
    model_config = ConfigDict(extra="allow")
    gpus: list[GpuSpec]


class Catalog(BaseModel):
    """The GPUs the planner considers, and any problems met while loading user additions."""

    model_config = ConfigDict(frozen=True)
    gpus: tuple[GpuSpec, ...]
    source_keys: dict[str, str] = Field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def get(self, key: str) -> GpuSpec:
        """Find a GPU by id or by (case-insensitive, partial) name; KeyError lists close matches."""
        found = self.find(key)
        if found is None:
            raise KeyError(f"gpu: no GPU named {key!r} in the catalogue (try `gpu-advisor catalog`)")
        return found

    def find(self, key: str) -> GpuSpec | None:
        norm = _norm(key)
        # The first GPU whose id is the key or whose name reads as it.
        ids, names = _index(self)
        first = min(ids.get(key, len(self.gpus)), names.get(norm, len(self.gpus)))
        if first < len(self.gpus):
            return self.gpus[first]
        matches = [g for g in self.gpus if norm and (norm in _norm(g.name) or norm in g.id)]
        return matches[0] if len(matches) == 1 else None

    def match_device_name(self, device_name: str) -> GpuSpec | None:
        """The catalogue entry for a name reported by NVML or torch ('NVIDIA H100 80GB HBM3').

        Every model token of the catalogue name must appear in the device name; among several (H100 SXM,
        PCIe, NVL) the form factor and memory size written in the device name decide, and SXM wins
        when none is written (NVML reports the SXM parts as plain 'NVIDIA H100 80GB HBM3').
        """
        device_tokens = set(_norm(device_name).split())
        candidates: list[tuple[int, GpuSpec]] = []
        for gpu in self.gpus:
            tokens = set(_norm(gpu.name).split())
            core = tokens - _VARIANT_TOKENS - {t for t in tokens if re.fullmatch(r"\d+gb", t)}
            if not core or not core <= device_tokens:
                continue
            variant = tokens & _FORM_TOKENS
            wanted = device_tokens & _FORM_TOKENS
            score = 2 * len(variant & wanted) - len(variant - wanted - {"sxm"})
            score += sum(1 for t in tokens if re.fullmatch(r"\d+gb", t) and t in device_tokens)
            candidates.append((score, gpu))
        if not candidates:
            return None
        return max(candidates, key=lambda c: c[0])[1]


_FORM_TOKENS = {"sxm", "sxm4", "sxm5", "pcie", "nvl"}
_VARIANT_TOKENS = _FORM_TOKENS | {"nvidia", "amd", "geforce", "generation", "hgx", "dgx", "aws", "tesla"}


# Each catalogue's first position of every GPU id and normalised name, kept per Catalog object (frozen).
_INDEXES: dict[int, tuple[Catalog, dict[str, int], dict[str, int]]] = {}


def _index(catalog: Catalog) -> tuple[dict[str, int], dict[str, int]]:
    known = _INDEXES.get(id(catalog))
    if known is not None and known[0] is catalog:
        return known[1], known[2]
    ids: dict[str, int] = {}
    names: dict[str, int] = {}
    for i, gpu in enumerate(catalog.gpus):
        ids.setdefault(gpu.id, i)
        names.setdefault(_norm(gpu.name), i)
    if len(_INDEXES) > 64:
        _INDEXES.clear()
    _INDEXES[id(catalog)] = (catalog, ids, names)
    return ids, names


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _read_catalog_file(text: str, origin: str) -> CatalogFile:
    try:
        catalog = CatalogFile.model_validate(parse_json(text, origin))
    except ValidationError as exc:
        raise ValueError(f"{origin}: {field_message(exc)}") from None
    ids = [g.id for g in catalog.gpus]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ValueError(f"{origin}: gpus: the id {repeated[0]!r} appears more than once")
    return catalog


def load_catalog(user_file: Path | None = None) -> Catalog:
    """Built-in catalogue merged with the user's gpus.json (from the config folder by default)."""
    builtin_text = resource("gpus.json").read_text(encoding="utf-8")
    builtin = _read_catalog_file(builtin_text, "built-in gpus.json")
    source_keys = json.loads(builtin_text).get("source_keys", {})
    table = systems()
    by_id = {
        g.id: g.model_copy(update=_system_fields(table.gpus[g.id].model_dump(), table))
        if g.id in table.gpus
        else g
        for g in builtin.gpus
    }
    by_id = {k: g.model_copy(update=support_fields(k)) for k, g in by_id.items()}
    warnings: list[str] = []
    path = user_file if user_file is not None else config_dir() / USER_GPUS_FILENAME
    if path.exists():
        try:
            user = _read_catalog_file(read_text_file(path), str(path))
        except ValueError as exc:  # FileFormatError included: one line naming the file and field
            warnings.append(f"Ignored your GPU file: {exc}")
        else:
            for gpu in user.gpus:
                by_id[gpu.id] = gpu.model_copy(update={"user_defined": True})
    return Catalog(gpus=tuple(by_id.values()), source_keys=source_keys, warnings=tuple(warnings))


def _system_fields(entry: dict, table) -> dict:
    """A systems.json entry as GpuSpec fields (its node defaults named by `system`)."""
    fields = {k: v for k, v in entry.items() if v is not None and k != "system"}
    if entry.get("system"):
        base = table.defaults[entry["system"]]
        fields.setdefault("node_gpus", base.node_gpus)
        fields.setdefault("scale_out", base.scale_out)
        fields.setdefault("nics_per_node", base.nics_per_node)
        fields.setdefault("system_source", base.source)
    if fields.get("memory_source"):
        fields["memory_source"] = _expand(fields["memory_source"], table.sources)
    return fields


def _expand(text: str, sources: dict[str, str]) -> str:
    """'OOM; VLLM-LOGS (79.22)' with each source key followed by what it names."""
    for key, value in sources.items():
        if key in text:
            return f"{text}: {value}"
    return text


@cache
def default_catalog() -> Catalog:
    """The catalogue loaded once per process (user additions included)."""
    return load_catalog()
