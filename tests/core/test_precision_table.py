"""The precision side-by-side table: the same job at five precisions (no Qt, no torch)."""

from __future__ import annotations

from gpu_advisor.core.memory import estimate_memory
from gpu_advisor.core.precision import Precision, Task
from gpu_advisor.core.precision_table import SIDE_BY_SIDE, precision_table
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.request import PlanRequest


def test_each_precision_is_the_plan_with_only_the_precision_changed():
    request = PlanRequest(model=get_preset("llama-3-8b"), task=Task.INFERENCE, precision=Precision.BF16)
    rows = precision_table(request)
    assert [row.precision for row in rows] == list(SIDE_BY_SIDE)
    assert [row.chosen for row in rows] == [False, True, False, False, False]
    by = {row.precision: row for row in rows}
    assert by[Precision.BF16].total_bytes == estimate_memory(request).components.total
    fp32 = request.model_copy(update={"precision": Precision.FP32})
    assert by[Precision.FP32].weights_bytes == estimate_memory(fp32).components.weights
    weights = [by[p].weights_bytes for p in SIDE_BY_SIDE]
    assert weights[0] > weights[1] > weights[2] and weights[4] < weights[3]  # int4 under int8
    assert by[Precision.FP32].bytes_per_weight == 4 and by[Precision.BF16].bytes_per_weight == 2


def test_a_precision_the_task_cannot_train_in_says_why():
    request = PlanRequest(model=get_preset("llama-3-8b"), task=Task.FINETUNE, precision=Precision.BF16)
    int4 = next(row for row in precision_table(request) if row.precision is Precision.INT4)
    assert int4.total_bytes is None and "cannot be trained" in int4.reason
