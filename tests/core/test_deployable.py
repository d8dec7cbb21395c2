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
from gpu_advisor.wording.plan import machine_text


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


def test_two_paired_dgx_sparks_are_named_desktop_boxes_in_the_plural(catalog):
    """The machine's kind in the plural is English ('2 desktop boxes', not 'boxs')."""
    result = _plan(
        catalog, model="llama-3-8b", task="finetune", gpu="nvidia-dgx-spark", gpus=2, purchase="buy"
    )
    assert machine_text(result.options[0]).startswith("2 desktop boxes with 1 GPU")


def test_llama_3_8b_for_32_users_fits_one_rtx_4090_as_vllm_allocates_it(catalog):
    """vLLM takes 90 % of the 23.6 GiB card (21.3 GiB): 15.0 GiB of weights, ~1 GiB of activation
    peak and 1.8 GiB of non-PyTorch memory leave a KV pool of ~3.6 GiB, which holds 32 users x 768
    tokens (3.0 GiB). The engine measures its peak before sizing the pool: no fragmentation on top."""
    result = _plan(
        catalog,
        model="llama-3-8b",
        task="inference",
        users=32,
        tokens_per_s_per_user=20,
        gpu="nvidia-rtx-4090",
        gpus=1,
    )
    option = result.options[0]
    assert option.fits and result.best is option
    pool, kv = option.per_gpu.kv_pool_bytes, option.per_gpu.components.kv_cache
    assert kv <= pool and 0.75 < option.memory_fill < 0.95 and not option.tight
    note = next(n for n in option.per_gpu.notes if n.startswith("vLLM memory"))
    assert "which holds the users' 3.0 GiB" in note


def test_a_fit_above_95_percent_of_the_kv_pool_is_marked_tight(catalog):
    """38 users fill ~99 % of the same 4090's pool: it fits, and the fit says it is tight."""
    from gpu_advisor.wording.plan import fits_text

    result = _plan(
        catalog,
        model="llama-3-8b",
        task="inference",
        users=38,
        tokens_per_s_per_user=20,
        gpu="nvidia-rtx-4090",
        gpus=1,
    )
    option = result.options[0]
    assert option.fits and option.tight and "tight" in fits_text(option)
    assert result.to_json_dict()["options"][0]["tight"] is True


def test_the_no_fit_message_compares_the_numbers_that_decided(catalog):
    """64 users do not fit one 4090: the message's footprint is larger than the card it names,
    never 'nothing fits 21.5 GiB; the largest GPU has 23.6 GiB'."""
    import re

    result = _plan(
        catalog,
        model="llama-3-8b",
        task="inference",
        users=64,
        tokens_per_s_per_user=20,
        gpu="nvidia-rtx-4090",
        gpus=1,
    )
    assert not result.options[0].fits
    needs, has = (float(x) for x in re.findall(r"([0-9.]+) GiB", result.recommendation.reason)[:2])
    assert needs > has


def test_requests_per_s_alone_plans_with_each_options_own_time_per_request(catalog):
    """5 requests/s of 1,024 + 256 tokens within 0.5 s to first token: no tokens/s target is needed.
    Each option's concurrency is Little's law with its own time per request, so its throughput covers
    the arrival rate (L x tokens/s per user = rate x W x tokens/s >= rate x output tokens), and its first
    token, queued behind the other prefills, is within 0.5 s."""
    result = _plan(
        catalog,
        model="llama-3-8b",
        task="inference",
        requests_per_s=5,
        prompt_tokens=1024,
        output_tokens=256,
        ttft_s=0.5,
    )
    best = result.best
    assert best is not None and best.meets_target
    for option in result.options:
        if option.fits and option.meets_target:
            assert option.users_in_flight is not None
            assert option.speed.tokens_per_s >= 5 * 256 * 0.999
            assert "Little's law" in option.note and "M/D/1" in option.note


def test_a_saturated_prefill_misses_the_first_token_target():
    from gpu_advisor.core.serving import queued_ttft_s

    assert queued_ttft_s(0.1, 0.25, 5, 1) == float("inf")  # 5 x 0.25 s of prefill per second
    assert queued_ttft_s(0.1, 0.1, 5, 1) == pytest.approx(0.1 + 0.5 * 0.1 / (2 * 0.5))


def test_a_training_option_under_10_percent_mfu_carries_a_warning(catalog):
    """GPT-2 small pretrained on 8 x RTX 4090 in four desktops joined by Ethernet: each step is mostly
    the gradient all-reduce (a few percent MFU at a locked micro-batch of 1 and no accumulation), and
    the option says so; one H100 does not."""
    result = _plan(
        catalog,
        model="gpt2-small",
        task="pretrain",
        gpu="nvidia-rtx-4090",
        gpus=8,
        batch_size=1,
        grad_accumulation_steps=1,
    )
    option = result.options[0]
    assert option.machines == 4 and option.training.mfu < 0.10
    assert "low utilisation: MFU" in option.note
    good = _plan(catalog, model="llama-3-8b", task="lora", gpu="nvidia-h100-sxm", gpus=1).options[0]
    assert good.training.mfu >= 0.10 and "low utilisation" not in good.note


def test_desktops_joined_as_a_cluster_are_not_offered_to_rent(catalog):
    """Clouds rent single desktops and workstations and clusters of servers; 4 x RTX 4090 across two
    desktops has no cloud price (a single desktop with 2 keeps one)."""
    two_desktops = _plan(catalog, model="llama-3-8b", task="lora", gpu="nvidia-rtx-4090", gpus=4).options[0]
    assert two_desktops.machines == 2 and two_desktops.cost.cloud_usd_per_hour is None
    assert "not offered" in two_desktops.cost.formula
    one = _plan(catalog, model="llama-3-8b", task="lora", gpu="nvidia-rtx-4090", gpus=2).options[0]
    assert one.machines == 1 and one.cost.cloud_usd_per_hour is not None
