"""D25 (ux-review-3): the cost formula says 'price unknown' once instead of multiplying it
('rent = 2 x price unknown/GPU-h x 730 h/month'), and a one-off training job's rent is worded as the
job's GPU-hours, not a month's."""

from __future__ import annotations

from gpu_advisor.core.presets import resolve_model
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest

LLAMA_8B = resolve_model(preset="llama-3-8b", config=None, params=None)


def test_an_unknown_price_is_not_multiplied_in_the_formula():
    result = plan(PlanRequest(model=LLAMA_8B, users=4, tokens_per_s_per_user=20))
    formulas = [o.cost.formula for o in result.options]
    assert any("price unknown" in f for f in formulas)
    assert not any("x price unknown" in f for f in formulas), [f for f in formulas if "x price unknown" in f][
        :1
    ]


def test_a_training_jobs_rent_formula_counts_the_jobs_gpu_hours():
    result = plan(PlanRequest(model=LLAMA_8B, task="finetune", train_tokens=2e9, max_hours=48))
    best = result.best
    assert best is not None and best.cost.job_cloud_usd is not None
    formula = best.cost.formula
    assert "GPU-hours of the job" in formula and "h/month" not in formula.split(";")[0]
