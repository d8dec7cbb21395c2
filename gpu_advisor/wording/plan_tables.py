"""A plan's tables as words: the options table's columns, and the rows of inputs, memory, compute,
formulas, assumptions and sources. Every face renders these (GUI table, PDF, Markdown, CLI text)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from gpu_advisor.core.estimates import COMPONENTS, MemoryEstimate, SpeedTerm
from gpu_advisor.core.request import Assumptions, Purchase
from gpu_advisor.core.result import Option, Plan
from gpu_advisor.core.units import (
    NA,
    format_bandwidth,
    format_bytes,
    format_count,
    format_duration,
    format_pct,
    format_rate,
    format_si,
    format_usd,
)
from gpu_advisor.wording.memory_parts import stack_part_rows
from gpu_advisor.wording.plan import (
    COMPONENT_LABELS,
    ENGINE_LABELS,
    LOSS_LABELS,
    PRICE_UNKNOWN,
    SHORT_TIER_LABELS,
    TASK_LABELS,
    bound_text,
    breakeven_text,
    count_text,
    fits_text,
    gpu_line,
    headline,
    job_cost_text,
    machines_text,
    memory_text,
    plan_title,
    rank_basis,
    speed_text,
    verdict_text,
)
from gpu_advisor.wording.text import MAX_NAME_CHARS, clip_text, text_table
from gpu_advisor.wording.tiers import tiers_text


@dataclass(frozen=True)
class Column:
    """One options-table column: its header, how a value sorts and reads, and what it means.

    `glossary` names the GUI glossary entry that explains the term (the GUI's header tooltip).
    """

    key: str
    header: str
    sort_value: Callable[[Option], Any]
    text: Callable[[Option], str]
    help: str = ""
    glossary: str | None = None
    numeric: bool = True


def _training(option: Option, key: str) -> Any:
    return getattr(option.speed, key, None)


def _dataset_rows(req: Any) -> list[tuple[str, str]]:
    """'Dataset' and 'Epochs' rows when the request gives a dataset instead of a token budget."""
    tokens = req.epoch_tokens
    if tokens is None:
        return []
    if req.dataset_samples is not None:
        size = f"{req.dataset_samples:,} samples × {req.seq_len:,} tokens = {format_count(tokens)} tokens"
    else:
        size = f"{format_count(tokens)} tokens"
    return [("Dataset", size), ("Epochs", f"{req.epochs or 1:g}")]


# Options of more GPUs than this (and than LARGE_OPTION_FACTOR x the recommendation's) are folded
# away by default: 512 x L4 or 2,048 x T4 for a 70B model fit and may even meet the target, but nobody
# buys eight racks of inference cards to serve what one or two 8-GPU servers serve (review 3, D13).
LARGE_OPTION_GPUS = 64  # eight 8-GPU servers
LARGE_OPTION_FACTOR = 4


def large_option_limit(plan: Plan) -> int:
    """The most GPUs an option may use and still be listed by default."""
    best = plan.best
    return max(LARGE_OPTION_GPUS, LARGE_OPTION_FACTOR * best.count if best is not None else 0)


def large_options_text(folded: int, limit: int) -> str:
    """'3 options of more than 64 GPUs' (one option: 'one option of …')."""
    what = "one option" if folded == 1 else f"{folded:,} options"
    return f"{what} of more than {limit:,} GPUs"


def target_column_keys(request: Any, keys: Collection[str] = ()) -> frozenset[str]:
    """The options columns that answer the request's own target, kept longest when a narrow table
    leaves out columns (`keys`: the columns it has): the first token for a first-token target; for
    training the time to train where there is a budget or a dataset to train on, else the step time
    and the layout (what sets the throughput)."""
    if request.task.is_training:
        return frozenset({"time_to_train"} if "time_to_train" in keys else {"step_time", "layout"})
    return frozenset({"prefill"}) if request.ttft_s is not None else frozenset()


def per_user_text(tokens_per_s: float | None) -> str:
    """One user's speed with one decimal under 100 tokens/s ('42.0', '35.6'), so that a column reads
    with one number of decimals; whole numbers above, three significant figures below 1 (as format_rate)."""
    if tokens_per_s is None or tokens_per_s >= 100 or tokens_per_s < 1:
        return format_rate(tokens_per_s)
    return f"{tokens_per_s:.1f}"


def _shown(
    key: str,
    header: str,
    value: Callable[[Option], Any],
    fmt: Callable[[Any], str],
    help: str = "",
    glossary: str | None = None,
    numeric: bool = True,
) -> Column:
    """A column that sorts by a value and reads as that value formatted: one getter serves both."""
    return Column(key, header, value, lambda o: fmt(value(o)), help, glossary, numeric)


def _of_training(key: str) -> Callable[[Option], Any]:
    """A training option's speed figure by name (None on an inference option)."""
    return lambda o: _training(o, key)


def _same(text: str) -> str:
    return text


def _gpu_hours_text(hours: float | None) -> str:
    return NA if hours is None else f"{hours:,.0f}"


def option_columns(training: bool) -> tuple[Column, ...]:
    """The options table's columns for a training or an inference plan, in reading order.

    What decides a purchase comes first (fits, speed, price, break-even), so it shows without
    sideways scrolling; the details (memory, layout, bound, tier) follow.
    """
    head = (
        _shown("gpu", "GPU", lambda o: o.gpu, _same, numeric=False),
        Column(
            "count",
            "GPUs",
            lambda o: o.count,
            count_text,
            "GPUs used (and bought, where SXM/OAM baseboards hold more)",
        ),
        Column(
            "fits",
            "Fits",
            lambda o: (o.fits, o.meets_target),
            fits_text,
            "Fits in memory, and meets the speed target",
            numeric=False,
        ),
    )
    speed: tuple[Column, ...]
    if training:
        speed = (
            _shown(
                "tokens_per_s",
                "Tokens/s",
                lambda o: o.speed.tokens_per_s,
                format_rate,
                "Training tokens per second, all GPUs",
                "mfu",
            ),
            _shown(
                "time_per_epoch",
                "Time per epoch",
                _of_training("time_per_epoch_s"),
                format_duration,
                "One pass over the dataset: its tokens / tokens per second",
            ),
            _shown(
                "time_to_train",
                "Time to train",
                _of_training("time_to_train_s"),
                format_duration,
                "For the token budget, or every epoch over the dataset",
            ),
        )
    else:
        speed = (
            _shown(
                "per_user",
                "Tokens/s per user",
                lambda o: o.serving.tokens_per_s_per_user,
                per_user_text,
                "Generation speed one user sees",
                "tokens_per_s_per_user",
            ),
            _shown(
                "aggregate",
                "Tokens/s total",
                lambda o: o.speed.tokens_per_s,
                format_rate,
                "Generated tokens per second, all users",
            ),
        )
    job: tuple[Column, ...] = ()
    if training:
        job = (
            Column(
                "job_cost",
                "Job cost",
                lambda o: o.cost.job_cloud_usd,
                job_cost_text,
                "Rent of the whole training job: GPU-hours x price per GPU-hour",
            ),
            _shown(
                "gpu_hours",
                "GPU-hours",
                _of_training("gpu_hours"),
                _gpu_hours_text,
                "GPUs x hours to train the token budget",
            ),
        )
    money = (
        *job,
        _shown(
            "rent",
            "Rent $/h",
            lambda o: o.cost.cloud_usd_per_hour,
            lambda usd: format_usd(usd, PRICE_UNKNOWN),
            "All the option's GPUs, per hour, on demand",
        ),
        _shown(
            "purchase",
            "Purchase",
            lambda o: o.cost.purchase_usd,
            lambda usd: format_usd(usd, PRICE_UNKNOWN),
            "The GPUs plus each machine without its GPUs (desktop, workstation tower or 8-GPU server)",
        ),
        Column(
            "breakeven",
            "Break-even",
            lambda o: o.cost.breakeven_months,
            lambda o: breakeven_text(o.cost, "mo"),
            "Months of use after which buying costs less than renting",
            "breakeven",
        ),
    )
    if training:
        detail = _shown(
            "step_time",
            "Step time",
            _of_training("step_time_s"),
            format_duration,
            "One optimizer step of every data-parallel replica",
        )
    else:
        detail = _shown(
            "prefill",
            "First token",
            lambda o: o.serving.ttft_s,
            format_duration,
            "Time to first token: the prefill of one user's prompt, then one decode step of the batch",
        )
    efficiency: tuple[Column, ...] = ()
    if training:
        efficiency = (
            _shown(
                "mfu",
                "MFU",
                _of_training("mfu"),
                format_pct,
                "Model FLOPs utilisation at the predicted speed (HFU, with recomputation, in the formulas)",
                "mfu",
            ),
        )
    details = (
        *efficiency,
        Column(
            "memory",
            "Memory per GPU",
            lambda o: o.per_gpu_bytes,
            memory_text,
            "Estimated peak memory on each GPU, against the GPU's memory",
        ),
        detail,
        _shown(
            "bound",
            "Bound",
            lambda o: o.speed.bound,
            bound_text,
            "What limits the speed",
            "memory_bound",
            numeric=False,
        ),
        _shown(
            "layout",
            "Parallelism",
            lambda o: o.layout.describe(),
            _same,
            "How the GPUs share the work",
            "tensor_parallel",
            numeric=False,
        ),
        Column(
            "machines",
            "Machines × GPUs",
            lambda o: (o.machines, o.gpus_per_machine),
            machines_text,
            "Machines x GPUs per machine; tensor parallelism stays inside one machine",
            numeric=False,
        ),
        Column("tier", "Tier", lambda o: o.tier.label, lambda o: SHORT_TIER_LABELS[o.tier], numeric=False),
    )
    return head + speed + money + details


# ---- rows -------------------------------------------------------------------------------------------
def input_rows(plan: Plan) -> list[tuple[str, str]]:
    """The request as (label, value) rows."""
    req = plan.request
    model = req.model
    rows = [
        (
            "Model",
            f"{clip_text(model.name, MAX_NAME_CHARS)} ({format_count(model.total_params())} parameters)",
        ),
        ("Architecture", model.describe() + (" (guessed from the parameter count)" if model.guessed else "")),
        ("Task", TASK_LABELS[req.task]),
        ("Precision", str(req.precision)),
    ]
    if req.task.is_training:
        rows += [
            ("Optimizer", str(req.optimizer)),
            (
                "Weights and optimizer state",
                "fp32 master + fp32 state (mixed precision)" if req.mixed_precision else "16-bit (pure)",
            ),
            ("Sequence length × micro-batch", f"{req.seq_len:,} tokens × {req.batch_size}"),
            ("Micro-batches per step", f"{req.grad_accumulation_steps:,} (gradient accumulation)"),
            ("Loss", LOSS_LABELS[req.loss]),
            ("Gradient checkpointing", "on" if req.grad_checkpointing else "off"),
            ("ZeRO stage", "chosen by the planner" if req.zero_stage is None else str(req.zero_stage)),
            *(
                _dataset_rows(req)
                or [
                    (
                        "Training tokens",
                        "not set" if req.train_tokens is None else format_count(req.train_tokens),
                    )
                ]
            ),
            ("Deadline", "not set" if req.max_hours is None else f"{req.max_hours:g} h"),
        ]
    else:
        target = req.tokens_per_s_per_user
        rows += [
            ("Serving engine", ENGINE_LABELS[req.engine]),
            ("Concurrent users", f"{req.users:,}"),
            *(
                [("Requests per second", f"{req.requests_per_s:g} (users by Little's law)")]
                if req.requests_per_s is not None
                else []
            ),
            ("Time to first token", "not set" if req.ttft_s is None else f"at most {req.ttft_s:g} s"),
            ("Prompt / output tokens", f"{req.prompt_tokens:,} / {req.output_tokens:,}"),
            ("Target per user", "not set" if target is None else format_rate(target, "tokens/s")),
        ]
    rows.append(("Attention", str(req.attention)))
    restrict = [
        f"GPU {req.gpu}" if req.gpu else "",
        f"tier {req.tier.label}" if req.tier else "",
        f"{req.vendor.name} GPUs" if req.vendor else "",
        "NVLink required" if req.require_nvlink else "",
        f"{req.gpus} GPUs" if req.gpus else "",
        f"tensor parallel {req.tensor_parallel}" if req.tensor_parallel else "",
        f"pipeline parallel {req.pipeline_parallel}" if req.pipeline_parallel else "",
    ]
    rows.append(("Restricted to", ", ".join(r for r in restrict if r) or "every GPU in the catalogue"))
    rows += [
        ("Budget", "buy" if req.purchase is Purchase.BUY else "rent"),
        ("Use per month", f"{req.hours_per_month:g} h"),
        ("Electricity", f"{format_usd(req.electricity_usd_per_kwh)} per kWh"),
    ]
    if req.calibration is not None:
        rows.append(("Calibrated from", req.calibration.source))
    return rows


def memory_rows(
    memory: MemoryEstimate, total_note: str = "sum of the components"
) -> list[tuple[str, str, str]]:
    """(component, size, formula) for the non-zero components, each followed by the training stack's
    named buffers counted in it, then the total."""
    rows = []
    for key in COMPONENTS:
        size = getattr(memory.components, key)
        if size:
            rows.append((COMPONENT_LABELS[key], format_bytes(size), memory.formulas.get(key, "")))
            rows += [(label, format_bytes(n), formula) for label, n, formula in stack_part_rows(memory, key)]
    rows.append(("Total", format_bytes(memory.components.total), total_note))
    return rows


COMPUTE_LABELS = {
    "flops_per_token": "FLOPs per token",
    "hardware_flops_per_token": "FLOPs per token with recomputation",
    "tokens_per_step": "Tokens per step (per replica, all micro-batches)",
    "flops_per_step": "FLOPs per step (per replica)",
    "prefill_flops": "FLOPs per prompt",
    "kv_tokens": "Tokens in the KV cache",
}


def compute_rows(plan: Plan) -> list[tuple[str, str]]:
    """The work per step or per token."""
    return [
        (COMPUTE_LABELS.get(key, key), format_si(value, "FLOP") if "flops" in key else f"{value:,.0f}")
        for key, value in plan.compute.items()
    ]


def speed_rows(plan: Plan, limit: int = 5) -> list[tuple[str, str, str]]:
    """(GPUs, speed sentence, bound) for the best few options that fit."""
    fitting = [o for o in plan.options if o.fits][:limit]
    return [(gpu_line(o), speed_text(o), bound_text(o.speed.bound)) for o in fitting]


def formula_rows(option: Option | None) -> list[tuple[str, str]]:
    """How an option's speed and cost were computed: the working it carries, term by term."""
    if option is None:
        return []
    speed = option.speed.formula + (f" ({option.note})" if option.note else "")
    rows = [("Speed", speed)]
    if option.speed.kind == "inference" and option.speed.prefill_formula:
        rows.append(
            ("First token", f"{format_duration(option.speed.prefill_s)}: {option.speed.prefill_formula}")
        )
    rows += [(term_label(term), term_text(term)) for term in option.speed.terms]
    return [
        *rows,
        ("Cost", option.cost.formula),
        (
            "Break-even",
            "purchase / (rent per month - electricity per month); renting wins where it is never reached",
        ),
    ]


def term_label(term: SpeedTerm) -> str:
    """'Tensor-parallel all-reduces' (capitalised); hidden terms say so."""
    label = term.name[:1].upper() + term.name[1:]
    return label if term.exposed else f"{label} (hidden)"


def term_text(term: SpeedTerm) -> str:
    """'1.20 s per step: formula'."""
    return f"{format_duration(term.seconds)} per step: {term.formula}"


# People's names for the plan's assumptions (the JSON keeps the identifiers); a key not listed reads
# as its words, with its unit.
ASSUMPTION_LABELS = {
    "mfu": "Training MFU (model FLOPs utilisation)",
    "prefill_efficiency": "Prefill efficiency",
    "bandwidth_efficiency": "Memory bandwidth efficiency",
    "step_overhead_s": "Decode step overhead",
    "host_overhead_per_layer_s": "Host time per layer",
    "cuda_context_bytes": "CUDA context per GPU",
    "fragmentation": "Allocator fragmentation",
    "dp_comm_overlap": "Gradient reduction hidden behind backward",
    "pipeline_layers_per_virtual_stage": "Layers per virtual pipeline stage",
    "pipeline_interleaved": "Interleaved pipeline schedule",
    "loss_chunks": "Chunks of the cross-entropy loss",
    "host_usd_per_machine": "Machine price without GPUs",
    "pue": "Power usage effectiveness (PUE)",
    "host_power_w_per_machine": "Machine power without GPUs",
    "utilisation_of_tdp": "Average GPU draw (share of TDP)",
    "lora_rank": "LoRA rank",
    "lora_all_linear": "LoRA on every linear layer",
    "max_prefill_tokens": "Prefill budget (tokens per step)",
    "memory_budget_per_gpu": "Memory budget per GPU",
    "efficiencies": "Efficiency tables",
    "links": "Links between GPUs",
    "max_gpus_searched": "Most GPUs searched",
    "tensor_parallel_within_node": "Tensor parallelism within one machine",
    "ownership_months_for_buy_ranking": "Ownership months for ranking purchases",
    "compute_dtype": "Compute precision",
    "weight_format": "Weight format",
    "gpus_not_considered": "GPUs not considered",
    "engine": "Serving engine",
    "time_to_first_token": "Time to first token",
    "concurrent_users_from_requests_per_s": "Concurrent users from requests per second",
    "global_batch": "Global batch",
    "recipe_search": "Training recipe search",
}
UNIT_SUFFIXES = (
    ("_bytes_per_s", "bandwidth"),
    ("_bytes", "bytes"),
    ("_usd", "USD"),
    ("_s", "s"),
    ("_w", "W"),
)


def assumption_label(key: str) -> str:
    """'Decode step overhead' for `step_overhead_s`; an unlisted key as words with its unit."""
    if key in ASSUMPTION_LABELS:
        return ASSUMPTION_LABELS[key]
    for suffix, unit in UNIT_SUFFIXES:
        if key.endswith(suffix):
            words = key[: -len(suffix)].replace("_", " ")
            return f"{words[:1].upper()}{words[1:]} ({unit})"
    words = key.replace("_", " ")
    return words[:1].upper() + words[1:]


def assumption_rows(plan: Plan) -> list[tuple[str, str, str]]:
    """(label, value, meaning) for every constant the plan used."""
    fields = Assumptions.model_fields
    rows = []
    for key, value in plan.assumptions.items():
        meaning = fields[key].description if key in fields else ""
        if value is None:
            text = "per GPU (published tables)"
        elif isinstance(value, bool):
            text = "yes" if value else "no"
        elif key.endswith("_bytes") and isinstance(value, int):
            text = f"{value:,} bytes ({format_bytes(value)})"
        elif key.endswith("_bytes_per_s") and isinstance(value, int | float):  # a measured link
            text = format_bandwidth(value)
        elif key.startswith("measured_latency") and isinstance(value, int | float):
            text = format_duration(value)
        elif isinstance(value, float):
            text = f"{value:g}"
        elif isinstance(value, str) and len(value) > 24:  # a rule, not a number: say it in full
            text, meaning = "see meaning", value
        elif isinstance(value, list | tuple):  # e.g. the GPUs left out, each with its reason
            text = f"{len(value)} listed" if value else "none"
            meaning = "; ".join(str(v) for v in value) or meaning or ""
        else:
            text = str(value)
        rows.append((assumption_label(key), text, meaning or ""))
    return rows


# A purchase is decided on the maker's documents first, then dated prices, then secondary tables.
# Each source is placed by the words it is described with (resources/gpus.json `source_keys`).
SOURCE_KINDS = (
    (
        "datasheet or maker",
        (
            "datasheet",
            "whitepaper",
            "product brief",
            "product page",
            "spec table",
            "announcement",
            "nvidia.com",
            "amd.com",
            "mlcommons",
        ),
    ),
    ("price", ("pricing", "price", "rate card", "msrp", "quote")),
)
AGGREGATOR = "aggregator"


REPOSITORY = re.compile(r"^[A-Za-z0-9][\w-]*/[\w.-]+\s")  # 'owner/repo path': a GitHub repository


def source_kind(text: str) -> str:
    """'datasheet or maker', 'price' or 'aggregator' (GitHub tables, spec databases, wikis, blogs)."""
    if REPOSITORY.match(text):  # a repository's table, even one copied from datasheets
        return AGGREGATOR
    lowered = text.lower()
    return next((kind for kind, words in SOURCE_KINDS if any(w in lowered for w in words)), AGGREGATOR)


def source_rows(option: Option | None) -> list[tuple[str, str]]:
    """An option's catalogue sources: its row's note, then each source key it cites, the maker's
    documents first, then dated prices, then aggregators (each key says which it is)."""
    if option is None:
        return []
    sources = option.sources
    rows = [(option.gpu, sources.text)]
    if sources.cloud_price_date:
        rows.append(("Cloud price date", sources.cloud_price_date))
    order = [kind for kind, _ in SOURCE_KINDS] + [AGGREGATOR]
    cited = sorted(sources.cited.items(), key=lambda kv: order.index(source_kind(kv[1])))
    if cited and source_kind(cited[0][1]) != order[0]:
        rows.append(("Note", "the catalogue cites no datasheet or maker's page for this GPU"))
    rows += [(f"{key} ({source_kind(text)})", text) for key, text in cited]
    if sources.user_defined:
        rows.append(("Note", "this GPU comes from the user's own gpus.json"))
    return rows


# ---- the CLI's plan text -------------------------------------------------------------------------------
CLI_COLUMNS = {
    True: (
        "gpu",
        "count",
        "machines",
        "fits",
        "memory",
        "step_time",
        "tokens_per_s",
        "job_cost",
        "gpu_hours",
        "rent",
        "purchase",
        "breakeven",
    ),
    False: (
        "gpu",
        "count",
        "machines",
        "fits",
        "memory",
        "per_user",
        "aggregate",
        "prefill",
        "rent",
        "purchase",
        "breakeven",
    ),
}
CLI_OPTION_ROWS = 12


def memory_notes(plan: Plan) -> list[str]:
    """The memory notes: the unsharded footprint's, then how the serving engine fills the card of the
    answer (or of the first option): its reserve, weights, activation peak, non-PyTorch memory, KV pool."""
    option = plan.best or (plan.options[0] if plan.options else None)
    if option is None:
        return list(plan.memory.notes)
    engine = [n for n in option.per_gpu.notes if " memory: " in n]
    return [*plan.memory.notes, *(f"{option.count} × {option.gpu}: {n}" for n in engine)]


def plan_text(plan: Plan) -> str:
    """The plan as the CLI prints it: the answer, the memory breakdown, the best options."""
    title = plan_title(plan)
    lines = [title, "=" * len(title), f"Recommendation: {headline(plan)}", plan.recommendation.reason, ""]
    lines.append("Memory on one device, unsharded:")
    lines += [f"  {label:<28} {size:>10}   {formula}" for label, size, formula in memory_rows(plan.memory)]
    lines += [f"  note: {note}" for note in memory_notes(plan)]
    verdict = verdict_text(plan)
    if verdict:
        lines += ["", f"Rent or buy: {verdict}"]
    lines += ["", *tiers_text(plan)]
    training = plan.request.task.is_training
    columns = {c.key: c for c in option_columns(training)}
    keys = CLI_COLUMNS[training]
    if training and plan.request.total_train_tokens is not None:  # a budget or a dataset: how long
        at = keys.index("tokens_per_s") + 1
        dataset = plan.request.epoch_tokens is not None
        keys = (*keys[:at], *(("time_per_epoch",) if dataset else ()), "time_to_train", *keys[at:])
    chosen = [columns[key] for key in keys]
    rows = [[c.text(o) for c in chosen] for o in plan.options[:CLI_OPTION_ROWS]]
    lines += ["", f"Options (best first, {rank_basis(plan)}):"]
    lines += text_table([c.header for c in chosen], rows, [c.numeric for c in chosen])
    if len(plan.options) > CLI_OPTION_ROWS:
        lines.append(f"... {len(plan.options) - CLI_OPTION_ROWS} more (use --json for all)")
    lines += frontier_text(plan)
    lines += [f"warning: {w}" for w in plan.warnings]
    lines += [f"suggestion: {s}" for s in plan.suggestions]
    return "\n".join(lines)


FRONTIER_HEADERS = ("GPUs", "Time to train", "Job rent", "")


def frontier_title(plan: Plan) -> str:
    """'Time and cost by scale (NVIDIA H100 SXM, the recommended recipe)' ('' without a frontier)."""
    if not plan.frontier or plan.recommendation.gpu is None:
        return ""
    return f"Time and cost by scale ({plan.recommendation.gpu}, the recommended recipe)"


def frontier_rows(plan: Plan) -> list[list[str]]:
    """One row per scale of the frontier: GPUs, time to train, the job's rent, 'recommended'."""
    if not frontier_title(plan):
        return []
    return [
        [
            f"{p.count:,}",
            format_duration(p.time_to_train_s) if p.fits else "does not fit",
            format_usd(p.job_cloud_usd) if p.job_cloud_usd is not None and p.fits else "n/a",
            "recommended" if p.count == plan.recommendation.count else "",
        ]
        for p in plan.frontier
    ]


def frontier_text(plan: Plan) -> list[str]:
    """Time and cost by scale of the recommended GPU (a token budget without a deadline)."""
    rows = frontier_rows(plan)
    if not rows:
        return []
    table = text_table(list(FRONTIER_HEADERS), rows, [True, True, True, False])
    return ["", frontier_title(plan) + ":", *table]


def frontier_sentence(plan: Plan) -> str:
    """'By scale (NVIDIA H100 SXM, the recommended recipe): 2,048 GPUs 95.8 days, $16.1M; 4,096 GPUs
    47.9 days, $16.4M (recommended); ...' (empty without a frontier)."""
    if not plan.frontier or plan.recommendation.gpu is None:
        return ""
    parts = []
    for p in plan.frontier:
        if not p.fits:
            parts.append(f"{p.count:,} GPUs do not fit")
            continue
        rent = f", {format_usd(p.job_cloud_usd)}" if p.job_cloud_usd is not None else ""
        mark = " (recommended)" if p.count == plan.recommendation.count else ""
        parts.append(f"{p.count:,} GPUs {format_duration(p.time_to_train_s)}{rent}{mark}")
    return f"By scale ({plan.recommendation.gpu}, the recommended recipe): " + "; ".join(parts) + "."
