"""Serving traffic given as requests per second, worded: the users Little's law gives (the Traffic
page's users field and its note, the Assumptions tab)."""

from __future__ import annotations

from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.result import Plan
from gpu_advisor.core.serving import option_seconds, target_seconds, users_at_targets
from gpu_advisor.core.units import format_duration
from gpu_advisor.wording.plan import gpu_line


def derived_users(request: PlanRequest) -> int | None:
    """The most users an option meeting the targets holds (each option holds its own, fewer where it
    is faster); None without requests per second or without a per-user speed target."""
    return users_at_targets(request)


def derived_users_text(request: PlanRequest) -> str:
    """'At most 67 users in flight: 5 requests/s × 13.3 s per request at the targets; each GPU holds
    5 requests/s × its own first token and output time (Little's law)'; '' without requests/s."""
    rate = request.requests_per_s
    if rate is None:
        return ""
    users = derived_users(request)
    own = f"each GPU holds {rate:g} requests/s × its own first token and output time (Little's law)"
    if users is None:
        return f"{rate:g} requests/s: {own}"
    return (
        f"At most {users:,} users in flight: {rate:g} requests/s × {target_seconds(request):.3g} s per "
        f"request at the targets; {own}"
    )


def answer_users_text(plan: Plan) -> str:
    """'39 users in flight on 2 × NVIDIA H100 NVL: 5 requests/s × 7.69 s per request (first token
    181.8 ms + 256 tokens at 34.1 tokens/s per user, Little's law)'; '' without requests/s or answer."""
    best, rate = plan.best, plan.request.requests_per_s
    if best is None or rate is None or best.users_in_flight is None:
        return ""
    speed = best.serving
    output = plan.request.output_tokens
    seconds = option_seconds(speed.ttft_s, output, speed.tokens_per_s_per_user)
    return (
        f"{best.users_in_flight:,} users in flight on {gpu_line(best)}: {rate:g} requests/s × "
        f"{seconds:.3g} s per request (first token {format_duration(speed.ttft_s)} + {output:,} tokens at "
        f"{speed.tokens_per_s_per_user:.3g} tokens/s per user, Little's law); each option holds its own "
        "(its GPU's tooltip in the Options tab)"
    )
