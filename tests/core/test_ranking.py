"""Rank by quality, then price (issue 21 item 4): a missing price breaks ties, it never picks a far worse
option (core/ranking.py). Quality is fitting, meeting the target and a sound utilisation; within that,
an unpriced option goes ahead of a priced one of its tier that needs more machines for no more work."""

from __future__ import annotations

import pytest

from gpu_advisor.core.architecture import approximate_hf_config
from gpu_advisor.core.catalog import Catalog, default_catalog
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.ranking import beats_outright, low_utilisation, rank_options
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.tiers import tier_choices
from gpu_advisor.wording.plan import rank_basis, rent_text
from tests.hub_configs import FALCON_7B

# The Falcon-7B LoRA of ux-review-3 D5: sequence 2048, micro-batch 4, checkpointing.
FALCON_LORA = dict(task="lora", seq_len=2048, batch_size=4, grad_checkpointing=True)


def _priced(catalog: Catalog, field: str, usd: dict[str, float | None]) -> Catalog:
    """The catalogue with other prices in `field` ("purchase_usd" or "cloud_usd_per_hour"): None as when
    no source gives one, a figure for a ranking that must hold whatever the price is."""
    date_field = "purchase_price_date" if field == "purchase_usd" else "cloud_price_date"

    def changed(gpu):
        price = usd[gpu.id]
        return gpu.model_copy(update={field: price, date_field: None if price is None else "2026-01"})

    return catalog.model_copy(update={"gpus": tuple(changed(g) if g.id in usd else g for g in catalog.gpus)})


def _falcon(catalog: Catalog, **fields):
    model = approximate_hf_config(FALCON_7B, "tiiuae/falcon-7b")
    return plan(PlanRequest.model_validate({"model": model, **FALCON_LORA, **fields}), catalog)


@pytest.fixture(scope="module")
def unrented_5090():
    """As the review saw it: no cloud price for the RTX 5090."""
    return _priced(default_catalog(), "cloud_usd_per_hour", {"nvidia-rtx-5090": None})


@pytest.mark.parametrize("usd_per_hour", [0.05, 2.96, 50.0])
def test_two_5090s_in_one_desktop_beat_four_4090s_across_two_desktops_at_4_percent_mfu_at_any_price(
    unrented_5090, usd_per_hour
):
    """The review's pair: 4 x RTX 4090 in two desktops joined by Ethernet (MFU about 4 %, $2.96/h then)
    against 2 x RTX 5090 in one desktop with no cloud price. The 5090s do six times the work on fewer
    GPUs in one box, so whatever the 4090s rent for, they are not ranked first."""
    fours = _falcon(unrented_5090, purchase="rent", gpu="nvidia-rtx-4090", gpus=4).options[0]
    twos = _falcon(unrented_5090, purchase="rent", gpu="nvidia-rtx-5090", gpus=2).options[0]
    assert fours.machines == 2 and twos.machines == 1 and twos.rank_usd is None
    assert fours.training.mfu < 0.10 < twos.training.mfu
    rented_fours = fours.model_copy(update={"rank_usd": usd_per_hour})
    assert low_utilisation(rented_fours) and beats_outright(twos, rented_fours)
    assert [o.gpu_id for o in rank_options([rented_fours, twos])] == ["nvidia-rtx-5090", "nvidia-rtx-4090"]


def _finetune_70b(catalog: Catalog):
    """Llama 3 70B full fine-tune, rented, in the data-center tier."""
    request = PlanRequest.model_validate(
        {"model": get_preset("llama-3-70b"), "task": "finetune", "tier": "datacenter", "purchase": "rent"}
    )
    return plan(request, catalog)


def test_an_unpriced_b300_server_ranks_ahead_of_priced_a100s_in_two_servers_but_not_of_priced_mi325xs():
    """No cloud price for the B300: 4 x B300 in one server do more tokens/s than 16 x A100 in two, so
    they rank ahead of the A100s; the MI325X and MI300X rentals, one server each, keep their lead, since
    a faster card alone says nothing about its price."""
    result = _finetune_70b(default_catalog())
    order = [o.gpu_id for o in result.options]
    b300 = result.options[order.index("nvidia-b300")]
    a100 = result.options[order.index("nvidia-a100-sxm-80gb")]
    assert b300.rank_usd is None and a100.rank_usd is not None
    assert (b300.machines, a100.machines) == (1, 2) and b300.speed.tokens_per_s > a100.speed.tokens_per_s
    assert (
        order.index("amd-instinct-mi325x") < order.index("nvidia-b300") < order.index("nvidia-a100-sxm-80gb")
    )


@pytest.mark.parametrize("usd_per_hour", [0.01, 1.0])
def test_without_the_mi300_prices_the_b300_server_is_the_answer_while_the_a100s_train_cheapest_per_token(
    usd_per_hour,
):
    """With no cloud price for the MI325X and MI300X either, and 16 A100s renting for less per token/s
    than any other priced option (1 cent or $1 an hour each), the B300 server is the answer: it is
    shown as price unknown, and the warning names the priced option it was ranked ahead of (16 A100s
    in two servers) and why."""
    catalog = _priced(
        default_catalog(),
        "cloud_usd_per_hour",
        {"amd-instinct-mi325x": None, "amd-instinct-mi300x": None, "nvidia-a100-sxm-80gb": usd_per_hour},
    )
    result = _finetune_70b(catalog)
    best = result.options[0]
    assert best.gpu_id == "nvidia-b300" and best.rank_usd is None and best.machines == 1
    assert "price unknown" in rent_text(best.cost)
    datacenter = next(c for c in tier_choices(result.request, result.options, catalog) if c.tier is best.tier)
    assert datacenter.gpu_id == "nvidia-b300"
    warning = next(w for w in result.warnings if "No cloud price for" in w)
    first_priced = next(o for o in result.options if o.fits and o.meets_target and o.rank_usd is not None)
    assert first_priced.machines == 2 and "A100" in first_priced.gpu  # the SXM or, dearer, the PCIe card
    assert "NVIDIA B300 (HGX B300, SXM) (price unknown)" in warning and f"16 × {first_priced.gpu}" in warning
    assert "need more machines for no more throughput" in warning


def test_an_unpriced_option_that_is_slower_on_as_many_gpus_stays_behind_the_priced_one(unrented_5090):
    """Renting, 2 x RTX 3090 has no cloud price and is slower than 2 x RTX 4090 in the same one desktop:
    price unknown is then no reason to promote it, and it follows the priced option."""
    result = _falcon(unrented_5090, purchase="rent", tier="consumer")
    order = [o.gpu_id for o in result.options]
    assert order.index("nvidia-rtx-4090") < order.index("nvidia-rtx-3090")
    ampere = result.options[order.index("nvidia-rtx-3090")]
    assert ampere.rank_usd is None
    assert not beats_outright(ampere, result.options[order.index("nvidia-rtx-4090")])


def test_a_faster_unpriced_card_in_as_many_machines_does_not_jump_a_priced_one_because_speed_is_not_price(
    unrented_5090,
):
    """One RTX 5090 against 2 x RTX 4090, both one desktop: the 5090 needs fewer GPUs but does less work,
    and a faster or scarcer card says nothing about its price, so the priced 4090s stay first. The same
    rule keeps a priced MI325X rental ahead of an unpriced B300 (tests/core/test_one_answer.py)."""
    result = _falcon(unrented_5090, purchase="rent")
    first_priced = next(o for o in result.options if o.fits and o.meets_target and o.rank_usd is not None)
    ahead = result.options[: result.options.index(first_priced)]
    assert all(o.rank_usd is None and beats_outright(o, first_priced) for o in ahead)
    consumer = [o for o in result.options if o.tier.value == "consumer"]
    assert [o.gpu_id for o in consumer[:2]] == ["nvidia-rtx-4090", "nvidia-rtx-5090"]


def test_a_rented_fine_tune_without_a_budget_is_ranked_by_rent_per_token_so_fast_servers_beat_cheap_hours():
    """Llama 3 70B fine-tune rented with no token budget: 16 A100s at their catalogue $1.59 an hour
    each cost less per hour than 8 B200s, but train a third of the tokens, so the B200 server, which
    trains a token for less, ranks ahead of them and the wording says the rent is per token/s."""
    catalog = _priced(default_catalog(), "cloud_usd_per_hour", {"nvidia-a100-sxm-80gb": 25.44 / 16})
    result = _finetune_70b(catalog)
    order = [o.gpu_id for o in result.options]
    b200 = result.options[order.index("nvidia-b200")]
    a100 = result.options[order.index("nvidia-a100-sxm-80gb")]
    assert a100.rank_usd < b200.rank_usd
    assert b200.rank_usd / b200.speed.tokens_per_s < a100.rank_usd / a100.speed.tokens_per_s
    assert order.index("nvidia-b200") < order.index("nvidia-a100-sxm-80gb")
    assert rank_basis(result) == "by rent per hour, per token/s trained"
