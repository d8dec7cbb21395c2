"""Rent or buy across every option, and the training job priced as a job."""

import pytest

from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.estimates import OWNERSHIP_MONTHS
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(user_file=None)


def _plan(catalog, **kw):
    return plan(PlanRequest(**{"model": get_preset(kw.pop("model")), **kw}), catalog)


def test_verdict_compares_the_cheapest_rental_with_the_cheapest_purchase_even_when_they_differ(catalog):
    """Serving Llama 3 70B to 200 users: the cheapest rental and the cheapest purchase are found over
    all options (the cheapest rental has no purchase price), and the break-even is the purchase over
    the monthly saving, not 'n/a'."""
    result = _plan(catalog, model="llama-3-70b", users=200, tokens_per_s_per_user=30)
    v = result.verdict
    usable = [o for o in result.options if o.fits and o.meets_target]
    cheapest_rent = min(o.cost.cloud_usd_per_month for o in usable if o.cost.cloud_usd_per_month)
    cheapest_buy = min(
        o.cost.purchase_usd + OWNERSHIP_MONTHS * o.cost.electricity_usd_per_month
        for o in usable
        if o.cost.purchase_usd
    )
    assert v.rent.cost_usd == pytest.approx(cheapest_rent)
    buy = next(o for o in usable if o.gpu_id == v.buy.gpu_id)
    assert buy.cost.purchase_usd + OWNERSHIP_MONTHS * buy.cost.electricity_usd_per_month == pytest.approx(
        cheapest_buy
    )
    assert v.breakeven_months == pytest.approx(
        buy.cost.purchase_usd / (cheapest_rent - buy.cost.electricity_usd_per_month)
    )
    assert v.choice == ("buy" if v.breakeven_months <= OWNERSHIP_MONTHS else "rent")
    assert v.rent.gpu in v.reason and v.buy.gpu in v.reason and "months" in v.reason


def test_fewer_hours_a_month_favour_renting(catalog):
    """At 730 h/month buying a desktop for QLoRA pays off in months; at 20 h/month it does not."""
    kw = dict(model="llama-3-8b", task="qlora", tier="consumer", purchase="buy")
    busy = _plan(catalog, **kw).verdict
    idle = _plan(catalog, hours_per_month=20, **kw).verdict
    assert busy.choice == "buy"
    assert idle.choice == "rent"


def test_a_one_off_training_job_is_priced_as_the_job_not_months_of_rent(catalog):
    """Fine-tuning Llama 2 7B on 1B tokens: each option carries its job cost (GPU-hours x price), the
    verdict weighs the job's rent against a purchase, and no break-even month is quoted."""
    result = _plan(
        catalog,
        model="llama-2-7b",
        task="finetune",
        grad_checkpointing=True,
        train_tokens=1e9,
        max_hours=48,
    )
    for option in result.options:
        if option.cost.cloud_usd_per_hour is not None and option.speed.gpu_hours is not None:
            per_gpu_hour = option.cost.cloud_usd_per_hour / option.count
            assert option.cost.job_cloud_usd == pytest.approx(option.speed.gpu_hours * per_gpu_hour)
    v = result.verdict
    assert v.basis == "job" and v.breakeven_months is None
    assert v.rent.cost_usd == pytest.approx(result.best.cost.job_cloud_usd)
    assert v.choice == "rent" and "this job" in v.reason
    data = result.to_json_dict()
    assert all("job_cloud_usd" in o for o in data["options"])
    assert data["verdict"]["rent"]["gpu_id"] == v.rent.gpu_id and data["verdict"]["choice"] == "rent"


def test_no_price_anywhere_says_price_unknown_not_zero(catalog):
    """A GPU without any price gets 'price unknown' in the verdict and its cost formula, never $0."""
    result = _plan(catalog, model="llama-3-8b", gpu="nvidia-rtx-4080-super", precision="int4")
    assert result.verdict.choice is None and "price unknown" in result.verdict.reason
    formula = result.best.cost.formula
    assert "$0.00" not in formula and "price unknown" in formula
