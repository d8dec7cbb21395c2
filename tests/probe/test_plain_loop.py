"""A plain PyTorch loop instrumented with gpu_advisor.probe, run under `gpu-advisor monitor`."""

from __future__ import annotations

import json
import sys

import pytest

from gpu_advisor.cli import run_cli
from tests.probe.scripts import PLAIN_LOOP


def monitored(tmp_path, script: str, *args: str) -> tuple[int, dict, dict]:
    """Run `script` under `gpu-advisor monitor --json`: (exit code, results file, script's own times)."""
    (tmp_path / "train.py").write_text(script)
    results, own = tmp_path / "run.json", tmp_path / "own.json"
    code = run_cli(
        [
            "monitor",
            "--interval",
            "0.2",
            "--json",
            str(results),
            "--",
            sys.executable,
            str(tmp_path / "train.py"),
            str(own),
            *args,
        ]
    )
    return code, json.loads(results.read_text()), json.loads(own.read_text())


@pytest.mark.slow
def test_epochs_steps_and_memory_of_a_plain_loop(tmp_path, capsys):
    code, run, own = monitored(tmp_path, PLAIN_LOOP, "0")
    err = capsys.readouterr().err
    assert code == 0 and run["exit_code"] == 0
    assert [e["index"] for e in run["epochs"]] == [0, 1]
    assert run["steps"]["count"] == 24  # 96 samples in batches of 8, twice
    assert run["steps"]["samples"] == 192
    for probe_epoch, own_epoch in zip(run["epochs"], own["epochs"], strict=True):
        assert probe_epoch["steps"] == 12 and probe_epoch["samples"] == 96
        assert probe_epoch["time_s"] == pytest.approx(sum(own_epoch["steps"]), rel=0.05)
        # parameters and two AdamW moments are alive at the epoch's end (zero_grad freed the gradients)
        assert probe_epoch["peak_memory_bytes"] >= 3 * own["parameter_bytes"]
        assert probe_epoch["memory_kind"] == "cpu_live_tensors_at_epoch_end"
        assert probe_epoch["peak_rss_bytes"] > probe_epoch["peak_memory_bytes"]
    assert "epoch 1:" in err and "epoch 2:" in err and "24 steps" in err


@pytest.mark.slow
def test_a_slow_dataset_is_diagnosed_input_bound_with_its_measured_wait(tmp_path, capsys):
    # Each batch waits 3x the previous step's work: about 3/4 of every step, however loaded the machine.
    code, run, own = monitored(tmp_path, PLAIN_LOOP, "3")
    assert code == 0
    own_wait = sum(e["data_wait_s"] for e in own["epochs"]) / sum(sum(e["steps"]) for e in own["epochs"])
    assert own_wait > 0.5  # well past critical (a fifth of every step or more)
    assert run["steps"]["data_wait_fraction"] == pytest.approx(own_wait, abs=0.05)
    top = run["diagnosis"][0]
    assert top["kind"] == "input_bound" and top["severity"] == "critical"
    assert top["evidence"]["input_wait_fraction"] == pytest.approx(own_wait, abs=0.05)
    assert "Input-bound" in capsys.readouterr().err
