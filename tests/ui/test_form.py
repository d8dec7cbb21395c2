"""PlanForm: the wizard's inputs validated by the same pydantic models as the CLI."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from gpu_advisor.core.presets import presets
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest, describe_validation_error
from gpu_advisor.core.units import format_number
from gpu_advisor.ui.plan.form import PlanForm
from gpu_advisor.ui.plan.numbers import Invalid, parse_number


@pytest.fixture
def form(qtbot) -> PlanForm:
    return PlanForm()


def test_defaults_are_a_valid_request_for_the_default_preset(form):
    assert form.errors == {}
    assert form.request == PlanRequest(model=presets()["llama-3-8b"].spec)


@pytest.mark.parametrize(
    ("text", "integer", "expected"),
    [
        ("2048", True, 2048),
        ("32,768", True, 32768),
        ("4k", True, 4000),
        ("1e9", False, 1e9),
        ("10B", False, 1e10),
    ],
)
def test_numbers_people_type_are_read(text, integer, expected):
    assert parse_number(text, integer=integer) == expected


def test_unreadable_number_keeps_its_text_and_says_why():
    value = parse_number("12 apples", integer=True)
    assert isinstance(value, Invalid)
    assert value.text == "12 apples"
    assert "not a number" in value.message
    assert format_number(1_000_000_000) == "1e+09" and parse_number("1e+09", integer=False) == 1e9


def test_out_of_range_message_is_the_cli_message(form):
    form.set_field("seq_len", 0)
    with pytest.raises(ValidationError) as exc:
        PlanRequest(model=presets()["llama-3-8b"].spec, seq_len=0)
    assert form.errors == {"seq_len": describe_validation_error(exc.value)[1]}
    assert form.request is None
    form.set_field("seq_len", 4096)
    assert form.errors == {} and form.request.seq_len == 4096


def test_cross_field_rule_names_the_field(form):
    form.set_field("task", "pretrain")
    form.set_field("precision", "int4")
    assert "precision" in form.errors and "cannot be trained" in form.errors["precision"]


def test_encoder_generation_error_goes_next_to_the_output_tokens(form):
    form.set_model_source("preset", "bert-base")
    assert set(form.errors) == {"output_tokens"}
    form.set_field("output_tokens", 1)
    assert form.errors == {}


def test_bad_config_json_names_the_file_and_field(form, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "llama", "hidden_size": 4096}))
    form.set_model_source("config", str(config))
    assert "num_hidden_layers" in form.errors["model"] and "config.json" in form.errors["model"]
    form.set_model_source("params", "seven billion")
    assert "not a parameter count" in form.errors["model"]
    form.set_model_source("params", "7B")
    assert form.errors == {} and form.model.guessed


def test_replans_once_after_a_burst_of_changes(form, qtbot):
    with qtbot.waitSignal(form.plan_ready, timeout=5000) as blocker:
        for users in range(2, 12):
            form.set_field("users", users)
    assert blocker.args[0].request.users == 11
    assert blocker.args[0] == plan(form.request)
