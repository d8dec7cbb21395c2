"""Issue 26 in the GUI: each recipe knob shows Auto until the user sets it, a value set is a lock the
planner keeps, and the recommendation names what the planner chose and what was the user's."""

from __future__ import annotations

from PySide6.QtTest import QTest

from gpu_advisor.ui.plan.wizard import STEP_RESULT, STEP_WORKLOAD


def _qlora(form) -> None:
    """The issue's example: Llama 3 8B QLoRA, seq 2048, micro-batch 4, consumer tier, buy."""
    form.set_model_source("preset", "llama-3-8b")
    form.set_field("task", "qlora")
    form.set_field("precision", "nf4")
    form.set_field("seq_len", 2048)
    form.set_field("batch_size", 4)
    form.set_field("tier", "consumer")
    form.set_field("purchase", "buy")


def test_the_card_names_the_planners_checkpointing_and_the_users_micro_batch(wizard):
    _qlora(wizard.form)
    wizard.go_to(STEP_RESULT)
    plan = wizard.form.plan_now()
    card = wizard.result_view.card
    assert plan.best.count == 1 and card.recipe_label.isVisibleTo(card)
    assert "gradient checkpointing (the planner's choice)" in card.reason_label.text()
    recipe = card.recipe_label.text()
    assert "gradient checkpointing on (planner)" in recipe
    assert "micro-batch 4 (yours)" in recipe
    assert "loss full (planner)" in recipe


def test_the_loss_shows_auto_until_chosen_and_a_chosen_loss_is_kept(wizard, qtbot):
    page, form = wizard.workload_page, wizard.form
    _qlora(form)
    wizard.go_to(STEP_WORKLOAD)
    assert page.loss.currentText().startswith("Auto") and page.loss.currentData() is None
    assert "loss" not in form.request.model_fields_set  # the planner's to choose
    page.loss.setCurrentIndex(page.loss.findData("chunked"))
    assert form.request.loss == "chunked" and "loss" in form.request.model_fields_set
    plan = form.plan_now()
    assert all(o.recipe["loss"] == "chunked" and o.recipe_source["loss"] == "user" for o in plan.options)


def test_tensor_and_pipeline_parallel_are_auto_when_empty_and_kept_when_typed(wizard, qtbot):
    page, form = wizard.workload_page, wizard.form
    wizard.go_to(STEP_WORKLOAD)
    for editor, field in (
        (page.tensor_parallel, "tensor_parallel"),
        (page.pipeline_parallel, "pipeline_parallel"),
    ):
        assert editor.text() == "" and editor.placeholderText() == "Auto"
        assert getattr(form.request, field) is None
    QTest.keyClicks(page.tensor_parallel, "2")
    qtbot.waitUntil(lambda: form.request is not None and form.request.tensor_parallel == 2, timeout=2000)


def test_a_locked_micro_batch_1_reads_as_yours_with_one_sequence_per_step(wizard):
    form = wizard.form
    form.set_model_source("params", "1B")
    for name, value in (("task", "pretrain"), ("gpu", "nvidia-h100-sxm"), ("batch_size", 1)):
        form.set_field(name, value)
    form.set_field("train_tokens", 20e9)
    form.set_field("max_hours", 168.0)
    wizard.go_to(STEP_RESULT)
    form.plan_now()
    recipe = wizard.result_view.card.recipe_label.text()
    assert "micro-batch 1 (yours)" in recipe
    assert "1 sequence per step (planner)" in recipe
