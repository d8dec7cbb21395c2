"""The recommendation's charts: one memory bar when sharding changes nothing, money from zero, colours
that keep weights and the KV cache apart and match the PDF's."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter

from gpu_advisor.core.presets import resolve_model
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.units import format_bytes
from gpu_advisor.report import charts as pdf_charts
from gpu_advisor.ui.plan.charts import CostChart, MemoryChart
from gpu_advisor.wording.plan import COMPONENT_LABELS

LLAMA_8B = resolve_model(preset="llama-3-8b", config=None, params=None)
LLAMA_70B = resolve_model(preset="llama-3-70b", config=None, params=None)


@pytest.fixture
def memory_chart(qtbot) -> MemoryChart:
    chart = MemoryChart()
    qtbot.addWidget(chart)
    chart.resize(600, 400)
    chart.show()
    return chart


def _bar_columns(chart: MemoryChart) -> set[float]:
    """The x positions of the columns drawn (one BarGraphItem per component, one bar per column)."""
    bars = [i for i in chart.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert bars
    return {float(x) for bar in bars for x in bar.opts["x"]}


def _tick_texts(chart) -> list[str]:
    return [text for _, text in chart.getPlotItem().getAxis("bottom")._tickLevels[0]]


def test_a_single_gpu_plan_draws_one_memory_bar(memory_chart):
    one = plan(PlanRequest(model=LLAMA_8B, users=1, tokens_per_s_per_user=20, gpu="nvidia-rtx-4090", gpus=1))
    assert one.best is not None and one.best.count == 1
    memory_chart.show_plan(one)
    assert len(_bar_columns(memory_chart)) == 1
    assert memory_chart.shown_rows == [("per GPU", one.best.per_gpu_bytes)]
    assert "0" in _left_axis_labels(memory_chart)
    assert _tick_texts(memory_chart) == [f"per GPU: {format_bytes(one.best.per_gpu_bytes)}"]
    assert "(1 × NVIDIA GeForce RTX 4090)" in memory_chart.legend_entries[-1][2]


def test_data_parallel_replicas_draw_one_bar_that_says_each_gpu_holds_a_copy(memory_chart):
    request = PlanRequest(
        model=LLAMA_8B, task="finetune", gpu="amd-instinct-mi300x", gpus=2, zero_stage=0, tensor_parallel=1
    )
    replicas = plan(request)
    assert replicas.best.layout.data == 2 and replicas.best.layout.model_parallel == 1
    memory_chart.show_plan(replicas)
    assert len(_bar_columns(memory_chart)) == 1
    ((label, total),) = memory_chart.shown_rows
    assert label == "per GPU, a whole copy on each"
    assert "(2 × AMD Instinct MI300X)" in memory_chart.legend_entries[-1][2]
    assert total == replicas.best.per_gpu_bytes


def test_a_sharded_plan_draws_per_gpu_beside_the_unsharded_job(memory_chart):
    sharded = plan(
        PlanRequest(
            model=LLAMA_70B,
            users=32,
            tokens_per_s_per_user=20,
            gpu="nvidia-h100-sxm",
            gpus=4,
            tensor_parallel=4,
        )
    )
    memory_chart.show_plan(sharded)
    assert len(_bar_columns(memory_chart)) == 2
    assert dict(memory_chart.shown_rows) == {
        "per GPU": sharded.best.per_gpu_bytes,
        "unsharded, one device": sharded.memory.total_bytes,
    }
    assert sharded.best.per_gpu_bytes < sharded.memory.total_bytes / 2


@pytest.mark.parametrize(
    "request_",
    [
        PlanRequest(model=LLAMA_8B, users=1, tokens_per_s_per_user=20, gpu="nvidia-rtx-4090", purchase="buy"),
        PlanRequest(model=LLAMA_8B, task="finetune", train_tokens=2e9, max_hours=48),
    ],
    ids=["months of use", "the training job"],
)
def test_the_cost_axis_starts_at_zero(qtbot, request_):
    chart = CostChart()
    qtbot.addWidget(chart)
    chart.resize(600, 400)
    chart.show()
    chart.show_plan(plan(request_))
    (_, _), (y_low, y_high) = chart.getPlotItem().viewRange()
    assert y_low == 0
    assert y_high > 0
    assert "0" in _left_axis_labels(chart)  # written at the foot of the axis, not left out


def _left_axis_labels(chart) -> list[str]:
    """The tick labels the left axis draws at its current size."""
    chart.grab()  # lays the plot out
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    try:
        _, _, texts = chart.getPlotItem().getAxis("left").generateDrawSpecs(painter)
    finally:
        painter.end()
    return [text for _, _, text in texts]


def test_memory_colours_are_the_pdfs_and_tell_weights_from_the_kv_cache(memory_chart):
    served = plan(PlanRequest(model=LLAMA_70B, users=32, tokens_per_s_per_user=20))
    memory_chart.show_plan(served)
    shown = {text: color for color, _, text in memory_chart.legend_entries}
    assert {"Weights", "KV cache"} <= set(shown)
    for name, label in COMPONENT_LABELS.items():
        if label in shown:
            assert shown[label].lower() == pdf_charts.COMPONENT_COLORS[name].name().lower(), name
    assert shown["Weights"].lower() != shown["KV cache"].lower()


def test_a_job_of_petabytes_is_charted_in_a_unit_that_reads_without_exponents(memory_chart):
    """D19 (ux-review-3): a micro-batch of a million sequences needs ~14,000 TiB; the axis read '1.5e+07' GiB."""
    huge = plan(PlanRequest(model=LLAMA_8B, task="pretrain", batch_size=1_000_000, seq_len=2048))
    memory_chart.show_plan(huge)
    labels = _left_axis_labels(memory_chart)
    assert labels and not any("e+" in text or "e-" in text for text in labels), labels
    assert memory_chart.getPlotItem().getAxis("left").labelText == "memory (TiB)"


def test_a_served_card_draws_non_pytorch_memory_and_the_engine_reserve_as_parts_and_names_the_kv_pool(
    memory_chart,
):
    """Llama 3 8B for 32 users on one RTX 4090 under vLLM: the overhead is drawn as its parts (1.8 GiB
    outside PyTorch, the 10 % of the card vLLM leaves), not one grey block, and the legend says the
    KV pool holds the users' KV cache."""
    served = plan(
        PlanRequest(model=LLAMA_8B, users=32, tokens_per_s_per_user=20, gpu="nvidia-rtx-4090", gpus=1)
    )
    memory_chart.show_plan(served)
    shown = [text for _, _, text in memory_chart.legend_entries]
    assert "Non-PyTorch memory" in shown and "Engine reserve" in shown
    assert COMPONENT_LABELS["overhead"] not in shown
    assert any(text.startswith("KV pool 3.6 GiB holds") for text in shown)
    bars = [i for i in memory_chart.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    drawn = sum(float(h) for bar in bars for h in bar.opts["height"])
    assert drawn * 2**30 == pytest.approx(served.best.per_gpu_bytes, rel=1e-9)
    assert "KV pool" in memory_chart.legend_html() and "Non&#8209;PyTorch" in memory_chart.legend_html()
