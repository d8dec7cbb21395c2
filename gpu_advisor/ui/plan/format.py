"""How plan numbers read in the GUI: one place, so the card, the table and the estimate agree."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpu_advisor.core.result import Option, Plan
from gpu_advisor.core.units import format_bytes, format_count, format_duration, format_usd
from gpu_advisor.report import summary
from gpu_advisor.ui.glossary import tip

COMPONENT_LABELS = {
    "weights": "Weights",
    "gradients": "Gradients",
    "optimizer": "Optimizer state",
    "activations": "Activations",
    "kv_cache": "KV cache",
    "overhead": "CUDA context + fragmentation",
}
BOUND_LABELS = {"compute": "compute-bound", "memory": "memory-bound"}
SHORT_TIER = {"datacenter": "Data center", "workstation": "Workstation", "consumer": "Consumer"}


def bound_text(bound: str | None) -> str:
    return BOUND_LABELS.get(bound or "", bound or "n/a")


def bound_tooltip(bound: str | None) -> str:
    return tip("memory_bound") if bound == "memory" else tip("compute_bound") if bound == "compute" else ""


def fits_text(option: Option) -> str:
    if not option.fits:
        return "does not fit"
    return "fits" if option.meets_target else "fits, too slow"


def breakeven_text(option: Option) -> str:
    """'5.0 months'; 'never' when renting stays cheaper; 'n/a (price unknown)' when a price is missing."""
    return summary.breakeven_text(option.breakeven_months, option.cloud_usd_per_hour, option.purchase_usd)


def rate_text(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:,.1f} {unit}"


def speed_text(option: Option, training: bool) -> str:
    """The headline speed: tokens/s and time to train (training), tokens/s per user (inference)."""
    if training:
        text = f"{rate_text(option.tokens_per_s, 'tokens/s')}, {format_duration(option.step_time_s)} per step"
        if option.time_to_train_s is not None:
            text += f", {format_duration(option.time_to_train_s)} to train"
        return text
    return (
        f"{rate_text(option.tokens_per_s_per_user, 'tokens/s per user')} "
        f"({rate_text(option.tokens_per_s, 'tokens/s')} total), first token after {format_duration(option.prefill_s)}"
    )


def model_title(plan: Plan) -> str:
    req = plan.request
    return f"{req.model.name} ({format_count(req.model.total_params())} params), {req.task.value}, {req.precision.value}"


@dataclass(frozen=True)
class Column:
    """One options-table column: header, how to read and show the value, tooltip."""

    header: str
    value: Callable[[Option], Any]
    text: Callable[[Option], str]
    tooltip: str = ""


def option_columns(training: bool) -> tuple[Column, ...]:
    """The options table's columns for a training or an inference plan.

    What decides a purchase comes first (fits, speed, price, break-even), so it is visible without
    scrolling at 1280 px; the details (memory, parallelism, bound, tier) follow.
    """
    head = (
        Column("GPU", lambda o: o.gpu, lambda o: o.gpu),
        Column("Count", lambda o: o.count, lambda o: str(o.count), "GPUs needed"),
        Column(
            "Fits",
            lambda o: (o.fits, o.meets_target),
            fits_text,
            "Fits in memory, and meets the speed target",
        ),
    )
    if training:
        speed = (
            Column("Tokens/s", lambda o: o.tokens_per_s, lambda o: rate_text(o.tokens_per_s, ""), tip("mfu")),
            Column(
                "Time to train",
                lambda o: o.time_to_train_s,
                lambda o: format_duration(o.time_to_train_s),
                "For the token budget on the Traffic and target page",
            ),
        )
    else:
        speed = (
            Column(
                "Tokens/s per user",
                lambda o: o.tokens_per_s_per_user,
                lambda o: rate_text(o.tokens_per_s_per_user, ""),
                tip("tokens_per_s_per_user"),
            ),
            Column("Tokens/s total", lambda o: o.tokens_per_s, lambda o: rate_text(o.tokens_per_s, "")),
        )
    money = (
        Column(
            "Rent $/h",
            lambda o: o.cloud_usd_per_hour,
            lambda o: format_usd(o.cloud_usd_per_hour),
            "All GPUs, per hour",
        ),
        Column(
            "Purchase",
            lambda o: o.purchase_usd,
            lambda o: format_usd(o.purchase_usd),
            "GPUs plus the rest of the server (assumption: server overhead)",
        ),
        Column(
            "Break-even",
            lambda o: o.breakeven_months,
            breakeven_text,
            tip("breakeven"),
        ),
    )
    if training:
        detail_speed = (
            Column("Step time", lambda o: o.step_time_s, lambda o: format_duration(o.step_time_s)),
        )
    else:
        detail_speed = (
            Column(
                "First token",
                lambda o: o.prefill_s,
                lambda o: format_duration(o.prefill_s),
                "Prefill of one prompt",
            ),
        )
    details = (
        Column(
            "Memory per GPU",
            lambda o: o.per_gpu_bytes,
            lambda o: f"{format_bytes(o.per_gpu_bytes)} of {format_bytes(o.gpu_memory_bytes)}",
            "Estimated peak memory on each GPU, against the GPU's memory (GB = 10^9 bytes)",
        ),
        *detail_speed,
        Column("Bound", lambda o: o.bound or "", lambda o: bound_text(o.bound), tip("memory_bound")),
        Column(
            "Parallelism", lambda o: o.parallelism_text, lambda o: o.parallelism_text, tip("tensor_parallel")
        ),
        Column("Tier", lambda o: o.tier.label, lambda o: SHORT_TIER.get(o.tier.value, o.tier.label)),
    )
    return head + speed + money + details
