"""The sampler thread: deadlines, bounded buffer, prompt stop, and survival of bad callbacks."""

from __future__ import annotations

import time

import pytest

from gpu_advisor.telemetry import HostSample, NvmlSource, Sample, Sampler
from gpu_advisor.telemetry.sampler import next_deadline
from tests.telemetry.fake_nvml import FakeGpu, FakeNvml
from tests.telemetry.waiting import wait_until


class StubHost:
    """A HostSource stand-in: optionally slow on chosen readings, or failing."""

    def __init__(self, slow_first_s: float = 0.0, fail: bool = False) -> None:
        self.reads = 0
        self.slow_first_s = slow_first_s
        self.fail = fail

    def read(self) -> HostSample:
        self.reads += 1
        if self.fail:
            raise OSError("sensor went away")
        if self.reads == 1 and self.slow_first_s:
            time.sleep(self.slow_first_s)
        return HostSample(cpu_pct=12.5)


@pytest.mark.parametrize("interval_s", [0.0, 0.05, 10.5, -1.0])
def test_interval_outside_limits_is_rejected(interval_s: float) -> None:
    with pytest.raises(ValueError, match="interval_s"):
        Sampler(interval_s=interval_s, host=StubHost())  # type: ignore[arg-type]


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError, match="capacity"):
        Sampler(capacity=0, host=StubHost())  # type: ignore[arg-type]


def test_next_deadline_skips_missed_deadlines_instead_of_bursting() -> None:
    assert next_deadline(0.0, 0.05, 0.1) == pytest.approx(0.1)
    assert next_deadline(0.0, 0.35, 0.1) == pytest.approx(0.4)  # 0.1, 0.2, 0.3 are gone
    assert next_deadline(0.0, 0.1, 0.1) == pytest.approx(0.2)
    assert next_deadline(1.0, 25.0, 10.0) == pytest.approx(31.0)  # stays on the original grid


def test_overrun_is_followed_by_the_next_deadline_not_a_burst() -> None:
    host = StubHost(slow_first_s=0.35)
    sampler = Sampler(interval_s=0.1, host=host)  # type: ignore[arg-type]
    with sampler:
        assert wait_until(lambda: len(sampler.snapshot()) >= 3)
    first, second, third = sampler.snapshot()[:3]
    # Catching up would take three readings back to back (gap ~0). Skipping waits for t = 0.4 s.
    assert second.t_s - first.t_s > 0.02
    assert third.t_s - second.t_s > 0.02
    assert sampler.missed_deadlines >= 2


def test_sample_count_roughly_follows_the_interval() -> None:
    sampler = Sampler(interval_s=0.1, host=StubHost())  # type: ignore[arg-type]
    with sampler:
        time.sleep(1.0)
    samples = sampler.snapshot()
    # Ideal is 10-11; loose bounds so a loaded machine does not flake, tight enough to catch a busy loop.
    assert 4 <= len(samples) <= 13
    times = [s.t_s for s in samples]
    assert times == sorted(times)


def test_ring_buffer_keeps_only_the_newest_samples() -> None:
    sampler = Sampler(capacity=3, host=StubHost())  # type: ignore[arg-type]
    taken = [sampler.sample_once() for _ in range(10)]
    assert sampler.capacity == 3
    assert sampler.snapshot() == tuple(taken[-3:])
    assert sampler.latest() is taken[-1]
    sampler.clear()
    assert sampler.snapshot() == () and sampler.latest() is None


def test_stop_returns_quickly_even_with_a_long_interval() -> None:
    sampler = Sampler(interval_s=10.0, host=StubHost())  # type: ignore[arg-type]
    sampler.start()
    assert wait_until(lambda: sampler.latest() is not None)
    started = time.monotonic()
    sampler.stop()
    assert time.monotonic() - started < 2.0  # not the 10 s interval
    assert not sampler.running


def test_a_failing_callback_does_not_stop_sampling() -> None:
    seen: list[Sample] = []

    def callback(sample: Sample) -> None:
        seen.append(sample)
        raise RuntimeError("GUI handler bug")

    sampler = Sampler(interval_s=0.1, host=StubHost(), on_sample=callback)  # type: ignore[arg-type]
    with sampler:
        assert wait_until(lambda: sampler.callback_error_count >= 3)
        assert sampler.running
    assert isinstance(sampler.last_callback_error, RuntimeError)
    assert len(sampler.snapshot()) >= 3 and len(seen) >= 3


def test_a_failing_source_is_counted_and_sampling_goes_on() -> None:
    sampler = Sampler(interval_s=0.1, host=StubHost(fail=True))  # type: ignore[arg-type]
    with sampler:
        assert wait_until(lambda: sampler.sampling_error_count >= 2)
        assert sampler.running
    assert isinstance(sampler.last_sampling_error, OSError)
    assert sampler.snapshot() == ()


def test_samples_include_gpus_from_nvml() -> None:
    nvml = NvmlSource(nvml_module=FakeNvml([FakeGpu(), FakeGpu(name="NVIDIA L4")]))
    nvml.open()
    sampler = Sampler(interval_s=0.1, nvml=nvml, host=StubHost())  # type: ignore[arg-type]
    sample = sampler.sample_once()
    assert [g.name for g in sample.gpus] == ["NVIDIA H100 80GB HBM3", "NVIDIA L4"]
    assert sample.host.cpu_pct == 12.5


def test_start_twice_is_an_error_and_restart_keeps_time_monotonic() -> None:
    sampler = Sampler(interval_s=0.1, host=StubHost())  # type: ignore[arg-type]
    sampler.start()
    with pytest.raises(RuntimeError):
        sampler.start()
    assert wait_until(lambda: len(sampler.snapshot()) >= 2)
    sampler.stop()
    sampler.start()
    count = len(sampler.snapshot())
    assert wait_until(lambda: len(sampler.snapshot()) >= count + 2)
    sampler.stop()
    times = [s.t_s for s in sampler.snapshot()]
    assert times == sorted(times)


def test_default_host_source_is_real() -> None:
    sampler = Sampler(interval_s=0.5)
    sample = sampler.sample_once()
    assert sample.host.ram_total_bytes is not None and sample.gpus == ()
