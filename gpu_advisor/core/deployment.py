"""Where an option's GPUs may go: the request's filters, the tier's machine limits, and cards used
outside the deployment they are sold for."""

from __future__ import annotations

from .catalog import GpuSpec
from .hosts import machines_for, max_gpus_in_tier
from .precision import Tier
from .request import PlanRequest, Purchase


def passes_filters(req: PlanRequest, gpu: GpuSpec) -> bool:
    """The vendor and interconnect filters (a CUDA-only team excludes AMD; NVLink required); a Buy
    answer offers only parts still sold new unless the user named the GPU."""
    if req.vendor is not None and gpu.vendor.lower() != req.vendor.value:
        return False
    if req.purchase is Purchase.BUY and req.gpu is None and not gpu.buyable():
        return False
    return not req.require_nvlink or gpu.intra_link_spec().label.startswith("NVLink")


def filters_text(req: PlanRequest) -> str:
    """'AMD, NVLink required, tier Consumer desktop'."""
    parts = [
        req.vendor.name if req.vendor is not None else "",
        "NVLink required" if req.require_nvlink else "",
        f"tier {req.tier.label}" if req.tier is not None else "",
        f"GPU {req.gpu}" if req.gpu is not None else "",
    ]
    return ", ".join(p for p in parts if p)


def count_limit(req: PlanRequest, gpu: GpuSpec, step: int, max_gpus: int) -> int | None:
    """The most GPUs this GPU's tier deploys for the request: its machines x cards per machine (a
    power of two times tp x pp, the counts searched), or the fixed count; None when the fixed count or
    layout needs more than the tier allows."""
    tier_max = max_gpus_in_tier(gpu)
    if req.gpus is not None:
        return req.gpus if tier_max is None or req.gpus <= tier_max else None
    top = max_gpus if tier_max is None else tier_max
    if step > top:
        return None
    return step * 2 ** ((top // step).bit_length() - 1)


def tier_room(gpu: GpuSpec) -> str:
    """'4 desktops of 2 GPUs'."""
    host = machines_for(gpu, 1).host
    return f"{host.max_machines} {host.labels} of {gpu.node().node_gpus} GPUs"


def deployment_note(gpu: GpuSpec, machines: int) -> str | None:
    """A card used outside the deployment it is sold for (GeForce cards in a multi-machine cluster)."""
    if gpu.tier is Tier.CONSUMER and gpu.vendor == "NVIDIA" and machines > 1:
        return (
            f"GeForce cards in a {machines}-machine cluster: NVIDIA's GeForce driver licence excludes "
            "data-center deployment, and the cards have no ECC and no peer-to-peer between machines"
        )
    return None
