"""Answers that can be bought and run as stated (issue 21): support as data, purchase units."""

from __future__ import annotations

import json

import pytest

from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.core.hosts import machines_for
from gpu_advisor.core.paths import resource
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def _plan(catalog, **fields):
    fields["model"] = get_preset(fields["model"])
    return plan(PlanRequest.model_validate(fields), catalog)


def test_every_catalogue_gpu_has_sourced_support_so_a_missing_entry_is_caught():
    """Each GPU states its compute capability or gfx target and native precisions, with a source."""
    table = json.loads(resource("support.json").read_text(encoding="utf-8"))
    for gpu in default_catalog().gpus:
        assert gpu.native_precisions, f"{gpu.id}: no support entry"
        assert (gpu.compute_capability is None) != (gpu.gfx_target is None), gpu.id
        assert gpu.support_source.startswith("["), gpu.id
        for key in table["gpus"][gpu.id]["source"].split(";"):
            assert key.strip() in table["sources"]


def test_bf16_lora_on_a_v100_runs_as_fp16_with_loss_scaling_because_volta_has_no_bf16(catalog):
    """V100 is compute capability 7.0: no bf16 tensor math. A bf16 LoRA there is fp16 with loss
    scaling, said in the option (fit column, JSON), not only in "How it was computed"."""
    result = _plan(catalog, model="llama-3-8b", task="lora", gpu="nvidia-v100-sxm2-32gb", gpus=1)
    option = result.options[0]
    assert option.runs_as == "fp16 (loss scaling)"
    assert "no bf16 on Volta (compute capability 7.0)" in option.note
    assert result.to_json_dict()["options"][0]["runs_as"] == "fp16 (loss scaling)"
    from gpu_advisor.wording.plan import fits_text

    assert fits_text(option).endswith("runs as fp16 (loss scaling)")


def test_bf16_on_an_a100_runs_natively_so_no_substitution_is_claimed(catalog):
    result = _plan(catalog, model="llama-3-8b", task="lora", gpu="nvidia-a100-sxm-80gb", gpus=1)
    assert result.options[0].runs_as == "" and "runs as" not in result.options[0].note


def test_catalog_text_prints_no_for_bf16_on_a_v100_not_its_fp16_rate(capsys):
    """The V100's 125 TFLOPS are fp16; the bf16 column must not show them."""
    from gpu_advisor.cli.catalog import cmd_catalog

    class Args:
        models = False
        json = False

    cmd_catalog(Args())
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("nvidia-v100"))
    assert " no " in row and "125" not in row and " 7.0 " in row


def test_buying_two_h200_sxm_buys_a_4_gpu_baseboard_because_hgx_is_sold_in_4_and_8(catalog):
    result = _plan(catalog, model="llama-3-8b", task="lora", gpu="nvidia-h200-sxm", gpus=2, purchase="buy")
    option = result.options[0]
    assert (option.count, option.gpus_bought) == (2, 4)
    assert option.cost.purchase_usd >= 4 * catalog.get("nvidia-h200-sxm").purchase_usd
    assert result.to_json_dict()["options"][0]["gpus_bought"] == 4
    assert "4 × NVIDIA H200 SXM on one 4-GPU baseboard (2 used)" in result.verdict.reason


@pytest.mark.parametrize(("gpus", "bought"), [(5, 8), (8, 8), (12, 16), (16, 16)])
def test_sxm_counts_above_four_buy_whole_8_gpu_boards(catalog, gpus, bought):
    result = _plan(catalog, model="llama-3-8b", task="lora", gpu="nvidia-h100-sxm", gpus=gpus, purchase="buy")
    assert result.options[0].gpus_bought == bought


def test_pcie_cards_are_bought_one_by_one(catalog):
    result = _plan(catalog, model="llama-3-8b", task="lora", gpu="nvidia-l40s", gpus=3, purchase="buy")
    assert result.options[0].gpus_bought == 3


def test_nine_gpus_in_8_gpu_servers_say_the_last_machine_holds_four(catalog):
    """9 cards spread over two 8-GPU servers as 5 + 4: machines x per machine must not claim 10."""
    m = machines_for(catalog.get("nvidia-l40s"), 9)
    assert (m.machines, m.gpus_per_machine, m.last_machine_gpus) == (2, 5, 4)
    assert machines_for(catalog.get("nvidia-l40s"), 10).last_machine_gpus is None
