"""One answer per plan: the recommended option is one side of the rent-or-buy verdict, and the
verdict's break-even is the one between its rental and its purchase (Llama 3 70B for 200 users)."""

import pytest

from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.estimates import OWNERSHIP_MONTHS
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(user_file=None)


def _serve_70b(catalog, **kw):
    req = PlanRequest(model=get_preset("llama-3-70b"), users=200, tokens_per_s_per_user=30, **kw)
    return plan(req, catalog)


def test_renting_the_answer_is_the_verdicts_rental_and_the_purchase_is_another_gpu(catalog):
    """Ranked by rent, the answer is the cheapest rental; it has no purchase price (or a dearer one),
    so the verdict's purchase is a different GPU, and its break-even is that purchase over the rent
    the answer saves, not the purchased GPU's own rent."""
    result = _serve_70b(catalog)
    v, best = result.verdict, result.best
    assert v.rent.gpu_id == best.gpu_id and v.rent.count == best.count
    assert v.buy.gpu_id != best.gpu_id
    bought = next(o for o in result.options if o.gpu_id == v.buy.gpu_id)
    saving = best.cost.cloud_usd_per_month - bought.cost.electricity_usd_per_month
    assert v.breakeven_months == pytest.approx(bought.cost.purchase_usd / saving)
    # The purchase's own break-even (against renting itself) is another number: the verdict's is
    # the one that answers "rent this or buy that".
    assert bought.cost.breakeven_months != pytest.approx(v.breakeven_months)
    assert v.choice == ("buy" if v.breakeven_months <= OWNERSHIP_MONTHS else "rent")


def test_buying_the_answer_is_the_verdicts_purchase(catalog):
    """Ranked by purchase, the answer is the verdict's purchase; the rental it is weighed against is
    the cheapest rental, which may be another GPU."""
    result = _serve_70b(catalog, purchase="buy")
    v, best = result.verdict, result.best
    assert v.buy.gpu_id == best.gpu_id and v.buy.count == best.count
    assert v.buy.gpus_bought == best.gpus_bought >= best.count


def test_a_bought_sxm_option_names_its_baseboard(catalog):
    """SXM/OAM options carry the baseboard a buyer takes (board_gpus in plan --json); cards carry none."""
    result = _serve_70b(catalog, purchase="buy")
    for option in result.options:
        gpu = catalog.get(option.gpu_id)
        if gpu.baseboard_gpus:
            assert option.board_gpus in gpu.baseboard_gpus
            assert option.gpus_bought == option.machines * option.board_gpus
        else:
            assert option.board_gpus is None
    assert all("board_gpus" in o for o in result.to_json_dict()["options"])


def test_the_engine_reserve_is_its_own_part_and_the_unsharded_footprint_agrees(catalog):
    """Llama 3 8B for 32 users on one RTX 4090 (vLLM): the option's overhead splits into non-PyTorch
    memory, fragmentation and the 10 % vLLM leaves unused; without that reserve the option's memory is
    the plan's unsharded footprint, so the two tables differ by a named part only."""
    req = PlanRequest(
        model=get_preset("llama-3-8b"), users=32, tokens_per_s_per_user=20, gpu="nvidia-rtx-4090", gpus=1
    )
    result = plan(req, catalog)
    best = result.best
    parts = best.per_gpu.overhead_parts
    assert sum(parts.values()) == best.per_gpu_components.overhead
    assert parts["engine_reserve_bytes"] > 0.05 * best.gpu_memory_bytes  # about 10 % of the card
    assert parts["non_pytorch_bytes"] > 0
    assert best.per_gpu_bytes - parts["engine_reserve_bytes"] == result.memory.total_bytes
    option_json = next(o for o in result.to_json_dict()["options"] if o["gpu_id"] == best.gpu_id)
    assert option_json["overhead_parts"] == parts and "overhead" in option_json["per_gpu_components"]
