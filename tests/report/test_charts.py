"""Charts render offscreen at print resolution, with what they are meant to show."""

from __future__ import annotations

from PySide6.QtGui import QColor

from gpu_advisor.bench.loading import report_from_dict
from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.units import short_number
from gpu_advisor.report import charts
from gpu_advisor.report.chartkit import nice_ticks
from gpu_advisor.wording.plan import cost_chart_months
from tests.report.samples import bench_results, buy_plan, inference_plan, no_fit_plan


def _ink_fraction(image) -> float:
    """Share of sampled pixels that are not white."""
    step = 7
    total = inked = 0
    for y in range(0, image.height(), step):
        for x in range(0, image.width(), step):
            total += 1
            inked += QColor(image.pixel(x, y)) != QColor("white")
    return inked / total


def test_memory_chart_is_print_resolution_and_drawn():
    plan = inference_plan()
    image = charts.memory_chart_image(plan, width_pt=480, dpi=300)
    assert image.width() == 2000  # 480 pt at 300 dpi
    assert round(image.dotsPerMeterX() * 0.0254) == 300
    assert 0.03 < _ink_fraction(image) < 0.6
    assert charts.memory_chart_options(plan)[0] is plan.best


def test_memory_chart_for_a_plan_with_no_fit():
    plan = no_fit_plan()
    assert charts.memory_chart_options(plan) == list(plan.options[:6])
    assert _ink_fraction(charts.memory_chart_image(plan, dpi=72)) > 0.02


def test_cost_chart_spans_past_break_even():
    plan = buy_plan()
    best = plan.best
    assert best.cost.breakeven_months is not None
    assert cost_chart_months(best.cost.breakeven_months) >= max(36, best.cost.breakeven_months)
    assert charts.cost_chart_image(plan, dpi=72) is not None


def test_cost_chart_needs_a_price():
    plan = inference_plan()
    cost = plan.best.cost.model_copy(update={"cloud_usd_per_month": None, "purchase_usd": None})
    unpriced = plan.best.model_copy(update={"cost": cost})
    assert charts.cost_chart_image(plan, unpriced, dpi=72) is None


def test_telemetry_panels_follow_the_data():
    gpu = NamedReport("gpu.json", report_from_dict(bench_results(gpu=True)))
    cpu = NamedReport("cpu.json", report_from_dict(bench_results(gpu=False)))
    assert [p.title for p in charts.telemetry_panels(gpu)] == [
        "Utilisation", "Memory used", "Power", "Temperature", "Clocks"
    ]  # fmt: skip
    # no GPU: no power or clock panels, and no fake zeros
    assert [p.title for p in charts.telemetry_panels(cpu)] == ["Utilisation", "Memory used", "Temperature"]
    assert charts.telemetry_chart_image(cpu, dpi=72) is not None
    empty = NamedReport("none.json", report_from_dict(bench_results(gpu=False, samples=0)))
    assert charts.telemetry_chart_image(empty, dpi=72) is None


def test_nice_ticks_and_labels():
    assert nice_ticks(0, 159.2) == [0, 50, 100, 150, 200]
    assert nice_ticks(0, 0.8, 4) == [0, 0.2, 0.4, 0.6, 0.8]
    ticks = nice_ticks(0, 1234567)
    assert ticks[0] == 0 and ticks[-1] >= 1234567 and len(ticks) <= 8
    assert [short_number(v) for v in (0, 250, 1500, 20000, 1.2e6)] == ["0", "250", "1.5k", "20k", "1.2M"]


def test_the_memory_charts_grey_segment_names_the_engines_reserve():
    """vLLM's unused 10% of the card is most of a serving option's grey segment; the legend says so
    (the tables list it as "Engine reserve")."""
    from tests.report.samples import inference_plan, training_plan

    serving = charts.memory_chart_options(inference_plan())
    assert charts.overhead_label(serving) == "CUDA context + fragmentation + engine reserve"
    assert (
        charts.overhead_label(charts.memory_chart_options(training_plan())) == "CUDA context + fragmentation"
    )
