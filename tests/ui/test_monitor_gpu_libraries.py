"""The Monitor on GPU machines: two H100s through the mock NVML library and the real nvidia-ml-py (the
whole window in a child process), and an MI300X through AMD SMI (a fake amdsmi, in this process)."""

from __future__ import annotations

import os

import pynvml
import pytest

from gpu_advisor.telemetry import AmdSmiSource, AutoGpuSource, NvmlSource, describe_machine
from gpu_advisor.ui.main_window import MainWindow
from gpu_advisor.ui.monitor.backend import BenchBackend
from tests.nvml_mock.harness import MockNvml, load_scenario
from tests.telemetry.fake_amdsmi import MI300X, FakeAmdGpu, FakeAmdSmi, amd_process
from tests.telemetry.fake_nvml import FakeNvml


@pytest.mark.slow
def test_the_monitor_lists_both_h100s_watches_each_through_nvml_and_shows_its_processes(
    nvml_mock: MockNvml,
) -> None:
    scenario = load_scenario("two_h100")
    scenario["devices"][0]["processes"] = [
        {"pid": os.getpid(), "used_memory_bytes": 60129542144, "sm_util_percent": 85}
    ]
    out = nvml_mock.probe(scenario, "monitor_window")
    assert out["hardware"] == "2 x NVIDIA H100 80GB HBM3, driver 550.54.15"
    assert out["devices"][:2] == ["GPU 0: NVIDIA H100 80GB HBM3", "GPU 1: NVIDIA H100 80GB HBM3"]
    assert out["devices"][2].startswith("CPU: ")
    assert out["banners"][:2] == [
        "Watching GPU 0: NVIDIA H100 80GB HBM3 through NVML.",
        "Watching GPU 1: NVIDIA H100 80GB HBM3 through NVML.",
    ]
    ((pid, name, _cpu, _rss, gpu_memory, sm),) = out["process_rows"]
    assert (pid, gpu_memory, sm) == (str(os.getpid()), "56 GiB", "85%")
    assert name.startswith("python")


def test_the_monitor_watches_an_amd_gpu_through_amd_smi_and_lists_its_processes(qtbot) -> None:
    amd = FakeAmdSmi([FakeAmdGpu(processes=[amd_process(os.getpid(), 120 * 1024**3)])])
    sources = [NvmlSource(FakeNvml(init_error=pynvml.NVMLError_LibraryNotFound)), AmdSmiSource(amd)]
    backend = BenchBackend(toy=True, nvml=AutoGpuSource(sources))
    backend._machine = describe_machine(AutoGpuSource(sources))
    backend._nvml = backend.nvml  # the process list's session: the same fake
    backend._nvml.open()
    window = MainWindow(backend=backend)
    qtbot.addWidget(window)
    panel = window.monitor
    assert panel.device_combo.itemText(0) == f"GPU 0: {MI300X}"
    panel.device_combo.setCurrentIndex(0)
    assert panel.mode_banner.text() == f"Watching GPU 0: {MI300X} through AMD SMI."
    panel.processes.refresh()
    assert panel.processes.rowCount() == 1
    assert panel.processes.item(0, 0).text() == str(os.getpid())
    assert panel.processes.item(0, 4).text() == "120 GiB"
    window.close()
