"""Serving traffic given as requests per second: Little's law turns it into concurrent users.

L = lambda x W: with lambda requests per second, each request in the system for W seconds (its first
token, then its output tokens at the per-user speed target), L requests are in flight at once. The
planner sizes the KV cache and the decode batch for L users.

Without a per-user speed target, W is each option's own: its first token plus its output at the
decode speed it reaches with L users in flight (a fixed point, `rate_concurrency`), and the first token
waits behind the other arrivals' prefills (`queued_ttft_s`, M/D/1).
"""

from __future__ import annotations

import math

from .request import PlanRequest


def rate_only(req: PlanRequest) -> bool:
    """Requests per second with no tokens/s per user target: each option's own speed sets W."""
    return req.requests_per_s is not None and req.tokens_per_s_per_user is None


def little_users(requests_per_s: float, seconds_per_request: float) -> int:
    """L = ceil(lambda x W), at least one."""
    return max(1, math.ceil(requests_per_s * seconds_per_request))


def queued_ttft_s(ttft_s: float, prefill_s: float, requests_per_s: float, replicas: int) -> float:
    """The first token with the wait behind other prefills: each replica takes requests_per_s/replicas
    arrivals, each holding it for prefill_s (M/D/1 mean wait rho x prefill / (2 (1 - rho)));
    infinity when the prefills alone saturate it."""
    rho = requests_per_s / max(1, replicas) * prefill_s
    if rho >= 1:
        return math.inf
    return ttft_s + rho * prefill_s / (2 * (1 - rho))


def request_seconds(req: PlanRequest) -> float:
    """W: the time-to-first-token target (0 without one), plus the output at the per-user target."""
    assert req.tokens_per_s_per_user is not None  # rate-only requests take each option's own W
    return (req.ttft_s or 0.0) + req.output_tokens / req.tokens_per_s_per_user


def with_concurrency(req: PlanRequest) -> tuple[PlanRequest, str | None]:
    """The request with `users` from its requests per second (unchanged without), and the working."""
    if req.requests_per_s is None:
        return req, None
    if req.tokens_per_s_per_user is None:
        return (
            req,
            "each option's own: users = ceil(requests/s x (first token + output tokens / its decode speed))",
        )
    seconds = request_seconds(req)
    users = max(1, math.ceil(req.requests_per_s * seconds))
    ttft = f"{req.ttft_s:g} s first token + " if req.ttft_s is not None else ""
    working = (
        f"users = ceil({req.requests_per_s:g} requests/s x ({ttft}{req.output_tokens:,} output tokens / "
        f"{req.tokens_per_s_per_user:g} tokens/s per user)) = ceil({req.requests_per_s:g} x "
        f"{seconds:.3g} s) = {users} (Little's law)"
    )
    return req.model_copy(update={"users": users}), working
