"""Filters a team sets (vendor, NVLink) and wording that names what was assumed."""

import json

import pytest

from gpu_advisor.cli import run_cli
from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest

CATALOG = load_catalog(user_file=None)


def _plan(**kw):
    return plan(PlanRequest(**{"model": get_preset(kw.pop("model")), **kw}), CATALOG)


def test_a_cuda_only_team_never_sees_an_amd_option_or_verdict():
    """Unfiltered, the cheapest rental for Llama 3 70B is an MI300X; with vendor NVIDIA no AMD GPU is
    offered, recommended or named in the verdict."""
    open_plan = _plan(model="llama-3-70b", users=200, tokens_per_s_per_user=30)
    assert open_plan.verdict.rent.gpu_id.startswith("amd-")
    cuda = _plan(model="llama-3-70b", users=200, tokens_per_s_per_user=30, vendor="nvidia")
    assert cuda.options and all(o.gpu_id.startswith("nvidia-") for o in cuda.options)
    assert "AMD" not in cuda.verdict.reason


def test_nvlink_required_keeps_only_cards_joined_by_nvlink():
    """PCIe-only cards (L40S, RTX 4090) and Infinity Fabric drop out; NVSwitch boards and bridged
    cards (RTX 3090, RTX A6000) stay."""
    result = _plan(model="llama-3-8b", require_nvlink=True)
    ids = {o.gpu_id for o in result.options}
    assert {"nvidia-h100-sxm", "nvidia-rtx-3090", "nvidia-rtx-a6000"} <= ids
    assert not ids & {"nvidia-l40s", "nvidia-rtx-4090", "amd-instinct-mi300x"}


def test_filters_that_leave_nothing_say_which_filters():
    result = _plan(model="llama-3-8b", vendor="amd", require_nvlink=True)
    assert result.best is None
    assert (
        result.recommendation.reason == "No GPU in the catalogue passes the filters (AMD, NVLink required)."
    )


def test_qlora_reason_names_the_4_bit_nf4_base_not_the_compute_dtype():
    """QLoRA computes in bf16 over a frozen NF4 base; the reason must not say the weights are bf16."""
    reason = _plan(model="llama-3-8b", task="qlora", tier="consumer").recommendation.reason
    assert "in a 4-bit NF4" in reason and "at bf16" not in reason


def test_quantisation_is_suggested_only_when_it_lowers_the_count():
    """Llama 3 70B in bf16 on H100s needs two cards; int8 (66 GiB of weights) still needs two, int4
    fits one, so the plan suggests int4 and not int8. An 8B model already on one card gets none."""
    big = _plan(model="llama-3-70b", gpu="nvidia-h100-sxm")
    assert any(
        s.startswith("Quantise the weights to int4: 1 × NVIDIA H100 SXM instead of 2")
        for s in big.suggestions
    )
    assert not any("int8" in s for s in big.suggestions)
    small = _plan(model="llama-3-8b", gpu="nvidia-h100-sxm")
    assert not small.suggestions


def test_cli_vendor_and_nvlink_flags(capsys):
    argv = ["plan", "--model", "llama-3-8b", "--vendor", "amd", "--json"]
    assert run_cli(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"]["vendor"] == "amd" and all(o["gpu_id"].startswith("amd-") for o in data["options"])
    with pytest.raises(SystemExit) as exit_info:
        run_cli(["plan", "--model", "llama-3-8b", "--vendor", "intel"])
    assert exit_info.value.code == 2
