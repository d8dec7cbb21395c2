"""D19 (ux-review-3): when nothing meets a speed target, the plan says how close the catalogue comes
and suggests what changes speed, not memory cuts; the numbers read as numbers ('1,000,000', not
'1e+06'); when activations are what does not fit, a smaller micro-batch comes first."""

from __future__ import annotations

from gpu_advisor.core.presets import resolve_model
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest

LLAMA_8B = resolve_model(preset="llama-3-8b", config=None, params=None)


def test_an_unreachable_speed_target_names_the_fastest_option_and_no_memory_cut():
    result = plan(PlanRequest(model=LLAMA_8B, users=1, tokens_per_s_per_user=1e6))
    assert result.best is None and any(o.fits for o in result.options)
    reason = result.recommendation.reason
    assert "1,000,000 tokens/s per user" in reason and "e+06" not in reason
    fastest = max((o for o in result.options if o.fits), key=lambda o: o.serving.tokens_per_s_per_user)
    first = result.suggestions[0]
    assert fastest.gpu in first and "Lower the speed target" in first
    assert not any("cut weight memory" in s for s in result.suggestions)
    assert not any("fewer concurrent users" in s for s in result.suggestions)  # there is one user


def test_a_micro_batch_too_large_for_memory_suggests_a_smaller_micro_batch_first():
    request = PlanRequest(model=LLAMA_8B, task="pretrain", batch_size=1_000_000, seq_len=2048)
    result = plan(request)
    assert result.best is None and not any(o.fits for o in result.options)
    assert result.suggestions[0].startswith("Lower the micro-batch")
