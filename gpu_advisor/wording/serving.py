"""Serving traffic given as requests per second, worded: the users Little's law gives (the Traffic
page's users field and its note, the Assumptions tab)."""

from __future__ import annotations

from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.serving import request_seconds, with_concurrency


def derived_users(request: PlanRequest) -> int | None:
    """The users a requests-per-second request is sized for; None without requests per second, or
    where each option's own speed sets them (no per-user target)."""
    if request.requests_per_s is None or request.tokens_per_s_per_user is None:
        return None
    return with_concurrency(request)[0].users


def derived_users_text(request: PlanRequest) -> str:
    """'67 users in flight: 5 requests/s × 13.3 s per request (Little's law)'; '' without requests/s."""
    rate = request.requests_per_s
    if rate is None:
        return ""
    users = derived_users(request)
    if users is None:
        return f"{rate:g} requests/s: each GPU's users follow from its own speed (Little's law)"
    return f"{users:,} users in flight: {rate:g} requests/s × {request_seconds(request):.3g} s per request (Little's law)"
