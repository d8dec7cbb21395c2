"""The trace builds only what the planner could size: a nested config beyond ModelSpec's bounds is
refused before transformers builds anything, and `plan` falls back to the formulas with a note
(issue 27, defect 6)."""

from __future__ import annotations

import json
import time

import pytest

from gpu_advisor.bench.trace_model import TraceUnavailable, check_config_bounds
from gpu_advisor.cli import run_cli

SMALL_LLAMA = {
    "model_type": "llama",
    "num_hidden_layers": 2,
    "hidden_size": 64,
    "num_attention_heads": 2,
    "num_key_value_heads": 2,
    "intermediate_size": 128,
    "vocab_size": 1000,
}


def test_a_nested_text_config_beyond_the_bounds_is_named():
    with pytest.raises(TraceUnavailable) as err:
        check_config_bounds({"hidden_size": 64, "text_config": {**SMALL_LLAMA, "num_hidden_layers": 20_000}})
    assert "text_config.num_hidden_layers: 20,000 is beyond the 1,000" in str(err.value)
    check_config_bounds({"text_config": SMALL_LLAMA, "vision_config": {"hidden_size": 32}})  # within


def test_plan_of_a_llava_config_with_20000_nested_layers_falls_back_at_once(tmp_path, capsys):
    deep = {
        "model_type": "llava",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "vocab_size": 1000,
        "text_config": {**SMALL_LLAMA, "num_hidden_layers": 20_000},
        "vision_config": {
            "model_type": "clip_vision_model",
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "image_size": 32,
            "patch_size": 16,
        },
    }
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(deep))
    began = time.monotonic()
    code = run_cli(["plan", "--config", str(path), "--json"])
    took = time.monotonic() - began
    out, err = capsys.readouterr()
    assert code == 0, err
    assert took < 100  # before: still running at 120 s and 1.2 GB (loaded 2-core machine: ~30 s)
    assert "Traceback" not in err
    notes = " ".join(json.loads(out)["inputs"]["model"]["notes"])
    assert "No trace" in notes and "text_config.num_hidden_layers" in notes


@pytest.mark.parametrize("factory", ["os:system", "json:loads", "math:sqrt"])
def test_trace_of_a_module_factory_that_needs_arguments_is_one_line(capsys, factory):
    """Probe 3: `trace --module os:system` (a factory that raises or needs arguments) printed a
    traceback; it is one line naming the factory, exit 2."""
    code = run_cli(["trace", "--module", factory])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert f"--module: {factory}() failed (TypeError" in err
