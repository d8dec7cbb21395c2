"""Wording a buyer reads: the job's cost chart, machines, the sort order, unknown prices."""

import pytest

from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.wording.plan import cost_curve, job_cost_text, rank_basis
from gpu_advisor.wording.plan_tables import plan_text


def _plan(**kw):
    return plan(PlanRequest(**{"model": get_preset(kw.pop("model")), **kw}))


def test_a_training_job_is_charted_over_its_own_hours_not_months():
    """A 66-hour job's chart spans the job: its rent line ends at the job's rent."""
    result = _plan(model="llama-3-8b", task="finetune", train_tokens=1e9, max_hours=24)
    best = result.best
    curve = cost_curve(result, best)
    assert curve.job and curve.x_label == "hours of the training job"
    assert curve.x[-1] * 3600 == pytest.approx(best.speed.time_to_train_s)
    assert curve.rent[-1] == pytest.approx(best.cost.job_cloud_usd)
    assert rank_basis(result) == "by the rent of the whole job"


def test_serving_is_charted_in_months():
    result = _plan(model="llama-3-8b", users=4)
    curve = cost_curve(result, result.best)
    assert not curve.job and curve.x_label == "months of use" and curve.x[-1] >= 36


def test_a_gpu_without_a_cloud_price_reads_price_unknown_in_the_job_column():
    result = _plan(
        model="llama-3-8b",
        task="qlora",
        gpu="nvidia-rtx-3060-12gb",
        grad_checkpointing=True,
        train_tokens=1e8,
    )
    assert job_cost_text(result.best) == "price unknown"
    text = plan_text(result)
    assert "$0.00" not in text and "price unknown" in text
