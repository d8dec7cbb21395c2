"""Serving targets: requests per second through Little's law, and a time-to-first-token target."""

import math

import pytest

from gpu_advisor.cli import run_cli
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest


def _plan(**kw):
    return plan(PlanRequest(**{"model": get_preset(kw.pop("model")), **kw}))


def test_requests_per_second_become_concurrent_users_by_littles_law():
    """5 requests/s with a 30 tokens/s and 0.5 s target: the answer holds 5 x its own time per request
    (its first token + 256 tokens at its speed), and its KV cache is sized as if that many users had
    been asked for (tests/core/test_rate_users_per_option.py pins the per-option sizing)."""
    by_rate = _plan(model="llama-3-70b", requests_per_s=5, tokens_per_s_per_user=30, ttft_s=0.5)
    best = by_rate.best
    users = math.ceil(5 * (best.speed.ttft_s + 256 / best.serving.tokens_per_s_per_user))
    assert best.users_in_flight == users < math.ceil(5 * (0.5 + 256 / 30))
    by_users = _plan(
        model="llama-3-70b",
        users=users,
        tokens_per_s_per_user=30,
        ttft_s=0.5,
        gpu=best.gpu_id,
        gpus=best.count,
    )
    assert by_users.best.per_gpu.total_bytes == best.per_gpu.total_bytes
    assert "Little's law" in by_rate.assumptions["concurrent_users_from_requests_per_s"]


def test_every_inference_option_reports_its_time_to_first_token_and_a_tight_target_needs_more():
    """The first token is the prompt's prefill plus one decode step; a 20 ms target on an 8k-token
    prompt is out of reach for a single card, so the answer is faster or wider hardware."""
    loose = _plan(model="llama-3-8b", users=8, prompt_tokens=8192)
    for option in loose.to_json_dict()["options"]:
        assert option["ttft_s"] == pytest.approx(option["prefill_s"] + 1 / option["tokens_per_s_per_user"])
    tight = _plan(model="llama-3-8b", users=8, prompt_tokens=8192, ttft_s=0.2)
    assert tight.best is not None and tight.best.speed.ttft_s <= 0.2
    assert all(o.speed.ttft_s <= 0.2 for o in tight.options if o.meets_target)
    assert loose.best.speed.ttft_s > 0.2  # the target changed the answer


def test_requests_per_second_without_a_speed_target_plans_by_arrival_rate(capsys):
    """Teams size by arrival rate and latency (issue 21): no tokens/s target is required; each
    option's concurrency follows from its own decode speed (tests/core/test_deployable.py)."""
    assert run_cli(["plan", "--model", "llama-3-8b", "--requests-per-s", "2"]) == 0
    assert capsys.readouterr().out.startswith("Llama 3 8B inference")


def test_zero_users_reads_at_least_one_user(capsys):
    assert run_cli(["plan", "--model", "llama-3-8b", "--users", "0"]) == 2
    assert capsys.readouterr().err.strip().endswith("--users: at least 1 user")
