"""The training page's dataset and epochs fields, driven with the keyboard."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gpu_advisor.core.recommend import plan
from gpu_advisor.core.units import format_duration
from gpu_advisor.ui.plan.wizard import STEP_RESULT, STEP_TRAFFIC
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
