"""Machine description for benchmark files and the status bar."""

from __future__ import annotations

import json
import platform
from pathlib import Path

import psutil
import pynvml

from gpu_advisor.telemetry import NvmlSource, describe_machine, hardware_summary
from gpu_advisor.telemetry.machine import cpu_model
from tests.telemetry.fake_nvml import GIB, FakeGpu, FakeNvml


def test_real_machine_description_is_complete_json() -> None:
    machine = describe_machine()
    data = json.loads(json.dumps(machine))
    for key in ("cpu_model", "physical_cores", "logical_cores", "ram_total_bytes", "os", "python_version"):
        assert key in data
    assert data["logical_cores"] == psutil.cpu_count()
    assert isinstance(data["ram_total_bytes"], int) and data["ram_total_bytes"] > 0
    assert isinstance(data["gpus"], list)
    if not data["gpus"]:
        assert data["gpu_status"].startswith("No NVIDIA GPU: CPU mode (")
    assert "torch_version" not in data  # the bench layer adds it


def test_gpus_from_nvml_with_versions() -> None:
    source = NvmlSource(nvml_module=FakeNvml([FakeGpu(), FakeGpu()]))
    machine = describe_machine(source)
    assert source.available  # the caller's source is opened and left open
    assert len(machine["gpus"]) == 2
    gpu = machine["gpus"][0]
    assert gpu["name"] == "NVIDIA H100 80GB HBM3"
    assert gpu["memory_total_bytes"] == 80 * GIB
    assert (gpu["driver_version"], gpu["nvml_version"], gpu["cuda_driver_version"]) == (
        "550.54.15",
        "12.550.54.15",
        "12.4",
    )
    assert machine["gpu_status"] == "2 NVIDIA GPUs found through NVML"
    assert hardware_summary(machine) == "2 x NVIDIA H100 80GB HBM3, driver 550.54.15"


def test_mixed_gpus_are_counted_per_model() -> None:
    machine = describe_machine(NvmlSource(nvml_module=FakeNvml([FakeGpu(), FakeGpu(name="NVIDIA L4")])))
    assert hardware_summary(machine) == "1 x NVIDIA H100 80GB HBM3, 1 x NVIDIA L4, driver 550.54.15"


def test_no_driver_means_cpu_mode_with_the_reason() -> None:
    source = NvmlSource(nvml_module=FakeNvml(init_error=pynvml.NVMLError_DriverNotLoaded))
    machine = describe_machine(source)
    assert machine["gpus"] == []
    assert machine["gpu_status"] == "No NVIDIA GPU: CPU mode (NVML: driver not loaded)"
    machine.update(cpu_model="AMD EPYC 7B13", physical_cores=2, logical_cores=2)
    assert hardware_summary(machine) == "No NVIDIA GPU: CPU mode (AMD EPYC 7B13, 2 cores)"
    machine.update(physical_cores=8, logical_cores=16)
    assert hardware_summary(machine) == "No NVIDIA GPU: CPU mode (AMD EPYC 7B13, 8 cores / 16 threads)"


def test_driver_without_gpus_is_cpu_mode() -> None:
    machine = describe_machine(NvmlSource(nvml_module=FakeNvml([])))
    assert machine["gpu_status"] == "No NVIDIA GPU: CPU mode (the NVIDIA driver reports no GPU)"


def test_cpu_model_from_cpuinfo(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13 64-Core Processor\n"
    )
    assert cpu_model(cpuinfo) == "AMD EPYC 7B13 64-Core Processor"
    # Without /proc/cpuinfo (macOS, Windows) the platform module answers.
    assert cpu_model(tmp_path / "missing") == (platform.processor() or platform.machine() or None)
