"""At 1024 x 700, 1280 x 800 and 1920 x 1080, the Plan view's texts are shown whole and read well: the
live estimate's lines, the tier card's figures; and at 1280 x 800 the recommendation's key answer (the
card, the memory and cost charts) is in view without scrolling."""

from __future__ import annotations

import contextlib

import pytest
from PySide6.QtGui import QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QGroupBox, QLabel
from pytestqt.exceptions import TimeoutError as QtBotTimeout

from gpu_advisor.core.trace import PhasePeak, TraceResult
from gpu_advisor.core.units import GIB, format_bytes
from gpu_advisor.ui.main_window import VIEW_COMPARE, VIEW_MONITOR, VIEW_PLAN
from gpu_advisor.ui.plan.tier_card import FIGURES
from gpu_advisor.ui.plan.wizard import STEP_RESULT, STEP_WORKLOAD
from tests.ui.legibility import cut_texts, overlaps, window_rect

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


def _serving(form) -> None:
    """The screenshots' serving plan: 32 users of Llama 3 8B at 20 tokens/s each."""
    form.set_model_source("preset", "llama-3-8b")
    form.set_field("task", "inference")
    form.set_field("users", 32)
    form.set_field("tokens_per_s_per_user", 20.0)


def _lines(label) -> int:
    """How many lines a wrapped label's text takes at its width."""
    return round(label.heightForWidth(label.width()) / label.fontMetrics().lineSpacing())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_tier_card_figures_read_on_one_line_each_but_the_speed(window, qtbot, size):
    _serving(window.form)
    _resize(window, qtbot, *size)
    window.wizard.go_to(STEP_RESULT)
    card = window.wizard.result_view.card
    qtbot.waitUntil(lambda: card.figure("machines") != "—")
    assert card.figure("machines") == "a cloud instance with 1 GPU"  # rented: not the bought server
    assert _cut_once_settled(qtbot, card, window) == []
    values = {key: card.findChild(QLabel, f"figure_{key}") for key, _ in FIGURES}
    lines = {key: _lines(label) for key, label in values.items()}
    assert lines.pop("speed") <= (1 if card.columns == len(FIGURES) else 2), lines
    assert set(lines.values()) == {1}, lines  # the machines were four lines at 1024 x 700
    assert overlaps(card.findChildren(QLabel), window) == []


@pytest.mark.parametrize("plan", ["serving", "training"])
def test_at_1280_by_800_the_overview_shows_the_card_and_both_charts_without_scrolling(window, qtbot, plan):
    form = window.form
    if plan == "serving":
        _serving(form)
    else:
        _fine_tune(form)
        form.set_field("train_tokens", 2e9)
        form.set_field("max_hours", 48.0)
    _resize(window, qtbot, 1280, 800)
    window.wizard.go_to(STEP_RESULT)
    view = window.wizard.result_view
    view.tabs.setCurrentWidget(view.tabs.widget(1))
    assert view.tabs.currentWidget().isAncestorOf(view.memory_chart)
    scroll = window.wizard.stack.currentWidget()
    parts = (view.card, view.memory_chart, view.cost_chart)

    def out_of_view() -> list[str]:
        viewport = window_rect(scroll.viewport(), window)
        return [type(p).__name__ for p in parts if not viewport.contains(window_rect(p, window))]

    with contextlib.suppress(QtBotTimeout):
        qtbot.waitUntil(lambda: not out_of_view(), timeout=2000)
    assert scroll.verticalScrollBar().value() == 0
    assert out_of_view() == []
    assert view.memory_chart.height() >= 240  # a chart to read, not a strip


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_assumptions_fit_the_page_with_every_label_and_value_whole(window, qtbot, size):
    _serving(window.form)
    _resize(window, qtbot, *size)
    window.wizard.go_to(STEP_RESULT)
    view = window.wizard.result_view
    view.tabs.setCurrentIndex(view.tabs.count() - 1)
    panel = view.assumptions
    assert panel.isVisible()
    assert _cut_once_settled(qtbot, panel, window) == []
    assert overlaps(panel.findChildren(QGroupBox), window) == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_view_shows_its_texts_whole(window, qtbot, size, results_files):
    """Each input page, each tab of the recommendation, the Monitor and the Compare view: no label,
    button or field cut at an edge or by its height (a cut field shows its text in its tooltip)."""
    form, wizard = window.form, window.wizard
    _serving(form)
    window.import_results(list(results_files))
    _resize(window, qtbot, *size)
    seen = {}
    window.tabs.setCurrentIndex(VIEW_PLAN)
    for step in range(STEP_RESULT):
        wizard.go_to(step)
        seen[f"step {step}"] = _cut_once_settled(qtbot, window, window)
    wizard.go_to(STEP_RESULT)
    tabs = wizard.result_view.tabs
    for index in range(tabs.count()):
        tabs.setCurrentIndex(index)
        seen[tabs.tabText(index)] = _cut_once_settled(qtbot, window, window)
    for view in (VIEW_MONITOR, VIEW_COMPARE):
        window.tabs.setCurrentIndex(view)
        seen[window.tabs.tabText(view)] = _cut_once_settled(qtbot, window, window)
    assert {name: cut for name, cut in seen.items() if cut} == {}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare_bar_labels_fit_their_bars_and_stay_apart(window, qtbot, tmp_path, size):
    from tests.ui.conftest import make_report

    files = [
        tmp_path / "this-machine-cpu.json",
        tmp_path / "example-h100-synthetic.json",
        tmp_path / "this-machine-cpu-stopped.json",
    ]
    make_report("AMD EPYC").save(files[0])
    make_report("NVIDIA H100 80GB HBM3 (synthetic example)", "cuda", flops=600e12).save(files[1])
    make_report("AMD EPYC").save(files[2])
    window.import_results(files)
    window.tabs.setCurrentIndex(VIEW_COMPARE)
    _resize(window, qtbot, *size)
    compare = window.compare
    axis = compare.chart.getPlotItem().getAxis("bottom")

    def labels() -> list[str]:
        return [label for _, label in axis._tickLevels[0]]

    view_box = compare.chart.getPlotItem().getViewBox()
    (x_min, x_max), _y = view_box.viewRange()
    slot = view_box.width() / (x_max - x_min)  # the distance between two bars' centres; 4 px apart:
    metrics = QFontMetrics(axis.font())
    qtbot.waitUntil(lambda: all(metrics.horizontalAdvance(t) <= slot - 4 for t in labels()))
    assert len(set(labels())) == len(files), labels()  # two runs of one machine told apart
    tip = compare.chart.toolTip()
    assert all(name in tip for name in ("this-machine-cpu.json", "this-machine-cpu-stopped.json", "HBM3"))


def test_a_wide_window_gives_the_compare_table_its_first_comparison_column(window, qtbot, tmp_path):
    from tests.ui.conftest import make_report

    names = ("this-machine-cpu", "example-h100-synthetic", "this-machine-cpu-stopped")  # the screenshots'
    files = [tmp_path / f"{name}.json" for name in names]
    make_report("AMD EPYC").save(files[0])
    make_report("NVIDIA H100 80GB HBM3 (synthetic example)", "cuda", flops=600e12).save(files[1])
    make_report("AMD EPYC").save(files[2])
    window.import_results(files)
    window.tabs.setCurrentIndex(VIEW_COMPARE)
    _resize(window, qtbot, 1920, 1080)
    table = window.compare.table
    first_vs = len(files)  # the files' columns, then one "vs the baseline" column per other file
    assert "vs" in table.horizontalHeaderItem(first_vs).text()

    def right_edge() -> int:
        return table.columnViewportPosition(first_vs) + table.columnWidth(first_vs)

    with contextlib.suppress(QtBotTimeout):
        qtbot.waitUntil(lambda: right_edge() <= table.viewport().width(), timeout=2000)
    assert right_edge() <= table.viewport().width()  # at 1920 px it was cut at the splitter
    assert window.compare.chart.width() >= 360


def test_the_result_page_follows_a_window_made_narrower(window, qtbot):
    """Wide, the card lays its figures in one row; made narrow again, the page narrows with the window
    (no sideways scrolling) and the figures go back to two rows."""
    _serving(window.form)
    window.wizard.go_to(STEP_RESULT)
    view, card = window.wizard.result_view, window.wizard.result_view.card
    scroll = window.wizard.stack.currentWidget()
    _resize(window, qtbot, 1920, 1080)
    qtbot.waitUntil(lambda: card.columns == len(FIGURES))
    _resize(window, qtbot, 1024, 700)
    with contextlib.suppress(QtBotTimeout):
        qtbot.waitUntil(lambda: view.width() <= scroll.viewport().width(), timeout=2000)
    assert view.width() <= scroll.viewport().width()
    qtbot.waitUntil(lambda: card.columns < len(FIGURES), timeout=2000)  # arranged once the resize is over
    assert _cut_once_settled(qtbot, card, window) == []


def test_the_memory_chart_draws_a_long_column_label_at_the_smallest_window(window, qtbot):
    """'per GPU, a whole copy on each: 148.4 GiB' is drawn whole at 1024 px (pyqtgraph leaves out a
    tick label wider than its axis, so a long one is wrapped to fit)."""
    _fine_tune(window.form)
    window.form.set_field("train_tokens", 2e9)
    window.form.set_field("max_hours", 48.0)
    _resize(window, qtbot, 1024, 700)
    window.wizard.go_to(STEP_RESULT)
    view = window.wizard.result_view
    view.tabs.setCurrentIndex(1)
    chart = view.memory_chart
    qtbot.waitUntil(chart.isVisible)
    ((label, total),) = chart.shown_rows
    assert "whole copy on each" in label
    axis = chart.getPlotItem().getAxis("bottom")

    def drawn() -> list[str]:
        image = QImage(chart.size(), QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        try:
            _axis, _ticks, texts = axis.generateDrawSpecs(painter)
        finally:
            painter.end()
        return [text for _rect, _flags, text in texts]

    def whole(texts: list[str]) -> bool:  # the label and its size, only wrapped (the axis grows to fit)
        return len(texts) == 1 and " ".join(texts[0].split("\n")).startswith(f"{label}: ")

    with contextlib.suppress(QtBotTimeout):  # the chart settles at its width after the page's layout
        qtbot.waitUntil(lambda: whole(drawn()), timeout=2000)
    (text,) = drawn()
    assert " ".join(text.split("\n")) == f"{label}: {format_bytes(total)}"  # whole, only wrapped


def test_the_monitor_list_shows_a_stopped_workload_status_whole(qtbot):
    from gpu_advisor.ui.monitor.checklist import STATUS_COLUMN, ChecklistTable
    from gpu_advisor.wording.checklist import STATUS_TEXT

    table = ChecklistTable()
    qtbot.addWidget(table)
    table.resize(1000, 200)
    table.show()
    style = table.style()
    # A cell's text area: the column less its grid line and the item view's text margin either side.
    margin = style.pixelMetric(style.PixelMetric.PM_FocusFrameHMargin, None, table) + 1
    room = table.columnWidth(STATUS_COLUMN) - 1 - 2 * margin
    for status in ("cancelled", "running", "ok", "waiting", "skipped"):
        assert table.fontMetrics().horizontalAdvance(STATUS_TEXT[status]) <= room, STATUS_TEXT[status]


def test_the_compare_chart_keeps_clear_of_the_splitter_handle(window, qtbot, results_files):
    window.import_results(list(results_files))
    window.tabs.setCurrentIndex(VIEW_COMPARE)
    _resize(window, qtbot, 1280, 800)
    compare = window.compare
    handle = compare.splitter.handle(1)
    qtbot.waitUntil(compare.chart.isVisible)
    gap = window_rect(compare.chart, window).left() - window_rect(handle, window).right()
    assert gap >= 4  # the handle's grip drew over the chart's axis title


@pytest.mark.parametrize(
    "tab", [0, 1, 3, 4], ids=["three tiers", "overview", "how it was computed", "assumptions"]
)
def test_the_recommendation_never_scrolls_sideways_for_a_long_gpu_name(window, qtbot, tab):
    """A fine-tune whose tiers and rent-or-buy pair name 'NVIDIA RTX PRO 6000 Blackwell Workstation
    Edition (96 GB)': the tier answer, the cost chart's legend and the notes wrap at 1024 px, so the
    page is never wider than its window (nobody scrolls sideways to read a recommendation)."""
    _fine_tune(window.form)
    window.form.set_field("train_tokens", 2e9)
    window.form.set_field("max_hours", 48.0)
    _resize(window, qtbot, 1024, 700)
    window.wizard.go_to(STEP_RESULT)
    view = window.wizard.result_view
    qtbot.waitUntil(lambda: view.card.figure("machines") != "—")
    view.tabs.setCurrentIndex(tab)
    scroll = view.parentWidget().parentWidget()  # the page's scroll area (viewport, then the area)
    qtbot.waitUntil(lambda: view.isVisible())
    assert view.minimumSizeHint().width() <= scroll.viewport().width()
    assert not scroll.horizontalScrollBar().isVisible()
