"""AMD GPUs through AMD SMI, with a fake `amdsmi` built from the real package's exceptions and enums
(tests/telemetry/fake_amdsmi.py): the figures a user sees, the choice of library, and "n/a" instead
of a crash."""

from __future__ import annotations

import sys

import pynvml
import pytest

from gpu_advisor.telemetry import AmdSmiSource, AutoGpuSource, NvmlSource, Sampler, describe_machine
from gpu_advisor.telemetry.amd import AMDSMI_NOT_INSTALLED, import_amdsmi
from gpu_advisor.telemetry.diagnosis import RunEvidence, diagnose
from gpu_advisor.telemetry.machine import hardware_summary
from gpu_advisor.telemetry.processes import gpu_rows
from gpu_advisor.telemetry.stats import summarize
from tests.telemetry.fake_amdsmi import GIB, MI300X, FakeAmdGpu, FakeAmdSmi, amd_process
from tests.telemetry.fake_nvml import FakeGpu, FakeNvml

NO_NVIDIA_DRIVER = pynvml.NVMLError_LibraryNotFound


def opened(fake: FakeAmdSmi) -> AmdSmiSource:
    source = AmdSmiSource(fake)
    assert source.open()
    return source


def test_an_mi300x_is_listed_with_the_facts_nvidia_gpus_have() -> None:
    info = opened(FakeAmdSmi([FakeAmdGpu()])).devices()[0]
    assert (info.index, info.name, info.uuid) == (0, MI300X, "e4ff74a1-0000-1000-80ae-ae89cfc0c4ee")
    assert info.memory_total_bytes == 192 * GIB
    assert info.power_limit_w == 750.0  # AMD SMI gives the power cap in microwatts
    assert info.driver_version == "6.8.5" and info.pci_bus_id == "0000:0c:00.0"
    assert info.backend == "amdsmi" and info.mig_mode is None and info.cuda_driver_version is None


def test_a_reading_has_utilisation_memory_power_temperature_clocks_and_no_throttling() -> None:
    sample = opened(FakeAmdSmi([FakeAmdGpu()])).read(0)
    assert sample.error is None
    assert (sample.gpu_util_pct, sample.mem_util_pct) == (93.0, 47.0)
    assert (sample.memory_used_bytes, sample.memory_total_bytes) == (150 * GIB, 192 * GIB)
    assert (sample.power_w, sample.power_limit_w) == (702.0, 750.0)
    assert sample.temperature_c == 78.0  # the hotspot sensor
    assert (sample.sm_clock_mhz, sample.mem_clock_mhz) == (2100, 1300)
    assert sample.clock_event_reasons == ()
    assert sample.is_power_throttled is False and sample.is_thermal_throttled is False


@pytest.mark.parametrize(
    ("violations", "reasons", "power", "thermal"),
    [
        ({"active_ppt_pwr": True}, ("ppt_power",), True, False),
        (
            {"active_socket_thrm": True, "active_hbm_thrm": True},
            ("socket_thermal", "hbm_thermal"),
            False,
            True,
        ),
        ({"active_prochot_thrm": True}, ("prochot",), False, True),
    ],
)
def test_throttling_causes_count_as_power_or_thermal(violations, reasons, power, thermal) -> None:
    sample = opened(FakeAmdSmi([FakeAmdGpu(violations=violations)])).read(0)
    assert sample.clock_event_reasons == reasons
    assert sample.is_power_throttled is power and sample.is_thermal_throttled is thermal


def test_an_older_board_reports_average_power_and_the_edge_sensor() -> None:
    """An MI250 or a Radeon: no current socket power, no hotspot reading, no violation status."""
    gpu = FakeAmdGpu(
        name="AMD Instinct MI250X",
        current_socket_power_w=None,
        average_socket_power_w=410,
        hotspot_c=None,
        edge_c=55,
        violations=None,
    )
    sample = opened(FakeAmdSmi([gpu])).read(0)
    assert sample.power_w == 410.0 and sample.temperature_c == 55.0
    assert sample.clock_event_reasons is None  # unknown, not "none active"
    assert sample.error is None


def test_unsupported_readings_are_none_and_the_others_are_read() -> None:
    gpu = FakeAmdGpu(
        gfx_activity_pct=None,
        errors={
            "amdsmi_get_clock_info": "AMDSMI_STATUS_NOT_SUPPORTED",
            "amdsmi_get_power_info": "AMDSMI_STATUS_NO_PERM",
        },
    )
    sample = opened(FakeAmdSmi([gpu])).read(0)
    assert sample.gpu_util_pct is None and sample.power_w is None and sample.sm_clock_mhz is None
    assert sample.mem_util_pct == 47.0 and sample.memory_used_bytes == 150 * GIB
    assert sample.power_limit_w == 750.0 and sample.error is None


def test_a_gpu_lost_mid_run_stays_lost_and_the_other_is_still_read() -> None:
    first, second = FakeAmdGpu(), FakeAmdGpu(uuid="other", bdf="0000:1c:00.0")
    source = opened(FakeAmdSmi([first, second]))
    assert source.read(0).error is None
    first.errors["amdsmi_get_gpu_activity"] = "AMDSMI_STATUS_AMDGPU_RESTART_ERR"
    lost = source.read(0)
    assert lost.error == "GPU lost: AMD SMI: AMDSMI_STATUS_AMDGPU_RESTART_ERR"
    assert lost.name == MI300X and lost.power_w is None
    first.errors.clear()
    assert source.read(0).error == lost.error  # not asked again: it needs a reset
    assert source.read(1).error is None and source.read(1).power_w == 702.0


def test_the_processes_tab_lists_amd_processes_with_their_vram() -> None:
    gpu = FakeAmdGpu(processes=[amd_process(4_194_301, 120 * GIB)])
    source = opened(FakeAmdSmi([gpu]))
    assert source.processes(0) == [(4_194_301, 120 * GIB, None)]
    (row,) = gpu_rows(source.processes(0))
    assert row.name == "pid 4194301" and row.gpu_memory_bytes == 120 * GIB and row.gpu_sm_pct is None


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        ("AMDSMI_STATUS_DRIVER_NOT_LOADED", "AMD SMI: the amdgpu driver is not loaded"),
        (
            "AMDSMI_STATUS_NO_PERM",
            "AMD SMI: no permission to read the GPUs (add the user to the render and video groups)",
        ),
        ("AMDSMI_STATUS_BUSY", "AMD SMI unavailable: AMDSMI_STATUS_BUSY"),
    ],
)
def test_amd_smi_that_cannot_start_says_why(status: str, reason: str) -> None:
    source = AmdSmiSource(FakeAmdSmi(init_status=status))
    assert source.open() is False and source.unavailable_reason == reason
    assert source.read(0).error == reason and source.read_all() == ()


def test_without_the_amdsmi_package_the_reason_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "amdsmi", None)  # `import amdsmi` raises ImportError
    import_amdsmi.cache_clear()
    try:
        source = AmdSmiSource()
        assert source.open() is False
        assert source.unavailable_reason == AMDSMI_NOT_INSTALLED and source.installed is False
    finally:
        import_amdsmi.cache_clear()


# ---- choosing the library ------------------------------------------------------------------------------


def test_a_machine_with_amd_gpus_is_read_through_amd_smi_when_nvml_finds_none() -> None:
    amd = FakeAmdSmi([FakeAmdGpu(), FakeAmdGpu(uuid="second", bdf="0000:1c:00.0")])
    gpus = AutoGpuSource([NvmlSource(FakeNvml(init_error=NO_NVIDIA_DRIVER)), AmdSmiSource(amd)])
    machine = describe_machine(gpus)
    assert machine["gpu_status"] == "2 AMD GPUs found through AMD SMI"
    assert [g["backend"] for g in machine["gpus"]] == ["amdsmi", "amdsmi"]
    assert hardware_summary(machine) == f"2 x {MI300X}, driver 6.8.5"
    assert gpus.label == "AMD SMI" and gpus.read(1).power_w == 702.0


def test_nvidia_gpus_are_read_through_nvml_and_amd_smi_is_not_touched() -> None:
    amd = FakeAmdSmi([FakeAmdGpu()])
    gpus = AutoGpuSource([NvmlSource(FakeNvml([FakeGpu()])), AmdSmiSource(amd)])
    assert gpus.open() and gpus.label == "NVML"
    assert gpus.devices()[0].name == "NVIDIA H100 80GB HBM3"
    assert amd.init_count == 0


def test_nvml_without_gpus_gives_way_to_amd_smi_and_is_shut_down() -> None:
    nvml = FakeNvml([])
    gpus = AutoGpuSource([NvmlSource(nvml), AmdSmiSource(FakeAmdSmi([FakeAmdGpu()]))])
    assert gpus.open() and gpus.label == "AMD SMI"
    assert nvml.shutdown_count == 1


def test_no_library_gives_nvmls_reason_and_amd_smis_where_amdsmi_is_installed() -> None:
    gpus = AutoGpuSource(
        [
            NvmlSource(FakeNvml(init_error=NO_NVIDIA_DRIVER)),
            AmdSmiSource(FakeAmdSmi(init_status="AMDSMI_STATUS_DRIVER_NOT_LOADED")),
        ]
    )
    assert gpus.open() is False
    assert gpus.unavailable_reason == (
        "NVIDIA driver not found (NVML library missing); AMD SMI: the amdgpu driver is not loaded"
    )
    assert describe_machine(gpus)["gpu_status"].startswith("No NVIDIA GPU: CPU mode (NVIDIA driver not found")


# ---- through the sampler and the diagnosis -----------------------------------------------------------


def test_an_amd_run_at_its_power_cap_is_diagnosed_power_limited() -> None:
    source = opened(FakeAmdSmi([FakeAmdGpu(violations={"active_ppt_pwr": True})]))
    sampler = Sampler(0.1, nvml=source)
    samples = [sampler.sample_once() for _ in range(5)]
    summary = summarize(samples)
    assert summary.gpus[0].power_throttle_fraction == 1.0
    assert summary.gpus[0].power_w is not None and summary.gpus[0].power_w.mean == 702.0
    titles = [v.title for v in diagnose(RunEvidence(device_kind="cuda", telemetry=summary))]
    assert f"Power-limited: GPU 0 ({MI300X}) holds its clocks down to stay under its power limit" in titles
