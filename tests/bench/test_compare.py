"""Comparing results files: measured numbers next to the catalogue's figures for the same GPU."""

from __future__ import annotations

from gpu_advisor.bench.compare import compare
from gpu_advisor.bench.results import (
    BenchReport,
    DeviceInfo,
    Machine,
    NamedReport,
    Spread,
    TelemetryRecord,
    WorkloadResult,
)
from gpu_advisor.cli.bench import compare_text
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
    comparison = compare([NamedReport("h100.json", _gpu_report()), NamedReport("cpu.json", toy_report)])
    h100 = default_catalog().match_device_name("NVIDIA H100 80GB HBM3")
    assert h100 is not None
    # typed rows: numbers in base units, the catalogue's figure for the same quantity beside them
    matmul = comparison.row("matmul bf16")
    assert matmul.quantity == "flops" and matmul.values[0] == 700e12
    assert matmul.reference == (h100.peak_flops_per_s("bf16"), None)
    assert matmul.lower_is_better is False
    assert comparison.row("catalogue entry").values == (h100.name, None)
    bandwidth = comparison.row("memory bandwidth")
    assert bandwidth.values[0] == 2.8e12 and bandwidth.reference == (h100.bandwidth_bytes_per_s, None)
    train = comparison.row("train throughput")
    assert train.values[0] is None and train.values[1] > 0 and train.unit == "tokens/s"
    assert comparison.row("train step median").lower_is_better is True
    # the same rows, worded for the terminal
    text = compare_text(comparison)
    lines = {line.strip().split("  ")[0]: line for line in text.splitlines()}
    assert text.splitlines()[0].split()[:2] == ["h100.json", "cpu.json"]
    assert "700 TFLOP/s" in lines["matmul bf16"]
    peak = f"{h100.peak_flops_per_s('bf16') / 1e12:,.3g} TFLOP/s"
    assert lines["catalogue bf16 peak"].split()[-3:] == [*peak.split(), "n/a"]
    assert lines["catalogue bf16 peak"].startswith("  catalogue")  # indented under its row
    assert "2.8 TB/s" in lines["memory bandwidth"]
