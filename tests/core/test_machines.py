"""Options are machines x GPUs per machine, priced and powered as the machines they need."""

import pytest

from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.hosts import hosts
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import Assumptions, PlanRequest


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(user_file=None)


def _plan(catalog, **kw):
    return plan(PlanRequest(**{"model": get_preset(kw.pop("model")), **kw}), catalog)


def _option(result, gpu_id):
    return next(o for o in result.options if o.gpu_id == gpu_id)


def test_70b_for_200_users_is_not_sixteen_geforce_cards_with_tp8_because_desktops_hold_two(catalog):
    """llama-3-70b, 200 users at 30 tokens/s, buying: tensor parallelism over PCIe across eight desktops
    is no answer. A desktop holds two cards, the consumer tier joins at most four desktops, and tensor
    parallelism stays inside one machine, so no consumer option is wider than TP 2 or 8 cards, and the
    answer is a data-center server."""
    result = _plan(catalog, model="llama-3-70b", users=200, tokens_per_s_per_user=30, purchase="buy")
    assert result.recommendation.tier == "datacenter"
    best = result.best
    # One server. SXM parts are bought on 4- or 8-GPU baseboards, so 2 x H200 (131 GiB of weights and
    # 47 GiB of KV cache in 2 x 141 GB) is bought as 4 x $32,000 and loses to a full 4 x H100 board.
    assert best.machines == 1 and best.layout.pipeline == 1
    assert best.gpus_bought in (4, 8) and best.cost.purchase_usd is not None
    h200 = _option(result, "nvidia-h200-sxm")
    assert (h200.count, h200.gpus_bought, h200.layout.tensor) == (2, 4, 2)
    for option in result.options:
        assert option.layout.tensor <= option.gpus_per_machine
        assert option.machines * option.gpus_per_machine >= option.count
        if option.tier == "consumer":
            assert option.gpus_per_machine <= 2 and option.machines <= 4 and option.count <= 8
        if option.tier == "workstation":
            assert option.gpus_per_machine <= 4
    assert not any(o.tier == "consumer" and o.fits and o.meets_target for o in result.options)


def test_qlora_8b_on_a_desktop_suggests_the_one_card_that_checkpointing_allows(catalog):
    """QLoRA on Llama 3 8B on RTX 3060s bought for a desktop, checkpointing locked off: the activations
    need two 12 GB cards (tensor parallel 2 in one desktop); with gradient checkpointing one card fits,
    and the plan says so. Left open, the planner turns checkpointing on itself and names that choice."""
    kw = dict(model="llama-3-8b", task="qlora", purchase="buy", gpu="nvidia-rtx-3060-12gb")
    result = _plan(catalog, grad_checkpointing=False, **kw)
    best = result.best
    assert best.machines == 1 and best.count == 2 and best.layout.tensor == 2
    hint = next(s for s in result.suggestions if "gradient checkpointing" in s)
    assert f"1 × {best.gpu} instead of 2" in hint
    with_checkpointing = _plan(catalog, grad_checkpointing=True, **kw)
    assert with_checkpointing.best.count == 1 and with_checkpointing.best.gpu_id == best.gpu_id
    open_recipe = _plan(catalog, **kw)
    assert open_recipe.best.count == 1 and open_recipe.best.recipe["grad_checkpointing"] is True
    assert open_recipe.best.recipe_source["grad_checkpointing"] == "planner"
    assert open_recipe.recommendation.reason.startswith("With gradient checkpointing")


def test_a_329_dollar_card_costs_329_plus_a_desktop_named_in_the_formula_not_a_hidden_50_percent(catalog):
    """The RTX 3060's $329 is priced as $329 plus one desktop host (resources/hosts.json) sized to one of
    its two card slots; the formula names both, and owning the machine leaves the card's price alone."""
    full = hosts()["consumer"]
    desktop = full.base_price_usd + (full.price_usd - full.base_price_usd) / 2  # one card of two
    kw = dict(
        model="llama-3-8b", task="inference", gpu="nvidia-rtx-3060-12gb", precision="int4", purchase="buy"
    )
    option = _plan(catalog, **kw).best
    assert option.count == 1 and option.machines == 1
    assert option.cost.purchase_usd == pytest.approx(329 + desktop)
    assert "1 x $329" in option.cost.formula and "desktop" in option.cost.formula
    owned = _plan(catalog, own_machines=True, **kw).best
    assert owned.cost.purchase_usd == pytest.approx(329)
    assert "machines already owned" in owned.cost.formula


def test_each_8_gpu_server_is_priced_once_and_a_user_figure_replaces_the_table(catalog):
    """16 H100 SXM are two 8-GPU servers: 16 cards plus two hosts; a host price typed by the user
    replaces the table's for every machine."""
    kw = dict(model="llama-3-70b", task="inference", gpu="nvidia-h100-sxm", gpus=16, purchase="buy")
    option = _plan(catalog, **kw).best
    assert (option.machines, option.gpus_per_machine) == (2, 8)
    server = hosts()["datacenter-sxm"].price_usd
    assert option.cost.purchase_usd == pytest.approx(16 * 30_000 + 2 * server)
    cheap = _plan(catalog, assumptions=Assumptions(host_usd_per_machine=1000), **kw).best
    assert cheap.cost.purchase_usd == pytest.approx(16 * 30_000 + 2 * 1000)


def test_host_power_is_counted_per_machine(catalog):
    """Two desktops draw two hosts' power besides their cards (no data-centre PUE under a desk)."""
    kw = dict(model="llama-3-8b", task="inference", gpu="nvidia-rtx-4090", purchase="buy")
    one = _plan(catalog, **kw).best
    four = _plan(catalog, gpus=4, **kw).best
    assert four.machines == 2
    desktop = hosts()["consumer"]
    host_w = desktop.power_w
    expected = (4 * 450 * 0.7 + 2 * host_w) / 1000
    assert four.cost.power_kw == pytest.approx(expected)
    one_card_w = desktop.base_power_w + (host_w - desktop.base_power_w) / 2  # a desktop with one of two cards
    assert one.cost.power_kw == pytest.approx((450 * 0.7 + one_card_w) / 1000)


def test_two_sxm_gpus_are_bought_on_a_4_gpu_baseboard_not_a_full_8_gpu_server(catalog):
    """2 x H200 for 200 users: SXM parts are sold on 4- or 8-GPU HGX baseboards, so buying them takes a
    4-GPU board and the host of a 4-GPU server (half the 8-GPU host's scalable part), never the full
    8-GPU server; only the two GPUs used draw power (the spare two are noted, not powered)."""
    kw = dict(model="llama-3-70b", task="inference", users=200, tokens_per_s_per_user=30, purchase="buy")
    best = _plan(catalog, gpu="nvidia-h200-sxm", **kw).best
    server = hosts()["datacenter-sxm"]
    assert (best.machines, best.gpus_per_machine, best.gpus_bought) == (1, 2, 4)
    host_usd = best.cost.purchase_usd - 4 * catalog.get("nvidia-h200-sxm").purchase_usd
    assert host_usd == pytest.approx(server.base_price_usd + (server.price_usd - server.base_price_usd) / 2)
    assert host_usd < server.price_usd
    gpus_kw = 2 * 700 * 0.7 * 1.3 / 1000
    host_kw = (server.base_power_w + (server.power_w - server.base_power_w) / 2) * 1.3 / 1000
    assert best.cost.power_kw == pytest.approx(gpus_kw + host_kw)
    assert "sized to 4 of 8 GPUs" in best.cost.formula and "2 spare" in best.cost.formula
    full = _plan(catalog, gpu="nvidia-h200-sxm", gpus=8, **kw).best  # a full server keeps the table's host
    assert full.cost.purchase_usd == pytest.approx(
        8 * catalog.get("nvidia-h200-sxm").purchase_usd + server.price_usd
    )


def test_geforce_cards_in_several_machines_carry_a_warning(catalog):
    """Four RTX 4090 desktops are a cluster of GeForce cards: the option says that is outside the
    deployment the cards are sold for."""
    result = _plan(catalog, model="llama-3-8b", task="inference", gpu="nvidia-rtx-4090", gpus=8)
    assert result.best.machines == 4
    assert "GeForce" in result.best.note
    assert any("GeForce driver licence" in w for w in result.warnings)


def test_a_count_beyond_the_tier_is_not_offered(catalog):
    """Sixteen RTX 4090s would be eight desktops, more than the consumer tier joins: not offered."""
    result = _plan(catalog, model="llama-3-8b", task="inference", gpu="nvidia-rtx-4090", gpus=16)
    assert result.best is None and not result.options
    assert any("not offered" in w for w in result.warnings)


def test_json_has_machines_and_gpus_per_machine_on_every_option(catalog):
    result = _plan(catalog, model="llama-3-70b", task="inference", users=8)
    options = result.to_json_dict()["options"]
    assert options and all(o["machines"] * o["gpus_per_machine"] >= o["count"] for o in options)
    assert all(isinstance(o["machines"], int) and isinstance(o["gpus_per_machine"], int) for o in options)


def test_every_host_figure_has_a_source_and_a_date():
    for kind, host in hosts().items():
        assert host.source and host.date[:4].isdigit(), kind
