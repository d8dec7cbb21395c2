"""Benchmark results for a report: loaded once with clear errors, worded by gpu_advisor.wording.results."""

from __future__ import annotations

import json

import pytest

from gpu_advisor.bench.loading import load_named
from gpu_advisor.core.files import FileFormatError
from gpu_advisor.wording.results import (
    diagnosis_rows,
    machine_rows,
    metric_text,
    prediction_rows,
    result_rows,
)
from tests.report.samples import bench_results


def test_load_and_describe(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(bench_results(gpu=True)))
    named = load_named(path)
    report = named.report
    assert named.name == "r.json"
    assert len(report.telemetry.samples) == 120
    assert report.device.name == "NVIDIA H100 80GB HBM3"
    rows = dict(machine_rows(report))
    assert rows["GPU 0"].startswith("NVIDIA H100 80GB HBM3, 74.5 GiB, driver 550.54.15")
    comp = prediction_rows(report)
    assert comp[0].workload == "train gpt2-medium (bf16, batch 8, seq 1024)"
    assert (comp[0].step_measured, comp[0].step_predicted, comp[0].step_error) == (
        "198.7 ms",
        "181.0 ms",
        "-9%",
    )
    assert len(comp) == 2  # the out-of-memory run has no prediction to compare
    rows = result_rows(report)
    assert rows[2].status == "oom"
    assert "largest batch that fits: 16" in rows[2].numbers
    assert "41,230 tokens/s" in rows[0].numbers
    assert diagnosis_rows(report)[1].finding.startswith("[info] Memory-bound")


def test_metrics_are_formatted_by_their_unit_suffix():
    assert metric_text("flops_per_s", 1.316e11) == "132 GFLOP/s"
    assert metric_text("bytes_per_s", 1.16e11) == "116 GB/s"
    assert metric_text("mfu", 0.0738) == "MFU 7%"
    assert metric_text("fraction_of_catalogue_peak", 0.52) == "52% of catalogue peak"
    assert metric_text("prefill_s", 0.000472) == "prefill 472 µs"
    assert metric_text("peak_memory_bytes", 2_279_752) == "peak memory 2.2 MiB"
    assert metric_text("final_loss", 6.2334) == "final loss 6.233"
    assert metric_text("tokens_per_s", None) is None


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(schema="gpu-advisor/plan@1"), "schema"),
        (lambda d: d.update(results={}), "results"),
        (lambda d: d["telemetry"]["samples"].__setitem__(3, {"t_s": "soon"}), "telemetry"),
    ],
)
def test_bad_file_names_the_file_and_field(tmp_path, change, field):
    data = bench_results(gpu=False, samples=10)
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FileFormatError) as info:
        load_named(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and field in message
