"""Serving traffic given as requests per second: Little's law turns it into concurrent users.

L = lambda x W: with lambda requests per second, each request holding the GPU for W seconds, L
requests are in flight at once. The planner sizes the KV cache and the decode batch for L users.

W is each option's own: its first token plus its output tokens at the decode speed it reaches with L
users in flight (a fixed point in core/recommend.py: more users slow the decode, which lengthens W).
A faster option therefore holds fewer users at the same rate. The first token also waits behind the
other arrivals' prefills (`queued_ttft_s`, M/D/1); a request waiting for its prefill holds no KV
cache and no decode slot, so that wait counts against the first-token target, not in L.

With targets (a first token and a per-user speed), `users_at_targets` is the most users an option
meeting them can hold: the memory side-by-side by precision is sized there.
"""

from __future__ import annotations

import math

from .request import PlanRequest


def by_rate(req: PlanRequest) -> bool:
    """Traffic given as requests per second: each option's own speed sets W and the users."""
    return req.requests_per_s is not None


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


def option_seconds(ttft_s: float, output_tokens: int, tokens_per_s_per_user: float) -> float:
    """W of one option: its own first token, then the output at its own per-user decode speed."""
    return ttft_s + output_tokens / tokens_per_s_per_user


RATE_WORKING = (
    "each option's own (Little's law): users = ceil(requests/s x (its first token + output tokens / "
    "its decode speed per user at those users)), a fixed point; the first token also waits behind the "
    "other arrivals' prefills (M/D/1, rho x prefill / (2 (1 - rho)) with rho = requests/s per replica x "
    "prefill), which counts against the first-token target and not in the users"
)


def target_seconds(req: PlanRequest) -> float:
    """W at the targets: the time-to-first-token target (0 without one), plus the output at the
    per-user target; an option meeting both holds a request at most this long."""
    assert req.tokens_per_s_per_user is not None
    return (req.ttft_s or 0.0) + req.output_tokens / req.tokens_per_s_per_user


def users_at_targets(req: PlanRequest) -> int | None:
    """The most users an option meeting the targets holds (rate x W at the targets); None without
    requests per second or without a per-user speed target."""
    if req.requests_per_s is None or req.tokens_per_s_per_user is None:
        return None
    return little_users(req.requests_per_s, target_seconds(req))


def sized_at_targets(req: PlanRequest) -> PlanRequest:
    """The request with `users` at the most the targets allow (unchanged where there is no bound)."""
    users = users_at_targets(req)
    return req if users is None else req.model_copy(update={"users": users})
