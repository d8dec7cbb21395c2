"""`plan --calibrate run.json` with a watched run of the user's own loop: the plan starts from its MFU."""

from __future__ import annotations

import json
import sys

import pytest

from gpu_advisor.bench.loading import load_report
from gpu_advisor.bench.monitor import run_monitor
from gpu_advisor.cli import run_cli
from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.telemetry import NvmlSource
from tests.telemetry.fake_nvml import FakeGpu, FakeNvml

# Steps of about 20 ms, each reporting 128 tokens: about 6,400 tokens/s, a plausible LoRA speed for a
# 7B model on one H100 (the planner's default predicts about 14,700).
LOOP = (
    "import time\n"
    "from gpu_advisor import probe\n"
    "for i in probe.wrap(range(15)):\n"
    "    time.sleep(0.02)\n"
    "    probe.step(samples=1, tokens=128)\n"
    "probe.epoch_end()\n"
)


def _watch(tmp_path, gpus):
    path = tmp_path / "run.json"
    report = run_monitor(
        [sys.executable, "-c", LOOP], interval_s=0.1, nvml=NvmlSource(nvml_module=FakeNvml(gpus))
    )
    report.save(path)
    return path


def test_a_gpu_run_calibrates_the_plans_mfu(tmp_path, capsys):
    # NVML (faked at the hardware boundary) reports the H100 the run used; the steps are the real process's.
    path = _watch(tmp_path, [FakeGpu(name="NVIDIA H100 80GB HBM3")])
    tokens_per_s = load_report(path).results[0].metrics["tokens_per_s"]
    args = ["plan", "--model", "llama-2-7b", "--task", "lora", "--gpu", "h100-sxm", "--json"]
    assert run_cli(args) == 0
    default = json.loads(capsys.readouterr().out)["options"][0]
    assert run_cli([*args, "--calibrate", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    peak = default_catalog().find("h100-sxm").peak_flops_per_s("bf16")
    expected = tokens_per_s * data["compute"]["flops_per_token"] / peak
    assert data["assumptions"]["measured_mfu"] == pytest.approx(expected)
    assert data["assumptions"]["calibration_source"].startswith("run.json (")
    option = data["options"][0]
    # the step is compute-bound: its speed follows the measured efficiency instead of the default one
    assert option["mfu"] == pytest.approx(expected, rel=0.1)
    assert option["tokens_per_s"] / default["tokens_per_s"] == pytest.approx(
        option["mfu"] / default["mfu"], rel=0.05
    )
    assert run_cli([*args[:-1], "--calibrate", str(path)]) == 0
    assert "Calibrated with run.json" in capsys.readouterr().out


def test_a_cpu_run_is_refused_with_one_line(tmp_path, capsys):
    path = _watch(tmp_path, [])
    assert run_cli(["plan", "--model", "llama-2-7b", "--task", "lora", "--calibrate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "the run was on the CPU" in err and err.count("\n") == 1
