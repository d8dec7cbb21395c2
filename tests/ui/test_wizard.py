"""The Plan view driven like a user: keyboard and mouse through the wizard to a recommendation."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.units import format_bytes, format_duration, format_usd
from gpu_advisor.ui.plan.wizard import (
    STEP_BUDGET,
    STEP_MODEL,
    STEP_RESULT,
    STEP_TRAFFIC,
    STEP_WORKLOAD,
)


def _type(qtbot, edit, text: str) -> None:
    edit.clear()
    qtbot.keyClicks(edit, text)


def _choose(combo, data) -> None:
    combo.setCurrentIndex(next(i for i in range(combo.count()) if combo.itemData(i) == data))


def test_wizard_end_to_end_shows_exactly_the_core_plan(wizard, qtbot):
    model_page = wizard.model_page
    _type(qtbot, model_page.search, "mistral")
    visible = [model_page.preset_list.item(i) for i in range(model_page.preset_list.count())]
    visible = [item for item in visible if not item.isHidden()]
    assert [item.data(Qt.ItemDataRole.UserRole) for item in visible] == ["mistral-7b"]
    qtbot.mouseClick(
        model_page.preset_list.viewport(),
        Qt.MouseButton.LeftButton,
        pos=model_page.preset_list.visualItemRect(visible[0]).center(),
    )
    assert "7.24B" in model_page.info_params.text()
    qtbot.mouseClick(wizard.next_button, Qt.MouseButton.LeftButton)
    assert wizard.step == STEP_WORKLOAD

    page = wizard.workload_page
    _choose(page.task, "finetune")
    _type(qtbot, page.seq_len, "4k")
    _type(qtbot, page.batch_size, "2")
    _choose(page.checkpointing, True)
    qtbot.keyClick(wizard, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert wizard.step == STEP_TRAFFIC

    traffic = wizard.traffic_page
    assert traffic.training_box.isVisible() and not traffic.inference_box.isVisible()
    _type(qtbot, traffic.train_tokens, "2B")
    _type(qtbot, traffic.max_hours, "48")
    qtbot.mouseClick(wizard.next_button, Qt.MouseButton.LeftButton)
    assert wizard.step == STEP_BUDGET

    budget = wizard.budget_page
    budget.buy.setChecked(True)
    _type(qtbot, budget.electricity, "0.30")
    qtbot.mouseClick(wizard.next_button, Qt.MouseButton.LeftButton)
    assert wizard.step == STEP_RESULT

    request = wizard.form.request
    assert (request.model.name, request.task, request.seq_len, request.batch_size) == (
        "Mistral 7B",
        "finetune",
        4000,
        2,
    )
    assert request.grad_checkpointing and request.train_tokens == 2e9 and request.max_hours == 48
    assert request.purchase == "buy" and request.electricity_usd_per_kwh == 0.30
    expected = plan(request)
    rec, best = expected.recommendation, expected.best
    card = wizard.result_view.card
    assert f"{rec.tier.label} tier" in card.tier_label.text()
    assert f"{rec.count} × {rec.gpu}" in card.gpu_label.text()
    assert card.reason_label.text() == rec.reason
    assert card.figure("memory").endswith(f" of {format_bytes(best.gpu_memory_bytes)}")
    assert card.figure("buy").startswith(format_usd(best.cost.purchase_usd))
    table = wizard.result_view.options
    assert [table.cell_text(r, "GPU") for r in range(3)] == [o.gpu for o in expected.options[:3]]
    chart = wizard.result_view.memory_chart
    assert dict(chart.shown_rows)["unsharded, one device"] == expected.memory.total_bytes
    # A one-off 2B-token job is charted as the job, not in months: the verdict's rental of the job
    # against buying the answer (ranked by purchase), as the verdict under the card weighs them.
    v = expected.verdict
    assert v.buy.gpu_id == best.gpu_id
    message = wizard.result_view.cost_chart.message
    assert f"Renting this job on {v.rent.count} × {v.rent.gpu} costs {format_usd(v.rent.cost_usd)}" in message
    assert f"buying {best.count} × {best.gpu} costs {format_usd(best.cost.purchase_usd)}" in message
    assert (
        wizard.result_view.cost_chart.getPlotItem().getAxis("bottom").labelText == "hours of the training job"
    )


def test_invalid_input_shows_the_message_and_disables_next(wizard, qtbot):
    wizard.next()
    page = wizard.workload_page
    _choose(page.task, "pretrain")
    _type(qtbot, page.seq_len, "0")
    message = page.error_text("seq_len")
    assert message.startswith("at least 1")
    assert not wizard.next_button.isEnabled()
    assert message in wizard.blocked.text()
    qtbot.keyClick(wizard, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert wizard.step == STEP_WORKLOAD
    assert not wizard.steps.item(STEP_RESULT).flags() & Qt.ItemFlag.ItemIsEnabled
    assert page.seq_len.text() == "0"  # what was typed is kept
    _type(qtbot, page.seq_len, "2048")
    assert page.error_text("seq_len") == "" and wizard.next_button.isEnabled()


def test_bad_parameter_count_blocks_the_model_page(wizard, qtbot):
    _type(qtbot, wizard.model_page.params_edit, "lots")
    assert wizard.step == STEP_MODEL
    assert "not a parameter count" in wizard.model_page.error_text("model")
    assert not wizard.next_button.isEnabled()


def test_live_estimate_follows_the_inputs(wizard, qtbot):
    wizard.go_to(STEP_TRAFFIC)
    with qtbot.waitSignal(wizard.form.plan_ready, timeout=5000):
        _type(qtbot, wizard.traffic_page.users, "64")
    expected = plan(wizard.form.request)
    assert wizard.estimate.value("kv_cache") == format_bytes(expected.memory.components.kv_cache)
    assert f"{expected.best.count} × {expected.best.gpu}" in wizard.estimate.value("recommended")


def test_editing_an_assumption_replans(wizard, qtbot):
    wizard.go_to(STEP_RESULT)
    before = wizard.result_view.card.figure("speed")
    panel = wizard.result_view.assumptions
    with qtbot.waitSignal(wizard.form.plan_ready, timeout=5000) as blocker:
        _type(qtbot, panel.editors["bandwidth_efficiency"], "0.4")
    assert blocker.args[0].request.assumptions.bandwidth_efficiency == 0.4
    assert wizard.result_view.card.figure("speed") != before
    _type(qtbot, panel.editors["mfu"], "1.5")
    assert panel.error_text("assumptions.mfu").startswith("at most 1")
    assert panel.editors["mfu"].toolTip().startswith("MFU (model FLOPs utilisation)")


def test_options_table_sorts_by_price_with_unknown_last(wizard, qtbot):
    wizard.go_to(STEP_RESULT)
    table = wizard.result_view.options
    header = table.horizontalHeader()
    model = table.model()
    column = next(
        c for c in range(model.columnCount()) if model.headerData(c, Qt.Orientation.Horizontal) == "Rent $/h"
    )
    centre = QPoint(
        header.sectionViewportPosition(column) + header.sectionSize(column) // 2, header.height() // 2
    )
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    options = wizard.form.plan.options
    prices = [
        options[table.proxy.mapToSource(table.proxy.index(r, 0)).row()].cost.cloud_usd_per_hour
        for r in range(model.rowCount())
    ]
    known = [p for p in prices if p is not None]
    assert header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert known == sorted(known) and prices[: len(known)] == known


def test_config_json_dropped_on_the_model_page(wizard, tmp_path, qtbot):
    import json

    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    config = tmp_path / "tiny-llama" / "config.json"
    config.parent.mkdir()
    config.write_text(
        json.dumps(
            {
                "model_type": "llama",
                "num_hidden_layers": 4,
                "hidden_size": 512,
                "num_attention_heads": 8,
                "intermediate_size": 1408,
                "vocab_size": 32000,
            }
        )
    )
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(config))])
    page = wizard.model_page
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    page.dropEvent(event)
    assert page.config_radio.isChecked() and page.config_path.text() == str(config)
    assert wizard.form.model.n_layers == 4 and wizard.form.errors == {}
    assert "4 layers, hidden 512" in page.info_arch.text()


def test_browse_opens_a_file_dialog_for_config_json(wizard, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    missing = tmp_path / "nowhere" / "config.json"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(missing), ""))
    wizard.model_page.browse_button.click()
    assert "file not found" in wizard.model_page.error_text("model")
    assert not wizard.next_button.isEnabled()


def test_a_parameter_count_reads_once_and_in_its_largest_unit(wizard, qtbot):
    _type(qtbot, wizard.model_page.params_edit, "999.7e9")
    name = wizard.model_page.info_name.text()
    assert name.startswith("1T parameters")  # not "1e+03B" or "1000B"
    assert name.count("guess") == 1  # "(guessed shape)" once, not twice in other words


def test_recipe_knobs_start_on_auto_and_a_typed_value_locks_only_that_knob(wizard, qtbot):
    """The wizard leaves micro-batch, accumulation, global batch and checkpointing to the planner
    until the user sets one (issue 26): the plan marks each "planner", a typed micro-batch "user"."""
    form, page = wizard.form, wizard.workload_page
    _choose(page.task, "finetune")
    assert page.batch_size.text() == "" and page.batch_size.placeholderText() == "Auto"
    assert page.checkpointing.currentData() is None and page.global_batch.text() == ""
    best = form.plan_now().best
    knobs = ("micro_batch", "grad_accum", "global_batch", "grad_checkpointing")
    assert {best.recipe_source[k] for k in knobs} == {"planner"}
    _type(qtbot, page.batch_size, "2")
    _choose(page.checkpointing, False)
    source = form.plan_now().best.recipe_source
    assert (source["micro_batch"], source["grad_checkpointing"], source["grad_accum"]) == (
        "user",
        "user",
        "planner",
    )
    assert form.plan.best.recipe["micro_batch"] == 2 and form.plan.best.recipe["grad_checkpointing"] is False
    page.batch_size.selectAll()
    qtbot.keyClick(page.batch_size, Qt.Key.Key_Backspace)  # emptied by the user: Auto again
    assert form.plan_now().best.recipe_source["micro_batch"] == "planner"
    _type(qtbot, page.global_batch, "64")
    r = form.plan_now().best.recipe
    assert r["global_batch"] == 64 and form.plan.best.recipe_source["global_batch"] == "user"


def test_a_reopened_plan_keeps_the_knobs_it_left_to_the_planner_on_auto(wizard):
    form, page = wizard.form, wizard.workload_page
    request = plan_request_with(task="finetune", batch_size=4)
    form.load_request(request)
    assert page.batch_size.text() == "4" and page.grad_accum.text() == ""
    assert page.checkpointing.currentData() is None


def plan_request_with(**fields):
    return PlanRequest(model=get_preset("llama-3-8b"), **fields)


def test_the_recommendation_card_shows_time_and_rent_by_scale_for_a_budget_without_deadline(wizard):
    """A 15T-token 70B pretrain with no deadline: the card says where more GPUs stop paying."""
    form = wizard.form
    form.set_model_source("preset", "llama-3-70b")
    form.set_field("task", "pretrain")
    form.set_field("seq_len", 8192)
    form.set_field("grad_checkpointing", True)
    form.set_field("train_tokens", 15e12)
    form.set_field("gpu", "nvidia-h100-sxm")
    wizard.go_to(STEP_RESULT)
    result = form.plan_now()
    card = wizard.result_view.card
    text = card.frontier_label.text()
    assert card.frontier_label.isVisibleTo(card) and result.frontier
    rec = next(p for p in result.frontier if p.count == result.recommendation.count)
    assert f"{rec.count:,} GPUs {format_duration(rec.time_to_train_s)}" in text and "(recommended)" in text
    assert format_usd(rec.job_cloud_usd) in text
    assert rec.time_to_train_s < 365 * 86400
