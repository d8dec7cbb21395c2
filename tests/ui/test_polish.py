"""D25 (ux-review-3) polish: Tab leaves the Monitor's workload list in one press and takes no stop on
the wizard's frameless scroll area; the Browse… tooltip lists what is counted exactly; a tqdm bar's
redraws are one line in the output pane."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractScrollArea, QLineEdit, QWidget

from gpu_advisor.core.architecture import SUPPORTED_MODEL_TYPES


def test_tab_leaves_the_workload_list_in_one_press(qtbot):
    from gpu_advisor.ui.monitor.checklist import ChecklistTable

    parent = QWidget()
    qtbot.addWidget(parent)
    table = ChecklistTable(parent)
    after = QLineEdit(parent)
    table.setRowCount(6)
    parent.show()
    parent.activateWindow()
    qtbot.waitActive(parent)
    table.setFocus()
    table.setCurrentCell(0, 0)
    qtbot.waitUntil(table.hasFocus)
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    assert after.hasFocus()  # not the next of ~30 cells


def test_the_wizard_pages_scroll_areas_take_no_tab_stop(wizard):
    scrolls = [w for w in wizard.stack.findChildren(QAbstractScrollArea) if w.parent() is wizard.stack]
    assert scrolls
    assert all(s.focusPolicy() == Qt.FocusPolicy.NoFocus for s in scrolls)


def test_the_browse_tooltip_names_every_architecture_counted_exactly(wizard):
    tip = wizard.model_page.browse_button.toolTip()
    assert all(model_type in tip for model_type in SUPPORTED_MODEL_TYPES), tip
    assert "approximated" in tip


def test_a_progress_bar_redrawn_with_carriage_returns_is_one_line(tmp_path):
    from gpu_advisor.ui.monitor.output_pane import read_tail

    log = tmp_path / "run.log"
    log.write_bytes(b"epoch 1\n 10%|#  |\r 50%|##  |\r100%|####|\ndone\n")
    assert read_tail(log).splitlines() == ["epoch 1", "100%|####|", "done"]


def test_an_expected_hub_error_is_logged_without_a_traceback(caplog):
    """'Not in the cache' is the user's to fix and shown to them in one line; the terminal got a
    'background task failed' traceback for it. A bug still logs its traceback."""
    import logging

    from gpu_advisor.hub.models import HubError
    from gpu_advisor.ui.workers import _TaskWorker

    worker = _TaskWorker()
    failures: list[str] = []
    worker.task_failed.connect(lambda _id, message: failures.append(message))

    def offline():
        raise HubError("meta-llama/x is not in the cache and offline mode is on")

    def bug():
        raise KeyError("oops")

    with caplog.at_level(logging.DEBUG, logger="gpu_advisor.ui.workers"):
        worker.run_task(1, offline)
        assert failures == ["meta-llama/x is not in the cache and offline mode is on"]
        assert not any(r.exc_info for r in caplog.records)
        worker.run_task(2, bug)
        assert any(r.exc_info for r in caplog.records)
