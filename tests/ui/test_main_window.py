"""The main window: plan files, exports, settings, the status bar."""

from __future__ import annotations

import json
import re

from PySide6.QtCore import QSettings

from gpu_advisor.cli import run_cli
from gpu_advisor.core.paths import config_dir
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.result import PLAN_SCHEMA
from gpu_advisor.ui.main_window import VIEW_PLAN, MainWindow
from gpu_advisor.ui.plan.wizard import STEP_RESULT
from gpu_advisor.ui.settings import SETTINGS_FILENAME, AppSettings, load_settings


def test_status_bar_shows_the_hardware_and_cpu_mode(window, qtbot):
    qtbot.waitUntil(lambda: "CPU mode" in window.hardware_label.text(), timeout=5000)
    assert "Test CPU" in window.hardware_label.text()
    assert "CPU mode — no NVIDIA GPU" in window.monitor.mode_banner.text()


def test_save_then_open_reproduces_the_plan(window, tmp_path, dialogs):
    window.form.set_model_source("preset", "llama-2-13b")
    window.form.set_field("users", 8)
    path = tmp_path / "plan.json"
    assert window._write_plan(path)
    data = json.loads(path.read_text())
    assert data["schema"] == PLAN_SCHEMA and data == plan(window.form.request).to_json_dict()
    assert not list(tmp_path.glob(".plan.json.*"))  # the temporary file was renamed, not left behind
    window.form.set_model_source("preset", "gpt2-small")
    assert window.open_plan(path)
    assert window.form.request.model.name == "Llama 2 13B" and window.form.request.users == 8
    assert window.wizard.step == STEP_RESULT and window.tabs.currentIndex() == VIEW_PLAN
    assert window.wizard.traffic_page.users.text() == "8"
    assert dialogs == []


def test_corrupt_plan_gives_one_dialog_and_changes_nothing(window, tmp_path, dialogs, qtbot):
    before = window.form.request
    bad = tmp_path / "broken.json"
    bad.write_text('{"schema": "gpu-advisor/plan@1", "inputs": {"model": {"name": "x"}, "seq_len": -5}')
    assert not window.open_plan(bad)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(
        json.dumps({"schema": PLAN_SCHEMA, "inputs": {**before.model_dump(mode="json"), "seq_len": -5}})
    )
    assert not window.open_plan(wrong)
    assert [title for title, _ in dialogs] == ["Cannot open plan", "Cannot open plan"]
    assert str(bad) in dialogs[0][1] and "not valid JSON" in dialogs[0][1]
    assert "inputs.seq_len" in dialogs[1][1]
    assert window.form.request == before
    with qtbot.waitSignal(window.form.plan_ready, timeout=5000):
        window.form.set_field("users", 3)  # the app keeps working


def test_a_bad_plan_reads_the_same_in_the_app_and_the_cli(window, tmp_path, dialogs, capsys):
    inputs = {**window.form.request.model_dump(mode="json"), "seq_len": -5}
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"schema": PLAN_SCHEMA, "inputs": inputs}))
    assert not window.open_plan(wrong)
    assert run_cli(["report", str(wrong), "--json", str(tmp_path / "r.json")]) == 2
    shown = re.sub(r"</?p>", "", dialogs[0][1])
    assert capsys.readouterr().err.endswith(f"error: {shown}\n")  # one loader, one set of words


def test_exports_attach_the_compared_results(window, tmp_path, dialogs, results_files, qtbot):
    window.import_results([results_files[0]])
    window.form.plan_now()
    window._plan_ready(None)
    results_files[0].unlink()  # the loaded results are attached, not read again from disk
    target = tmp_path / "out.json"
    window.export("json", target)
    data = json.loads(target.read_text())
    assert data["schema"] == "gpu-advisor/report@1" and data["plan"]["schema"] == PLAN_SCHEMA
    assert [r["file"] for r in data["results"]] == [results_files[0].name]
    assert window.export_markdown_action.isEnabled()
    window.export("markdown", tmp_path / "out.md")
    assert window.form.request.model.name in (tmp_path / "out.md").read_text()
    window.export("json", tmp_path / "missing-folder" / "x.json")
    assert dialogs and dialogs[-1][0] == "Export failed" and "missing-folder" in dialogs[-1][1]


def test_pdf_export_runs_on_the_worker_thread_and_matches_the_plan(
    window, tmp_path, dialogs, qtbot, monkeypatch
):
    from pypdf import PdfReader
    from PySide6.QtGui import QDesktopServices

    window.form.set_model_source("preset", "llama-3-70b")
    window.form.set_field("users", 16)
    window.form.plan_now()
    window._plan_ready(None)
    assert window.export_pdf_action.isEnabled(), window.export_pdf_action.toolTip()
    progress: list[int] = []
    window.export_status.progressed.connect(lambda percent, _step: progress.append(percent))
    target = tmp_path / "plan.pdf"
    window.export("pdf", target)
    assert not window.export_pdf_action.isEnabled()  # one export at a time
    assert window.export_status.bar.isVisibleTo(window)
    qtbot.waitUntil(lambda: window.export_pdf_action.isEnabled(), timeout=30_000)
    assert dialogs == []
    assert progress and progress[-1] == 100 and progress == sorted(progress)
    text = " ".join(" ".join(page.extract_text() for page in PdfReader(target).pages).split())
    best = plan(window.form.request).best
    assert f"{best.count} × {best.gpu}" in text and best.tier.label in text
    assert not window.export_status.bar.isVisibleTo(window)
    assert window.export_status.open_button.isVisibleTo(window)
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    window.export_status.open_button.click()
    assert opened == [str(tmp_path.resolve())]


def test_failed_pdf_export_offers_no_folder(window, tmp_path, dialogs, qtbot):
    window.form.plan_now()
    window._plan_ready(None)
    window.export("pdf", tmp_path / "missing" / "plan.pdf")
    qtbot.waitUntil(lambda: bool(dialogs), timeout=30_000)
    assert dialogs[-1][0] == "Export failed" and "missing" in dialogs[-1][1]
    assert not window.export_status.open_button.isVisibleTo(window)
    assert not (tmp_path / "missing").exists()


def test_bad_settings_file_falls_back_to_defaults_with_a_message(qtbot, dialogs, backend):
    path = config_dir() / SETTINGS_FILENAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"schema": "gpu-advisor/settings@1", "sample_interval_s": "fast"}')
    win = MainWindow(backend=backend)
    qtbot.addWidget(win)
    assert win.settings == AppSettings()
    assert "sample_interval_s" in win.startup_messages[0] and str(path) in win.startup_messages[0]
    assert "sample_interval_s" in path.read_text()  # the bad file is left for the user to see
    win.close()


def test_settings_and_geometry_persist(qtbot, dialogs, backend):
    win = MainWindow(backend=backend)
    qtbot.addWidget(win)
    win.show()
    win.resize(700, 500)  # the offscreen screen is 800 x 600; the window's minimum size applies
    saved = win.size()
    win.tabs.setCurrentIndex(2)
    win._store_settings(win.settings.model_copy(update={"default_electricity_usd_per_kwh": 0.42}))
    win.close()
    settings, message = load_settings()
    assert message is None and settings.default_electricity_usd_per_kwh == 0.42
    assert (
        QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat).value("geometry") is not None
    )
    again = MainWindow(backend=backend)
    qtbot.addWidget(again)
    assert again.form.request.electricity_usd_per_kwh == 0.42
    # Restored, not the 1280 x 800 default (restoreGeometry also keeps the window on the 800 x 600 screen).
    assert again.height() == saved.height() < 800
    assert again.tabs.currentIndex() == 2
    again.close()


def test_plots_follow_a_dark_palette(window, qapp):
    from PySide6.QtGui import QPalette

    from gpu_advisor.ui.theme import dark_palette

    light = qapp.palette()
    try:
        qapp.setPalette(dark_palette())
        qapp.processEvents()
        base = dark_palette().color(QPalette.ColorRole.Base)
        for plot in (*window.monitor.plots.plots.values(), window.wizard.result_view.memory_chart):
            assert plot.backgroundBrush().color() == base
    finally:
        qapp.setPalette(light)
