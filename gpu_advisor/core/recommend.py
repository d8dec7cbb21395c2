"""plan(request) -> Plan: for every catalogue GPU the smallest layout that fits and meets the target,
ranked by what meeting the target costs; the cheapest sets the recommended tier and GPU."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from .advice import count_suggestions, fallback_suggestions, recipe_suggestions
from .calibration import assumption_entries, fabric_applies, fabric_scope_warning
from .catalog import Catalog, GpuSpec, default_catalog
from .comms import resolve_fabric
from .cost import estimate_cost
from .deployment import count_limit, deployment_note, filters_text, passes_filters, tier_room
from .efficiency import resolve_efficiency
from .estimates import OWNERSHIP_MONTHS, TrainingSpeed
from .hosts import machines_for
from .layout import Parallelism
from .layouts import Candidate, LayoutSearch, best, meets
from .memory import Device, estimate_memory, request_profile
from .precision import Task, Tier
from .ranking import LOW_MFU, RANKING_RULE, low_utilisation, rank_options, ranks_per_token
from .recipe import (
    DEADLINE_SOURCE,
    DEFAULT_DEADLINE_DAYS,
    YEAR_S,
    chosen_words,
    default_deadline_hours,
    default_global_batch,
    describe,
    fixed_replicas,
    keep_global_batch,
    locked,
    published_global_batch,
    variants,
)
from .request import PlanRequest, Purchase
from .result import FrontierPoint, GpuSources, Option, Plan, Recommendation
from .serving import (
    RATE_WORKING,
    by_rate,
    little_users,
    option_seconds,
    queued_ttft_s,
    sized_at_targets,
)
from .speed import DevicePeaks, LayoutSpeeds, hardware_flops_per_token, training_flops_per_token
from .support import gpus_bought
from .tiers import tier_choices
from .trace_compare import attention_kernel_note, compare_with_formulas, comparison_warnings, traced_formulas
from .units import format_bytes, format_count, format_duration, format_rate, format_usd
from .verdict import verdict

MAX_GPUS = 65536  # Llama 3.1 405B trained on 16k H100s; leave room above that
_SOURCE_KEY = re.compile(r"\[(S[0-9A-Za-z-]+)\]")


def gpu_peaks(gpu: GpuSpec, req: PlanRequest) -> tuple[DevicePeaks | None, str | None]:
    """The GPU's peaks for the request's compute dtype, with its efficiencies and links.

    FP8 on a GPU without FP8 falls back to 16-bit (with a note).
    """
    profile = request_profile(req)
    dtype = profile.peak_column
    flops = gpu.peak_flops_per_s(dtype)
    note = None
    if gpu.runs_natively(dtype) is False or (flops is None and dtype in ("fp8", "bf16")):
        for fallback in ("bf16", "fp16"):
            if fallback == dtype or gpu.runs_natively(fallback) is False:
                continue
            flops = gpu.peak_flops_per_s(fallback)
            if flops is not None:
                note = _fallback_note(gpu, dtype, fallback, req.task.is_training)
                dtype = fallback
                break
        else:
            flops = None
    if flops is None or gpu.bandwidth_bytes_per_s is None:
        return None, "tensor throughput or bandwidth unknown in the catalogue"
    a = req.assumptions
    cal = req.calibration
    measured = cal if cal is not None and cal.mfu is not None and cal.gpu_id in (None, gpu.id) else None
    efficiency = resolve_efficiency(
        gpu.arch,
        gpu.tier is Tier.CONSUMER and gpu.vendor == "NVIDIA",
        dtype,
        profile.weights.bandwidth_key,
        None if req.task.is_training else req.engine,
        a.mfu,
        a.prefill_efficiency,
        a.bandwidth_efficiency,
        measured.mfu if measured is not None else None,
        measured.source if measured is not None else "",
        req.framework.value,
    )
    return DevicePeaks(
        flops_per_s=flops,
        bandwidth_bytes_per_s=gpu.bandwidth_bytes_per_s,
        name=gpu.name,
        efficiency=efficiency,
        fabric=resolve_fabric(gpu, cal),
    ), note


def _fallback_note(gpu: GpuSpec, wanted: str, used: str, training: bool) -> str:
    """'runs as fp16 (loss scaling): no bf16 on Volta (compute capability 7.0)'."""
    where = gpu.arch or gpu.name
    if gpu.compute_capability:
        where += f" (compute capability {gpu.compute_capability})"
    elif gpu.gfx_target:
        where += f" ({gpu.gfx_target})"
    if gpu.runs_natively(wanted) is None:
        return f"no {wanted} tensor rate known; {used} rate used"
    how = f"runs as {used} (loss scaling)" if training and used == "fp16" else f"runs as {used}"
    return f"{how}: no {wanted} on {where}"


def _best_layout(
    req: PlanRequest, gpu: GpuSpec, speeds: LayoutSpeeds, search: LayoutSearch
) -> Candidate | None:
    """The smallest count that fits and meets the target, laid out to serve the request best.

    Without a target that is the smallest count that fits. With one, counts double until the target is
    met, or until doubling stops helping (a replica cannot get faster); then the fastest fit is returned.
    A training deadline's search starts at the first count that could meet it at the compute ceiling;
    when none meets, it runs again from the smallest fitting count, whose fastest fit is the answer.
    """
    step = (req.tensor_parallel or 1) * (req.pipeline_parallel or 1)
    limit = count_limit(req, gpu, step, MAX_GPUS)
    if limit is None:
        return None
    node, capacity = gpu.node().node_gpus, gpu.memory_bytes
    smallest = req.gpus or min(search.smallest_fitting_count(node, capacity, step, MAX_GPUS), limit)
    start = smallest if req.gpus else _first_count_that_could_meet(req, speeds, smallest, limit)
    laid: dict[int, list[Candidate]] = {}  # count -> its candidates, for the second search
    found, met = _search_counts(req, gpu, speeds, search, start, limit, laid)
    if met or start == smallest:
        return found
    return _search_counts(req, gpu, speeds, search, smallest, limit, laid)[0]


def _search_counts(
    req: PlanRequest,
    gpu: GpuSpec,
    speeds: LayoutSpeeds,
    search: LayoutSearch,
    count: int,
    limit: int,
    laid: dict[int, list[Candidate]],
) -> tuple[Candidate | None, bool]:
    """(the layout `_best_layout` keeps searching from `count`, whether it meets the target)."""
    best_fit: Candidate | None = None
    last: Candidate | None = None
    while count <= limit:
        found = laid.get(count)
        if found is None:
            found = laid[count] = search.candidates(count, gpu, speeds)
        last = found[-1] if found else last
        fitting = [c for c in found if c.fits]
        meeting = [c for c in fitting if c.speed is not None and meets(req, c.speed)]
        if meeting:
            return best(req, meeting), True
        here = best(req, fitting)
        improved = False
        if here is not None and (best_fit is None or _faster(here, best_fit)):
            best_fit, improved = here, True
        if req.gpus is not None or (best_fit is not None and not improved):
            break
        count = _next_count(req, count, best_fit)
    if best_fit is not None:
        return best_fit, False
    if last is not None:  # nothing fits: the most sharded attempt, to show how far off it is
        return Candidate(last.layout, speeds.summary(last.layout), False), False
    return None, False


def _first_count_that_could_meet(req: PlanRequest, speeds: LayoutSpeeds, count: int, limit: int) -> int:
    """`count` doubled past the counts that cannot meet a training deadline even at the compute
    ceiling (no layout trains faster per GPU than its compute alone): those need not be laid out."""
    tokens = req.total_train_tokens if req.task.is_training else None
    if not req.max_hours or tokens is None:
        return count
    ceiling = speeds.tokens_per_s_per_gpu_ceiling()
    if not ceiling:
        return count
    needed = tokens / (req.max_hours * 3600) / ceiling
    if needed > limit:  # no count meets it: the search from the smallest count finds the fastest fit
        return count
    while count < needed and count * 2 <= limit:
        count *= 2
    return count


def _faster(a: Candidate, b: Candidate) -> bool:
    fast, slow = a.speed, b.speed
    assert fast is not None and slow is not None  # both fit: their speeds are worked out
    if fast.kind == "inference" and slow.kind == "inference":  # one request: both of one kind
        return fast.tokens_per_s_per_user > slow.tokens_per_s_per_user * 1.01
    return fast.tokens_per_s > slow.tokens_per_s * 1.01


def _fits_at(req: PlanRequest, gpu: GpuSpec, count: int, search: LayoutSearch | None = None) -> bool:
    """Whether some layout of `count` GPUs fits in memory (LayoutSearch.fits_at)."""
    search = search or LayoutSearch(req)
    return search.fits_at(count, gpu.node().node_gpus, gpu.memory_bytes)


def _next_count(req: PlanRequest, count: int, best_fit: Candidate | None) -> int:
    """Double, or jump straight to the data-parallel size a training deadline implies."""
    nxt = count * 2
    speed = best_fit.speed if best_fit is not None else None
    if speed is not None and speed.kind == "training" and req.max_hours and speed.time_to_train_s is not None:
        needed = speed.time_to_train_s / (req.max_hours * 3600) * count
        while nxt < needed and nxt <= MAX_GPUS:
            nxt *= 2
        nxt = max(count * 2, nxt // 2 if nxt // 2 > count else nxt)
    return nxt


def _fewer(req: PlanRequest, gpu: GpuSpec, catalog: Catalog, count: int) -> Option | None:
    """The option for a changed request, planned only when memory alone would fit half of `count`
    GPUs (the next count searched): a change that cannot lower the count costs one memory check."""
    if count % 2:
        return None
    search = LayoutSearch(req)
    if not _fits_at(req, gpu, count // 2, search):
        return None
    return _option(req, gpu, catalog, search)[0]


# Each catalogue GPU's sources, kept per (GpuSpec, Catalog) object: both are frozen and loaded once.
_SOURCES: dict[tuple[int, int], tuple[GpuSpec, Catalog, GpuSources]] = {}


def _sources(gpu: GpuSpec, catalog: Catalog) -> GpuSources:
    key = (id(gpu), id(catalog))
    known = _SOURCES.get(key)
    if known is not None and known[0] is gpu and known[1] is catalog:
        return known[2]
    cited = {
        key: catalog.source_keys[key]
        for key in dict.fromkeys(_SOURCE_KEY.findall(gpu.sources))
        if key in catalog.source_keys
    }
    sources = GpuSources(
        text=gpu.sources, cited=cited, cloud_price_date=gpu.cloud_price_date, user_defined=gpu.user_defined
    )
    if len(_SOURCES) > 4096:
        _SOURCES.clear()
    _SOURCES[(id(gpu), id(catalog))] = (gpu, catalog, sources)
    return sources


# The request that keeps the global batch on a layout's replicas (core/recipe.py) and its layout search,
# per (request object, replicas, accumulation locked): the GPUs of a plan whose layouts have as many
# replicas share them, and with them the memory estimates and the speed memos of that request.
_KEPT: dict[tuple[int, int, bool], tuple[PlanRequest, PlanRequest | None, LayoutSearch | None]] = {}


def _kept_search(
    req: PlanRequest, data_parallel: int, accum_locked: bool
) -> tuple[PlanRequest | None, LayoutSearch | None]:
    """(keep_global_batch's request, its own layout search where it is not `req`)."""
    key = (id(req), data_parallel, accum_locked)
    known = _KEPT.get(key)
    if known is not None and known[0] is req:
        return known[1], known[2]
    kept = keep_global_batch(req, data_parallel, accum_locked)
    search = LayoutSearch(kept) if kept is not None and kept is not req else None
    if len(_KEPT) > 1024:
        _KEPT.clear()
    _KEPT[key] = (req, kept, search)
    return kept, search


Found = tuple[DevicePeaks, str | None, LayoutSpeeds, Candidate]


def _layout_for(
    req: PlanRequest,
    gpu: GpuSpec,
    search: LayoutSearch,
    known_peaks: dict[str, tuple[DevicePeaks | None, str | None]] | None = None,
) -> tuple[Found | None, str | None]:
    """The GPU's peaks and the layout `_best_layout` keeps (with its summary speed), or why none.
    `known_peaks` keeps each GPU's peaks for the other recipes of a plan (a recipe changes no dtype)."""
    if known_peaks is None:
        peaks, note = gpu_peaks(gpu, req)
    else:
        known = known_peaks.get(gpu.id)
        if known is None:
            known = known_peaks[gpu.id] = gpu_peaks(gpu, req)
        peaks, note = known
    if peaks is None:
        return None, f"{gpu.name}: skipped, {note}"
    speeds = LayoutSpeeds(req, peaks, search.basis)
    found = _best_layout(req, gpu, speeds, search)
    if found is None:
        return None, f"{gpu.name}: not offered, the layout asked for needs more than {tier_room(gpu)}"
    return (peaks, note, speeds, found), None


def _screen_key(req: PlanRequest, found: Found) -> tuple:
    """One GPU's recipes compared before their options are worked out: what ranks them on one GPU
    (fitting, meeting the target, then GPU-hours of the job when renting for a token budget, else the
    GPU count, which prices the rent per hour and the purchase), then the faster step."""
    cand = found[3]
    speed = cand.speed
    assert speed is not None  # a laid-out candidate carries its speed (a summary where it does not fit)
    fits = cand.fits
    count = cand.layout.gpus
    time_s = getattr(speed, "time_to_train_s", None)
    primary = count * time_s if time_s is not None and req.purchase is Purchase.RENT else count
    return (not fits, not (fits and meets(req, speed)), primary, -speed.tokens_per_s)


def _option(
    req: PlanRequest,
    gpu: GpuSpec,
    catalog: Catalog,
    search: LayoutSearch | None = None,
    user: PlanRequest | None = None,
    laid_out: Found | None = None,
) -> tuple[Option | None, str | None]:
    search = search or LayoutSearch(req)
    if laid_out is None:
        laid_out, skipped = _layout_for(req, gpu, search)
        if laid_out is None:
            return None, skipped
    _, note, speeds, found = laid_out
    par, fits = found.layout, found.fits
    user = user or req
    batch_kept = True
    if req.task.is_training and req.global_batch is not None:
        # The layout's replicas decide the accumulation that keeps the global batch (core/recipe.py).
        kept, kept_search = _kept_search(req, par.data, locked(user)["grad_accum"])
        batch_kept = kept is not None
        if kept is not None and kept_search is not None:
            # `speeds` stays: the search timed this layout at the accumulation its replicas keep
            # (speed.py's _micro_batches), the one `kept` has; only the memory is the kept request's.
            req, search = kept, kept_search
            cap = (gpu.memory_bytes,) if search.basis.reserves else ()
            fits = (
                fits
                and search.basis.total_of(par.tensor, par.pipeline, par.data, par.zero_stage, *cap)
                <= gpu.memory_bytes
            )
    speed = speeds.detail(par)  # the kept layout, with its worded terms
    job_hours = speed.gpu_hours if isinstance(speed, TrainingSpeed) else None
    machines = machines_for(gpu, par.gpus)
    bought = gpus_bought(gpu.baseboard_gpus, machines.machines, machines.gpus_per_machine)
    cost = estimate_cost(
        gpu,
        par.gpus,
        machines,
        req.hours_per_month,
        req.electricity_usd_per_kwh,
        req.assumptions,
        job_hours,
        req.own_machines,
        gpus_bought=bought,
    )
    if req.purchase is Purchase.BUY:
        rank = (  # an unknown power draw leaves the ownership unpriced, never free to run
            None
            if cost.purchase_usd is None or cost.electricity_usd_per_month is None
            else cost.purchase_usd + OWNERSHIP_MONTHS * cost.electricity_usd_per_month
        )
    elif cost.job_cloud_usd is not None:
        rank = cost.job_cloud_usd
    else:
        rank = cost.cloud_usd_per_hour
    recipe, recipe_source = (
        describe(user, req, par.data, par.zero_stage) if req.task.is_training else (None, None)
    )
    notes = [note, deployment_note(gpu, machines.machines), _low_mfu(speed)]
    if req.purchase is Purchase.BUY and cost.purchase_usd is not None and rank is None:
        notes.append("no sourced power draw, so the running cost is unknown: ranked as unpriced")
    if not batch_kept:
        accum = f" x accumulation {req.grad_accumulation_steps} (yours)" if locked(user)["grad_accum"] else ""
        notes.append(
            f"{par.data} replicas x micro-batch {req.batch_size}{accum} cannot make the global batch of "
            f"{req.global_batch} sequences"
        )
    option = Option(
        gpu=gpu.name,
        gpu_id=gpu.id,
        tier=gpu.tier,
        count=par.gpus,
        machines=machines.machines,
        gpus_per_machine=machines.gpus_per_machine,
        last_machine_gpus=machines.last_machine_gpus,
        gpus_bought=bought,
        board_gpus=machines.board_gpus,
        runs_as=note.split(":")[0].removeprefix("runs as ") if note and note.startswith("runs as") else "",
        host=machines.host,
        fits=fits,
        meets_target=fits and batch_kept and meets(req, speed),
        gpu_memory_bytes=gpu.memory_bytes,
        per_gpu=search.memory(par, gpu.memory_bytes),
        layout=par,
        speed=speed,
        cost=cost,
        rank_usd=rank,
        sources=_sources(gpu, catalog),
        note="; ".join(n for n in notes if n),
        recipe=recipe,
        recipe_source=recipe_source,
    )
    return option, None


def _low_mfu(speed) -> str:
    """'low utilisation: MFU 4% (under 10%) ...' for a training option, else ''."""
    mfu = speed.mfu if isinstance(speed, TrainingSpeed) else None
    if mfu is None or mfu >= LOW_MFU:
        return ""
    return (
        f"low utilisation: MFU {mfu:.0%} (under {LOW_MFU:.0%}): most of each step is communication or "
        "memory traffic, not tensor math"
    )


RATE_ITERATIONS = 8  # Little's law fixed point: L users slow decode, which raises W and L


def _rate_option(req: PlanRequest, gpu: GpuSpec, catalog: Catalog) -> tuple[Option | None, str | None]:
    """An option sized for requests/s: L = ceil(rate x W) with W this option's own first token and
    output at its decode speed with L users; it meets the target when it reaches the per-user speed
    target at L users (as any option is judged) and its first token, queued behind the other arrivals'
    prefills, is within the TTFT target.

    The fixed point is found from 1 user up. Where more users make the layout search take more GPUs
    (the smaller layout misses the target or runs out of KV cache), the wider layout is faster and
    needs fewer users than the step that reached it: the users then come down to what it needs on
    those GPUs (the count held, as a --gpus would hold it)."""
    assert req.requests_per_s is not None
    users = tried = 1
    option: Option | None = None
    held: tuple[int, Option, float] | None = None  # the fewest users whose option holds them (L >= needed)
    count: int | None = None  # the GPU count held while the users come down to what it needs
    for _ in range(RATE_ITERATIONS):
        sized = req.model_copy(update={"users": users, "gpus": count or req.gpus})
        option, skipped = _option(sized, gpu, catalog, LayoutSearch(sized))
        if option is None or not option.fits:
            if held is None:
                return option, skipped
            break  # more users than it holds: the users already held stand
        speed = option.serving
        seconds = option_seconds(speed.ttft_s, req.output_tokens, speed.tokens_per_s_per_user)
        needed = little_users(req.requests_per_s, seconds)
        if needed <= users and (held is None or users < held[0]):
            held = (users, option, seconds)
        if needed == users or (held is not None and needed >= held[0]):
            break  # a fixed point, or back up to the users already held
        if needed < users:  # a wider layout than the last step's: it keeps its GPUs with fewer users
            count = option.count
        tried, users = users, needed
    if held is None:
        assert option is not None  # the loop returned where no option was found
        saturated = (
            f"saturated: at {tried:,} users a request takes {seconds:.3g} s, so {req.requests_per_s:g} "
            f"requests/s keep {needed:,} in flight (Little's law does not settle within "
            f"{RATE_ITERATIONS} steps: the decode cannot keep up with the arrivals)"
        )
        note = "; ".join(n for n in (option.note, saturated) if n)
        return option.model_copy(update={"meets_target": False, "note": note}), None
    users, option, seconds = held
    speed = option.serving
    needed = little_users(req.requests_per_s, seconds)
    queued = queued_ttft_s(speed.ttft_s, speed.prefill_s, req.requests_per_s, option.layout.data)
    meets_ttft = req.ttft_s is None or queued <= req.ttft_s
    wait = "saturated" if queued == float("inf") else f"{queued:.3g} s with queueing"
    law = (
        f"ceil({req.requests_per_s:g} requests/s x {seconds:.3g} s per request: first token "
        f"{speed.ttft_s:.3g} s + {req.output_tokens:,} tokens at {speed.tokens_per_s_per_user:.3g} tokens/s each)"
    )
    sized_as = (
        f"{users} users in flight = {law} (Little's law)"
        if needed == users
        else f"{users} users in flight, at least {law} = {needed} (Little's law; with fewer, the layout "
        "search picks a slower layout that needs more)"
    )
    note = f"{sized_as}; first token {wait} (M/D/1)"
    return option.model_copy(
        update={
            "meets_target": option.meets_target and meets_ttft,
            "users_in_flight": users,
            "note": "; ".join(n for n in (option.note, note) if n),
        }
    ), None


def _unpriced_warning(req: PlanRequest, best: Option, options: Sequence[Option]) -> str:
    """Why the recommendation carries no price: none of the fitting GPUs has one, or the priced ones
    rank after it on quality (core/ranking.py)."""
    kind = "purchase price or power draw" if req.purchase is Purchase.BUY else "cloud price"
    priced = next((o for o in options if o.fits and o.meets_target and o.rank_usd is not None), None)
    if priced is None:
        return f"No {kind} for the GPUs that fit; ranked by GPU count instead of cost."
    unit = "" if req.purchase is Purchase.BUY or priced.cost.job_cloud_usd is not None else "/h"
    if low_utilisation(priced) and not low_utilisation(best):
        why = f"those run at low utilisation (MFU {priced.training.mfu:.0%})" if priced.training else ""
    else:
        why = "those need more machines for no more throughput"
    return (
        f"No {kind} for {best.gpu} (price unknown): {best.count} of them rank ahead of the "
        f"first priced option, {priced.count} × {priced.gpu} at {format_usd(priced.rank_usd)}{unit}, "
        f"because {why}; check its price."
    )


def _batch_lock(req: PlanRequest) -> str:
    return f"the global batch of {req.global_batch} sequences at your accumulation of {req.grad_accumulation_steps}"


def _replicas_unlaid(req: PlanRequest, replicas: int) -> str:
    """Why a locked accumulation leaves a GPU no layout: the replicas it fixes do not fit the count."""
    counts = f"{req.gpus} GPUs cannot" if req.gpus is not None else "no GPU count searched can"
    return f"it needs {replicas:,} data-parallel replicas at micro-batch {req.batch_size}, which {counts} lay out"


def _cannot_improve(entry: tuple[tuple, int, Found], step: int) -> bool:
    """Whether a screened recipe already fits and meets the target on the fewest GPUs a layout allows:
    gradient checkpointing could then only slow it down."""
    (no_fit, misses, *_), _, laid_out = entry
    return not no_fit and not misses and laid_out[3].layout.gpus == step


def _fastest(req: PlanRequest, fitting: list[Option]) -> Option:
    """The fitting option closest to a speed target none meets: the fastest per user (the first
    token, for a first-token target alone), or the shortest training."""
    if req.task.is_training:
        return min(fitting, key=lambda o: (o.training and o.training.time_to_train_s) or math.inf)
    if req.tokens_per_s_per_user is None:
        return min(fitting, key=lambda o: o.serving.ttft_s)
    return max(fitting, key=lambda o: o.serving.tokens_per_s_per_user)


def _serving_target(req: PlanRequest) -> str:
    """'30 tokens/s per user and a first token within 0.5 s'."""
    parts = []
    if req.tokens_per_s_per_user is not None:
        parts.append(format_rate(req.tokens_per_s_per_user, "tokens/s per user"))
    if req.ttft_s is not None:
        parts.append(f"a first token within {req.ttft_s:g} s")
    return " and ".join(parts)


def _chosen(req: PlanRequest, best: Option, literal: Option | None) -> str:
    """'With gradient checkpointing and micro-batch 4 (the planner's choice); your recipe as given
    would need 8 GPUs. ' when the search changed what the request left open."""
    if best.recipe is None or best.recipe_source is None:
        return ""
    words = chosen_words(req, best.recipe, best.recipe_source)
    if not words:
        return ""
    head = f"With {words} (the planner's choice): "
    if literal is None or literal is best:
        return head
    if not (literal.fits and literal.meets_target):
        return head + "your recipe as given does not fit or meet the target on this GPU; "
    if literal.count != best.count:
        return head + f"your recipe as given would need {literal.count} GPUs; "
    return head


def _reason(req: PlanRequest, best: Option) -> str:
    model = req.model
    profile = request_profile(req)
    weights = profile.weight_bytes_total(model.total_params(), model.embedding_params())
    # QLoRA's frozen base is 4-bit NF4 whatever the compute dtype: say so, not "at bf16".
    fmt = (
        f"in a 4-bit {profile.weight_format} base"
        if req.task is Task.QLORA
        else f"at {profile.weight_format}"
    )
    head = f"{format_count(model.total_params())} parameters {fmt} need {format_bytes(weights)} for weights"
    if req.task is Task.INFERENCE:
        users = best.users_in_flight or req.users
        head += f" and the KV cache for {users} user{'' if users == 1 else 's'} takes {format_bytes(best.per_gpu_components.kv_cache)} per GPU"
    what = f"{best.count} x {best.gpu}" if best.count > 1 else f"one {best.gpu}"
    layout = f" with {best.layout.describe()}" if best.count > 1 else ""
    speed = (
        f"{format_duration(best.speed.step_time_s)} per step"
        if isinstance(best.speed, TrainingSpeed)
        else f"{format_rate(best.speed.tokens_per_s_per_user, 'tokens/s per user')}"
    )
    money = ""
    if req.purchase is Purchase.RENT and best.cost.cloud_usd_per_hour:
        money = f", {format_usd(best.cost.cloud_usd_per_hour)}/h to rent"
    elif req.purchase is Purchase.BUY and best.cost.purchase_usd:
        money = f", {format_usd(best.cost.purchase_usd)} to buy"
    runs_as = f" (runs as {best.runs_as}: the card has no {req.precision})" if best.runs_as else ""
    tight = " (tight)" if best.tight else ""
    return (
        f"{head}; {what}{layout} fit{'s' if best.count == 1 else ''} it{runs_as} at "
        f"{format_bytes(best.per_gpu_bytes)} per GPU{tight}, {speed}{money}."
    )


def plan(req: PlanRequest, catalog: Catalog | None = None) -> Plan:
    """Answer one planning question. Pure: the same request and catalogue give the same plan.

    A token budget without a deadline is planned to finish within the default duration
    (core/recipe.py, DEFAULT_DEADLINE_DAYS); when nothing does, to the fastest plan. A plan that takes
    longer than a year says so."""
    catalog = catalog or default_catalog()
    deadline_h = default_deadline_hours(req)
    batch = default_global_batch(req)  # published practice, when the request gives no global batch
    planned = req if batch is None else req.model_copy(update={"global_batch": batch[0]})
    result = None
    extra: list[str] = []
    if deadline_h is not None:
        paced = _plan(planned.model_copy(update={"max_hours": deadline_h}), catalog, user=req)
        if paced.best is not None:
            result = paced.model_copy(
                update={
                    "request": req,
                    "assumptions": paced.assumptions
                    | {
                        "default_deadline": f"no deadline given: planned to finish within "
                        f"{DEFAULT_DEADLINE_DAYS} days ({DEADLINE_SOURCE}); set --max-hours to change it"
                    },
                }
            )
            extra.append(
                f"No deadline given: the plan finishes within {DEFAULT_DEADLINE_DAYS} days, as published "
                "runs of this kind did; set a deadline to trade time for cost."
            )
    if result is None:
        result = _plan(planned, catalog, user=req)
        if planned is not req:
            result = result.model_copy(update={"request": req})
    best = result.best
    time_s = getattr(best.speed, "time_to_train_s", None) if best is not None else None
    if time_s is not None and time_s > YEAR_S:
        extra.append(
            f"This plan trains for {format_duration(time_s)}, more than a year: set a deadline "
            "(--max-hours) or a smaller token budget."
        )
    if extra:
        result = result.model_copy(update={"warnings": (*result.warnings, *extra)})
    if deadline_h is not None and best is not None:
        result = result.model_copy(update={"frontier": _frontier(planned, best, catalog)})
    return result


FRONTIER_POINTS = 8  # scales shown: powers of two up to twice the recommended count


def _frontier(req: PlanRequest, best: Option, catalog: Catalog) -> tuple[FrontierPoint, ...]:
    """The recommended GPU with the recommended recipe at powers of two up to twice its count: time to
    train against the job's rent, to show where scaling stops paying."""
    gpu = catalog.get(best.gpu_id)
    recipe = best.recipe or {}
    top = best.count * 2
    counts = [n for n in (2**i for i in range(top.bit_length())) if n <= top][-FRONTIER_POINTS:]
    points = []
    for n in counts:
        update = {"gpus": n, "gpu": best.gpu_id}
        if recipe:
            update |= {
                "batch_size": recipe["micro_batch"],
                "grad_checkpointing": recipe["grad_checkpointing"],
            }
        try:
            fixed = req.model_copy(update=update)
            option, _ = _option(fixed, gpu, catalog)
        except ValueError:
            continue
        if option is None:
            continue
        speed = option.training
        if speed is None or speed.time_to_train_s is None:
            continue
        points.append(
            FrontierPoint(
                count=option.count,
                time_to_train_s=speed.time_to_train_s,
                job_cloud_usd=option.cost.job_cloud_usd,
                fits=option.fits,
            )
        )
    return tuple(points)


def _plan(req: PlanRequest, catalog: Catalog, user: PlanRequest | None = None) -> Plan:
    """plan() for one request as it stands (its deadline, if any). `user`: the request as the user
    gave it, where the planner filled in a default (global batch, deadline): it says what is locked."""
    user = user or req
    concurrency = RATE_WORKING if by_rate(req) else None
    gpus = [g for g in catalog.gpus if req.tier is None or g.tier is req.tier]
    warnings = list(catalog.warnings)
    if req.gpu is not None:
        gpus = [catalog.get(req.gpu)]
        if req.tier is not None and gpus[0].tier is not req.tier:  # the GUI lets both be chosen
            warnings.append(f"{gpus[0].name} is not a {req.tier.value} GPU: the tier choice is ignored")
    gpus = [g for g in gpus if passes_filters(req, g)]
    options: list[Option] = []
    not_considered: list[str] = []
    runs = variants(req)  # the literal recipe first, then every choice of the knobs left open
    accum_locked = locked(user)["grad_accum"]
    searches = [LayoutSearch(run, fixed_replicas(run, accum_locked)) for run in runs]
    ran: dict[int, tuple[PlanRequest, LayoutSearch]] = {}  # id(option) -> its recipe and search
    literal: dict[str, Option] = {}  # gpu id -> the option of the recipe as given
    unlaid: dict[str, str] = {}  # gpu id -> why a locked accumulation's replicas did not lay out
    if by_rate(req):
        # Sized for an arrival rate: each GPU's concurrency follows from its own speed (core/serving.py).
        for gpu in gpus:
            option, skipped = _rate_option(req, gpu, catalog)
            if skipped:
                # A catalogue gap, not a problem with this plan: a warning only when the user asked for it.
                (warnings if req.gpu is not None else not_considered).append(skipped)
            if option is not None:
                options.append(option)
                ran[id(option)] = (runs[0], searches[0])
    else:
        step = (req.tensor_parallel or 1) * (req.pipeline_parallel or 1)
        # Each recipe's layout is found and screened on its summary speed; only the literal recipe's and
        # the best recipe's options are worked out in full. One recipe at a time over every GPU: the speed
        # and memory memos (core/memo.py) then see the same request object call after call.
        screened: dict[str, list[tuple[tuple, int, Found]]] = {gpu.id: [] for gpu in gpus}
        # Each GPU's entry with the least (screen key, recipe index) so far: its recipe is kept.
        leading: dict[str, tuple[tuple, int, Found]] = {}
        # The same within the current checkpointing group: a larger micro-batch is tried while the
        # group's last one led the group (another group's lead says nothing of this group's trend).
        group_leading: dict[str, tuple[tuple, int, Found]] = {}
        peaks_of: dict[str, tuple[DevicePeaks | None, str | None]] = {}
        done: set[str] = set()
        for i, (run, run_search) in enumerate(zip(runs, searches, strict=True)):
            first_of_group = i == 0 or run.grad_checkpointing != runs[i - 1].grad_checkpointing
            for gpu in gpus:
                if gpu.id in done:
                    continue
                entries = screened[gpu.id]
                lead = leading.get(gpu.id)
                if first_of_group and lead is not None and _cannot_improve(lead, step):
                    done.add(gpu.id)  # checkpointing only slows a recipe already on the fewest GPUs
                    continue
                if not first_of_group and entries and entries[-1] is not group_leading.get(gpu.id):
                    continue  # a larger micro-batch stopped paying: the larger ones of this group neither
                last_run = runs[entries[-1][1]] if entries else None
                same_group = last_run is not None and last_run.grad_checkpointing == run.grad_checkpointing
                if not first_of_group and same_group and entries[-1][0][0]:
                    continue  # a smaller micro-batch did not fit: a larger one holds more activations
                laid_out, skipped = _layout_for(run, gpu, run_search, peaks_of)
                if (
                    laid_out is None
                    and run_search.space.replicas is not None
                    and peaks_of[gpu.id][0] is not None
                ):
                    # This micro-batch's replicas (a locked accumulation) do not lay out here; another's may.
                    unlaid.setdefault(gpu.id, _replicas_unlaid(run, run_search.space.replicas))
                    continue
                if laid_out is None:
                    if (
                        i == 0 and skipped is not None
                    ):  # a catalogue gap, not a problem with this plan: a warning only when asked
                        (warnings if req.gpu is not None else not_considered).append(skipped)
                    done.add(gpu.id)  # the GPU's peaks are unknown, or the layout exceeds the tier's room
                    continue
                entry = (_screen_key(run, laid_out), i, laid_out)
                entries.append(entry)
                if lead is None or entry[:2] < lead[:2]:
                    leading[gpu.id] = entry
                group_lead = None if first_of_group else group_leading.get(gpu.id)
                if group_lead is None or entry[:2] < group_lead[:2]:
                    group_leading[gpu.id] = entry
        for gpu_id, why in unlaid.items():
            if not screened[gpu_id]:
                (warnings if req.gpu is not None else not_considered).append(
                    f"{catalog.get(gpu_id).name}: not offered, {_batch_lock(req)}: {why}"
                )
        chosen_of = {gid: lead[1] for gid, lead in leading.items()}
        kept: dict[str, Option] = {}
        for i, run in enumerate(runs):
            for gpu in gpus:
                if chosen_of.get(gpu.id) != i:
                    continue
                laid_out = next(entry[2] for entry in screened[gpu.id] if entry[1] == i)
                option, _ = _option(run, gpu, catalog, searches[i], user=user, laid_out=laid_out)
                if option is None:
                    continue
                ran[id(option)] = (run, searches[i])
                kept[gpu.id] = option
                if i == 0:
                    literal[gpu.id] = option
        options.extend(kept[gpu.id] for gpu in gpus if gpu.id in kept)
    # quality, then price; a missing price never demotes (core/ranking.py)
    options = rank_options(options, per_token=ranks_per_token(req))
    scope = fabric_scope_warning(
        req.calibration, [g.name for g in gpus if not fabric_applies(req.calibration, g.id)]
    )
    if scope:
        warnings.append(scope)
    # Requests per second: one device at the most users the targets allow (the answer's own below).
    unsharded = estimate_memory(sized_at_targets(req), Parallelism(), device=Device.CUDA)
    best = next((o for o in options if o.fits and o.meets_target), None)
    if best is not None and best.gpu_id not in literal and not by_rate(req):  # "your recipe as given"
        gpu = catalog.get(best.gpu_id)
        laid_out = next((entry[2] for entry in screened[gpu.id] if entry[1] == 0), None)
        if laid_out is not None:
            option = _option(runs[0], gpu, catalog, searches[0], user=user, laid_out=laid_out)[0]
            if option is not None:
                literal[gpu.id] = option
    suggestions: list[str] = []
    if best is None:
        fitting = [o for o in options if o.fits]
        comps = unsharded.components
        suggestions = fallback_suggestions(
            req,
            fastest=_fastest(req, fitting) if fitting else None,
            activations_bytes=comps.activations,
            state_bytes=comps.weights + comps.gradients + comps.optimizer,
        )
        biggest = max((g.memory_bytes for g in gpus), default=0)
        filtered = req.gpu or req.tier or req.vendor or req.require_nvlink
        where = "the chosen GPUs" if filtered else "the catalogue"
        if not gpus:
            reason = "No GPU in the catalogue passes the filters (" + filters_text(req) + ")."
        elif any(o.fits for o in options):
            if req.task.is_training:
                target = (
                    f"the {req.max_hours:g} h deadline"
                    if req.max_hours is not None
                    else f"the global batch of {req.global_batch} sequences"
                )
            else:
                target = _serving_target(req)
            limit = f"{req.gpus} GPUs" if req.gpus else f"{MAX_GPUS:,} GPUs"
            reason = f"Nothing in {where} meets {target} with up to {limit}. " + suggestions[0]
        elif not options and unlaid:
            reason = (
                f"No layout keeps {_batch_lock(req)}: {next(iter(unlaid.values()))}. "
                "Leave the accumulation to the planner, or change the global batch or the GPU count."
            )
        else:
            with_count = f" with {req.gpus} GPU{'s' if req.gpus != 1 else ''}" if req.gpus else ""
            # On the largest card, with what its serving engine reserves of it, so the two numbers
            # compared are the ones that decided (never "nothing fits 21.5 GiB; the largest has 23.6").
            on_biggest = estimate_memory(req, Parallelism(), device=Device.CUDA, capacity=biggest or None)
            reserve = (
                " (the engine's reserve included)" if on_biggest.total_bytes != unsharded.total_bytes else ""
            )
            reason = (
                f"Nothing in {where} fits{with_count}: one device needs "
                f"{format_bytes(on_biggest.total_bytes)}{reserve}; the largest GPU has "
                f"{format_bytes(biggest)}. " + suggestions[0]
            )
        recommendation = Recommendation(
            tier=None, gpu=None, gpu_id=None, count=None, parallelism=None, reason=reason
        )
    else:
        best_req, search = ran[id(best)]
        if best.users_in_flight is not None:  # requests per second: the users this answer holds
            best_req = best_req.model_copy(update={"users": best.users_in_flight})
        if best_req is not req:  # the memory breakdown is of the recipe planned, not the one asked for
            unsharded = estimate_memory(best_req, Parallelism(), device=Device.CUDA)
        recommendation = Recommendation(
            tier=best.tier,
            gpu=best.gpu,
            gpu_id=best.gpu_id,
            count=best.count,
            parallelism=best.layout,
            reason=_chosen(user, best, literal.get(best.gpu_id)) + _reason(best_req, best),
        )
        chosen = catalog.get(best.gpu_id)
        deployment = deployment_note(chosen, best.machines)
        if deployment:
            warnings.append(f"{best.gpu}: {deployment}.")
        # A count set by the target, not by memory, is not lowered by changes that only cut memory.
        memory_set = best.count % 2 == 1 or not _fits_at(best_req, chosen, best.count // 2, search)
        suggestions = count_suggestions(
            best_req, best, lambda changed: _fewer(changed, chosen, catalog, best.count), memory_set
        )
        suggestions += recipe_suggestions(
            best_req, best, lambda changed: _option(changed, chosen, catalog, LayoutSearch(changed))[0]
        )
        if best.rank_usd is None:
            warnings.append(_unpriced_warning(req, best, options))
    # ---- notes on the model's shape, and a trace beside the formulas (core/trace.py) ------------------
    if req.model.guessed and not req.model.notes:
        warnings.append(f"Architecture guessed from the parameter count: {req.model.describe()}.")
    warnings.extend(req.model.notes)
    trace_comparison = None
    if req.trace is not None:
        trace_comparison = compare_with_formulas(req)
        warnings.extend(comparison_warnings(trace_comparison))
        kernel_note = attention_kernel_note(req)
        if kernel_note:
            warnings.append(kernel_note)
        unsharded = unsharded.model_copy(
            update={
                "formulas": traced_formulas(req.trace, unsharded.formulas),
                "notes": (
                    f"Traced {req.trace.step}; peak at {req.trace.peak_moment}.",
                    *req.trace.notes,
                ),
            }
        )
    # ---- end of the trace ------------------------------------------------------------------------------
    if req.task.is_training:
        used = ran[id(best)][0] if best is not None else runs[0]
        f_tok = training_flops_per_token(used)
        tokens = used.batch_size * used.seq_len * used.grad_accumulation_steps
        compute = {
            "flops_per_token": f_tok,
            "hardware_flops_per_token": hardware_flops_per_token(used),
            "tokens_per_step": tokens,
            "flops_per_step": f_tok * tokens,
        }
    else:
        compute = {
            "flops_per_token": 2.0 * req.model.active_params(),
            "prefill_flops": 2.0 * req.model.active_params() * req.prompt_tokens,
            "kv_tokens": req.kv_tokens,
        }
    profile = request_profile(req)
    assumptions = req.assumptions.model_dump(mode="json") | {
        "memory_budget_per_gpu": "the memory CUDA reports for each card (catalogue, with its source), "
        "less the process overhead and the serving engine's reserve",
        "efficiencies": "per GPU architecture and precision (and serving engine): each option's speed "
        "formula names the value and its published source (resources/efficiencies.json)",
        "links": "per GPU: NVLink/PCIe inside a node, InfiniBand/Ethernet between nodes, nccl-tests bus "
        "bandwidth (resources/systems.json); a calibration's measured fabric replaces them",
        "max_gpus_searched": MAX_GPUS,
        "tensor_parallel_within_node": "the GPU's node size (8 for data-center boards)",
        "ownership_months_for_buy_ranking": OWNERSHIP_MONTHS,
        "ranking": RANKING_RULE,
        "compute_dtype": profile.peak_column,
        "weight_format": profile.weight_format,
        "gpus_not_considered": not_considered,
        **assumption_entries(req.calibration),  # measured figures and their file, when calibrated
    }
    if req.task is Task.INFERENCE:
        assumptions["engine"] = req.engine.value
        assumptions["time_to_first_token"] = (
            "prefill of one user's prompt + one decode step of the running batch"
        )
    if concurrency is not None:
        assumptions["concurrent_users_from_requests_per_s"] = concurrency
    if req.task.is_training:
        sequences, source = published_global_batch(req)
        if user.global_batch is not None:
            held = f"{req.global_batch} sequences per step (yours): replicas x micro-batch x accumulation"
        elif req.global_batch is not None:
            applied = default_global_batch(user)
            held = (
                f"none given: {req.global_batch} sequences of {req.seq_len} tokens per step, as published "
                f"runs of this task and size used ({applied[1] if applied else source}); replicas x "
                "micro-batch x accumulation hold it; set --global-batch to change it"
            )
        else:
            held = (
                "none given, and none applied (the micro-batch or accumulation you set, a trace or the "
                "GPU count fixes the sequences per replica): micro-batch x accumulation per replica as "
                "the recipe says; "
                f"published practice is about {sequences} sequences of {req.seq_len} tokens per step "
                f"({source}); set --global-batch to hold it"
            )
        assumptions["global_batch"] = held
        assumptions["recipe_search"] = (
            "knobs the request leaves open (gradient checkpointing, micro-batch 1-8) are the planner's: "
            "each GPU keeps the recipe that ranks first, the faster step breaking ties"
        )
    return Plan(
        request=req,
        memory=unsharded,
        compute=compute,
        recommendation=recommendation,
        options=tuple(options),
        assumptions=assumptions,
        warnings=tuple(warnings),
        suggestions=tuple(suggestions),
        trace=trace_comparison,
        verdict=verdict(options, req.hours_per_month, best, req.purchase is Purchase.BUY),
        tiers=tier_choices(
            req, options, catalog, default_deadline=user.max_hours is None and req.max_hours is not None
        ),
    )
