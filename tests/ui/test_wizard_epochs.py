"""The training page's dataset and epochs fields, driven with the keyboard."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gpu_advisor.core.recommend import plan
from gpu_advisor.core.units import format_duration
from gpu_advisor.ui.plan.wizard import STEP_BUDGET, STEP_RESULT, STEP_TRAFFIC, STEP_WORKLOAD
from tests.ui.test_wizard import _type


def _to_training_page(wizard, qtbot):
    wizard.next()
    page = wizard.workload_page
    page.task.setCurrentIndex(next(i for i in range(page.task.count()) if page.task.itemData(i) == "lora"))
    _type(qtbot, page.seq_len, "1024")
    qtbot.keyClick(wizard, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert wizard.step == STEP_TRAFFIC
    return wizard.traffic_page


def test_a_dataset_and_epochs_give_the_time_per_epoch(wizard, qtbot):
    traffic = _to_training_page(wizard, qtbot)
    _type(qtbot, traffic.dataset_samples, "50k")
    _type(qtbot, traffic.epochs, "3")
    request = wizard.form.request
    assert (request.dataset_samples, request.epochs, request.train_tokens) == (50_000, 3, None)
    wizard.go_to(STEP_RESULT)
    expected = plan(request).options[0]
    table = wizard.result_view.options
    assert table.cell_text(0, "Time per epoch") == format_duration(
        50_000 * 1024 / expected.speed.tokens_per_s
    )
    assert table.cell_text(0, "Time to train") == format_duration(expected.speed.time_to_train_s)


def test_a_token_budget_and_a_dataset_together_are_refused(wizard, qtbot):
    traffic = _to_training_page(wizard, qtbot)
    _type(qtbot, traffic.train_tokens, "1e9")
    _type(qtbot, traffic.dataset_tokens, "5e8")
    assert "a token budget or a dataset" in traffic.error_text("train_tokens")
    assert not wizard.next_button.isEnabled()
    traffic.train_tokens.selectAll()
    qtbot.keyClick(traffic.train_tokens, Qt.Key.Key_Backspace)
    assert traffic.error_text("train_tokens") == "" and wizard.next_button.isEnabled()


def _switch_task(wizard, data: str) -> None:
    wizard.go_to(STEP_WORKLOAD)
    page = wizard.workload_page
    page.task.setCurrentIndex(next(i for i in range(page.task.count()) if page.task.itemData(i) == data))
    wizard.next()
    assert wizard.step == STEP_TRAFFIC


def test_switching_to_inference_ignores_the_hidden_training_fields_and_keeps_them(wizard, qtbot):
    """D4: a token budget and a dataset together, then Inference: the serving page is not blocked by
    the training page's message; back to training, the values and the message are there again."""
    traffic = _to_training_page(wizard, qtbot)
    _type(qtbot, traffic.train_tokens, "20B")
    _type(qtbot, traffic.dataset_samples, "1000000")
    _type(qtbot, traffic.epochs, "3")
    assert not wizard.next_button.isEnabled()
    _switch_task(wizard, "inference")
    assert traffic.inference_box.isVisibleTo(traffic) and not traffic.training_box.isVisibleTo(traffic)
    assert wizard.next_button.isEnabled(), wizard.blocked.text()
    assert wizard.blocked.text() == ""
    request = wizard.form.request
    assert request is not None and request.train_tokens is None and request.dataset_samples is None
    wizard.next()
    assert wizard.step == STEP_BUDGET
    _switch_task(wizard, "lora")
    assert traffic.train_tokens.text() == "20B"
    assert "a token budget or a dataset" in traffic.error_text("train_tokens")
    assert not wizard.next_button.isEnabled()


def test_a_dataset_alone_then_inference_does_not_block_the_serving_page(wizard, qtbot):
    traffic = _to_training_page(wizard, qtbot)
    _type(qtbot, traffic.dataset_tokens, "5e8")
    _type(qtbot, traffic.epochs, "2")
    assert wizard.next_button.isEnabled()
    _switch_task(wizard, "inference")
    assert wizard.next_button.isEnabled(), wizard.blocked.text()
    assert wizard.first_blocked_step() == STEP_RESULT


def test_a_typo_in_a_hidden_serving_field_does_not_block_training(wizard, qtbot):
    wizard.go_to(STEP_TRAFFIC)
    traffic = wizard.traffic_page
    _type(qtbot, traffic.ttft, "fast")
    assert not wizard.next_button.isEnabled()
    _switch_task(wizard, "lora")
    assert wizard.next_button.isEnabled(), wizard.blocked.text()
    _switch_task(wizard, "inference")
    assert traffic.ttft.text() == "fast" and not wizard.next_button.isEnabled()
