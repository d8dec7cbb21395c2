"""Samples are immutable and survive a JSON round trip (benchmark files rely on it)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from gpu_advisor.telemetry import GpuSample, HostSample, Sample


def full_sample() -> Sample:
    return Sample(
        t_s=1.5,
        wall_time=1_700_000_000.25,
        host=HostSample(
            cpu_pct=37.5,
            per_core_pct=(30.0, 45.0),
            ram_used_bytes=8 * 1024**3,
            ram_total_bytes=32 * 1024**3,
            process_rss_bytes=1_234_567_890,
            cpu_freq_mhz=2596.1,
            cpu_temp_c=None,
        ),
        gpus=(
            GpuSample(
                index=0,
                name="NVIDIA RTX 4090",
                uuid="GPU-abc",
                gpu_util_pct=99.0,
                memory_used_bytes=20 * 1024**3,
                memory_total_bytes=24 * 1024**3,
                power_w=449.5,
                clock_event_reasons=("sw_power_cap",),
                pcie_rx_bytes_per_s=1_024_000,
            ),
            GpuSample(index=1, name="NVIDIA RTX 4090", error="GPU lost: GPU is lost"),
        ),
    )


def test_json_round_trip_is_lossless() -> None:
    sample = full_sample()
    text = json.dumps(sample.to_dict())
    assert Sample.from_dict(json.loads(text)) == sample


def test_sizes_are_integer_bytes_and_unknown_is_null() -> None:
    data = json.loads(json.dumps(full_sample().to_dict()))
    assert data["gpus"][0]["memory_used_bytes"] == 20 * 1024**3
    assert isinstance(data["host"]["ram_total_bytes"], int)
    assert data["gpus"][0]["temperature_c"] is None
    assert data["gpus"][1]["error"] == "GPU lost: GPU is lost"
    assert data["gpus"][0]["clock_event_reasons"] == ["sw_power_cap"]


def test_older_files_with_missing_optional_keys_still_load() -> None:
    sample = Sample.from_dict(
        {"t_s": 0, "wall_time": 1.0, "host": {"cpu_pct": 5}, "gpus": [{"index": 0, "name": "X"}]}
    )
    assert sample.host.cpu_pct == 5.0 and sample.host.ram_used_bytes is None
    assert sample.gpus[0].power_w is None and sample.gpus[0].clock_event_reasons is None


def test_bad_data_raises_a_clear_error_type() -> None:
    with pytest.raises(KeyError):
        Sample.from_dict({"wall_time": 1.0, "host": {}})
    with pytest.raises(ValueError):
        GpuSample.from_dict({"index": "zero", "name": "X"})


def test_samples_are_frozen() -> None:
    sample = full_sample()
    with pytest.raises(dataclasses.FrozenInstanceError):
        sample.gpus[0].power_w = 1.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        sample.t_s = 0.0  # type: ignore[misc]


def test_throttle_properties_are_unknown_without_reasons() -> None:
    assert GpuSample(index=0, name="X").is_thermal_throttled is None
    assert GpuSample(index=0, name="X", clock_event_reasons=("idle",)).is_thermal_throttled is False
    assert GpuSample(index=0, name="X", clock_event_reasons=("hw_slowdown",)).is_thermal_throttled is True
