"""Facts the report states that no table holds: the target and whether the answer meets it, and one
GPU's memory with the overhead split into what allocates it (as the serving engine sizes the card)."""

from __future__ import annotations

from gpu_advisor.core.estimates import COMPONENTS, MemoryEstimate
from gpu_advisor.core.result import Option, Plan
from gpu_advisor.core.units import format_bytes, format_count, format_duration, format_rate
from gpu_advisor.wording.plan import COMPONENT_LABELS, gpu_line


def _serving_target(plan: Plan) -> list[str]:
    req = plan.request
    load = (
        f"{req.requests_per_s:g} requests/s of {req.prompt_tokens:,} + {req.output_tokens:,} tokens"
        if req.requests_per_s is not None
        else f"{req.users:,} concurrent users"
    )
    parts = [load]
    if req.tokens_per_s_per_user is not None:
        parts.append(f"{format_rate(req.tokens_per_s_per_user, 'tokens/s')} per user")
    if req.ttft_s is not None:
        parts.append(f"first token within {format_duration(req.ttft_s)}")
    return parts


def _training_target(plan: Plan) -> list[str]:
    req = plan.request
    tokens = req.total_train_tokens
    parts = ["no token budget" if tokens is None else f"{format_count(tokens)} training tokens"]
    parts.append("no deadline" if req.max_hours is None else f"within {req.max_hours:g} h")
    return parts


def _achieved(plan: Plan, option: Option) -> str:
    """What the option reaches, on the target's own terms."""
    training = option.training
    if training is not None:
        if training.time_to_train_s is None:
            return f"{format_rate(training.tokens_per_s, 'tokens/s')}"
        return f"{format_duration(training.time_to_train_s)} to train"
    speed = option.serving
    achieved = [f"{format_rate(speed.tokens_per_s_per_user, 'tokens/s')} per user"]
    if plan.request.ttft_s is not None or plan.request.requests_per_s is not None:
        achieved.append(f"first token after {format_duration(speed.ttft_s)}")
    if option.users_in_flight is not None:
        achieved.append(f"{option.users_in_flight:,} users in flight (Little's law)")
    return ", ".join(achieved)


def target_line(plan: Plan) -> str:
    """'Target: 5 requests/s of 1,024 + 256 tokens, 20 tokens/s per user, first token within 500 ms —
    met by 1 × AMD Instinct MI325X: 26.7 tokens/s per user, first token after 272.1 ms, ...'."""
    training = plan.request.task.is_training
    target = ", ".join(_training_target(plan) if training else _serving_target(plan))
    best = plan.best
    if best is not None:
        verb = "met" if best.meets_target else "not met"
        return f"Target: {target} — {verb} by {gpu_line(best)}: {_achieved(plan, best)}."
    closest = plan.options[0] if plan.options else None
    if closest is None:
        return f"Target: {target} — not met: no GPU could be sized."
    if not closest.fits:
        return f"Target: {target} — not met: nothing fits in memory."
    return (
        f"Target: {target} — not met; the closest, {gpu_line(closest)}, reaches {_achieved(plan, closest)}."
    )


OVERHEAD_PART_LABELS = {
    "non_pytorch_bytes": (
        "Non-PyTorch memory",
        "CUDA context, library workspaces, kernels, NCCL buffers (outside PyTorch's allocator)",
    ),
    "fragmentation_bytes": ("Fragmentation", "the caching allocator's unused blocks"),
    "engine_reserve_bytes": (
        "Engine reserve",
        "the share of the card the serving engine leaves unused (vLLM gpu_memory_utilization)",
    ),
}


def memory_part_rows(
    memory: MemoryEstimate, total_note: str = "sum of the components"
) -> list[tuple[str, str, str]]:
    """(component, size, how it was computed): the components, with the overhead in its parts where
    the plan split it (non-PyTorch memory, fragmentation, the serving engine's reserve), the total,
    then the serving engine's KV pool (what it allocates for KV, which must hold the users' KV cache)."""
    comps = memory.components
    rows: list[tuple[str, str, str]] = []
    for key in COMPONENTS:
        size = getattr(comps, key)
        if key == "overhead" and memory.overhead_parts:
            for part, value in memory.overhead_parts.items():
                label, meaning = OVERHEAD_PART_LABELS.get(part, (part, ""))
                if part == "non_pytorch_bytes":
                    meaning = memory.formulas.get("overhead", meaning)
                if value:
                    rows.append((label, format_bytes(value), meaning))
            continue
        if size:
            rows.append((COMPONENT_LABELS[key], format_bytes(size), memory.formulas.get(key, "")))
    rows.append(("Total", format_bytes(comps.total), total_note))
    pool = memory.kv_pool_bytes
    if pool is not None:
        held = "holds" if comps.kv_cache <= pool else "cannot hold"
        fill = f" ({comps.kv_cache / pool:.0%} full)" if pool > 0 else ""
        rows.append(
            (
                "KV pool (engine)",
                format_bytes(pool),
                f"what the engine allocates for KV blocks; {held} the users' {format_bytes(comps.kv_cache)}{fill}",
            )
        )
    return rows
