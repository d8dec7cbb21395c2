"""The executive summary of a plan, and rent against buy: what page one of every report says.

Every number is formatted here once, so the PDF, the Markdown and the JSON report (and the tests
that read them) agree. No Qt, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from gpu_advisor.core.cost import CostEstimate
from gpu_advisor.core.precision import Task
from gpu_advisor.core.recommend import OWNERSHIP_MONTHS
from gpu_advisor.core.result import Option, Plan
from gpu_advisor.core.units import format_bytes, format_count, format_duration, format_usd

# Owned GPUs are compared with renting over the same life the recommender ranks purchases by.
HORIZON_MONTHS = OWNERSHIP_MONTHS

COMPONENT_LABELS = {
    "weights": "Weights",
    "gradients": "Gradients",
    "optimizer": "Optimizer state",
    "activations": "Activations",
    "kv_cache": "KV cache",
    "overhead": "Overhead",
}

TASK_LABELS = {
    Task.PRETRAIN: "pre-training",
    Task.FINETUNE: "full fine-tune",
    Task.LORA: "LoRA fine-tune",
    Task.QLORA: "QLoRA fine-tune",
    Task.INFERENCE: "inference",
}

Choice = Literal["rent", "buy"]


@dataclass(frozen=True)
class CostSummary:
    """Rent against buy for the recommended option, over `horizon_months`. None = price unknown."""

    rent_usd_per_hour: float | None
    rent_usd_per_month: float | None
    purchase_usd: float | None
    electricity_usd_per_month: float | None
    breakeven_months: float | None
    horizon_months: int
    rent_total_usd: float | None
    buy_total_usd: float | None
    job_rent_usd: float | None
    choice: Choice | None
    advice: str


@dataclass(frozen=True)
class Summary:
    """The executive summary on page one."""

    title: str
    subtitle: str
    has_recommendation: bool
    headline: str
    tier_label: str | None
    gpu: str | None
    count: int | None
    reason: str
    purchase: str  # what the user asked for: "rent" or "buy"
    cost: CostSummary | None
    facts: list[tuple[str, str]] = field(default_factory=list)


def gpu_line(option: Option) -> str:
    """'2 x NVIDIA H100 SXM'."""
    return f"{option.count} x {option.gpu}"


def fits_text(option: Option) -> str:
    """'yes' (fits and meets the target), 'slow' (fits, misses the target) or 'no'."""
    if not option.fits:
        return "no"
    return "yes" if option.meets_target else "slow"


def breakeven_text(
    months: float | None, rent_usd_per_hour: float | None, purchase_usd: float | None, unit: str = "months"
) -> str:
    """'5.0 months'; 'never' when renting stays cheaper; 'n/a (price unknown)' when a price is missing.

    The one wording for every view (GUI, PDF, Markdown): a missing break-even means two different things.
    """
    if rent_usd_per_hour is None or purchase_usd is None:
        return "n/a (price unknown)"
    return "never" if months is None else f"{months:.1f} {unit}"


def cost_summary(plan: Plan, option: Option) -> CostSummary:
    """Rent against buy for one option, with a one-sentence verdict."""
    req = plan.request
    horizon = HORIZON_MONTHS
    rent_month = option.cloud_usd_per_month
    elec = option.electricity_usd_per_month
    rent_total = None if rent_month is None else rent_month * horizon
    buy_total = None if option.purchase_usd is None else option.purchase_usd + (elec or 0.0) * horizon
    job = option.job_cloud_usd
    hours = f"{req.hours_per_month:g} h/month"
    choice: Choice | None
    if rent_month is None and option.purchase_usd is None:
        choice, advice = None, "The catalogue has neither a cloud price nor a purchase price for this GPU."
    elif option.purchase_usd is None:
        choice, advice = "rent", "Rent: the catalogue has no purchase price for this GPU."
    elif rent_month is None:
        choice, advice = "buy", "Buy: the catalogue has no cloud price for this GPU."
    elif job is not None:
        if job < option.purchase_usd:
            choice = "rent"
            advice = (
                f"Rent: this job costs {format_usd(job)} to rent, against {format_usd(option.purchase_usd)} "
                "to buy the GPUs and their server."
            )
        else:
            choice = "buy"
            advice = (
                f"Buy: renting this job costs {format_usd(job)}, more than the "
                f"{format_usd(option.purchase_usd)} purchase."
            )
    elif option.breakeven_months is None:
        choice = "rent"
        advice = "Rent: running owned GPUs (electricity) costs more than renting them."
    elif option.breakeven_months <= horizon:
        choice = "buy"
        advice = (
            f"Buy if the GPUs stay busy {hours}: buying breaks even after "
            f"{option.breakeven_months:.1f} months and saves {format_usd(rent_total - buy_total)} over "
            f"{horizon} months."
        )
    else:
        choice = "rent"
        advice = (
            f"Rent: at {hours} buying breaks even only after {option.breakeven_months:.0f} months, "
            f"beyond the {horizon}-month life assumed."
        )
    return CostSummary(
        rent_usd_per_hour=option.cloud_usd_per_hour,
        rent_usd_per_month=rent_month,
        purchase_usd=option.purchase_usd,
        electricity_usd_per_month=elec,
        breakeven_months=option.breakeven_months,
        horizon_months=horizon,
        rent_total_usd=rent_total,
        buy_total_usd=buy_total,
        job_rent_usd=job,
        choice=choice,
        advice=advice,
    )


def cost_estimate(option: Option) -> CostEstimate:
    """The option's costs as a core CostEstimate (for `core.cost.cumulative_costs`)."""
    return CostEstimate(
        cloud_usd_per_hour=option.cloud_usd_per_hour,
        cloud_usd_per_month=option.cloud_usd_per_month,
        purchase_usd=option.purchase_usd,
        electricity_usd_per_month=option.electricity_usd_per_month,
        breakeven_months=option.breakeven_months,
        job_cloud_usd=option.job_cloud_usd,
        formula="",
    )


def plan_title(plan: Plan) -> str:
    """'Llama 3 70B inference, bf16'."""
    req = plan.request
    return f"{req.model.name} {TASK_LABELS[req.task]}, {req.precision}"


def speed_text(plan: Plan, option: Option) -> str:
    """One line of speed for an option."""
    if plan.request.task.is_training:
        text = f"{format_duration(option.step_time_s)} per step, {rate(option.tokens_per_s)} tokens/s"
        if option.time_to_train_s is not None:
            text += (
                f"; {format_count(plan.request.train_tokens or 0)} tokens in "
                f"{format_duration(option.time_to_train_s)} ({option.gpu_hours:,.0f} GPU-hours)"
            )
        return text
    return (
        f"{rate(option.tokens_per_s_per_user)} tokens/s per user, {rate(option.tokens_per_s)} tokens/s "
        f"in total; first token after {format_duration(option.prefill_s)}"
    )


def rate(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def build_summary(plan: Plan) -> Summary:
    """The page-one summary: the answer, its cost, and rent or buy."""
    req = plan.request
    title = plan_title(plan)
    subtitle = f"{format_count(req.model.total_params())} parameters · {req.model.describe()}"
    best = plan.best
    rec = plan.recommendation
    if best is None:
        fits = any(o.fits for o in plan.options)
        headline = "No recommendation: " + (
            "nothing meets the speed target" if fits else "nothing fits in memory"
        )
        facts = []
        closest = plan.options[0] if plan.options else None
        if closest is not None:
            facts.append(
                (
                    "Closest option",
                    f"{gpu_line(closest)}: {format_bytes(closest.per_gpu_bytes)} per GPU against "
                    f"{format_bytes(closest.gpu_memory_bytes)}"
                    + ("" if closest.fits else " (does not fit)")
                    + f"; {speed_text(plan, closest)}",
                )
            )
        facts.append(("Footprint on one device", format_bytes(plan.memory.total)))
        return Summary(
            title=title,
            subtitle=subtitle,
            has_recommendation=False,
            headline=headline,
            tier_label=None,
            gpu=None,
            count=None,
            reason=rec.reason,
            purchase=str(req.purchase),
            cost=None,
            facts=facts,
        )
    cost = cost_summary(plan, best)
    facts = [
        ("Tier", best.tier.label),
        ("GPU x count", gpu_line(best)),
        ("Layout", best.parallelism_text),
        (
            "Memory per GPU",
            f"{format_bytes(best.per_gpu_bytes)} of {format_bytes(best.gpu_memory_bytes)}",
        ),
        ("Speed", speed_text(plan, best)),
        ("Bound by", f"{best.bound}" if best.bound else "n/a"),
    ]
    if cost.rent_usd_per_month is not None:
        facts.append(
            (
                "Monthly cost (rent)",
                f"{format_usd(cost.rent_usd_per_month)} per month "
                f"({req.hours_per_month:g} h at {format_usd(cost.rent_usd_per_hour)}/h)",
            )
        )
    if cost.purchase_usd is not None:
        elec = (
            ""
            if cost.electricity_usd_per_month is None
            else f" + {format_usd(cost.electricity_usd_per_month)} per month electricity"
        )
        facts.append(("Purchase (buy)", f"{format_usd(cost.purchase_usd)}{elec}"))
    totals = []
    if cost.job_rent_usd is not None:
        totals.append(f"{format_usd(cost.job_rent_usd)} to rent this job")
    if cost.rent_total_usd is not None:
        totals.append(f"{format_usd(cost.rent_total_usd)} to rent for {cost.horizon_months} months")
    if cost.buy_total_usd is not None:
        totals.append(f"{format_usd(cost.buy_total_usd)} to buy and run for {cost.horizon_months} months")
    facts.append(("Total cost", "; ".join(totals) or "no price in the catalogue"))
    facts.append(
        ("Break-even", breakeven_text(cost.breakeven_months, cost.rent_usd_per_hour, cost.purchase_usd))
    )
    facts.append(("Rent or buy", cost.advice))
    return Summary(
        title=title,
        subtitle=subtitle,
        has_recommendation=True,
        headline=f"{best.tier.label} tier: {gpu_line(best)}",
        tier_label=best.tier.label,
        gpu=best.gpu,
        count=best.count,
        reason=rec.reason,
        purchase=str(req.purchase),
        cost=cost,
        facts=facts,
    )


def summary_dict(summary: Summary) -> dict[str, Any]:
    """The summary as JSON-friendly data."""
    cost = summary.cost
    return {
        "title": summary.title,
        "headline": summary.headline,
        "tier": summary.tier_label,
        "gpu": summary.gpu,
        "count": summary.count,
        "reason": summary.reason,
        "budget": summary.purchase,
        "cost": None
        if cost is None
        else {
            "rent_usd_per_hour": cost.rent_usd_per_hour,
            "rent_usd_per_month": cost.rent_usd_per_month,
            "purchase_usd": cost.purchase_usd,
            "electricity_usd_per_month": cost.electricity_usd_per_month,
            "breakeven_months": cost.breakeven_months,
            "horizon_months": cost.horizon_months,
            "rent_total_usd": cost.rent_total_usd,
            "buy_total_usd": cost.buy_total_usd,
            "job_rent_usd": cost.job_rent_usd,
            "choice": cost.choice,
            "advice": cost.advice,
        },
    }
