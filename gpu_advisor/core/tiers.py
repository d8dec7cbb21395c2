"""The three tiers side by side: the best option of each tier, or why the tier has none.

A user sees what each class of hardware would take (machines, power, noise, support) even when one
tier clearly wins. The options are already ranked; the first usable one of a tier is its best.
"""

from __future__ import annotations

from collections.abc import Sequence

from .catalog import Catalog
from .hosts import hosts, max_gpus_in_tier
from .precision import Tier
from .recipe import DEFAULT_DEADLINE_DAYS
from .request import PlanRequest
from .result import Option, TierChoice
from .units import format_duration, format_rate

TIER_ORDER = (Tier.DATACENTER, Tier.WORKSTATION, Tier.CONSUMER)
# The machine a tier is described by when it has no option (data center: the 8-GPU NVLink server).
TIER_HOST = {Tier.DATACENTER: "datacenter-sxm", Tier.WORKSTATION: "workstation", Tier.CONSUMER: "consumer"}


def tier_choices(
    req: PlanRequest, options: Sequence[Option], catalog: Catalog, *, default_deadline: bool = False
) -> tuple[TierChoice, ...]:
    """`default_deadline`: the request's deadline is the planner's default duration (none was given),
    and a tier that misses it says so rather than naming it as the user's deadline."""
    return tuple(_choice(req, tier, options, catalog, default_deadline) for tier in TIER_ORDER)


def _choice(
    req: PlanRequest, tier: Tier, options: Sequence[Option], catalog: Catalog, default_deadline: bool
) -> TierChoice:
    mine = [o for o in options if o.tier is tier]
    best = next((o for o in mine if o.fits and o.meets_target), None)
    host = best.host if best is not None else hosts()[TIER_HOST[tier]]
    common = dict(tier=tier, deployment=host.deployment, noise=host.noise, support=host.support)
    if best is not None:
        return TierChoice(**common, gpu_id=best.gpu_id, reason="")
    return TierChoice(**common, gpu_id=None, reason=_why_none(req, tier, mine, catalog, default_deadline))


def _room(tier: Tier, catalog: Catalog) -> str:
    """'within 4 desktops of 2 GPUs' (the tier's machine limit), or '' for data centers."""
    gpu = next((g for g in catalog.gpus if g.tier is tier), None)
    if gpu is None or max_gpus_in_tier(gpu) is None:
        return ""
    host = hosts()[TIER_HOST[tier]]
    return f" within {host.max_machines} {host.labels} of {gpu.node().node_gpus} GPUs"


def _shortfall(req: PlanRequest, option: Option) -> float:
    """How far an option is from the target, as the factor it misses it by (1 = met): the nearest,
    not the cheapest, is the tier's closest."""
    speed = option.speed
    if speed.kind == "training":
        if req.max_hours is None or speed.time_to_train_s is None:
            return 1.0
        return speed.time_to_train_s / (req.max_hours * 3600)
    factors = [1.0]
    if req.tokens_per_s_per_user is not None:
        factors.append(req.tokens_per_s_per_user / max(speed.tokens_per_s_per_user, 1e-12))
    if req.ttft_s is not None and speed.ttft_s is not None:
        factors.append(speed.ttft_s / req.ttft_s)
    return max(factors)


def _why_none(
    req: PlanRequest, tier: Tier, mine: list[Option], catalog: Catalog, default_deadline: bool
) -> str:
    if req.tier is not None and req.tier is not tier:
        return f"Not searched: the request is limited to the {req.tier.label} tier."
    if req.gpu is not None and not mine:
        chosen = catalog.find(req.gpu)
        name = chosen.name if chosen is not None else req.gpu
        return f"Not searched: the request is limited to the {name}, not a GPU of this tier."
    if not mine:
        return "No GPU of this tier in the catalogue passes the request's filters."
    room = _room(tier, catalog)
    fitting = [o for o in mine if o.fits]
    if not fitting:
        return f"Nothing in this tier fits the job{room}."
    closest = min(fitting, key=lambda o: _shortfall(req, o))
    if req.task.is_training:
        seconds = closest.training.time_to_train_s if closest.training else None
        if default_deadline:
            near = (
                ""
                if seconds is None
                else f"; closest: {closest.count} × {closest.gpu} in {format_duration(seconds)}"
            )
            return (
                f"No deadline given, and nothing in this tier{room} finishes within the "
                f"{DEFAULT_DEADLINE_DAYS}-day default duration{near}."
            )
        if req.max_hours is None:  # no deadline to miss: what misses is the recipe's locked global batch
            why = closest.note.rsplit("; ", 1)[-1] or "its layout does not keep the recipe"
            return f"Nothing in this tier{room} keeps the recipe as locked; closest: {closest.count} × {closest.gpu}: {why}."
        near = (
            ""
            if seconds is None
            else f"; closest: {closest.count} × {closest.gpu} in {seconds / 3600:,.0f} h"
        )
        return f"Nothing in this tier meets the {req.max_hours:g} h deadline{room}{near}."
    speed = format_rate(closest.serving.tokens_per_s_per_user, "tokens/s per user")
    return (
        f"Nothing in this tier meets the target{room}; closest: {closest.count} × {closest.gpu} at {speed}."
    )
