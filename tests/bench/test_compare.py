"""Comparing results files: measured numbers next to the catalogue's figures for the same GPU."""

from __future__ import annotations

from gpu_advisor.bench.compare import compare
from gpu_advisor.bench.results import (
    BenchReport,
    DeviceInfo,
    Machine,
    Spread,
    TelemetryRecord,
    WorkloadResult,
)
from gpu_advisor.core.catalog import default_catalog


def _gpu_report() -> BenchReport:
    timing = Spread(median=1e-3, p10=1e-3, p90=1e-3, min=1e-3, max=1e-3, n=10)
    return BenchReport(
        created="2026-01-01T00:00:00+00:00",
        app_version="test",
        machine=Machine(cpu_model="Xeon", physical_cores=32, torch_version="2.13.0"),
        device=DeviceInfo(kind="cuda", index=0, name="NVIDIA H100 80GB HBM3", torch_threads=16),
        duration_s=60.0,
        results=[
            WorkloadResult(
                workload="matmul",
                name="matmul bf16",
                status="ok",
                config={"dtype": "bf16", "n": 8192},
                metrics={"flops_per_s": 700e12},
                timings={"step_time_s": timing},
            ),
            WorkloadResult(
                workload="bandwidth", name="bandwidth copy", status="ok", metrics={"bytes_per_s": 2.8e12}
            ),
        ],
        telemetry=TelemetryRecord(interval_s=0.5),
    )


def test_gpu_results_sit_next_to_the_catalogue_figures(toy_report):
    table = compare([("h100.json", _gpu_report()), ("cpu.json", toy_report)])
    rows = {row[0]: row[1:] for row in table.rows}
    h100 = default_catalog().match_device_name("NVIDIA H100 80GB HBM3")
    assert h100 is not None
    assert rows["matmul bf16 (TFLOP/s)"][0] == "700"
    assert rows["  catalogue bf16 peak (TFLOP/s)"] == (f"{h100.peak_flops_per_s('bf16') / 1e12:,.3g}", "n/a")
    assert rows["catalogue entry"] == (h100.name, "n/a")
    assert rows["memory bandwidth (GB/s)"][0] == "2,800.0"
    assert rows["train tokens/s"][0] == "n/a" and rows["train tokens/s"][1] != "n/a"
    text = table.render()
    assert text.splitlines()[0].split() == ["h100.json", "cpu.json"]
