"""`gpu-advisor doctor` and `gpu-advisor monitor` on machines the mock NVML library makes up: what a
user sees in the terminal and in the results file, read through the real nvidia-ml-py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.nvml_mock.harness import MockNvml, load_scenario
from tests.nvml_mock.scenario_builders import (
    GIB,
    H100_MEMORY_BYTES,
    SW_POWER_CAP,
    SW_THERMAL,
    gpu,
    machine,
    uuid,
)

pytestmark = pytest.mark.slow  # child processes


def _monitor(nvml_mock: MockNvml, scenario: dict, tmp_path: Path, seconds: float) -> tuple[dict, str]:
    target = tmp_path / "monitor.json"
    done = nvml_mock.command(
        scenario, "monitor", "--interval", "0.2", "--json", str(target), "--", "sleep", str(seconds)
    )
    assert done.returncode == 0, done.stderr
    return json.loads(target.read_text(encoding="utf-8")), done.stderr  # stdout is the command's


def test_doctor_names_each_gpu_with_its_memory_uuid_and_pci_address(nvml_mock: MockNvml) -> None:
    scenario = load_scenario("two_h100")
    done = nvml_mock.command(scenario, "doctor")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "machine: 2 x NVIDIA H100 80GB HBM3, driver 550.54.15"
    assert lines[1] == "gpus (through NVML, driver 550.54.15, CUDA 12.4):"
    for index, device in enumerate(scenario["devices"]):
        assert lines[2 + index] == (
            f"  GPU {index}: NVIDIA H100 80GB HBM3, 79.6 GiB, limit 700 W, {device['uuid']}, "
            f"PCI {device['pci_bus_id']}"
        )
    assert lines[-1].startswith("next: `gpu-advisor doctor --gpu` checks every GPU-only path")


def test_doctor_gpu_with_a_torch_that_cannot_use_the_gpu_says_so_in_one_line(
    nvml_mock: MockNvml, tmp_path: Path
) -> None:
    """torch here is a CPU build (or absent, in the headless job): NVML sees the GPU, CUDA cannot."""
    target = tmp_path / "doctor.json"
    done = nvml_mock.command(load_scenario("two_h100"), "doctor", "--gpu", "--json", str(target))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "gpu-advisor doctor: error: NVML sees NVIDIA H100 80GB HBM3 but torch cannot use it (a CPU build "
        "of torch, or CUDA_VISIBLE_DEVICES hides it): reinstall with ./install.sh on this machine\n"
    )
    assert not target.exists()


def test_monitor_json_records_each_gpus_own_figures(nvml_mock: MockNvml, tmp_path: Path) -> None:
    """The issue's two H100s: one at 87 % and 612 W, one at 12 % and 98 W."""
    scenario = load_scenario("two_h100")
    target = tmp_path / "two.json"
    done = nvml_mock.command(scenario, "monitor", "--json", str(target), "--", "sleep", "3")
    assert done.returncode == 0, done.stderr
    report = json.loads(target.read_text(encoding="utf-8"))
    samples = report["telemetry"]["samples"]
    assert len(samples) >= 2
    want = [
        (d["uuid"], d["utilization_gpu_percent"], d["power_mw"] / 1000, d["memory_used_bytes"])
        for d in scenario["devices"]
    ]
    for sample in samples:
        got = [(g["uuid"], g["gpu_util_pct"], g["power_w"], g["memory_used_bytes"]) for g in sample["gpus"]]
        assert got == want
    assert [g["uuid"] for g in report["machine"]["gpus"]] == [d["uuid"] for d in scenario["devices"]]
    assert report["machine"]["gpu_status"] == "2 NVIDIA GPUs found through NVML"
    assert "GPU 0 NVIDIA H100 80GB HBM3: util 87% / 87% / 87%" in done.stderr  # the summary
    assert "GPU 1 NVIDIA H100 80GB HBM3: util 12% / 12% / 12%" in done.stderr
    # GPU 1 is nearly idle but not idle: the low-utilisation verdict is GPU 0's and GPU 1's mean
    kinds = [v["kind"] for v in report["diagnosis"]]
    assert "idle_gpu" not in kinds and "gpu_lost" not in kinds


def test_monitor_diagnoses_heat_the_power_cap_full_memory_and_an_idle_gpu(
    nvml_mock: MockNvml, tmp_path: Path
) -> None:
    scenario = machine(
        gpu(0, throttle_reasons=SW_THERMAL, temperature_c=91, memory_used_bytes=H100_MEMORY_BYTES - 2 * GIB),
        gpu(1, throttle_reasons=SW_POWER_CAP, power_mw=699_000),
        gpu(2, utilization_gpu_percent=0, utilization_memory_percent=0, power_mw=70_000, memory_used_bytes=0),
    )
    report, summary = _monitor(nvml_mock, scenario, tmp_path, seconds=1.5)
    verdicts = {(v["kind"], int(v["evidence"].get("nvml_index", -1))): v for v in report["diagnosis"]}
    thermal = verdicts[("throttled", 0)]
    assert thermal["severity"] == "warning" and thermal["title"].startswith("Thermally throttled: GPU 0")
    assert "peak 91 °C" in thermal["evidence"]["summary"]
    assert verdicts[("throttled", 1)]["title"].startswith("Power-limited: GPU 1")
    full = verdicts[("memory_nearly_full", 0)]
    assert full["severity"] == "warning" and "77.6 of 79.6 GiB (97%)" in full["evidence"]["summary"]
    idle = verdicts[("idle_gpu", 2)]
    assert idle["title"] == "GPU 2 (NVIDIA H100 80GB HBM3) stayed idle while GPU 0, GPU 1 worked"
    assert ("idle_gpu", 0) not in verdicts and ("memory_nearly_full", 1) not in verdicts
    assert "Memory nearly full: GPU 0" in summary and "stayed idle" in summary


def test_a_gpu_lost_mid_run_leaves_the_run_going_and_the_report_says_so(
    nvml_mock: MockNvml, tmp_path: Path
) -> None:
    scenario = machine(gpu(0), gpu(1, lost_after_s=1.0))
    report, summary = _monitor(nvml_mock, scenario, tmp_path, seconds=2.5)
    assert report["exit_code"] == 0 and report["interrupted"] is None
    samples = report["telemetry"]["samples"]
    assert all(s["gpus"][0]["error"] is None and s["gpus"][0]["power_w"] == 500.0 for s in samples)
    last = samples[-1]["gpus"][1]
    assert last["error"] == "GPU lost: GPU is lost" and last["uuid"] == uuid(1)
    assert report["machine"]["gpus"][1]["error"] is None  # it was there when the run began
    lost = next(v for v in report["diagnosis"] if v["kind"] == "gpu_lost")
    assert lost["severity"] == "critical" and lost["evidence"]["nvml_index"] == 1
    assert (
        lost["title"]
        == "GPU 1 (NVIDIA H100 80GB HBM3) stopped answering during the run: its later figures are missing"
    )
    assert "GPU lost: GPU is lost" in lost["evidence"]["summary"]
    assert "[critical] GPU 1 (NVIDIA H100 80GB HBM3) stopped answering" in summary
