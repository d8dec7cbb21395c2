"""A current, priced catalogue (issue 21, item 3): the parts a buyer compares in 2026, each price with
its source and the date it was seen, and parts no longer sold kept out of Buy answers unless asked."""

from __future__ import annotations

import json
import re

import pytest

from gpu_advisor.core.catalog import PRICE_DATE, default_catalog
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest

NEW_PARTS = {
    # id: (memory GB, tier, what the part is)
    "nvidia-rtx-pro-6000-blackwell": (96.0, "workstation", "the 96 GB Blackwell workstation card"),
    "nvidia-rtx-5080": (16.0, "consumer", "GeForce Blackwell"),
    "nvidia-rtx-5070-ti": (16.0, "consumer", "GeForce Blackwell"),
    "nvidia-h200-nvl": (141.0, "datacenter", "the H200 as a PCIe card"),
    "nvidia-b300": (288.0, "datacenter", "Blackwell Ultra on an HGX B300 board"),
    "amd-instinct-mi325x": (256.0, "datacenter", "CDNA 3 with HBM3e"),
    "amd-instinct-mi355x": (288.0, "datacenter", "CDNA 4"),
    "nvidia-dgx-spark": (128.0, "workstation", "a GB10 box with 128 GB unified memory"),
}
OLD_PARTS_KEPT = (
    "nvidia-v100-sxm2-32gb",
    "nvidia-t4",
    "nvidia-rtx-3090",
    "amd-instinct-mi250x",
    "nvidia-a10g",
)


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def _plan(catalog, **fields):
    fields["model"] = get_preset(fields["model"])
    return plan(PlanRequest.model_validate(fields), catalog)


def _keys(text: str) -> list[str]:
    """'[P1][S21]' and '[S27-pcpartdb]' -> ['P1', 'S21', 'S27']: the source keys a figure cites."""
    return [k.split("-")[0] for k in re.findall(r"\[([A-Za-z0-9/.-]+)\]", text)]


@pytest.mark.parametrize("gpu_id", sorted(NEW_PARTS))
def test_the_parts_a_buyer_compares_in_2026_are_in_the_catalogue_with_their_memory(catalog, gpu_id):
    memory_gb, tier, _ = NEW_PARTS[gpu_id]
    gpu = catalog.get(gpu_id)
    assert (gpu.memory_gb, gpu.tier.value) == (memory_gb, tier)
    assert gpu.sources and all(k in catalog.source_keys for k in _keys(gpu.sources)), gpu.sources


def test_the_older_parts_a_team_may_own_or_rent_are_kept(catalog):
    assert all(catalog.find(gpu_id) is not None for gpu_id in OLD_PARTS_KEPT)


def test_every_part_on_sale_has_a_dated_sourced_purchase_price_or_says_why_not(catalog):
    """A price without a date or a source cannot be checked; a missing price must say why."""
    for gpu in catalog.gpus:
        if gpu.purchase_usd is not None:
            assert re.fullmatch(PRICE_DATE, gpu.purchase_price_date or ""), gpu.id
            keys = _keys(gpu.purchase_source)
            assert keys and all(k in catalog.source_keys for k in keys), (gpu.id, gpu.purchase_source)
        elif gpu.on_sale:
            assert gpu.price_note.startswith("purchase: "), gpu.id


def test_every_cloud_price_has_the_date_and_provider_it_was_read_from(catalog):
    for gpu in catalog.gpus:
        if gpu.cloud_usd_per_hour is None:
            assert "cloud: " in gpu.price_note, gpu.id
            continue
        assert re.fullmatch(PRICE_DATE, gpu.cloud_price_date or ""), gpu.id
        keys = _keys(gpu.cloud_source)
        assert keys and all(k in catalog.source_keys for k in keys), (gpu.id, gpu.cloud_source)


def test_the_previously_unpriced_parts_now_carry_a_price_where_one_was_found(catalog):
    """B200, L4 and MI300X had no purchase price (issue 21): verdicts skipped them."""
    for gpu_id in ("nvidia-b200", "nvidia-l4", "amd-instinct-mi300x"):
        assert catalog.get(gpu_id).purchase_usd is not None, gpu_id


@pytest.mark.parametrize(
    ("gpu_id", "usd", "date", "key"),
    [
        ("nvidia-rtx-4000-ada", 1250.0, "2023-08", "[P7]"),  # launch price, PC Gamer
        ("amd-radeon-pro-w7900", 4000.0, "2026-12-02", "[S21]"),  # its HF hardware page's MSRP
    ],
)
def test_workstation_cards_priced_since_issue_21_carry_the_source_and_date(gpu_id, usd, date, key):
    """A workstation Buy answer can now price these cards; each price says where and when it was seen."""
    gpu = default_catalog().get(gpu_id)
    assert (gpu.purchase_usd, gpu.purchase_price_date) == (usd, date)
    assert key in gpu.purchase_source and not gpu.price_note.startswith("purchase: ")


def test_parts_no_longer_sold_say_who_reported_it(catalog):
    unsold = [g for g in catalog.gpus if not g.on_sale]
    assert {"nvidia-rtx-4090", "nvidia-a10g"} <= {g.id for g in unsold}
    for gpu in unsold:
        keys = _keys(gpu.on_sale_source)
        assert keys and all(k in catalog.source_keys for k in keys), gpu.id


def test_a_buy_answer_never_offers_a_part_no_longer_sold(catalog):
    """A Mistral-7B LoRA to buy on a desktop: the RTX 4090 (sold out since late 2024) would otherwise
    be a candidate; the answer offers only cards a shop sells."""
    result = _plan(catalog, model="mistral-7b", task="lora", tier="consumer", purchase="buy")
    offered = {o.gpu_id for o in result.options}
    assert offered, "no option at all"
    assert not offered & {g.id for g in catalog.gpus if not g.on_sale}, offered
    rented = _plan(catalog, model="mistral-7b", task="lora", tier="consumer", purchase="rent")
    assert "nvidia-rtx-4090" in {o.gpu_id for o in rented.options}  # renting one is still an answer


def test_naming_an_unsold_gpu_still_plans_its_purchase(catalog):
    """A team pricing a second-hand RTX 4090 asks for it with --gpu: the answer is given."""
    result = _plan(catalog, model="mistral-7b", task="lora", gpu="nvidia-rtx-4090", gpus=1, purchase="buy")
    assert [o.gpu_id for o in result.options] == ["nvidia-rtx-4090"]


@pytest.mark.parametrize("gpu_id", sorted(NEW_PARTS))
def test_each_new_part_plans_an_8b_serving_job(catalog, gpu_id):
    """Llama 3 8B for 8 users in bf16 fits every new part (16 GB cards included) and gets a speed."""
    result = _plan(
        catalog, model="llama-3-8b", task="inference", users=8, tokens_per_s_per_user=10, gpu=gpu_id, gpus=1
    )
    assert result.options, result.warnings
    option = result.options[0]
    assert option.gpu_id == gpu_id and option.runs_as == ""


@pytest.mark.parametrize(
    ("gpu_id", "bf16"),
    [
        ("nvidia-rtx-pro-6000-blackwell", True),
        ("nvidia-rtx-5080", True),
        ("nvidia-rtx-5070-ti", True),
        ("nvidia-h200-nvl", True),
        ("nvidia-b300", True),
        ("amd-instinct-mi325x", True),
        ("amd-instinct-mi355x", True),
        ("nvidia-dgx-spark", True),
        ("nvidia-v100-sxm2-32gb", False),
        ("nvidia-t4", False),
    ],
)
def test_bf16_support_is_recorded_per_part(catalog, gpu_id, bf16):
    gpu = catalog.get(gpu_id)
    assert gpu.runs_natively("bf16") is bf16
    assert (gpu.compute_capability or gpu.gfx_target) and gpu.support_source


def test_sxm_and_oam_newcomers_are_bought_as_8_gpu_boards_and_the_nvl_card_per_card(catalog):
    assert catalog.get("nvidia-b300").baseboard_gpus == (8,)
    assert catalog.get("amd-instinct-mi325x").baseboard_gpus == (8,)
    assert catalog.get("amd-instinct-mi355x").baseboard_gpus == (8,)
    assert catalog.get("nvidia-h200-nvl").baseboard_gpus is None


def test_a_dgx_spark_is_one_gpu_per_box_joined_by_200g_ethernet(catalog):
    node = catalog.get("nvidia-dgx-spark").node()
    assert (node.node_gpus, node.scale_out) == (1, "eth-200g")


def test_catalog_table_shows_each_price_with_its_source_and_date(capsys):
    from gpu_advisor.cli import run_cli as main

    assert main(["catalog"]) == 0
    out = capsys.readouterr().out
    row = next(
        line
        for line in out.splitlines()
        if line.startswith("nvidia-rtx-pro-6000-blackwell ") and "buy" in line
    )
    assert "buy $8,565 (2026-04," in row and "[S34]" in row and "rent $1.57/h (2026-03-10," in row
    sold = next(
        line for line in out.splitlines() if line.startswith("nvidia-rtx-4090 ") and "not sold new" in line
    )
    assert "[EOL" in sold


def test_catalog_json_keeps_its_keys_and_adds_the_price_provenance(capsys):
    from gpu_advisor.cli import run_cli as main

    assert main(["catalog", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    gpu = next(g for g in data["gpus"] if g["id"] == "nvidia-b200")
    kept = {
        "id",
        "name",
        "purchase_usd",
        "cloud_usd_per_hour",
        "cloud_price_date",
        "sources",
        "compute_capability",
    }
    added = {
        "purchase_price_date",
        "purchase_source",
        "cloud_source",
        "on_sale",
        "on_sale_source",
        "price_note",
    }
    assert kept | added <= set(gpu)
    assert (gpu["purchase_price_date"], gpu["on_sale"]) == ("2026-06", True)
    assert "P1" in data["source_keys"]


def test_buying_a_dgx_spark_prices_the_box_alone_not_a_workstation_tower_around_it(catalog):
    """The $3,999 list price is the whole machine (CPU, memory, storage, NICs): no $9,000 tower."""
    result = _plan(catalog, model="llama-3-8b", task="lora", gpu="nvidia-dgx-spark", gpus=1, purchase="buy")
    option = result.options[0]
    assert option.cost.purchase_usd == 3999.0
    assert "workstation tower" not in option.cost.formula
