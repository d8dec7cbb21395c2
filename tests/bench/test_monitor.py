"""Watching a user's command: its exit code, its process tree, the GPUs, stopping it."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from gpu_advisor.bench.monitor import MonitorError, run_monitor
from gpu_advisor.telemetry import NvmlSource
from gpu_advisor.wording.command import monitor_lines
from tests.telemetry.fake_nvml import FakeGpu, FakeNvml


def test_gpu_telemetry_and_diagnosis_of_a_watched_command(tmp_path):
    nvml = NvmlSource(nvml_module=FakeNvml([FakeGpu(gpu_util_pct=97)]))
    code = "import pathlib, time; pathlib.Path('ran').write_text('yes'); time.sleep(0.4)"
    report = run_monitor([sys.executable, "-c", code], interval_s=0.1, nvml=nvml, cwd=tmp_path)
    assert report.exit_code == 0
    assert (tmp_path / "ran").read_text() == "yes"
    assert report.summary.gpus[0].gpu_util_pct.mean == pytest.approx(97)
    assert "compute_bound" in {v.kind for v in report.diagnosis}  # busy 97% of the time
    text = "\n".join(monitor_lines(report))
    assert "GPU 0 NVIDIA H100 80GB HBM3: util 97% / 97% / 97%" in text


def test_stop_terminates_the_command():
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    began = time.monotonic()
    report = run_monitor(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        interval_s=0.1,
        stop=stop,
        nvml=NvmlSource(nvml_module=FakeNvml([])),
    )
    assert time.monotonic() - began < 5
    assert report.exit_code != 0


def test_a_missing_working_folder_is_named(tmp_path):
    with pytest.raises(MonitorError, match="working folder"):
        run_monitor(
            [sys.executable, "-c", "pass"], cwd=tmp_path / "nope", nvml=NvmlSource(nvml_module=FakeNvml([]))
        )
