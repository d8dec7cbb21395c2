"""D25 (ux-review-3): at the start-of-backward peak the gradients row holds only the output head's
gradient (125 MiB for a 1B model), and its formula must say so rather than 'every trainable x 2 B'."""

from __future__ import annotations

from gpu_advisor.core.presets import resolve_model
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.units import format_bytes
from gpu_advisor.wording.plan_tables import memory_rows


def test_the_gradients_row_at_the_backward_peak_reads_as_the_head_gradient():
    model = resolve_model(preset=None, config=None, params=1e9)
    # One micro-batch per step: gradients are freed by zero_grad and appear as backward runs.
    request = PlanRequest(model=model, task="pretrain", batch_size=8, grad_accumulation_steps=1)
    result = plan(request)
    comps = result.memory.components
    _name, size, formula = next(row for row in memory_rows(result.memory) if row[0] == "Gradients")
    trainable = model.total_params()
    assert comps.gradients < trainable * 2 / 4  # only part of the gradients is live at this peak
    assert size == format_bytes(comps.gradients)
    assert "output head" in formula
    assert f"{model.vocab_size:,} x {model.hidden_size:,}" in formula
