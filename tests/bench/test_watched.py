"""A watched command's file (monitor@1) is taken by Compare, the report and the loader like a bench run."""

from __future__ import annotations

import sys

import pytest

from gpu_advisor.bench.compare import compare_files
from gpu_advisor.bench.loading import load_report
from gpu_advisor.bench.monitor import run_monitor
from gpu_advisor.bench.results import ResultsFileError
from gpu_advisor.cli import run_cli
from gpu_advisor.telemetry import NvmlSource
from tests.telemetry.fake_nvml import FakeNvml

# Two epochs of three 50 ms steps, 20 ms of each waiting for data, reported through the probe.
LOOP = (
    "import time\n"
    "from gpu_advisor import probe\n"
    "def batches():\n"
    "    for i in range(3):\n"
    "        time.sleep(0.02)\n"
    "        yield i\n"
    "for epoch in range(2):\n"
    "    for b in probe.wrap(batches()):\n"
    "        time.sleep(0.03)\n"
    "        probe.step(samples=8)\n"
    "    probe.epoch_end()\n"
)


@pytest.fixture(scope="module")
def watched(tmp_path_factory):
    folder = tmp_path_factory.mktemp("watched")
    report = run_monitor(
        [sys.executable, "-c", LOOP], interval_s=0.1, nvml=NvmlSource(nvml_module=FakeNvml([]))
    )
    report.save(folder / "run.json")
    failed = run_monitor(
        [sys.executable, "-c", "raise SystemExit(4)"],
        interval_s=0.1,
        nvml=NvmlSource(nvml_module=FakeNvml([])),
    )
    failed.save(folder / "failed.json")
    return folder


def test_a_watched_run_loads_as_one_command_result(watched):
    report = load_report(watched / "run.json")
    (result,) = report.results
    assert result.workload == "command" and result.status == "ok"
    assert result.step is not None and result.step.n == 6
    # 8 samples a step, at the mean step time: between the fastest and the slowest step (a loaded
    # machine stretches some steps, and the mean then leaves the median behind).
    assert result.metrics["samples_per_s"] == pytest.approx(8 * result.metrics["steps_per_s"])
    assert 8 / result.step.max <= result.metrics["samples_per_s"] <= 8 / result.step.min
    # 20 ms of every 50 ms step; late wake-ups pull it towards 1/2, and the work is not counted as waiting.
    assert 0.2 < result.metrics["input_wait_fraction"] < 0.8
    assert result.metrics["time_per_epoch_s"] >= 3 * 0.05
    failed = load_report(watched / "failed.json").results[0]
    assert failed.status == "error" and failed.error == "exit code 4" and failed.metrics["exit_code"] == 4


def test_compare_lists_the_commands_figures(watched):
    comparison = compare_files([watched / "run.json", watched / "failed.json"])
    assert comparison.row("command exit code").values == (0, 4)
    assert comparison.row("command step median").values[0] > 0.04
    assert comparison.row("command samples/s").values[1] is None  # the failed one reported no steps


def test_report_attaches_a_watched_run(watched, tmp_path, capsys):
    assert (
        run_cli(
            ["plan", "--model", "gpt2-small", "--task", "finetune", "--save", str(tmp_path / "plan.json")]
        )
        == 0
    )
    capsys.readouterr()
    md = tmp_path / "r.md"
    assert (
        run_cli(
            [
                "report",
                str(tmp_path / "plan.json"),
                "--results",
                str(watched / "run.json"),
                "--markdown",
                str(md),
            ]
        )
        == 0
    )
    text = md.read_text()
    assert "per epoch" in text and "exit code 0" in text


def test_a_broken_monitor_file_names_the_field(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "gpu-advisor/monitor@1", "created": "x"}')
    with pytest.raises(ResultsFileError, match=r"bad.json: command: missing"):
        load_report(bad)
