"""The plan command's training-stack flags change what a user reads: the pipeline schedule sets the
bubble, the LoRA rank and targets set the adapters' memory."""

from __future__ import annotations

import json

from gpu_advisor.cli import run_cli

PIPELINE = [
    "plan",
    "--model",
    "llama-3-70b",
    "--task",
    "pretrain",
    "--gpu",
    "nvidia-h100-sxm",
    "--gpus",
    "32",
]
PIPELINE += ["--tp", "8", "--pp", "4", "--grad-accum", "8", "--grad-checkpointing", "--json"]


def _option(capsys, argv: list[str]) -> dict:
    assert run_cli(argv) == 0
    return json.loads(capsys.readouterr().out)["options"][0]


def test_plain_1f1b_idles_the_pipeline_longer_than_the_interleaved_schedule(capsys):
    interleaved = _option(capsys, PIPELINE)
    plain = _option(capsys, [*PIPELINE, "--pipeline-schedule", "1f1b"])
    # pp 4 with 8 micro-batches: plain 1F1B idles 3 micro-batch times, interleaved 3 / v of one.
    assert plain["step_time_s"] > 1.2 * interleaved["step_time_s"]
    assert plain["tokens_per_s"] < interleaved["tokens_per_s"]
    assert plain["parallelism"] == interleaved["parallelism"]


def test_lora_rank_and_targets_grow_the_adapters_memory(capsys):
    base = ["plan", "--model", "llama-3-8b", "--task", "lora", "--gpu", "nvidia-a100-sxm-80gb", "--json"]
    default = _option(capsys, base)
    wide = _option(capsys, [*base, "--lora-rank", "64", "--lora-targets", "all-linear"])
    assert wide["per_gpu_bytes"] > default["per_gpu_bytes"]


def test_a_bad_lora_rank_names_its_flag(capsys):
    assert run_cli(["plan", "--model", "llama-3-8b", "--task", "lora", "--lora-rank", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--lora-rank" in err


def test_megatron_deepspeed_trains_slower_and_says_why(capsys):
    base = ["plan", "--model", "llama-3-8b", "--task", "pretrain", "--gpu", "nvidia-a100-sxm-80gb"]
    base += ["--gpus", "8", "--json"]
    default = _option(capsys, base)
    stack = _option(capsys, [*base, "--framework", "megatron-deepspeed"])
    assert stack["tokens_per_s"] < 0.8 * default["tokens_per_s"]
    assert "Megatron-DeepSpeed" in json.dumps(stack)


def test_the_framework_leaves_serving_alone(capsys):
    base = ["plan", "--model", "llama-3-8b", "--gpu", "nvidia-h100-sxm", "--json"]
    assert _option(capsys, base) == _option(capsys, [*base, "--framework", "megatron-deepspeed"])
