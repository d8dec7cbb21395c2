"""Collective communication: how long an all-reduce, all-gather or point-to-point transfer takes on a
GPU's links, with the formula and the link it used.

Bandwidths follow nccl-tests' bus bandwidth convention (busbw), so a measured fabric (a cluster
benchmark's FabricCalibration) drops in for the catalogue's figures: intra-node links carry tensor
parallelism and collectives whose group fits in a node, the inter-node network the rest.
- all-reduce of B bytes over n GPUs: 2 (n - 1) / n x B / busbw (ring), latency log2(n) steps (tree)
- all-gather / reduce-scatter: (n - 1) / n x B / busbw, latency n - 1 ring steps (NCCL runs these
  as rings only)
A group spanning nodes uses the NICs of the group's members on each node (one NIC per GPU on DGX/HGX
systems): busbw = NIC busbw x min(members per node, NICs per node).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal

from .calibration import Calibration, fabric_applies
from .catalog import GpuSpec
from .systems import systems
from .units import format_bandwidth


@dataclass(frozen=True, slots=True)
class Fabric:
    """A GPU's links as the planner uses them, each with where its figure came from."""

    intra_busbw: float  # bytes/s, all-reduce bus bandwidth inside a node
    intra_latency_s: float
    intra_label: str
    intra_max_gpus: int | None  # bridges join only pairs
    pcie_busbw: float  # what GPUs beyond a bridge fall back to
    inter_busbw_per_nic: float  # bytes/s per NIC
    inter_latency_s: float
    inter_label: str
    node_gpus: int
    nics_per_node: int
    calibrated_intra: bool = False
    calibrated_inter: bool = False
    inter_is_total: bool = False  # a measured cross-node busbw is for the whole group, not per NIC


def resolve_fabric(gpu: GpuSpec, calibration: Calibration | None = None) -> Fabric:
    """The catalogue's links for `gpu`, replaced by measured ones where the calibration has them."""
    fabric = _catalogue_fabric(gpu)
    if not fabric_applies(calibration, gpu.id):
        return fabric
    return _calibrated(fabric, calibration)


_FABRICS: dict[int, tuple[GpuSpec, Fabric]] = {}


def _catalogue_fabric(gpu: GpuSpec) -> Fabric:
    """The catalogue's links for a GPU (kept per GpuSpec object: the catalogue is loaded once)."""
    cached = _FABRICS.get(id(gpu))
    if cached is not None and cached[0] is gpu:
        return cached[1]
    intra = gpu.intra_link_spec()
    inter = gpu.scale_out_spec()
    node = gpu.node()
    pcie = systems().links[f"pcie{min(5, max(3, gpu.pcie_gen or 4))}"]
    fabric = Fabric(
        intra_busbw=intra.busbw_bytes_per_s,
        intra_latency_s=intra.latency_s,
        intra_label=f"{intra.label} (catalogue, {format_bandwidth(intra.busbw_bytes_per_s)} busbw)",
        intra_max_gpus=intra.max_gpus,
        pcie_busbw=pcie.busbw_bytes_per_s,
        inter_busbw_per_nic=inter.busbw_bytes_per_s,
        inter_latency_s=inter.latency_s,
        inter_label=f"{inter.label} (catalogue, {format_bandwidth(inter.busbw_bytes_per_s)} busbw per NIC)",
        node_gpus=node.node_gpus,
        nics_per_node=node.nics_per_node,
    )
    if len(_FABRICS) > 4096:
        _FABRICS.clear()
    _FABRICS[id(gpu)] = (gpu, fabric)
    return fabric


def _calibrated(fabric: Fabric, calibration: Calibration) -> Fabric:
    """`fabric` with the calibration's measured intra- and inter-node bus bandwidths."""
    fab = calibration.fabric
    assert fab is not None
    updates: dict = {}
    # (side, the fabric's field for its bus bandwidth, what a measured figure changes besides)
    sides: tuple[tuple[Literal["intra-node", "inter-node"], str, dict[str, Any]], ...] = (
        ("intra-node", "intra_busbw", {"intra_max_gpus": None}),
        ("inter-node", "inter_busbw_per_nic", {"inter_is_total": True}),
    )
    for scope, busbw_field, also in sides:
        side = scope.removesuffix("-node")
        link = fab.link(scope)
        if link is None:
            continue
        updates |= {
            busbw_field: link.busbw_bytes_per_s,
            f"{side}_latency_s": link.latency_s or getattr(fabric, f"{side}_latency_s"),
            f"{side}_label": f"measured {scope} {link.op} busbw "
            f"{format_bandwidth(link.busbw_bytes_per_s)} ({calibration.source})",
            f"calibrated_{side}": True,
            **also,
        }
    return dataclasses.replace(fabric, **updates) if updates else fabric


@dataclass(frozen=True, slots=True)
class Group:
    """A communication group: its size and how many of its members share a node."""

    size: int
    per_node: int  # members of the group on one node


def group_busbw(fabric: Fabric, group: Group) -> tuple[float, float, str]:
    """(busbw bytes/s, latency per step s, which link) for a collective over `group`."""
    busbw, latency, link = _link(fabric, group)
    if isinstance(link, int):
        return busbw, latency, f"{fabric.inter_label} x {link} NIC(s)"
    labels = {"intra": fabric.intra_label, "inter": fabric.inter_label}
    return busbw, latency, labels.get(link, link)


def _link(fabric: Fabric, group: Group) -> tuple[float, float, str | int]:
    """group_busbw's numbers, and which link: 'none', the PCIe fallback's label, 'intra', 'inter'
    (a measured cross-node figure), or the NICs used on each node (the text only when asked for)."""
    if group.size <= 1:
        return math.inf, 0.0, "none"
    if group.per_node >= group.size:
        if fabric.intra_max_gpus is not None and group.size > fabric.intra_max_gpus:
            return fabric.pcie_busbw, fabric.intra_latency_s, "PCIe (beyond the bridge pairs)"
        return fabric.intra_busbw, fabric.intra_latency_s, "intra"
    if fabric.inter_is_total:
        return fabric.inter_busbw_per_nic, fabric.inter_latency_s, "inter"
    # max(1, min(members per node, NICs per node)) as comparisons: this runs for every layout compared
    nics = group.per_node if group.per_node < fabric.nics_per_node else fabric.nics_per_node
    nics = nics if nics > 1 else 1
    return fabric.inter_busbw_per_nic * nics, fabric.inter_latency_s, nics


def all_reduce_s(fabric: Fabric, group: Group, nbytes: float) -> float:
    """Ring bandwidth term and tree latency term of one all-reduce."""
    if group.size <= 1 or nbytes <= 0:
        return 0.0
    busbw, latency, _ = _link(fabric, group)
    n = group.size
    steps = math.ceil(math.log2(n))  # n >= 2 here, so at least one step
    return 2 * (n - 1) / n * nbytes / busbw + steps * latency


def all_gather_s(fabric: Fabric, group: Group, nbytes: float) -> float:
    """One all-gather (or reduce-scatter) of `nbytes` gathered in total: a ring of n - 1 steps."""
    if group.size <= 1 or nbytes <= 0:
        return 0.0
    busbw, latency, _ = _link(fabric, group)
    n = group.size
    return (n - 1) / n * nbytes / busbw + (n - 1) * latency


def p2p_s(fabric: Fabric, nbytes: float, cross_node: bool) -> float:
    """A point-to-point send between neighbouring pipeline stages."""
    if nbytes <= 0:
        return 0.0
    if cross_node:
        return nbytes / fabric.inter_busbw_per_nic + fabric.inter_latency_s
    return nbytes / fabric.intra_busbw + fabric.intra_latency_s


def link_name(fabric: Fabric, group: Group) -> str:
    return group_busbw(fabric, group)[2]
