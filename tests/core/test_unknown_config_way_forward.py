"""D25 (ux-review-3): a config.json the formulas cannot size names the file (not just its folder) and
offers a way forward: the parameter count."""

from __future__ import annotations

import json

import pytest

from gpu_advisor.core.architecture import ConfigError, read_hf_config


def test_an_unsizable_config_names_its_file_and_suggests_the_parameter_count(tmp_path):
    folder = tmp_path / "ux3"
    folder.mkdir()
    path = folder / "config.json"
    path.write_text(json.dumps({"model_type": "mamba", "d_model": 768}))
    with pytest.raises(ConfigError) as caught:
        read_hf_config(path)
    message = str(caught.value)
    assert str(path) in message and "'mamba'" in message
    assert "parameter count" in message
