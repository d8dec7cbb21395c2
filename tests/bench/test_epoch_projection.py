"""`bench --dataset-samples N --seq-len S`: one epoch at the measured training speed."""

from __future__ import annotations

import pytest

from gpu_advisor.bench.epochs import project_epoch
from gpu_advisor.cli import run_cli
from gpu_advisor.wording.results import epoch_projection_text


def test_time_per_epoch_is_the_datasets_tokens_over_the_measured_tokens_per_second(toy_report):
    (train,) = [r for r in toy_report.result("train") if r.status == "ok"][-1:]
    projection = project_epoch(toy_report, dataset_samples=10_000, seq_len=512)
    assert projection.time_per_epoch_s == pytest.approx(10_000 * 512 / train.metrics["tokens_per_s"])
    assert projection.measured_seq_len == train.config["seq_len"]
    text = epoch_projection_text(projection)
    assert text.startswith("Projected time per epoch: 10,000 samples × 512 tokens at ")
    assert "input pipeline included" in text


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--dataset-samples", "100"], "--dataset-samples: give it with --seq-len (tokens per sample)"),
        (["--dataset-samples", "0", "--seq-len", "128"], "--dataset-samples: must be at least 1"),
    ],
)
def test_bad_dataset_flags_are_one_line(capsys, flags, message):
    assert run_cli(["bench", "--device", "cpu", *flags]) == 2
    assert capsys.readouterr().err == f"gpu-advisor bench: error: {message}\n"
