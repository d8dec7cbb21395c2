"""How a plan reads: labels, each figure's words, and the page-one summary with rent or buy.

One wording for every face: the CLI table, the GUI (tier card, live estimate, options table, charts),
the PDF, Markdown and the JSON report all call these functions, so the same figure never reads two ways.
Numbers are formatted only through `core.units`; the working (formulas, reason) comes from the plan.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from gpu_advisor.core.estimates import OWNERSHIP_MONTHS, CostEstimate
from gpu_advisor.core.precision import Engine, Framework, LossImpl, Task, Tier
from gpu_advisor.core.ranking import ranks_per_token
from gpu_advisor.core.request import Purchase
from gpu_advisor.core.result import Option, Plan
from gpu_advisor.core.units import (
    NA,
    format_bytes,
    format_bytes_of,
    format_count,
    format_duration,
    format_months,
    format_pct,
    format_rate,
    format_usd,
)
from gpu_advisor.wording.answer import AnswerPair, answer_pair, cards, pair_chart_message, pair_headline
from gpu_advisor.wording.text import MAX_NAME_CHARS, clip_text

PRICE_UNKNOWN = "price unknown"
COMPONENT_LABELS = {
    "weights": "Weights",
    "gradients": "Gradients",
    "optimizer": "Optimizer state",
    "activations": "Activations",
    "kv_cache": "KV cache",
    "overhead": "CUDA context + fragmentation",
}
ENGINE_LABELS = {
    Engine.VLLM: "vLLM",
    Engine.TENSORRT_LLM: "TensorRT-LLM",
    Engine.LLAMA_CPP: "llama.cpp",
    Engine.HF_GENERATE: "Hugging Face generate()",
}
FRAMEWORK_LABELS = {
    Framework.DEFAULT: "as measured (torchtitan FSDP2 on A100, Megatron-Core on H100)",
    Framework.MEGATRON_DEEPSPEED: "Megatron-DeepSpeed",
    Framework.MEGATRON_CORE: "Megatron-Core, distributed optimizer (memory; speed as measured)",
    Framework.FSDP: "PyTorch FSDP, flat parameters (memory; speed as measured)",
    Framework.HF_TRAINER: "Hugging Face Trainer + PEFT (memory; speed as measured)",
    Framework.LITGPT: "LitGPT LoRA/QLoRA, bitsandbytes before 0.43.2 (memory; speed as measured)",
}
LOSS_LABELS = {
    LossImpl.FULL: "full (fp32 over the vocabulary)",
    LossImpl.CHUNKED: "chunked (torchtune, Liger)",
}
TASK_LABELS = {
    Task.PRETRAIN: "pre-training",
    Task.FINETUNE: "full fine-tune",
    Task.LORA: "LoRA fine-tune",
    Task.QLORA: "QLoRA fine-tune",
    Task.INFERENCE: "inference",
}
BOUND_LABELS = {
    "compute": "compute-bound",
    "memory": "memory-bound",
    "communication": "communication-bound",
    "host": "host-bound",
}
SHORT_TIER_LABELS = {
    Tier.DATACENTER: "Data center",
    Tier.WORKSTATION: "Workstation",
    Tier.CONSUMER: "Consumer",
}
MAX_COST_CHART_MONTHS = 120

Choice = Literal["rent", "buy"]


# ---- one figure, one wording ------------------------------------------------------------------------
def plan_title(plan: Plan) -> str:
    """'Llama 3 70B inference, bf16'."""
    req = plan.request
    return f"{clip_text(req.model.name, MAX_NAME_CHARS)} {TASK_LABELS[req.task]}, {req.precision}"


def plan_subtitle(plan: Plan) -> str:
    """'70.6B parameters · llama: 80 layers, hidden 8192, ...'."""
    model = plan.request.model
    return f"{format_count(model.total_params())} parameters · {model.describe()}"


def gpu_line(option: Option) -> str:
    """'2 × NVIDIA H100 SXM'."""
    return f"{option.count} × {option.gpu}"


def fits_text(option: Option) -> str:
    """'fits' (and meets the target), 'fits, too slow' (misses it), or 'does not fit'; a precision the
    card lacks adds what it runs as ('fits, runs as fp16 (loss scaling)')."""
    if not option.fits:
        return "does not fit"
    text = "fits" if option.meets_target else "fits, too slow"
    if option.tight:
        text += ", tight"
    return f"{text}, runs as {option.runs_as}" if option.runs_as else text


def count_text(option: Option) -> str:
    """'2', or '2 (buy 4)' where SXM/OAM parts come on 4- or 8-GPU baseboards."""
    bought = option.gpus_bought or option.count
    return str(option.count) if bought == option.count else f"{option.count} (buy {bought})"


def bound_text(bound: str | None) -> str:
    """'memory-bound'."""
    return BOUND_LABELS.get(bound or "", bound or NA)


def memory_text(option: Option) -> str:
    """'62.3 of 80 GiB': per-GPU footprint against the GPU's memory."""
    return format_bytes_of(option.per_gpu_bytes, option.gpu_memory_bytes)


def speed_text(option: Option) -> str:
    """The headline speed: tokens/s, step and time to train (training), per user and total (inference)."""
    speed = option.speed
    if speed.kind == "training":
        text = f"{format_rate(speed.tokens_per_s, 'tokens/s')}, {format_duration(speed.step_time_s)} per step"
        if speed.mfu:
            text += f", MFU {format_pct(speed.mfu)}"
        if speed.time_per_epoch_s is not None:
            text += f", {format_duration(speed.time_per_epoch_s)} per epoch"
        if speed.time_to_train_s is not None:
            text += f", {format_duration(speed.time_to_train_s)} to train"
        return text
    text = (
        f"{format_rate(speed.tokens_per_s_per_user, 'tokens/s per user')} "
        f"({format_rate(speed.tokens_per_s, '')} total), first token {format_duration(speed.ttft_s)}"
    )
    if option.users_in_flight is not None:  # requests per second: the users this option holds
        text += f", {option.users_in_flight:,} users in flight (Little's law)"
    return text


def rent_text(cost: CostEstimate) -> str:
    """'$6.98/h ($5,095/month)' for all the option's GPUs, or 'price unknown'."""
    if cost.cloud_usd_per_hour is None:
        return PRICE_UNKNOWN
    return f"{format_usd(cost.cloud_usd_per_hour)}/h ({format_usd(cost.cloud_usd_per_month)}/month)"


def buy_text(cost: CostEstimate) -> str:
    """'$51,000 + $181/month power', or 'price unknown'."""
    if cost.purchase_usd is None:
        return PRICE_UNKNOWN
    power = cost.electricity_usd_per_month
    return format_usd(cost.purchase_usd) + ("" if power is None else f" + {format_usd(power)}/month power")


def breakeven_text(cost: CostEstimate, unit: str = "months") -> str:
    """'15.0 months'; 'never' when renting stays cheaper; 'n/a (price unknown)' when a price is missing.

    A missing break-even means two different things, and every face must say which.
    """
    if cost.cloud_usd_per_hour is None or cost.purchase_usd is None:
        return f"{NA} ({PRICE_UNKNOWN})"
    return "never" if cost.breakeven_months is None else format_months(cost.breakeven_months, unit)


def job_cost_text(option: Option) -> str:
    """'$92.81' to rent the whole training job, 'price unknown', or n/a without a token budget."""
    if option.training is None or option.training.gpu_hours is None:
        return NA
    return format_usd(option.cost.job_cloud_usd, PRICE_UNKNOWN)


def job_rent_text(option: Option) -> str:
    """'$92.81 for the job (66 GPU-hours)' for a training job with a token budget, else ''."""
    speed = option.training
    if speed is None or speed.gpu_hours is None:
        return ""
    return f"{job_cost_text(option)} for the job ({speed.gpu_hours:,.0f} GPU-hours)"


def machines_text(option: Option) -> str:
    """'1 × 2': machines × GPUs per machine (the machine's kind is in machine_text); '2 × 5 (last 4)'
    when the count does not split evenly."""
    text = f"{option.machines} × {option.gpus_per_machine}"
    return f"{text} (last {option.last_machine_gpus})" if option.last_machine_gpus else text


def rented(plan: Plan, option: Option) -> bool:
    """Whether the plan rents `option` (ranked by rent, and a cloud rents that shape)."""
    return plan.request.purchase is Purchase.RENT and option.cost.cloud_usd_per_hour is not None


def machine_text(option: Option, renting: bool = False) -> str:
    """'one desktop with 2 GPUs', '2 8-GPU servers with 8 GPUs each'. Bought, an SXM/OAM server is
    named by its baseboard ('one 4-GPU server with 2 GPUs'); rented, one machine's GPUs are a cloud
    instance of that many GPUs ('a cloud instance with 1 GPU'), not the baseboard a buyer takes."""
    gpus = "GPU" if option.gpus_per_machine == 1 else "GPUs"
    if renting and option.machines == 1:
        return f"a cloud instance with {option.gpus_per_machine} {gpus}"
    host, hosts = option.host.label, option.host.labels
    bought = option.gpus_bought or option.count
    if renting:
        host, hosts = f"cloud {host}", f"cloud {hosts}"
    elif option.board_gpus:
        host = f"{option.board_gpus}-GPU server"
        hosts = host + "s"
    elif bought > option.count:
        host = f"{bought // option.machines}-GPU server"
        hosts = host + "s"
    if option.machines == 1:
        return f"one {host} with {option.gpus_per_machine} {gpus}"
    if option.last_machine_gpus:
        return (
            f"{option.machines} {hosts} with {option.gpus_per_machine} GPUs each, "
            f"the last with {option.last_machine_gpus}"
        )
    return f"{option.machines} {hosts} with {option.gpus_per_machine} GPUs each"


def rank_basis(plan: Plan) -> str:
    """What the options are sorted by, in words."""
    req = plan.request
    per_token = ", per token/s trained" if ranks_per_token(req) else ""
    if req.purchase.value == "buy":
        return f"by purchase + {OWNERSHIP_MONTHS} months of electricity{per_token}"
    if req.task.is_training and req.train_tokens is not None:
        return "by the rent of the whole job"
    return f"by rent per hour{per_token}"


def verdict_text(plan: Plan) -> str:
    """The rent-or-buy headline across every option ('' when the plan has none)."""
    return "" if plan.verdict is None else plan.verdict.reason


@dataclass(frozen=True)
class CostCurve:
    """What a rent-against-buy chart plots: cumulative cost over months of use, or over the hours of
    a one-off training job (each side held at its job's cost once its job is done). None values:
    price unknown. `rent_what`/`buy_what` name the GPUs of each line (the verdict's pair)."""

    x: list[float]
    x_label: str
    rent: list[float | None]
    buy: list[float | None]
    job: bool
    breakeven_months: float | None
    rent_what: str = ""
    buy_what: str = ""
    breakeven_usd: float | None = None  # the rent (= the purchase and its power) at the break-even


JOB_CHART_POINTS = 24


def cost_curve(plan: Plan, option: Option | None = None) -> CostCurve:
    """The verdict's rental against its purchase (one option's own prices when `option` is given).
    A training job with a token budget is charted over its own hours; anything else over months."""
    pair = answer_pair(plan) if option is None else AnswerPair(option, option, None, False)
    rent_o, buy_o = pair.rent, pair.buy
    rent_what = "" if rent_o is None else cards(rent_o)
    buy_what = "" if buy_o is None else cards(buy_o)
    bought = 0 if buy_o is None else (buy_o.gpus_bought or buy_o.count)
    if buy_o is not None and bought != buy_o.count:  # whole baseboards: the line prices what is bought
        buy_what += f", {bought} bought"
    sides = [o for o in (rent_o, buy_o) if o is not None]
    job_hours = {
        id(o): o.training.time_to_train_s / 3600
        for o in sides
        if o.training is not None and o.training.time_to_train_s is not None
    }
    if sides and plan.request.train_tokens is not None and len(job_hours) == len({id(o) for o in sides}):
        hours = max(job_hours.values())
        xs = [hours * i / JOB_CHART_POINTS for i in range(JOB_CHART_POINTS + 1)]
        rent: list[float | None] = [None] * len(xs)
        buy: list[float | None] = [None] * len(xs)
        if rent_o is not None and rent_o.cost.cloud_usd_per_hour is not None:
            done = job_hours[id(rent_o)]
            rent = [rent_o.cost.cloud_usd_per_hour * min(h, done) for h in xs]
        if buy_o is not None and buy_o.cost.purchase_usd is not None:
            done = job_hours[id(buy_o)]
            per_hour = (buy_o.cost.electricity_usd_per_month or 0.0) / plan.request.hours_per_month
            buy = [buy_o.cost.purchase_usd + per_hour * min(h, done) for h in xs]
        return CostCurve(xs, "hours of the training job", rent, buy, True, None, rent_what, buy_what)
    be = option.cost.breakeven_months if option is not None else pair.breakeven_months
    months = cost_chart_months(be)
    span = range(months + 1)
    rent_m = [None if rent_o is None else rent_o.cost.rent_total_usd(m) for m in span]
    buy_m = [None if buy_o is None else buy_o.cost.buy_total_usd(m) for m in span]
    at_be = None
    if be is not None and rent_o is not None:
        at_be = rent_o.cost.rent_total_usd(be)
    return CostCurve(
        [float(m) for m in span], "months of use", rent_m, buy_m, False, be, rent_what, buy_what, at_be
    )


def cost_chart_message(plan: Plan, curve: CostCurve) -> str:
    """What the recommendation's cost chart shows, in the verdict's words."""
    pair = answer_pair(plan)
    if curve.job and pair.rent is not None:
        return job_chart_message(pair.rent, pair.buy)
    return pair_chart_message(pair)


def job_chart_message(option: Option, buy: Option | None = None) -> str:
    """What the job chart shows, in one sentence (`buy`: the purchase compared, when another GPU)."""
    cost = option.cost
    buy = option if buy is None else buy
    rent = (
        f"Renting this job on {cards(option)} costs {format_usd(cost.job_cloud_usd)}"
        if cost.job_cloud_usd is not None
        else "No cloud price for this GPU (price unknown)"
    )
    bought = (
        f"buying {cards(buy)} costs {format_usd(buy.cost.purchase_usd)} before its first step"
        if buy.cost.purchase_usd is not None
        else "no purchase price for this GPU (price unknown)"
    )
    return f"{rent}; {bought}."


def cost_chart_months(breakeven_months: float | None) -> int:
    """The months a rent-against-buy chart spans, in whole years: the ownership life, or past the
    break-even point when that comes later (so the crossing is visible), at most ten years."""
    months = OWNERSHIP_MONTHS
    if breakeven_months is not None and breakeven_months * 1.25 > months:
        months = math.ceil(breakeven_months * 1.25 / 12) * 12
    return min(MAX_COST_CHART_MONTHS, months)


# ---- rent or buy ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CostSummary:
    """Rent against buy for one option over `horizon_months`. None = price unknown."""

    cost: CostEstimate
    horizon_months: int
    rent_total_usd: float | None
    buy_total_usd: float | None
    choice: Choice | None
    advice: str


def cost_summary(plan: Plan, option: Option) -> CostSummary:
    """Rent against buy for one option, with a one-sentence verdict."""
    cost, horizon = option.cost, OWNERSHIP_MONTHS
    rent_total, buy_total = cost.rent_total_usd(horizon), cost.buy_total_usd(horizon)
    hours = f"{plan.request.hours_per_month:g} h/month"
    choice: Choice | None
    if cost.cloud_usd_per_month is None and cost.purchase_usd is None:
        choice, advice = None, "The catalogue has neither a cloud price nor a purchase price for this GPU."
    elif cost.purchase_usd is None:
        choice, advice = "rent", "Rent: the catalogue has no purchase price for this GPU."
    elif cost.cloud_usd_per_month is None:
        choice, advice = "buy", "Buy: the catalogue has no cloud price for this GPU."
    elif cost.job_cloud_usd is not None:
        job, purchase = format_usd(cost.job_cloud_usd), format_usd(cost.purchase_usd)
        if cost.job_cloud_usd < cost.purchase_usd:
            choice = "rent"
            advice = (
                f"Rent: this job costs {job} to rent, against {purchase} to buy the GPUs and their server."
            )
        else:
            choice = "buy"
            advice = f"Buy: renting this job costs {job}, more than the {purchase} purchase."
    elif cost.breakeven_months is None:
        choice, advice = "rent", "Rent: running owned GPUs (electricity) costs more than renting them."
    elif cost.breakeven_months <= horizon:
        assert rent_total is not None and buy_total is not None
        choice = "buy"
        advice = (
            f"Buy if the GPUs stay busy {hours}: buying breaks even after "
            f"{format_months(cost.breakeven_months)} and saves {format_usd(rent_total - buy_total)} over "
            f"{horizon} months."
        )
    else:
        choice = "rent"
        advice = (
            f"Rent: at {hours} buying breaks even only after {format_months(cost.breakeven_months)}, "
            f"beyond the {horizon}-month life assumed."
        )
    return CostSummary(cost, horizon, rent_total, buy_total, choice, advice)


def cost_rows(summed: CostSummary) -> list[tuple[str, str]]:
    """The cost table of one option: a training job's rent, or the break-even and totals over the
    ownership life (never months of round-the-clock rent beside a one-off job)."""
    cost = summed.cost
    rows = [("Rent", rent_text(cost)), ("Buy (GPUs + machines)", buy_text(cost))]
    if cost.job_cloud_usd is not None:
        return [*rows, ("This training job, rented", format_usd(cost.job_cloud_usd))]
    rows.append(("Break-even", breakeven_text(cost)))
    if summed.rent_total_usd is not None:
        rows.append((f"Rent for {summed.horizon_months} months", format_usd(summed.rent_total_usd)))
    if summed.buy_total_usd is not None:
        rows.append((f"Buy and run for {summed.horizon_months} months", format_usd(summed.buy_total_usd)))
    return rows


# ---- the page-one summary ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Summary:
    """The executive summary: the answer, its figures as (label, text) facts, rent or buy."""

    title: str
    subtitle: str
    headline: str
    reason: str
    best: Option | None
    cost: CostSummary | None
    facts: list[tuple[str, str]] = field(default_factory=list)

    @property
    def has_recommendation(self) -> bool:
        return self.best is not None


def headline(plan: Plan) -> str:
    """'Enterprise data center tier: 2 × NVIDIA H100 SXM', or why there is no answer."""
    best = plan.best
    if best is not None:
        pair = answer_pair(plan)
        if pair.crosses and best.gpu_id in (pair.rent.gpu_id, pair.buy.gpu_id):  # type: ignore[union-attr]
            buying = pair.buy is not None and best.gpu_id == pair.buy.gpu_id != pair.rent.gpu_id  # type: ignore[union-attr]
            return pair_headline(pair, buying)
        return f"{best.tier.label} tier: {gpu_line(best)}"
    return f"No recommendation: {no_answer(plan)}"


def no_answer(plan: Plan) -> str:
    """Why a plan has no recommendation: 'nothing meets the speed target' (options fit but are too
    slow), 'nothing fits in memory', or 'no GPU to consider'."""
    if not plan.options:
        return "no GPU to consider"
    return "nothing meets the speed target" if any(o.fits for o in plan.options) else "nothing fits in memory"


def build_summary(plan: Plan) -> Summary:
    """The page-one summary: the answer, its cost, and rent or buy."""
    best = plan.best
    common = dict(
        title=plan_title(plan),
        subtitle=plan_subtitle(plan),
        headline=headline(plan),
        reason=plan.recommendation.reason,
    )
    if best is None:
        facts = []
        closest = plan.options[0] if plan.options else None
        if closest is not None:
            facts.append(
                (
                    "Closest option",
                    f"{gpu_line(closest)}: {memory_text(closest)} per GPU"
                    + ("" if closest.fits else " (does not fit)")
                    + f"; {speed_text(closest)}",
                )
            )
        facts.append(("Footprint on one device", format_bytes(plan.memory.total_bytes)))
        return Summary(**common, best=None, cost=None, facts=facts)
    cost = cost_summary(plan, best)
    facts = [
        ("Tier", best.tier.label),
        ("GPU × count", gpu_line(best)),
        ("Machines", machine_text(best, rented(plan, best))),
        ("Layout", best.layout.describe()),
        ("Memory per GPU", memory_text(best)),
        ("Speed", speed_text(best)),
        ("Bound by", bound_text(best.speed.bound)),
    ]
    # The option's own prices; the headline and the verdict name the pair when it crosses GPUs.
    facts += [("Rent", rent_text(best.cost)), ("Buy", buy_text(best.cost))]
    totals = []
    if best.training is not None and best.training.gpu_hours is not None:
        facts.append(("Job", f"{job_cost_text(best)} to rent, {best.training.gpu_hours:,.0f} GPU-hours"))
    if best.cost.job_cloud_usd is not None:
        totals.append(f"{format_usd(best.cost.job_cloud_usd)} to rent this job")
        if best.cost.purchase_usd is not None:
            totals.append(f"{format_usd(best.cost.purchase_usd)} to buy the hardware")
    elif cost.rent_total_usd is not None:
        totals.append(f"{format_usd(cost.rent_total_usd)} to rent for {cost.horizon_months} months")
    if cost.buy_total_usd is not None and best.cost.job_cloud_usd is None:
        totals.append(f"{format_usd(cost.buy_total_usd)} to buy and run for {cost.horizon_months} months")
    facts.append(("Total cost", "; ".join(totals) or "no price in the catalogue"))
    # Where the verdict crosses GPUs, these two compare this GPU with its own rent: said so, so that
    # page 1 does not read as a second answer beside the headline's.
    alone = answer_pair(plan).crosses
    facts.append(("Break-even, this GPU" if alone else "Break-even", breakeven_text(best.cost)))
    facts.append(("This GPU alone: rent or buy" if alone else "This option: rent or buy", cost.advice))
    return Summary(**common, best=best, cost=cost, facts=facts)


def summary_dict(summary: Summary, plan: Plan) -> dict[str, Any]:
    """The summary as JSON-friendly data (the JSON report's `summary`)."""
    best, cost = summary.best, summary.cost
    return {
        "title": summary.title,
        "headline": summary.headline,
        "tier": None if best is None else best.tier.label,
        "gpu": None if best is None else best.gpu,
        "count": None if best is None else best.count,
        "reason": summary.reason,
        "budget": str(plan.request.purchase),
        "cost": None
        if cost is None
        else {
            "rent_usd_per_hour": cost.cost.cloud_usd_per_hour,
            "rent_usd_per_month": cost.cost.cloud_usd_per_month,
            "purchase_usd": cost.cost.purchase_usd,
            "electricity_usd_per_month": cost.cost.electricity_usd_per_month,
            "breakeven_months": cost.cost.breakeven_months,
            "horizon_months": cost.horizon_months,
            "rent_total_usd": cost.rent_total_usd,
            "buy_total_usd": cost.buy_total_usd,
            "job_rent_usd": cost.cost.job_cloud_usd,
            "choice": cost.choice,
            "advice": cost.advice,
        },
    }


def recipe_knobs_text(option: Option) -> str:
    """Each training-recipe knob of `option` with whose choice it is: 'gradient checkpointing on
    (planner), micro-batch 4 (yours), accumulation 1 (planner), 4 sequences per step (planner), loss
    full (planner), ZeRO 0 (planner)'. Empty for inference."""
    recipe, source = option.recipe, option.recipe_source
    if recipe is None or source is None:
        return ""
    values = {
        "grad_checkpointing": f"gradient checkpointing {'on' if recipe['grad_checkpointing'] else 'off'}",
        "micro_batch": f"micro-batch {recipe['micro_batch']:,}",
        "grad_accum": f"accumulation {recipe['grad_accum']:,}",
        "global_batch": f"{recipe['global_batch']:,} {'sequence' if recipe['global_batch'] == 1 else 'sequences'} per step",
        "loss": f"loss {recipe['loss']}",
        "zero_stage": f"ZeRO {recipe['zero_stage']}",
    }
    return ", ".join(
        f"{text} ({'yours' if source[key] == 'user' else 'planner'})" for key, text in values.items()
    )
