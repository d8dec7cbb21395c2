"""The report's tables as plain data: inputs, memory, options, speed, formulas, assumptions, sources.

The PDF, the Markdown and the JSON report render these rows. No Qt, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.core.cost import estimate_cost
from gpu_advisor.core.layout import Parallelism
from gpu_advisor.core.memory import COMPONENTS
from gpu_advisor.core.recommend import gpu_peaks
from gpu_advisor.core.request import Assumptions, Purchase
from gpu_advisor.core.result import Option, Plan
from gpu_advisor.core.speed import inference_speed, training_speed
from gpu_advisor.core.units import format_bytes, format_count, format_duration, format_usd
from gpu_advisor.report.summary import (
    COMPONENT_LABELS,
    TASK_LABELS,
    breakeven_text,
    fits_text,
    gpu_line,
    rate,
    speed_text,
)


@dataclass(frozen=True)
class Column:
    """One column of a rendered table. `align` is "left" or "right" (numbers)."""

    key: str
    header: str
    align: str = "right"


# ---- inputs ------------------------------------------------------------------------------------------
def input_rows(plan: Plan) -> list[tuple[str, str]]:
    """The request as (label, value) rows."""
    req = plan.request
    rows = [
        ("Model", f"{req.model.name} ({format_count(req.model.total_params())} parameters)"),
        (
            "Architecture",
            req.model.describe() + (" (guessed from the parameter count)" if req.model.guessed else ""),
        ),
        ("Task", TASK_LABELS[req.task]),
        ("Precision", str(req.precision)),
    ]
    if req.task.is_training:
        rows += [
            ("Optimizer", str(req.optimizer)),
            ("Sequence length x micro-batch", f"{req.seq_len:,} tokens x {req.batch_size}"),
            ("Gradient checkpointing", "on" if req.grad_checkpointing else "off"),
            ("ZeRO stage", "chosen by the planner" if req.zero_stage is None else str(req.zero_stage)),
            ("Training tokens", "not set" if req.train_tokens is None else format_count(req.train_tokens)),
            ("Deadline", "not set" if req.max_hours is None else f"{req.max_hours:g} h"),
        ]
    else:
        rows += [
            ("Concurrent users", f"{req.users:,}"),
            ("Prompt / output tokens", f"{req.prompt_tokens:,} / {req.output_tokens:,}"),
            (
                "Target per user",
                "not set" if req.tokens_per_s_per_user is None else f"{req.tokens_per_s_per_user:g} tokens/s",
            ),
        ]
    rows.append(("Attention", str(req.attention)))
    restrict = [
        f"GPU {req.gpu}" if req.gpu else "",
        f"tier {req.tier.label}" if req.tier else "",
        f"{req.gpus} GPUs" if req.gpus else "",
    ]
    rows.append(("Restricted to", ", ".join(r for r in restrict if r) or "every GPU in the catalogue"))
    rows += [
        ("Budget", "buy" if req.purchase is Purchase.BUY else "rent"),
        ("Use per month", f"{req.hours_per_month:g} h"),
        ("Electricity", f"${req.electricity_usd_per_kwh:.2f} per kWh"),
    ]
    return rows


# ---- memory ------------------------------------------------------------------------------------------
def memory_rows(plan: Plan) -> list[tuple[str, str, str]]:
    """(component, size, formula) for the unsharded one-device footprint, non-zero components only."""
    rows = []
    for key in COMPONENTS:
        value = getattr(plan.memory, key)
        if value:
            rows.append((COMPONENT_LABELS[key], format_bytes(value), plan.memory_formulas.get(key, "")))
    rows.append(("Total", format_bytes(plan.memory.total), "sum of the above, one device, no sharding"))
    return rows


# ---- options table -----------------------------------------------------------------------------------
def option_columns(training: bool) -> list[Column]:
    """Columns of the options table, GPU first."""
    speed = (
        [
            Column("step_time", "Step time"),
            Column("tokens_per_s", "Tokens/s"),
            Column("time_to_train", "Time to train"),
        ]
        if training
        else [
            Column("prefill", "First token"),
            Column("per_user", "Tok/s per user"),
            Column("aggregate", "Tok/s total"),
        ]
    )
    return [
        Column("gpu", "GPU", "left"),
        Column("tier", "Tier", "left"),
        Column("layout", "Layout", "left"),
        Column("count", "GPUs"),
        Column("fits", "Fits", "left"),
        Column("per_gpu", "Memory per GPU"),
        Column("capacity", "GPU memory"),
        *speed,
        Column("bound", "Bound", "left"),
        Column("rent_month", "Rent per month"),
        Column("purchase", "Buy"),
        Column("breakeven", "Break-even"),
    ]


def option_row(plan: Plan, option: Option) -> dict[str, str]:
    """One option's cells, formatted."""
    row = {
        "gpu": option.gpu,
        "tier": option.tier.label,
        "layout": option.parallelism_text,
        "count": str(option.count),
        "fits": fits_text(option),
        "per_gpu": format_bytes(option.per_gpu_bytes),
        "capacity": format_bytes(option.gpu_memory_bytes),
        "bound": option.bound or "n/a",
        "rent_month": format_usd(option.cloud_usd_per_month),
        "purchase": format_usd(option.purchase_usd),
        "breakeven": breakeven_text(
            option.breakeven_months, option.cloud_usd_per_hour, option.purchase_usd, unit="mo"
        ),
    }
    if plan.request.task.is_training:
        row |= {
            "step_time": format_duration(option.step_time_s),
            "tokens_per_s": rate(option.tokens_per_s),
            "time_to_train": format_duration(option.time_to_train_s),
        }
    else:
        row |= {
            "prefill": format_duration(option.prefill_s),
            "per_user": rate(option.tokens_per_s_per_user),
            "aggregate": rate(option.tokens_per_s),
        }
    return row


def option_rows(plan: Plan) -> list[dict[str, str]]:
    """Every option the planner considered, best first."""
    return [option_row(plan, o) for o in plan.options]


# ---- speed and formulas --------------------------------------------------------------------------------
def speed_rows(plan: Plan, limit: int = 5) -> list[tuple[str, str, str]]:
    """(GPU x count, speed sentence, bound) for the best few options that fit."""
    fitting = [o for o in plan.options if o.fits][:limit]
    return [(gpu_line(o), speed_text(plan, o), o.bound or "n/a") for o in fitting]


def compute_rows(plan: Plan) -> list[tuple[str, str]]:
    """The work per step or per token, in FLOPs."""
    c = plan.compute
    labels = {
        "flops_per_token": "FLOPs per token",
        "tokens_per_step": "Tokens per step (per replica)",
        "flops_per_step": "FLOPs per step (per replica)",
        "prefill_flops": "FLOPs per prompt",
        "kv_tokens": "Tokens in the KV cache",
    }
    rows = []
    for key, value in c.items():
        text = f"{_si(float(value))}FLOP" if "flops" in key else f"{value:,.0f}"
        rows.append((labels.get(key, key), text))
    return rows


def _si(value: float) -> str:
    """1.02e14 -> '102 T' (decimal prefixes)."""
    for scale, prefix in ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}"
    return f"{value:.3g} "


def formula_rows(plan: Plan) -> list[tuple[str, str]]:
    """How the recommended option's speed and cost were computed, from the same core functions."""
    best = plan.best
    if best is None:
        return []
    gpu = default_catalog().find(best.gpu_id)
    if gpu is None:
        return []
    req = plan.request
    rows = []
    peaks, note = gpu_peaks(gpu, req.precision)
    if peaks is not None:
        par = Parallelism(**best.parallelism)
        speed = training_speed(req, par, peaks) if req.task.is_training else inference_speed(req, par, peaks)
        rows.append(("Speed", speed.formula + (f" ({note})" if note else "")))
    cost = estimate_cost(
        gpu, best.count, req.hours_per_month, req.electricity_usd_per_kwh, req.assumptions, best.gpu_hours
    )
    rows.append(("Cost", cost.formula))
    rows.append(
        (
            "Break-even",
            "purchase / (rent per month - electricity per month); renting wins where it is never reached",
        )
    )
    return rows


def assumption_rows(plan: Plan) -> list[tuple[str, str, str]]:
    """(name, value, meaning) for every constant the plan used."""
    fields = Assumptions.model_fields
    rows = []
    for key, value in plan.assumptions.items():
        meaning = fields[key].description if key in fields else ""
        if key.endswith("_bytes") and isinstance(value, int):
            text = f"{value:,} bytes ({format_bytes(value, 'MiB')})"
        elif isinstance(value, float):
            text = f"{value:g}"
        elif isinstance(value, str) and len(value) > 24:  # a rule, not a number: say it in full
            text, meaning = "see meaning", value
        elif isinstance(value, list | tuple):  # e.g. the GPUs left out, each with its reason
            text = f"{len(value)} listed" if value else "none"
            meaning = "; ".join(str(v) for v in value) or meaning or ""
        else:
            text = str(value)
        rows.append((key, text, meaning or ""))
    return rows


_SOURCE_KEY = re.compile(r"\[(S[0-9A-Za-z-]+)\]")


def source_rows(plan: Plan) -> list[tuple[str, str]]:
    """The recommended GPU's catalogue sources: its own note, then each cited source key."""
    option = plan.best
    if option is None:
        return []
    catalog = default_catalog()
    gpu = catalog.find(option.gpu_id)
    if gpu is None:
        return []
    rows = [(gpu.name, gpu.sources)]
    if gpu.cloud_price_date:
        rows.append(("Cloud price date", gpu.cloud_price_date))
    for key in dict.fromkeys(_SOURCE_KEY.findall(gpu.sources)):
        if key in catalog.source_keys:
            rows.append((key, catalog.source_keys[key]))
    if gpu.user_defined:
        rows.append(("Note", "this GPU comes from the user's own gpus.json"))
    return rows
