"""Keyboard use: Enter presses Next, Alt+letters are unique on each page, plots take no Tab stop."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gpu_advisor.ui.plan.wizard import STEP_BUDGET, STEP_MODEL, STEP_RESULT, STEP_TRAFFIC, STEP_WORKLOAD
from tests.ui.mnemonics import clashes


def test_enter_in_a_field_advances_the_wizard(window, qtbot):
    wizard = window.wizard
    window.form.set_model_source("preset", "llama-3-8b")
    wizard.go_to(STEP_WORKLOAD)
    page = wizard.workload_page
    page.seq_len.setFocus()
    qtbot.keyClick(page.seq_len, Qt.Key.Key_Return)
    assert wizard.step == STEP_TRAFFIC
    wizard.go_to(STEP_WORKLOAD)
    page.seq_len.setFocus()
    page.seq_len.setText("0")
    page.seq_len.textEdited.emit("0")
    qtbot.keyClick(page.seq_len, Qt.Key.Key_Enter)  # the keypad's Enter too, but not past an error
    assert wizard.step == STEP_WORKLOAD


def test_enter_in_the_hugging_face_field_fetches_instead(window, qtbot):
    wizard = window.wizard
    wizard.go_to(STEP_MODEL)
    wizard.model_page.hub_radio.setChecked(True)
    edit = wizard.model_page.hub.edit
    edit.setFocus()
    fetched = []
    edit.returnPressed.connect(lambda: fetched.append(True))
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert fetched and wizard.step == STEP_MODEL


def test_alt_letters_are_unique_on_the_input_pages_monitor_and_compare(window, qtbot, results_files):
    window.form.set_model_source("preset", "llama-3-8b")
    for task in ("pretrain", "finetune", "lora", "qlora", "inference"):  # each shows other fields
        window.form.set_field("task", task)
        for step in (STEP_MODEL, STEP_WORKLOAD, STEP_TRAFFIC, STEP_BUDGET):
            window.wizard.go_to(step)
            assert clashes(window) == {}, (task, step)
    monitor = window.monitor
    window.tabs.setCurrentWidget(monitor)
    for workload in ("all", "command", "cluster"):
        monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData(workload))
        assert clashes(window) == {}, workload
    window.import_results(list(results_files))
    assert clashes(window) == {}
    # Alt+E is the Edit menu's alone: the wizard's way back from the result is Ed&it inputs
    assert "&Edit" in [a.text() for a in window.menuBar().actions()]


def test_alt_letters_are_unique_on_every_tab_of_the_recommendation(window):
    window.form.set_model_source("preset", "llama-3-8b")
    for task in ("finetune", "inference"):
        window.form.set_field("task", task)
        window.wizard.go_to(STEP_RESULT)
        assert window.wizard.step == STEP_RESULT
        tabs = window.wizard.result_view.tabs
        for index in range(tabs.count()):
            tabs.setCurrentIndex(index)
            assert clashes(window) == {}, (task, tabs.tabText(index))
    # the menus keep their letters: the pages give way to them
    letters = {a.text() for a in window.menuBar().actions()}
    assert {"&File", "&Edit", "&View", "&Help"} <= letters


def test_the_views_are_switched_with_ctrl_digits_not_alt_letters(window):
    assert [window.tabs.tabText(i) for i in range(3)] == ["Plan", "Monitor", "Compare"]
    shortcuts = {
        a.text(): a.shortcut().toString() for m in window.menuBar().actions() for a in m.menu().actions()
    }
    assert shortcuts["&Monitor"] == "Ctrl+2"
