"""The Monitor's run list, its live rate unit, and the self-check's framing on a CPU (no Qt)."""

from __future__ import annotations

import json

from gpu_advisor.bench.loading import load_named
from gpu_advisor.wording.checklist import checklist, live_rate_unit, stopped_text
from gpu_advisor.wording.monitor import cards_for
from gpu_advisor.wording.results import prediction_caveat, prediction_rows
from tests.report.samples import bench_results
from tests.ui.conftest import make_train_result

PLANNED = [("matmul", "Matrix multiply"), ("train", "Training step"), ("inference", "Inference")]


def test_a_stopped_run_lists_what_it_did_and_what_it_never_ran():
    done = make_train_result()
    lines = checklist(PLANNED, [done], None, finished=True)
    assert [(line.label, line.status) for line in lines] == [
        ("Matrix multiply", "skipped"),
        ("train bench-gpt2-test", "ok"),
        ("Inference", "skipped"),
    ]
    assert lines[1].cells()[1:5] == (
        "✓ done",
        "250.0 ms",
        "1,234 tokens/s, MFU 31%, peak memory 2.8 GiB",
        "2.8 GiB",
    )
    assert lines[1].verdict == "Compute-bound"


def test_a_workload_still_running_shows_its_finished_variants_and_a_running_line():
    lines = checklist(PLANNED, [make_train_result()], "train")
    assert [line.status for line in lines] == ["waiting", "ok", "running", "waiting"]
    stopped = checklist(PLANNED, [make_train_result(status="cancelled")], "train", finished=True)
    assert [line.status for line in stopped] == ["skipped", "cancelled", "skipped"]


def test_stopped_text_says_how_far_the_run_got():
    assert stopped_text(0.36, 42.0) == "Stopped at 36% after 42.0 s"
    assert stopped_text(None, 0.5) == "Stopped after 500.0 ms"


def test_a_cpu_matmul_plots_in_gflops_and_a_gpu_in_tflops():
    assert live_rate_unit("flops_per_s", 1.3e11) == ("GFLOP/s", 1e9)
    assert live_rate_unit("flops_per_s", 7e14) == ("TFLOP/s", 1e12)
    assert live_rate_unit("bytes_per_s", 4.2e8) == ("MB/s", 1e6)
    assert live_rate_unit("tokens_per_s", 665.0) == ("tokens/s", 1.0)


def test_on_a_cpu_memory_leads_and_step_time_is_marked_not_for_a_gpu_plan(tmp_path):
    cards = cards_for([make_train_result()], "cpu")
    assert cards.prediction == "memory -3%"
    assert "not meaningful for a GPU plan" in cards.prediction_detail
    assert cards_for([make_train_result()], "cuda").prediction == "memory -3%, time -20%"
    path = tmp_path / "cpu.json"
    data = bench_results(gpu=False)
    path.write_text(json.dumps(data))
    report = load_named(path).report
    assert "not meaningful for a GPU plan" in prediction_caveat(report)
    assert all(row.step_error.endswith("(CPU only)") for row in prediction_rows(report))
    gpu = tmp_path / "gpu.json"
    gpu.write_text(json.dumps(bench_results(gpu=True)))
    assert prediction_caveat(load_named(gpu).report) == ""


def test_a_benchmark_of_another_device_is_never_quoted_as_the_plans_gpus_speed(tmp_path):
    from gpu_advisor.wording.results import attached_line

    cpu = tmp_path / "cpu.json"
    cpu.write_text(json.dumps(bench_results(gpu=False)))
    line = attached_line("cpu.json", load_named(cpu).report, "AMD Instinct MI300X", "amd-mi300x")
    assert "ran on" in line and "not the speed of the recommended AMD Instinct MI300X" in line
    assert "peak memory" in line and "per step" not in line
    gpu = tmp_path / "h100.json"
    gpu.write_text(json.dumps(bench_results(gpu=True)))
    report = load_named(gpu).report
    assert "not the speed" in attached_line("h100.json", report, "AMD Instinct MI300X", "amd-mi300x")
    same = attached_line("h100.json", report, report.device.name, report.device.catalogue_id or "x")
    assert same.startswith("Benchmark attached (h100.json, NVIDIA H100") and "step" in same
