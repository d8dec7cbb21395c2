"""At 1024 x 700, 1280 x 800 and 1920 x 1080, every text of the Plan view is shown whole: the live
estimate's lines, the tier card's figures; and the recommendation's key answer is in view."""

from __future__ import annotations

import contextlib

import pytest
from pytestqt.exceptions import TimeoutError as QtBotTimeout

from gpu_advisor.core.trace import PhasePeak, TraceResult
from gpu_advisor.core.units import GIB
from gpu_advisor.ui.plan.wizard import STEP_WORKLOAD
from tests.ui.legibility import cut_texts

SIZES = ((1024, 700), (1280, 800), (1920, 1080))


def _resize(window, qtbot, width: int, height: int) -> None:
    window.resize(width, height)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (width, height), timeout=2000)


def _cut_once_settled(qtbot, root, window) -> list[str]:
    """cut_texts once the layout has settled (a resize is laid out over a few event-loop turns)."""
    with contextlib.suppress(QtBotTimeout):
        qtbot.waitUntil(lambda: not cut_texts(root, window), timeout=2000)
    return cut_texts(root, window)


def _fine_tune(form) -> None:
    """The screenshots' fine-tune of Llama 3 8B, whose best option is a long GPU name and tier."""
    form.set_model_source("preset", "llama-3-8b")
    form.set_field("task", "finetune")
    form.set_field("seq_len", 4096)
    form.set_field("batch_size", 4)
    form.set_field("grad_checkpointing", True)


def _trace_of(request) -> TraceResult:
    """A trace of the request as the Exact trace button makes it (its peak in words, as long)."""
    p = request.model.total_params()
    backward = {"parameters": 2 * p, "optimizer_state": 12 * p, "activations": 34 * GIB, "gradients": GIB}
    return TraceResult(
        model=request.model.name,
        architecture="LlamaForCausalLM (test)",
        parameters=p,
        trainable_parameters=p,
        task=request.task,
        precision=request.precision,
        optimizer=request.optimizer.value,
        batch_size=request.batch_size,
        seq_len=request.seq_len,
        grad_checkpointing=request.grad_checkpointing,
        step="training step 2",
        peak_bytes=sum(backward.values()),
        peak_moment="backward, in the top-level module lm_head (_log_softmax_backward_data)",
        peak_phase="backward",
        by_category=backward,
        by_module={"lm_head": sum(backward.values())},
        phases=(
            PhasePeak(phase="backward", peak_bytes=sum(backward.values()), moment="b", by_category=backward),
        ),
    )


@pytest.mark.parametrize("traced", [False, True], ids=["formulas", "traced"])
def test_every_line_of_the_live_estimate_is_shown_whole_at_every_size(window, qtbot, traced):
    form, wizard = window.form, window.wizard
    _fine_tune(form)
    wizard.go_to(STEP_WORKLOAD)
    if traced:
        form.set_trace(_trace_of(form.request))
    form.plan_now()
    panel = wizard.estimate
    assert ("(traced)" if traced else "(formulas)") in panel.value("memory")
    for size in SIZES:
        _resize(window, qtbot, *size)
        assert _cut_once_settled(qtbot, panel, window) == [], size
