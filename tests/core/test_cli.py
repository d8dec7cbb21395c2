"""`gpu-advisor plan` and `catalog`: output contracts and exit code 2 with a one-line message."""

import json

import pytest

from gpu_advisor.cli import run_cli


def test_plan_prints_a_table_with_the_recommendation(capsys):
    assert run_cli(["plan", "--model", "llama-3-8b", "--users", "4"]) == 0
    out = capsys.readouterr().out
    assert "Recommendation:" in out and "Options (best first, by rent per hour):" in out and "GiB" in out


def test_plan_json_is_one_object_with_the_schema(capsys):
    assert run_cli(["plan", "--model", "llama-2-7b", "--task", "lora", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "gpu-advisor/plan@1"
    assert data["inputs"]["task"] == "lora"
    assert all("per_gpu_components" in o for o in data["options"])


def test_tp_and_pp_fix_the_layout_and_training_options_carry_mfu_and_hfu(capsys):
    argv = [
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
    argv += [
        "--tp",
        "8",
        "--pp",
        "2",
        "--grad-accum",
        "8",
        "--grad-checkpointing",
        "--loss",
        "chunked",
        "--json",
    ]
    assert run_cli(argv) == 0
    option = json.loads(capsys.readouterr().out)["options"][0]
    assert option["parallelism"] == {
        "tensor": 8,
        "pipeline": 2,
        "data": 2,
        "zero_stage": option["parallelism"]["zero_stage"],
    }
    assert 0 < option["mfu"] < option["hfu"] < 1


def test_engine_flag_changes_the_decode_speed(capsys):
    speeds = {}
    for engine in ("tensorrt-llm", "hf-generate"):
        argv = [
            "plan",
            "--model",
            "llama-3-8b",
            "--gpu",
            "nvidia-a100-sxm-80gb",
            "--engine",
            engine,
            "--json",
        ]
        assert run_cli(argv) == 0
        speeds[engine] = json.loads(capsys.readouterr().out)["options"][0]["tokens_per_s_per_user"]
    assert speeds["tensorrt-llm"] > 2 * speeds["hf-generate"]


def test_all_contract_flags_are_accepted(capsys, tmp_path):
    args = [
        "plan",
        "--params",
        "13B",
        "--task",
        "pretrain",
        "--precision",
        "bf16",
        "--optimizer",
        "adamw-8bit",
        "--seq-len",
        "4096",
        "--batch-size",
        "2",
        "--grad-checkpointing",
        "--zero",
        "2",
        "--gpus",
        "8",
        "--train-tokens",
        "1e9",
        "--max-hours",
        "100",
        "--tier",
        "datacenter",
        "--hours-per-month",
        "200",
        "--electricity-usd-per-kwh",
        "0.3",
        "--json",
    ]
    assert run_cli(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"]["gpus"] == 8 and data["inputs"]["zero_stage"] == 2
    assert all(o["count"] == 8 for o in data["options"])
    assert any("guessed" in w for w in data["warnings"])


def test_inference_flags_and_gpu_restriction(capsys):
    args = [
        "plan",
        "--model",
        "llama-3-70b",
        "--users",
        "16",
        "--prompt-tokens",
        "1000",
        "--output-tokens",
        "200",
        "--tokens-per-s",
        "10",
        "--gpu",
        "H100 SXM",
        "--json",
    ]
    assert run_cli(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert [o["gpu"] for o in data["options"]] == ["NVIDIA H100 SXM"]


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--model", "nope"], "model"),
        (["--model", "llama-3-8b", "--batch-size", "-1"], "--batch-size"),
        (["--model", "llama-3-8b", "--users", "0"], "--users"),
        (["--model", "llama-3-8b", "--seq-len", "0"], "--seq-len"),
        (["--params", "7Q"], "params"),
        (["--params", "1e15"], "params"),
        (["--model", "llama-3-8b", "--gpu", "voodoo 5"], "--gpu"),
        (["--model", "llama-3-8b", "--task", "pretrain", "--precision", "int4"], "precision"),
        (["--model", "llama-3-8b", "--mfu", "1.5"], "--mfu"),
        (["--config", "/nonexistent/config.json"], "config.json"),
        (["--model", "llama-3-8b", "--tp", "3"], "--tp"),
        (["--model", "llama-3-8b", "--gpus", "6", "--tp", "4"], "--gpus"),
        (["--model", "llama-3-8b", "--engine", "llama.cpp", "--precision", "fp8"], "--precision"),
        (["--model", "llama-3-8b", "--grad-accum", "0"], "--grad-accum"),
        # An MFU of 1e-300 made every training time infinite and the JSON unwritable.
        (["--model", "llama-3-8b", "--task", "pretrain", "--mfu", "1e-300"], "--mfu"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_field(capsys, args, field):
    assert run_cli(["plan", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err and field in err


def test_a_gpu_of_another_tier_is_planned_with_the_warning_the_app_shows(capsys):
    # --gpu used to drop a contradicting --tier without a word; then the CLI refused what the app
    # accepts. One policy: the GPU named wins, and every face says the tier was ignored.
    args = ["--model", "llama-3-8b", "--tier", "consumer", "--gpu", "h100-sxm"]
    assert run_cli(["plan", *args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["recommendation"]["gpu_id"] == "nvidia-h100-sxm"
    assert any("not a consumer GPU: the tier choice is ignored" in w for w in data["warnings"])
    assert run_cli(["plan", *args]) == 0
    assert "the tier choice is ignored" in capsys.readouterr().out


def test_unknown_task_or_precision_exits_2(capsys):
    for args in (["--task", "dance"], ["--precision", "fp4"]):
        with pytest.raises(SystemExit) as info:
            run_cli(["plan", "--model", "gpt2-small", *args])
        assert info.value.code == 2


def test_malformed_config_json_exits_2(tmp_path, capsys):
    bad = tmp_path / "config.json"
    bad.write_text(
        '{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,'
        ' "num_attention_heads": 33, "intermediate_size": 11008, "vocab_size": 32000}'
    )
    assert run_cli(["plan", "--config", str(bad)]) == 2
    assert "n_heads" in capsys.readouterr().err


def test_plan_save_writes_a_reloadable_plan(tmp_path, capsys):
    path = tmp_path / "plan.json"
    assert run_cli(["plan", "--model", "gpt2-small", "--save", str(path)]) == 0
    data = json.loads(path.read_text())
    assert data["schema"] == "gpu-advisor/plan@1" and data["inputs"]["model"]["family"] == "gpt2"


def test_unwritable_output_is_a_clear_error(tmp_path, capsys):
    assert run_cli(["plan", "--model", "gpt2-small", "--save", str(tmp_path / "no" / "dir" / "p.json")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_catalog_lists_gpus_and_models(capsys):
    assert run_cli(["catalog"]) == 0
    out = capsys.readouterr().out
    assert "nvidia-h100-sxm" in out and "consumer" in out
    assert run_cli(["catalog", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["gpus"]) >= 25
    assert run_cli(["catalog", "--models"]) == 0
    assert "mixtral-8x7b" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["plan"],
        ["plan", "--model", "llama-3-8b", "--users", "many"],
        ["plan", "--model", "llama-3-8b", "--task", "dance"],
        ["bench", "--workers", "q"],
        ["nonsense"],
    ],
)
def test_usage_errors_are_one_line_with_a_hint(argv, capsys):
    with pytest.raises(SystemExit) as info:
        run_cli(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error:" in err and "--help" in err


def test_a_saved_plan_with_an_absurd_efficiency_is_refused_naming_it(tmp_path, capsys):
    path = tmp_path / "plan.json"
    assert run_cli(["plan", "--model", "gpt2-small", "--save", str(path)]) == 0
    data = json.loads(path.read_text())
    data["inputs"]["assumptions"]["bandwidth_efficiency"] = 1e-300
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert run_cli(["report", str(path), "--markdown", str(tmp_path / "r.md")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "inputs.assumptions.bandwidth_efficiency" in err
    assert "at least 0.001" in err


def test_plan_reads_counts_as_the_gui_fields_do(capsys):
    """D19: `--users 10k` and `--train-tokens 20B` as typed in the GUI; a bad one is one line, exit 2."""
    assert (
        run_cli(["plan", "--model", "llama-3-8b", "--users", "10k", "--prompt-tokens", "1,024", "--json"])
        == 0
    )
    inputs = json.loads(capsys.readouterr().out)["inputs"]
    assert (inputs["users"], inputs["prompt_tokens"]) == (10_000, 1024)
    argv = [
        "plan",
        "--model",
        "llama-3-8b",
        "--task",
        "pretrain",
        "--train-tokens",
        "20B",
        "--seq-len",
        "8,192",
    ]
    assert run_cli([*argv, "--json"]) == 0
    inputs = json.loads(capsys.readouterr().out)["inputs"]
    assert (inputs["train_tokens"], inputs["seq_len"]) == (20e9, 8192)
    with pytest.raises(SystemExit) as exc:
        run_cli(["plan", "--model", "llama-3-8b", "--users", "many"])
    assert exc.value.code == 2
    assert "'many' is not a number" in capsys.readouterr().err


def test_a_prompt_longer_than_the_models_context_is_refused_in_one_line(capsys):
    """D19: 100,000 prompt tokens on Llama 3 8B (context 8,192)."""
    assert run_cli(["plan", "--model", "llama-3-8b", "--prompt-tokens", "100k"]) == 2
    err = capsys.readouterr().err
    assert "exceed the model's context of 8,192 tokens" in err and len(err.strip().splitlines()) == 1
    assert run_cli(["plan", "--model", "llama-3-8b", "--prompt-tokens", "7936", "--json"]) == 0


def test_the_plan_commands_defaults_are_plan_requests_own():
    # one source for each default (0.15 $/kWh was written in five places)
    from gpu_advisor.cli import build_parser
    from gpu_advisor.core.request import PlanRequest

    args = build_parser().parse_args(["plan", "--model", "gpt2"])
    for field in (
        "task", "precision", "optimizer", "seq_len", "attention", "engine", "users",
        "prompt_tokens", "output_tokens", "hours_per_month", "electricity_usd_per_kwh", "framework",
    ):  # fmt: skip
        default = PlanRequest.model_fields[field].default
        assert getattr(args, field) == getattr(default, "value", default), field
