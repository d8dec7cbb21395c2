"""Preferences: validated like every other input; OK stays disabled in effect until the values are valid."""

from __future__ import annotations

from gpu_advisor.ui.preferences import PreferencesDialog
from gpu_advisor.ui.settings import AppSettings, Calibration


def test_invalid_value_keeps_the_dialog_open_with_a_message(qtbot):
    dialog = PreferencesDialog(AppSettings(calibration=Calibration(mfu=0.3, source="run")))
    qtbot.addWidget(dialog)
    dialog.editors["sample_interval_s"].setText("0.01")
    dialog.accept()
    assert dialog.result_settings is None
    assert "greater than or equal to 0.1" in dialog.errors["sample_interval_s"].text()
    dialog.editors["sample_interval_s"].setText("1")
    dialog.buy.setChecked(True)
    dialog.clear_calibration.click()
    dialog.accept()
    assert dialog.result_settings == AppSettings(
        sample_interval_s=1.0, default_purchase="buy", calibration=None
    )
