"""What desktop users expect: memory by precision, tables to the clipboard and CSV, Open Recent,
extensions added to saved files, buttons never clipped."""

from __future__ import annotations

import csv
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog

from gpu_advisor.core.units import format_bytes
from gpu_advisor.ui.main_window import VIEW_COMPARE, VIEW_PLAN
from gpu_advisor.ui.plan.wizard import STEP_RESULT
from gpu_advisor.ui.preferences import PreferencesDialog
from gpu_advisor.ui.settings import AppSettings, Calibration
from gpu_advisor.ui.table_export import copy_table, write_csv


def test_memory_by_precision_lists_five_precisions_and_follows_the_task(window, qtbot):
    window.form.set_model_source("preset", "llama-3-8b")
    window.form.set_field("task", "inference")
    window.form.set_field("precision", "bf16")
    window.form.plan_now()
    qtbot.mouseClick(window.wizard.estimate.precision_button, Qt.MouseButton.LeftButton)
    dialog = window.precision_dialog
    assert dialog.isVisible()
    table = dialog.table
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == [
        "fp32",
        "bf16 (chosen)",
        "fp8",
        "int8",
        "int4",
    ]
    # 8.03B weights: fp32 twice bf16, int4 about a quarter of bf16 (16-bit embeddings kept)
    assert dialog.cell("fp32", 3) == format_bytes(window.form.plan.memory.components.weights * 2)
    assert dialog.cell("bf16", 4) == format_bytes(window.form.plan.memory.components.total)
    assert dialog.cell("fp32", 2) == "4 B" and dialog.cell("bf16", 2) == "2 B"
    window.form.set_field("task", "finetune")
    window.form.plan_now()
    assert "cannot be trained" in dialog.cell("int4", 1)  # says why, no number
    assert dialog.cell("int4", 4) == ""


def test_any_table_copies_as_tab_separated_text_and_exports_csv(window, qtbot, results_files, tmp_path):
    window.import_results(list(results_files))
    table = window.compare.table
    row = [line.label for line in window.compare.lines].index("matmul fp32")
    table.selectRow(row)
    copy_table(table)
    lines = QGuiApplication.clipboard().text().splitlines()
    assert lines[0].split("\t")[:2] == ["", "Test CPU cpu-box.json"]  # the row labels' column, then files
    assert lines[1].split("\t")[:3] == ["matmul fp32", "2 TFLOP/s", "600 TFLOP/s"]
    path = tmp_path / "comparison.csv"
    write_csv(table, path)
    with path.open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == table.rowCount() + 1  # the header row, then every row
    assert rows[row + 1][:3] == ["matmul fp32", "2 TFLOP/s", "600 TFLOP/s"]
    assert [a.text() for a in table.actions()] == ["&Copy", "Export as CS&V…"]
    assert table.contextMenuPolicy() == Qt.ContextMenuPolicy.ActionsContextMenu


def test_csv_export_adds_the_extension(window, monkeypatch, tmp_path, results_files):
    window.import_results(list(results_files))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "machines"), ""))
    export = window.compare.table.actions()[1]
    export.trigger()
    assert (tmp_path / "machines.csv").is_file()


def test_saving_without_an_extension_writes_a_json_file(window, monkeypatch, tmp_path, dialogs):
    window.form.set_model_source("preset", "llama-3-8b")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "my plan"), ""))
    assert window.save_plan_as()
    assert (tmp_path / "my plan.json").is_file() and not (tmp_path / "my plan").exists()
    window.export_dialog("markdown")
    assert (tmp_path / "my plan.md").is_file()


def test_open_recent_reopens_plans_and_results(window, tmp_path, dialogs, results_files):
    window.form.set_model_source("preset", "llama-2-13b")
    plan_path = tmp_path / "plan.json"
    assert window._write_plan(plan_path)
    window.import_results([results_files[0]])
    window.recent_menu.aboutToShow.emit()
    names = [a.text() for a in window.recent_menu.actions()]
    assert names == [f"&1 {Path(results_files[0]).name}", "&2 plan.json"]  # newest first
    window.compare.clear()
    window.form.set_model_source("preset", "gpt2-small")
    window.recent_menu.actions()[1].trigger()
    assert window.form.request.model.name == "Llama 2 13B" and window.tabs.currentIndex() == VIEW_PLAN
    assert window.wizard.step == STEP_RESULT
    window.recent_menu.actions()[0].trigger()
    assert window.tabs.currentIndex() == VIEW_COMPARE and len(window.compare.loaded) == 1
    assert window.open_recent(tmp_path / "gone.json") is False
    assert dialogs[-1][0] == "Cannot open" and "no longer there" in dialogs[-1][1]


def test_forget_calibration_shows_its_whole_text(qtbot):
    calibration = Calibration(mfu=0.3, source="train bench-gpt2-small on NVIDIA H100 80GB HBM3, 2026-01-02")
    dialog = PreferencesDialog(AppSettings(calibration=calibration))
    qtbot.addWidget(dialog)
    dialog.resize(300, dialog.height())  # as narrow as it goes
    dialog.show()
    button = dialog.clear_calibration
    assert button.width() >= button.sizeHint().width()
