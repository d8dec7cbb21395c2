"""The automatic trace is bounded (issue 27, defect 6): it runs in a child process that ends at its
deadline (the plan then falls back to the formulas with a note), a child that dies is one line, and a
config whose built model holds more parameters than the planner sizes is refused before its step runs.
Deadlines here are parameters: 2 s against a child that sleeps for ever, never a timed assertion."""

from __future__ import annotations

import sys

import psutil
import pytest

from gpu_advisor.bench.trace_child import TraceFailed, trace_in_child
from gpu_advisor.cli.models import ChosenModel, with_trace
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.request import PlanRequest

SMALL_LLAMA = {
    "model_type": "llama",
    "num_hidden_layers": 2,
    "hidden_size": 64,
    "num_attention_heads": 2,
    "num_key_value_heads": 2,
    "intermediate_size": 128,
    "vocab_size": 1000,
}


def _stub(tmp_path, body: str) -> str:
    path = tmp_path / "python-stub"
    path.write_text(body)
    path.chmod(0o755)
    return str(path)


def _request() -> PlanRequest:
    return PlanRequest(model=get_preset("llama-3-8b"), task="inference")


def test_a_trace_past_its_deadline_is_ended_and_said_in_one_line(tmp_path):
    forever = _stub(tmp_path, "#!/bin/sh\nsleep 1000 &\nwait\n")  # a child with a child of its own
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with pytest.raises(TraceFailed) as failed:
        trace_in_child(_request(), SMALL_LLAMA, deadline_s=2.0, python=forever)
    assert failed.value.timed_out and str(failed.value) == "the trace did not finish within 2 s"
    # the whole process group ended, the stub's own child included
    assert not [
        p
        for p in psutil.Process().children(recursive=True)
        if p.pid not in before and p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    ]


def test_a_trace_process_that_dies_is_one_line_with_its_last_words(tmp_path):
    dies = _stub(
        tmp_path, f"#!{sys.executable}\nimport sys\nprint('out of luck', file=sys.stderr)\nsys.exit(3)\n"
    )
    with pytest.raises(TraceFailed, match=r"ended without a result \(out of luck\)") as failed:
        trace_in_child(_request(), SMALL_LLAMA, deadline_s=60.0, python=dies)
    assert not failed.value.timed_out


@pytest.mark.parametrize("explicit", [False, True])
def test_plan_falls_back_to_the_formulas_with_a_note_when_the_trace_runs_past_its_deadline(explicit, capsys):
    chosen = ChosenModel(get_preset("llama-3-8b"), SMALL_LLAMA, exact=False)
    traced = with_trace(_request(), chosen, explicit=explicit, deadline_s=0.01)  # no child answers in 10 ms
    assert traced.trace is None
    assert any("No trace: the trace did not finish within 0.01 s" in n for n in traced.model.notes)
    assert "the memory figures come from the formulas" in capsys.readouterr().err


def test_a_config_that_builds_more_parameters_than_the_planner_sizes_is_refused_in_one_line():
    from gpu_advisor.bench.trace import TraceSetup, trace_memory
    from gpu_advisor.bench.trace_model import TraceUnavailable

    # every key within ModelSpec's bounds, together 2 x 64 experts x 3 x 131,072 x 1,000,000 weights
    huge = {
        "model_type": "mixtral",
        "num_hidden_layers": 2,
        "hidden_size": 131_072,
        "num_attention_heads": 1024,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "intermediate_size": 1_000_000,
        "num_local_experts": 64,
        "num_experts_per_tok": 2,
        "vocab_size": 32_000,
    }
    setup = TraceSetup(name="huge", config=huge, vocab_size=32_000, task="inference")
    with pytest.raises(TraceUnavailable) as refused:
        trace_memory(setup)
    assert "parameters, beyond the 10,000,000,000,000 the planner sizes" in str(refused.value)
    assert "\n" not in str(refused.value)
