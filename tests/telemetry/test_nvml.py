"""NvmlSource against the real pynvml (no driver here) and a fake built from pynvml's own errors.

The figures themselves are tested through the real bindings against the mock libnvidia-ml.so.1
(test_nvml_mock.py); the fake stays for what a library cannot show: which calls were made and how
often, GPM buffer bookkeeping, errors that come and go, a missing pynvml.
"""

from __future__ import annotations

import sys

import pynvml
import pytest

from gpu_advisor.telemetry import GpuSample, NvmlSource
from gpu_advisor.telemetry.clock_reasons import decode_clock_event_reasons, reason_bits
from gpu_advisor.telemetry.nvml import format_cuda_version
from tests.telemetry.fake_nvml import GIB, FakeGpu, FakeNvml

METRIC_FIELDS = [
    "gpu_util_pct",
    "mem_util_pct",
    "memory_used_bytes",
    "memory_total_bytes",
    "power_w",
    "power_limit_w",
    "temperature_c",
    "sm_clock_mhz",
    "mem_clock_mhz",
    "clock_event_reasons",
    "pcie_rx_bytes_per_s",
    "pcie_tx_bytes_per_s",
    "gpm_sm_activity_pct",
    "gpm_dram_activity_pct",
    "gpm_tensor_activity_pct",
]


def opened(fake: FakeNvml) -> NvmlSource:
    source = NvmlSource(nvml_module=fake)
    assert source.open()
    return source


# ---- NVML missing or refusing ------------------------------------------------------------------------


def test_real_pynvml_never_raises_and_explains_itself() -> None:
    """On this machine (no driver) the real module must give "n/a", not a traceback."""
    source = NvmlSource()
    available = source.open()
    sample = source.read(0)
    if available:  # a machine with a GPU runs this suite too
        assert source.unavailable_reason is None
        assert source.devices()
    else:
        assert source.unavailable_reason
        assert source.devices() == []
        assert sample.error == source.unavailable_reason
        assert all(getattr(sample, name) is None for name in METRIC_FIELDS)
    source.close()
    source.close()


def test_a_missing_library_gives_a_reason_a_user_can_act_on() -> None:
    """What pynvml raises when no libnvidia-ml.so.1 loads (on a GPU machine the real one would)."""
    error, reason = pynvml.NVMLError_LibraryNotFound, "NVIDIA driver not found (NVML library missing)"
    source = NvmlSource(nvml_module=FakeNvml(init_error=error))
    assert source.open() is False
    assert source.available is False
    assert source.unavailable_reason == reason
    assert source.devices() == []
    assert source.read(0).error == reason
    assert source.read_all() == ()


def test_missing_pynvml_package_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` raise ImportError
    source = NvmlSource()
    assert source.open() is False
    assert "nvidia-ml-py" in (source.unavailable_reason or "")


# ---- devices and a full reading ----------------------------------------------------------------------


def test_pcie_can_be_switched_off() -> None:
    fake = FakeNvml()
    source = NvmlSource(nvml_module=fake, read_pcie=False)
    source.open()
    sample = source.read(0)
    assert sample.pcie_rx_bytes_per_s is None
    assert ("nvmlDeviceGetPcieThroughput", 0) not in fake.calls


# ---- degrading one metric or one device --------------------------------------------------------------


def test_gpu_lost_mid_run_gives_an_error_sample_and_is_not_queried_again() -> None:
    lost_gpu, healthy_gpu = FakeGpu(), FakeGpu(name="NVIDIA L4")
    fake = FakeNvml([lost_gpu, healthy_gpu])
    source = opened(fake)
    assert source.read(0).error is None

    lost_gpu.lost = True
    sample = source.read(0)
    assert sample.error is not None and "lost" in sample.error.lower()
    assert sample.name == "NVIDIA H100 80GB HBM3"
    assert all(getattr(sample, name) is None for name in METRIC_FIELDS)

    calls_after_loss = fake.device_calls(0)
    for _ in range(5):
        assert source.read(0).error == sample.error
    assert fake.device_calls(0) == calls_after_loss  # no hammering a dead device

    other = source.read(1)
    assert other.error is None and other.power_w is not None


def test_unknown_error_mid_run_is_treated_as_lost() -> None:
    gpu = FakeGpu()
    source = opened(FakeNvml([gpu]))
    gpu.errors["nvmlDeviceGetMemoryInfo"] = pynvml.NVMLError_Unknown
    assert source.read(0).error is not None
    gpu.errors.clear()
    after = source.read(0)
    assert after.error is not None  # stays lost: it may hang or lie until a reset
    assert after.error.startswith("GPU lost") and after.memory_used_bytes is None


def test_read_of_unknown_index_is_an_error_sample() -> None:
    sample = opened(FakeNvml()).read(7)
    assert sample.error == "no GPU with index 7"


# ---- clock-event reasons -----------------------------------------------------------------------------


def test_old_driver_falls_back_to_throttle_reasons_and_old_temperature_call() -> None:
    fake = FakeNvml([FakeGpu(clock_reasons_mask=pynvml.nvmlClocksThrottleReasonGpuIdle)], old_driver=True)
    source = opened(fake)
    for _ in range(3):
        sample = source.read(0)
        assert sample.clock_event_reasons == ("idle",)
        assert sample.temperature_c == 61.0
    # The missing function is remembered, not retried on every reading.
    assert fake.calls.count(("nvmlDeviceGetCurrentClocksEventReasons", 0)) == 1
    assert fake.calls.count(("nvmlDeviceGetTemperatureV", 0)) == 1
    # Memory: v2 tried once when the device is opened, then v1 only (once at open, once per reading).
    assert fake.calls.count(("nvmlDeviceGetMemoryInfo", 0)) == 1 + 1 + 3
    assert sample.memory_used_bytes == 12 * GIB


def test_every_reason_bit_in_pynvml_decodes() -> None:
    bits = reason_bits(pynvml)
    names = [name for name, _ in bits]
    assert {"idle", "sw_power_cap", "hw_slowdown", "sw_thermal", "hw_thermal", "hw_power_brake"} <= set(names)
    everything = 0
    for _, bit in bits:
        everything |= bit
    assert decode_clock_event_reasons(everything, bits) == tuple(names)
    assert decode_clock_event_reasons(0, bits) == ()
    assert decode_clock_event_reasons(pynvml.nvmlClocksThrottleReasonBoardLimit, bits) == ("board_limit",)


# ---- GPM -------------------------------------------------------------------------------------------


def test_gpm_unsupported_gives_none_and_allocates_nothing() -> None:
    fake = FakeNvml([FakeGpu(gpm_supported=False)])
    source = opened(fake)
    for _ in range(3):
        sample = source.read(0)
        assert sample.gpm_sm_activity_pct is None
        assert sample.gpm_dram_activity_pct is None
        assert sample.gpm_tensor_activity_pct is None
    assert fake.gpm_buffers_allocated == 0
    assert fake.calls.count(("nvmlGpmQueryDeviceSupport", 0)) == 1


def test_gpm_buffers_are_two_reused_ones_freed_on_close() -> None:
    fake = FakeNvml([FakeGpu(gpm_supported=True)])
    source = opened(fake)
    for _ in range(4):
        source.read(0)
    assert source.read(0).gpm_sm_activity_pct == 75.5
    assert fake.gpm_buffers_allocated == 2
    source.close()
    assert fake.gpm_buffers_freed == 2


def test_gpm_metric_unsupported_by_the_device_is_none() -> None:
    gpu = FakeGpu(gpm_supported=True, gpm_values={pynvml.NVML_GPM_METRIC_SM_UTIL: 10.0})
    source = opened(FakeNvml([gpu]))
    source.read(0)
    sample = source.read(0)
    assert sample.gpm_sm_activity_pct == 10.0
    assert sample.gpm_tensor_activity_pct is None


# ---- lifecycle ---------------------------------------------------------------------------------------


def test_close_shuts_nvml_down_once_and_later_reads_are_errors() -> None:
    fake = FakeNvml()
    with NvmlSource(nvml_module=fake) as source:
        assert source.available
    source.close()
    assert fake.shutdown_count == 1
    assert source.read(0).error == "NVML closed"
    assert isinstance(source.read(0), GpuSample)


def test_cuda_version_formatting() -> None:
    assert format_cuda_version(12040) == "12.4"
    assert format_cuda_version(11080) == "11.8"
    assert format_cuda_version(12000) == "12.0"
    assert format_cuda_version(None) is None
    assert format_cuda_version(0) is None
