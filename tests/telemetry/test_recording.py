"""Recording telemetry around a run: the machine described, the watched process, never no sample."""

from __future__ import annotations

import os

import pynvml

from gpu_advisor.telemetry import NvmlSource
from gpu_advisor.telemetry.recording import Recording
from tests.telemetry.fake_nvml import FakeGpu, FakeNvml


def test_a_run_shorter_than_one_interval_still_has_a_sample():
    nvml = NvmlSource(nvml_module=FakeNvml([FakeGpu(), FakeGpu(name="NVIDIA L4")]))
    with Recording(10.0, nvml=nvml) as recording:
        recording.start(watch_pid=os.getpid())
        samples = recording.stop()
    assert len(samples) == 1
    assert [g.index for g in samples[0].gpus] == [0, 1]
    assert samples[0].host.process_rss_bytes  # the watched process's memory
    assert [g["name"] for g in recording.machine["gpus"]] == ["NVIDIA H100 80GB HBM3", "NVIDIA L4"]
    assert nvml.available  # a source passed in stays open for its owner


def test_without_nvml_the_host_is_still_recorded():
    with Recording(
        0.1, nvml=NvmlSource(nvml_module=FakeNvml([], init_error=pynvml.NVMLError_LibraryNotFound))
    ) as recording:
        recording.start(watch_pid=None)
        samples = recording.stop()
    assert samples and samples[0].gpus == () and samples[0].host.ram_used_bytes
    assert recording.machine["gpus"] == [] and "CPU mode" in recording.machine["gpu_status"]
