"""One figure reads the same in every face: the CLI summary, Markdown, Compare and the Monitor's cards."""

from __future__ import annotations

import pytest

from gpu_advisor.bench.compare import compare
from gpu_advisor.bench.results import (
    BenchReport,
    DeviceInfo,
    Machine,
    NamedReport,
    Prediction,
    PredictionCheck,
    Spread,
    TelemetryRecord,
    WorkloadResult,
)
from gpu_advisor.cli.bench import bench_text, compare_text
from gpu_advisor.report.markdown import render_markdown
from gpu_advisor.wording.monitor import cards_for
from tests.report.samples import inference_plan

PEAK_BYTES = 151_200_000  # 144.196 MiB
STEP_S = 0.10792


def _report() -> BenchReport:
    train = WorkloadResult(
        workload="train",
        name="train bench-gpt2-cpu",
        status="ok",
        config={"model": "bench-gpt2-cpu", "precision": "fp32", "batch_size": 4, "seq_len": 128},
        metrics={"tokens_per_s": 4744.4, "mfu": 0.2164, "peak_memory_bytes": PEAK_BYTES},
        timings={"step_time_s": Spread(median=STEP_S, p10=0.102, p90=0.1449, min=0.1, max=0.15, n=14)},
        prediction=Prediction(
            peak_memory_bytes=PredictionCheck.of(159_600_000, PEAK_BYTES),
            step_time_s=PredictionCheck.of(0.584, STEP_S),
        ),
    )
    return BenchReport(
        created="2026-01-01T00:00:00+00:00",
        app_version="test",
        machine=Machine(
            cpu_model="AMD EPYC", physical_cores=2, logical_cores=2, ram_total_bytes=25_276_510_208
        ),
        device=DeviceInfo(kind="cpu", name="AMD EPYC", torch_threads=2),
        duration_s=28.8,
        results=[train],
        telemetry=TelemetryRecord(interval_s=0.5),
    )


@pytest.fixture(scope="module")
def faces() -> dict[str, str]:
    report = _report()
    table = compare([NamedReport("cpu.json", report)])
    cards = cards_for(report.results, "cpu")
    return {
        "cli": bench_text(report),
        "markdown": render_markdown(inference_plan(), [NamedReport("cpu.json", report)]),
        "compare": compare_text(table),
        "cards": "\n".join((cards.step_time, cards.throughput, cards.throughput_detail, cards.peak_memory)),
    }


@pytest.mark.parametrize(
    "figure",
    [
        "144.2 MiB",  # peak memory: binary units everywhere (was 144.2 / 151.2 MB / 144 (MiB))
        "107.9 ms",  # median step time
        "4,744 tokens/s",  # throughput
        "22%",  # MFU
    ],
)
def test_every_face_words_the_figure_the_same(faces, figure):
    for face, text in faces.items():
        assert figure in text, face


def test_prediction_check_reads_the_same_in_the_cli_and_markdown(faces):
    # 152.2 MiB predicted against 144.2 MiB measured: +6%
    for face in ("cli", "markdown"):
        assert "152.2 MiB" in faces[face] and "+6%" in faces[face], face
    assert "+6%" in faces["compare"]  # the memory prediction error row
