"""Serving traffic given as requests per second: Little's law turns it into concurrent users.

L = lambda x W: with lambda requests per second, each request in the system for W seconds (its first
token, then its output tokens at the per-user speed target), L requests are in flight at once. The
planner sizes the KV cache and the decode batch for L users.
"""

from __future__ import annotations

import math

from .request import PlanRequest


def request_seconds(req: PlanRequest) -> float:
    """W: the time-to-first-token target (0 without one), plus the output at the per-user target."""
    assert req.tokens_per_s_per_user is not None  # the request's validator insists on it
    return (req.ttft_s or 0.0) + req.output_tokens / req.tokens_per_s_per_user


def with_concurrency(req: PlanRequest) -> tuple[PlanRequest, str | None]:
    """The request with `users` from its requests per second (unchanged without), and the working."""
    if req.requests_per_s is None:
        return req, None
    seconds = request_seconds(req)
    users = max(1, math.ceil(req.requests_per_s * seconds))
    ttft = f"{req.ttft_s:g} s first token + " if req.ttft_s is not None else ""
    working = (
        f"users = ceil({req.requests_per_s:g} requests/s x ({ttft}{req.output_tokens:,} output tokens / "
        f"{req.tokens_per_s_per_user:g} tokens/s per user)) = ceil({req.requests_per_s:g} x "
        f"{seconds:.3g} s) = {users} (Little's law)"
    )
    return req.model_copy(update={"users": users}), working
