"""Training over a dataset for a number of epochs: time per epoch and total time, and the field errors."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from gpu_advisor.cli import run_cli
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest


def _request(**fields) -> PlanRequest:
    return PlanRequest(model=get_preset("llama-2-7b"), task="lora", gpu="h100-sxm", seq_len=2048, **fields)


def test_time_per_epoch_is_the_datasets_tokens_over_tokens_per_second():
    # 10,000 samples of 2,048 tokens: 20.48 M tokens a pass, three passes
    result = plan(_request(dataset_samples=10_000, epochs=3))
    best = result.options[0].speed
    assert best.time_per_epoch_s == pytest.approx(10_000 * 2048 / best.tokens_per_s)
    assert best.time_to_train_s == pytest.approx(3 * best.time_per_epoch_s)
    assert best.epochs == 3
    # the same job given as a token budget trains at the same speed for the same time
    budget = plan(_request(train_tokens=3 * 10_000 * 2048)).options[0].speed
    assert budget.tokens_per_s == pytest.approx(best.tokens_per_s)
    assert budget.time_to_train_s == pytest.approx(best.time_to_train_s)
    assert budget.time_per_epoch_s is None


def test_dataset_tokens_with_one_epoch_by_default():
    best = plan(_request(dataset_tokens=5e8)).options[0].speed
    assert best.epochs == 1
    assert best.time_per_epoch_s == pytest.approx(5e8 / best.tokens_per_s)
    assert best.time_to_train_s == pytest.approx(best.time_per_epoch_s)


def test_plan_json_has_time_per_epoch_and_epochs(capsys):
    args = ["plan", "--model", "llama-2-7b", "--task", "lora", "--json", "--seq-len", "1024"]
    assert run_cli([*args, "--dataset-samples", "2000", "--epochs", "2"]) == 0
    options = json.loads(capsys.readouterr().out)["options"]
    for option in options:
        assert option["epochs"] == 2
        assert option["time_per_epoch_s"] == pytest.approx(2000 * 1024 / option["tokens_per_s"])
    assert run_cli(args) == 0
    without = json.loads(capsys.readouterr().out)["options"][0]
    assert without["time_per_epoch_s"] is None and without["epochs"] is None


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--dataset-samples", "0"], "--dataset-samples: at least 1 sample"),
        (["--dataset-tokens", "-5"], "--dataset-tokens: more than 0"),
        (["--epochs", "0", "--dataset-tokens", "1e6"], "--epochs: more than 0"),
        (["--dataset-tokens", "1e6", "--train-tokens", "1e9"], "--train-tokens: give a token budget or"),
        (["--dataset-tokens", "1e6", "--dataset-samples", "10"], "--dataset-samples: give the dataset as"),
        (["--epochs", "2"], "--epochs: give the dataset's size"),
    ],
)
def test_bad_combinations_are_one_line_naming_the_flag(capsys, flags, message):
    assert run_cli(["plan", "--model", "llama-2-7b", "--task", "lora", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gpu-advisor plan: error: {message}") and err.count("\n") == 1


def test_a_dataset_for_inference_is_refused():
    with pytest.raises(ValidationError, match="dataset_tokens: a dataset applies to training"):
        PlanRequest(model=get_preset("llama-2-7b"), task="inference", dataset_tokens=1e6)
