"""One answer per screen: the headline, the verdict, the cost chart and page 1 name the same pair
(Llama 3 70B for 200 users at 30 tokens/s each; a requests/s plan with Buy)."""

import pytest

from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.wording.answer import answer_pair
from gpu_advisor.wording.plan import build_summary, cost_chart_message, cost_curve, headline, machine_text
from gpu_advisor.wording.tiers import tier_columns


@pytest.fixture(scope="module")
def rent_70b():
    return plan(PlanRequest(model=get_preset("llama-3-70b"), users=200, tokens_per_s_per_user=30))


@pytest.fixture(scope="module")
def buy_by_rate():
    req = PlanRequest(
        model=get_preset("llama-3-70b"),
        requests_per_s=5,
        prompt_tokens=1024,
        output_tokens=256,
        ttft_s=0.5,
        purchase="buy",
    )
    return plan(req)


def test_the_headline_names_the_rental_and_the_purchase_when_they_differ(rent_70b):
    """The cheapest rental (2 × MI300X) has no purchase price, so the verdict buys another GPU: the
    headline says both, with the verdict's break-even against the 36-month life."""
    v, best = rent_70b.verdict, rent_70b.best
    text = headline(rent_70b)
    assert text.startswith(f"Rent: {best.count} × {best.gpu}; to buy: {v.buy.count} × {v.buy.gpu}")
    assert f"{v.breakeven_months:,.1f}" in text and "36" in text
    assert build_summary(rent_70b).headline == text


def test_the_cost_chart_plots_the_verdicts_pair_and_its_break_even(rent_70b):
    v = rent_70b.verdict
    pair = answer_pair(rent_70b)
    curve = cost_curve(rent_70b)
    assert curve.rent_what == f"{v.rent.count} × {v.rent.gpu}" and curve.buy_what.startswith(
        f"{v.buy.count} × {v.buy.gpu}"
    )
    assert curve.rent[12] == pytest.approx(pair.rent.cost.cloud_usd_per_month * 12)
    assert curve.buy[0] == pytest.approx(pair.buy.cost.purchase_usd)
    assert curve.breakeven_months == pytest.approx(v.breakeven_months)
    assert curve.x[-1] >= v.breakeven_months  # the crossing is on the chart


def test_with_buy_the_chart_never_contradicts_a_rent_verdict(buy_by_rate):
    """Buying the answer (ranked by purchase) breaks even against its own rent within months, but the
    verdict weighs it against the cheapest rental, another GPU: the chart says the verdict's months."""
    v, best = buy_by_rate.verdict, buy_by_rate.best
    assert v.buy.gpu_id == best.gpu_id and v.rent.gpu_id != best.gpu_id
    own = best.cost.breakeven_months
    message = cost_chart_message(buy_by_rate, cost_curve(buy_by_rate))
    assert f"{v.breakeven_months:,.1f} months" in message
    assert f"{own:,.1f} months" not in message
    if v.choice == "rent":
        assert "only after" in message and "past the 36-month life" in message
    assert headline(buy_by_rate).startswith(f"Buy: {best.count} × {best.gpu}")


def test_a_rented_answer_is_a_cloud_instance_not_the_bought_baseboard(rent_70b):
    """Renting 2 × MI300X rents two GPUs, not an 8-GPU OAM server, and its power is in the rent."""
    best = rent_70b.best
    assert machine_text(best, renting=True) == f"a cloud instance with {best.count} GPUs"
    column = next(c for c in tier_columns(rent_70b) if c.recommended)
    rows = dict(column.rows)
    assert rows["Machines"] == f"a cloud instance with {best.count} GPUs"
    assert rows["Power at the wall"] == "paid in the rent"
