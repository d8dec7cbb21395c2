"""The GPU check: where there is no GPU it says so in one line; its report holds every path's outcome.

The hardware boundary is faked (NVML from tests/telemetry/fake_nvml.py, a recorded CUDA benchmark);
what runs on a real GPU is the real benchmark, which no CPU machine can exercise.
"""

from __future__ import annotations

import subprocess
import sys

import pynvml
import pytest

from gpu_advisor.bench.doctor import DOCTOR_SCHEMA, NoGpu, run_doctor, write_doctor_report
from gpu_advisor.bench.results import (
    BenchReport,
    DeviceInfo,
    Machine,
    Prediction,
    PredictionCheck,
    TelemetryRecord,
    WorkloadResult,
)
from gpu_advisor.core.files import read_json
from gpu_advisor.telemetry import NvmlSource
from gpu_advisor.wording.doctor import doctor_lines
from tests.telemetry.fake_nvml import FakeGpu, FakeNvml

H100_BF16_PEAK = 989e12  # the catalogue's dense bf16 peak of the H100 SXM


def _result(workload: str, name: str, metrics: dict, **extra) -> WorkloadResult:
    return WorkloadResult(workload=workload, name=name, status="ok", metrics=metrics, **extra)


def recorded_cuda_run(options) -> BenchReport:
    """What `run_benchmark` returned on an H100 (figures shaped like a real run's)."""
    assert options.device == "cuda:0" and options.quick
    memory = Prediction(
        peak_memory_bytes=PredictionCheck.of(20.5e9, 20.0e9), step_time_s=PredictionCheck.of(0.11, 0.1)
    )
    results = [
        _result(
            "matmul",
            "matmul bf16",
            {"flops_per_s": 700e12, "catalogue_peak_flops_per_s": H100_BF16_PEAK},
        ),
        _result("bandwidth", "bandwidth copy", {"bytes_per_s": 2.9e12, "catalogue_bytes_per_s": 3.35e12}),
        _result(
            "transfer", "host-to-device pinned", {"bytes_per_s": 50e9, "catalogue_pcie_bytes_per_s": 63e9}
        ),
        _result("inference", "inference batch 8", {"decode_tokens_per_s": 900.0}, prediction=memory),
        WorkloadResult(workload="train", name="train", status="oom", error="CUDA out of memory"),
    ]
    return BenchReport(
        created="2026-12-01T00:00:00+00:00",
        app_version="test",
        machine=Machine(),
        device=DeviceInfo(kind="cuda", name="NVIDIA H100 80GB HBM3", torch_threads=8, index=0),
        duration_s=95.0,
        results=results,
        telemetry=TelemetryRecord(interval_s=0.5, samples=[]),
    )


def test_no_gpu_is_one_line_before_anything_runs():
    ran = []
    with pytest.raises(NoGpu) as info:
        run_doctor(
            nvml=NvmlSource(FakeNvml(init_error=pynvml.NVMLError_LibraryNotFound)),
            bench=lambda options: ran.append(options),
        )
    assert str(info.value) == "no GPU to check here (NVIDIA driver not found (NVML library missing))"
    assert ran == []


def test_a_gpu_torch_cannot_use_is_named_with_the_fix():
    with pytest.raises(NoGpu, match=r"NVML sees NVIDIA H100 80GB HBM3 but torch cannot use it \(a CPU build"):
        run_doctor(nvml=NvmlSource(FakeNvml([FakeGpu()])), cuda_available=lambda: False)


@pytest.mark.skipif(NvmlSource().open(), reason="this machine has an NVIDIA GPU: the command would check it")
def test_the_command_on_a_machine_without_a_gpu_exits_non_zero_with_one_line(tmp_path):
    target = tmp_path / "doctor.json"
    done = subprocess.run(
        [sys.executable, "-m", "gpu_advisor", "doctor", "--gpu", "--json", str(target)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("gpu-advisor doctor: error: no GPU to check here")
    assert done.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_the_report_says_what_worked_what_failed_and_the_figures(tmp_path):
    gpu = FakeGpu(gpm_supported=True, clock_reasons_mask=0)
    report = run_doctor(
        nvml=NvmlSource(FakeNvml([gpu])), cuda_available=lambda: True, bench=recorded_cuda_run
    )
    status = {c.name: c.status for c in report.checks}
    assert status["NVML power"] == status["throttle reasons"] == status["MIG mode"] == "ok"
    assert status["GPM metrics"] == "ok"
    assert status["matmul TFLOP/s (CUDA events)"] == status["pinned host-to-device transfer"] == "ok"
    assert status["peak memory, predicted against measured"] == "ok"
    by_name = {c.name: c for c in report.checks}
    assert by_name["matmul TFLOP/s (CUDA events)"].figures["fraction_of_reference"] == pytest.approx(
        700 / 989
    )
    assert by_name["peak memory, predicted against measured"].figures["error_pct"] == pytest.approx(2.5)
    path = tmp_path / "doctor.json"
    write_doctor_report(report, path)
    data = read_json(path, DOCTOR_SCHEMA)
    assert data["gpu"] == "NVIDIA H100 80GB HBM3" and len(data["checks"]) == len(report.checks)
    text = "\n".join(doctor_lines(report))
    assert "matmul bf16 (700 TFLOP/s; catalogue peak 989 TFLOP/s; 71% of the catalogue)" in text
    assert "decode 900 tokens/s" in text and "predicted 19.1 GiB; error +2%" in text
    assert text.endswith(f"{len(report.checks)} of {len(report.checks)} paths worked, 0 failed")


def test_a_path_that_fails_is_a_failed_row_not_an_end():
    def broken(options):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    report = run_doctor(
        nvml=NvmlSource(FakeNvml([FakeGpu(gpm_supported=False)])), cuda_available=lambda: True, bench=broken
    )
    rows = {c.name: c for c in report.checks}
    assert rows["GPM metrics"].status == "skipped" and "Hopper" in rows["GPM metrics"].detail
    assert (
        rows["benchmark on CUDA"].status == "failed"
        and "illegal memory access" in rows["benchmark on CUDA"].detail
    )
    assert rows["NVML power"].status == "ok"
    assert "FAILED   benchmark on CUDA" in "\n".join(doctor_lines(report))


def test_plain_doctor_says_what_this_machine_offers_and_what_dash_dash_gpu_needs(capsys):
    from gpu_advisor.cli import run_cli

    assert run_cli(["doctor"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("machine: ")
    torch_line = next(line for line in lines if line.startswith("torch: "))
    assert torch_line.endswith(("GPU usable through torch.cuda)", "no GPU usable through torch.cuda)"))
    assert "doctor --gpu" in lines[-1]


# ---- AMD GPUs ----------------------------------------------------------------------------------------


def _amd_machine(gpu=None):
    from gpu_advisor.telemetry import AmdSmiSource, AutoGpuSource
    from tests.telemetry.fake_amdsmi import FakeAmdGpu, FakeAmdSmi

    return AutoGpuSource(
        [
            NvmlSource(FakeNvml(init_error=pynvml.NVMLError_LibraryNotFound)),
            AmdSmiSource(FakeAmdSmi([gpu or FakeAmdGpu()])),
        ]
    )


def test_on_an_amd_machine_the_report_reads_amd_smi_and_skips_what_only_nvidia_has():
    from tests.telemetry.fake_amdsmi import FakeAmdGpu

    report = run_doctor(
        nvml=_amd_machine(FakeAmdGpu(violations={"active_ppt_pwr": True})),
        cuda_available=lambda: True,
        bench=recorded_cuda_run,
    )
    rows = {c.name: c for c in report.checks}
    assert report.gpu == "AMD Instinct MI300X" and report.library == "AMD SMI"
    assert rows["AMD SMI power"].status == "ok" and rows["AMD SMI power"].figures == {"power_w": 702.0}
    assert rows["AMD SMI temperature"].figures == {"temperature_c": 78.0}
    assert rows["throttle reasons"].detail == "ppt_power"
    assert rows["GPM metrics"].status == rows["MIG mode"].status == "skipped"
    assert report.to_json_dict()["library"] == "AMD SMI"
    assert not report.failed


def test_an_amd_gpu_with_a_torch_that_cannot_use_it_points_at_the_rocm_build():
    with pytest.raises(NoGpu) as info:
        run_doctor(nvml=_amd_machine(), cuda_available=lambda: False, bench=lambda options: None)
    assert str(info.value).startswith("AMD SMI sees AMD Instinct MI300X but torch cannot use it")
    assert "install PyTorch's ROCm build (README, AMD GPUs)" in str(info.value)
