"""D13 (ux-review-3): the Options table's columns follow the request (a training plan shows its step
time and parallelism, a plan with a first-token target its first token, columns that are n/a on
every row go), options of hundreds of GPUs are folded away, and a column reads with one number of
decimals."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gpu_advisor.ui.plan.wizard import STEP_RESULT

QLORA = {"task": "qlora", "purchase": "buy", "tier": "consumer"}  # review 3's J1, no token budget
TTFT = {  # J8: 5 requests/s of 1024 + 256 tokens, first token within 0.5 s
    "task": "inference",
    "requests_per_s": 5.0,
    "prompt_tokens": 1024,
    "output_tokens": 256,
    "ttft_s": 0.5,
    "tokens_per_s_per_user": 20.0,
}
USERS_200 = {"task": "inference", "users": 200, "tokens_per_s_per_user": 30.0}  # J2


def _options(window, qtbot, model: str, fields: dict, size=(1280, 800)):
    window.form.set_model_source("preset", model)
    for field, value in fields.items():
        window.form.set_field(field, value)
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size, timeout=2000)
    window.wizard.go_to(STEP_RESULT)
    view = window.wizard.result_view
    view.tabs.setCurrentIndex(view.tabs.indexOf(view.options.parentWidget()))
    table = view.options
    qtbot.waitUntil(lambda: table.mapTo(window, table.rect().topRight()).x() >= size[0] - 80, timeout=2000)
    return view, table


def _shown(table) -> list[str]:
    model = table.model()
    return [
        model.headerData(c, Qt.Orientation.Horizontal).replace("\n", " ")
        for c in range(model.columnCount())
        if not table.isColumnHidden(c)
    ]


def _column(table, header: str) -> list[str]:
    return [table.cell_text(r, header) for r in range(table.model().rowCount())]


def test_a_training_plan_without_a_budget_shows_step_time_and_parallelism_not_n_a(window, qtbot):
    _view, table = _options(window, qtbot, "llama-3-8b", QLORA)
    shown = _shown(table)
    assert "Step time" in shown and "Parallelism" in shown
    for empty in ("Time to train", "Job cost", "GPU-hours", "Time per epoch"):
        assert empty not in shown
        with pytest.raises(KeyError):  # not in copies either: a column of n/a says nothing
            table.cell_text(0, empty)


def test_a_first_token_target_keeps_the_first_token_column(window, qtbot):
    view, table = _options(window, qtbot, "llama-3-70b", TTFT)
    assert "First token" in _shown(table)
    assert "First token" not in view.options_caption.text()


def test_options_of_hundreds_of_gpus_are_folded_and_can_be_shown(window, qtbot):
    view, table = _options(window, qtbot, "llama-3-70b", USERS_200)
    all_options = view.plan.options
    assert max(o.count for o in all_options) > 64  # J2's 512 x L4 ... 2,048 x T4
    counts = [int(text.split()[0].replace(",", "")) for text in _column(table, "GPUs")]
    assert counts and max(counts) <= 64
    folded = len(all_options) - len(counts)
    assert folded > 0
    toggle = view.show_large_options
    assert toggle.isVisible() and f"{folded} options" in toggle.text()
    toggle.setChecked(True)
    assert table.model().rowCount() == len(all_options)


def test_the_per_user_speed_column_reads_with_one_number_of_decimals(window, qtbot):
    _view, table = _options(window, qtbot, "llama-3-70b", USERS_200)
    speeds = [s for s in _column(table, "Tokens/s per user") if s != "n/a"]
    assert len(speeds) > 3
    decimals = {len(s.split(".")[1]) if "." in s else 0 for s in speeds if float(s.replace(",", "")) < 100}
    assert decimals == {1}, speeds
