"""Summaries skip missing readings instead of counting them as zero."""

from __future__ import annotations

import json

import pytest

from gpu_advisor.telemetry import GpuSample, HostSample, Sample, summarize, throttle_fraction
from gpu_advisor.telemetry.stats import metric_stats, percentile
from tests.telemetry.synthetic import gpu_samples


def test_none_gaps_are_ignored_not_averaged_as_zero() -> None:
    summary = summarize(gpu_samples(gpu_util_pct=[10.0, None, 30.0, 50.0]))
    util = summary.gpus[0].gpu_util_pct
    assert util is not None
    assert util.mean == pytest.approx(30.0)
    assert util.max == 50.0
    assert util.p95 == pytest.approx(48.0)  # linear interpolation between 30 and 50
    assert util.count == 3


def test_metric_with_no_data_is_none() -> None:
    summary = summarize(gpu_samples(gpu_util_pct=[None, None]))
    gpu = summary.gpus[0]
    assert gpu.gpu_util_pct is None
    assert gpu.memory_used_bytes is None
    assert gpu.throttle_fraction is None
    assert summary.process_rss_bytes is None


def test_empty_run() -> None:
    summary = summarize([])
    assert summary.sample_count == 0 and summary.duration_s is None
    assert summary.host_cpu_pct is None and summary.gpus == ()


def test_throttle_fraction_per_gpu_counts_only_known_readings() -> None:
    samples = gpu_samples(reasons=[("sw_thermal",), (), None, ("sw_power_cap", "idle")])
    assert throttle_fraction(samples, 0) == pytest.approx(2 / 3)
    gpu = summarize(samples).gpus[0]
    assert gpu.thermal_throttle_fraction == pytest.approx(1 / 3)
    assert gpu.power_throttle_fraction == pytest.approx(1 / 3)
    assert throttle_fraction(samples, 5) is None  # no such GPU


def test_byte_metrics_stay_integers_and_summary_is_json() -> None:
    host = [HostSample(ram_used_bytes=v, process_rss_bytes=v // 2) for v in (1_000_001, 2_000_001, 3_000_001)]
    samples = [
        Sample(t_s=i * 0.5, wall_time=0.0, host=h, gpus=(GpuSample(0, "G", memory_used_bytes=7, error=None),))
        for i, h in enumerate(host)
    ]
    summary = summarize(samples)
    assert summary.ram_used_bytes is not None
    assert isinstance(summary.ram_used_bytes.mean, int) and summary.ram_used_bytes.max == 3_000_001
    assert summary.duration_s == pytest.approx(1.0)
    data = json.loads(json.dumps(summary.to_dict()))
    assert data["gpus"][0]["memory_used_bytes"]["max"] == 7
    assert summary.gpu(0) is summary.gpus[0] and summary.gpu(3) is None


def test_errors_are_counted() -> None:
    samples = [
        Sample(t_s=0, wall_time=0, host=HostSample(), gpus=(GpuSample(0, "G", power_w=100.0),)),
        Sample(t_s=1, wall_time=0, host=HostSample(), gpus=(GpuSample(0, "G", error="GPU lost"),)),
    ]
    gpu = summarize(samples).gpus[0]
    assert gpu.error_count == 1
    assert gpu.power_w is not None and gpu.power_w.mean == 100.0


def test_percentile_helpers() -> None:
    assert percentile([5.0], 95) == 5.0
    assert percentile([0.0, 100.0], 95) == pytest.approx(95.0)
    assert metric_stats([]) is None
    with pytest.raises(ValueError):
        percentile([], 50)
