"""A benchmark on a ROCm build of torch (whose torch.cuda drives AMD GPUs): its results name the AMD
device, tie it to AMD SMI's telemetry, match the catalogue and say which torch build ran."""

from __future__ import annotations

from types import SimpleNamespace

import pynvml

from gpu_advisor.bench.device import identify, torch_uuid
from gpu_advisor.bench.results import BenchReport, DeviceInfo, Machine, TelemetryRecord
from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.telemetry import AmdSmiSource, AutoGpuSource, NvmlSource, describe_machine
from gpu_advisor.wording.results import run_lines
from tests.telemetry.fake_amdsmi import MI300X, FakeAmdGpu, FakeAmdSmi
from tests.telemetry.fake_nvml import FakeNvml


def _amd_machine() -> dict:
    gpus = [
        FakeAmdGpu(uuid=f"e4ff74a1-0000-1000-80ae-{n:012x}", bdf=f"0000:{0x0C + n:02x}:00.0")
        for n in range(2)
    ]
    sources = [
        NvmlSource(FakeNvml(init_error=pynvml.NVMLError_LibraryNotFound)),
        AmdSmiSource(FakeAmdSmi(gpus)),
    ]
    return describe_machine(AutoGpuSource(sources))


def test_the_amd_gpu_torch_ran_on_is_found_in_amd_smis_list_by_uuid() -> None:
    machine = _amd_machine()
    # What torch.cuda.get_device_properties(0) gives on ROCm for the second MI300X (the UUID as hex).
    props = SimpleNamespace(uuid="e4ff74a1-0000-1000-80ae-000000000001", name=MI300X)
    info = DeviceInfo(kind="cuda", index=0, uuid=torch_uuid(props), name=props.name, torch_threads=8)
    found = identify(info, machine["gpus"])
    assert found.nvml_index == 1  # the telemetry index: AMD SMI's, as NVML's is for NVIDIA
    assert found.uuid == "e4ff74a1-0000-1000-80ae-000000000001"


def test_without_a_matching_uuid_identical_amd_gpus_are_matched_in_bus_order() -> None:
    machine = _amd_machine()
    info = DeviceInfo(kind="cuda", index=1, uuid="GPU-unrelated", name=MI300X, torch_threads=8)
    assert identify(info, machine["gpus"]).nvml_index == 1


def test_the_catalogue_knows_the_mi300x_by_the_name_torch_reports() -> None:
    gpu = default_catalog().match_device_name(MI300X)
    assert gpu is not None and gpu.id == "amd-instinct-mi300x"


def test_the_summary_names_the_rocm_build_and_the_amd_gpus() -> None:
    machine = Machine.model_validate(
        _amd_machine()
        | {"torch_version": "2.13.0+rocm6.4", "torch_cuda_version": None, "torch_hip_version": "6.4.43482"}
    )
    report = BenchReport(
        created="2026-12-01T00:00:00+00:00",
        app_version="test",
        machine=machine,
        device=DeviceInfo(kind="cuda", index=0, nvml_index=0, name=MI300X, torch_threads=8),
        duration_s=10.0,
        results=[],
        telemetry=TelemetryRecord(interval_s=0.5, samples=[]),
    )
    line = run_lines(report)[1]
    assert line == "torch 2.13.0+rocm6.4 (ROCm 6.4.43482), 8 threads; 2 AMD GPUs found through AMD SMI"
    assert [g["backend"] for g in report.machine.gpus] == ["amdsmi", "amdsmi"]
