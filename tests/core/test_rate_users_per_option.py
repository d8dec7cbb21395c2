"""D23 (ux-review-3): traffic given as requests per second is sized per option by its own Little's
law, W = its predicted first token + output tokens / its own per-user decode speed, not the targets."""

import math

from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest

# J8: Llama 3 70B at 5 requests/s of 1,024 + 256 tokens, 20 tokens/s per user, first token <= 0.5 s.
J8 = {
    "requests_per_s": 5,
    "prompt_tokens": 1024,
    "output_tokens": 256,
    "ttft_s": 0.5,
    "tokens_per_s_per_user": 20,
}
AT_TARGETS = math.ceil(5 * (0.5 + 256 / 20))  # 67: what the targets alone gave every option before


def _own_users(option) -> int:
    speed = option.serving
    return math.ceil(5 * (speed.ttft_s + 256 / speed.tokens_per_s_per_user))


def test_a_faster_option_holds_fewer_users_at_the_same_rate_each_rate_times_its_own_latency():
    result = plan(PlanRequest(model=get_preset("llama-3-70b"), **J8))
    meeting = [o for o in result.options if o.fits and o.meets_target]
    assert len(meeting) >= 2
    for option in meeting:
        # Its own first token (well under the 0.5 s target) and speed (over 20 tokens/s): fewer than 67.
        assert option.users_in_flight == _own_users(option) < AT_TARGETS
        assert "Little's law" in option.note and f"{option.users_in_flight} users in flight" in option.note
    fastest = min(meeting, key=lambda o: o.speed.ttft_s + 256 / o.serving.tokens_per_s_per_user)
    slowest = max(meeting, key=lambda o: o.speed.ttft_s + 256 / o.serving.tokens_per_s_per_user)
    assert fastest.users_in_flight < slowest.users_in_flight
    # The answer's memory is of its own users: the same GPU planned for that many users fits alike.
    best = result.best
    by_users = plan(
        PlanRequest(
            model=get_preset("llama-3-70b"),
            users=best.users_in_flight,
            **{k: v for k, v in J8.items() if k != "requests_per_s"},
            gpu=best.gpu_id,
            gpus=best.count,
        )
    ).best
    assert by_users.per_gpu.total_bytes == best.per_gpu.total_bytes


def test_an_option_whose_decode_cannot_keep_up_with_the_arrivals_misses_the_target_and_says_so():
    """Each added user slows the decode, which keeps requests longer: on a slow card the users never
    settle, and the option says it is saturated rather than claiming a concurrency."""
    result = plan(PlanRequest(model=get_preset("llama-3-70b"), **J8 | {"requests_per_s": 200}))
    saturated = [o for o in result.options if o.fits and o.users_in_flight is None]
    assert saturated and all(not o.meets_target and "saturated" in o.note for o in saturated)
