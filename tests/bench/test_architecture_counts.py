"""The formulas' parameter counts against transformers' own modules, built on the meta device."""

from __future__ import annotations

import pytest
import torch
import transformers

from gpu_advisor.bench.trace_model import config_from_spec, hf_config
from gpu_advisor.core.architecture import from_hf_config
from gpu_advisor.core.presets import presets
from tests.hub_configs import FORMULA_REPOS, HUB_CONFIGS


def _meta_count(config: dict) -> int:
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(hf_config(config, training=True))
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("repo_id", FORMULA_REPOS)
def test_formula_count_equals_transformers_count(repo_id):
    config = HUB_CONFIGS[repo_id]
    assert from_hf_config(config, repo_id).total_params() == _meta_count(config)


@pytest.mark.parametrize("preset_id", [p for p in presets() if presets()[p].spec.family.value != "bert"])
def test_presets_rebuilt_as_transformers_models_have_the_same_count(preset_id):
    spec = presets()[preset_id].spec
    assert _meta_count(config_from_spec(spec)) == spec.total_params()
