"""One set of bounds per calibrated quantity: what a results file or settings.json gives is either
taken by every plan or refused in one line (issue 27, defect 8)."""

from __future__ import annotations

import json

import pytest

from gpu_advisor.bench.results import ResultsFileError
from gpu_advisor.cli import run_cli
from gpu_advisor.core.calibration import MIN_EFFICIENCY
from gpu_advisor.ui.settings import SETTINGS_SCHEMA, load_settings
from tests.bench.test_run_calibration import _watch
from tests.telemetry.fake_nvml import FakeGpu


def _settings(tmp_path, mfu: float):
    path = tmp_path / "settings.json"
    data = {"schema": SETTINGS_SCHEMA, "sample_interval_s": 2.0, "calibration": {"mfu": mfu, "source": "x"}}
    path.write_text(json.dumps(data))
    return load_settings(path)


def test_a_calibration_in_settings_below_the_planners_bound_is_dropped_and_the_rest_kept(tmp_path):
    settings, message = _settings(tmp_path, 1e-300)
    assert settings.calibration is None
    assert settings.sample_interval_s == 2.0  # the other preferences survive
    assert message.startswith("Your saved calibration was dropped") and "\n" not in message


def test_a_calibration_the_settings_accept_is_one_every_plan_accepts(tmp_path, capsys):
    settings, message = _settings(tmp_path, MIN_EFFICIENCY)
    assert message is None and settings.calibration.mfu == MIN_EFFICIENCY
    args = [
        "plan",
        "--model",
        "llama-2-7b",
        "--task",
        "lora",
        "--gpu",
        "h100-sxm",
        "--mfu",
        str(MIN_EFFICIENCY),
    ]
    assert run_cli(args) == 0


def test_a_measured_mfu_below_the_bound_is_refused_in_one_line(tmp_path, capsys):
    path = _watch(tmp_path, [FakeGpu(name="NVIDIA H100 80GB HBM3")])
    # the run's ~6,400 tokens/s training a model of 200,000 parameters: about 1e-6 of an H100's peak
    config = tmp_path / "tiny.json"
    tiny = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 2}
    config.write_text(json.dumps({**tiny, "intermediate_size": 128, "vocab_size": 1000}))
    args = [
        "plan",
        "--config",
        str(config),
        "--task",
        "pretrain",
        "--gpu",
        "h100-sxm",
        "--calibrate",
        str(path),
    ]
    code = run_cli(args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "below the 0.1% a plan takes" in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_link_slower_than_the_planner_takes_is_one_line(tmp_path):
    from gpu_advisor.bench.distributed.calibrate import fabric_from_section

    class Link:
        op, scope, busbw_bytes_per_s, latency_s = "all_reduce", "intra-node", 0.5, 7200.0

    class Section:
        backend, world_size, hosts, links = "gloo", 2, ["h"], [Link()]

    with pytest.raises(ResultsFileError) as err:
        fabric_from_section(Section())  # type: ignore[arg-type]
    assert "distributed.links: intra-node all_reduce: busbw_bytes_per_s" in str(err.value)
