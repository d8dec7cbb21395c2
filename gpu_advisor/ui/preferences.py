"""The Preferences dialog: edits an AppSettings copy; OK validates it like any other input."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from gpu_advisor.core.errors import error_words
from gpu_advisor.core.request import Purchase
from gpu_advisor.ui.plan.fields import ErrorLabel, NumberEdit
from gpu_advisor.ui.plan.numbers import Invalid
from gpu_advisor.ui.settings import AppSettings

NUMBER_FIELDS = (
    ("sample_interval_s", "Telemetry interval (s):", False),
    ("plot_window_s", "Live plot history (s):", False),
    ("default_hours_per_month", "Hours of use per month (h):", False),
    ("default_electricity_usd_per_kwh", "Electricity (USD per kWh):", False),
)


class PreferencesDialog(QDialog):
    """Returns the edited settings from `result_settings` after exec() == Accepted."""

    def __init__(self, settings: AppSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self._settings = settings
        self.result_settings: AppSettings | None = None
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.editors: dict[str, NumberEdit] = {}
        self.errors: dict[str, ErrorLabel] = {}
        for name, label, integer in NUMBER_FIELDS:
            editor = NumberEdit(integer=integer)
            editor.set_value(getattr(settings, name))
            editor.setToolTip(AppSettings.model_fields[name].description or "")
            error = ErrorLabel()
            box = QVBoxLayout()
            box.addWidget(editor)
            box.addWidget(error)
            holder = QWidget()
            holder.setLayout(box)
            box.setContentsMargins(0, 0, 0, 0)
            form.addRow(label, holder)
            self.editors[name], self.errors[name] = editor, error
        self.rent = QRadioButton("Rent")
        self.buy = QRadioButton("Buy")
        group = QButtonGroup(self)
        row = QHBoxLayout()
        for button in (self.rent, self.buy):
            group.addButton(button)
            row.addWidget(button)
        row.addStretch(1)
        (self.buy if settings.default_purchase is Purchase.BUY else self.rent).setChecked(True)
        form.addRow("New plans rank by:", row)
        calibration = settings.calibration
        self.calibration_label = QLabel(
            f"MFU {calibration.mfu:.0%} from {calibration.source}"
            if calibration
            else "none (documented defaults)"
        )
        self.calibration_label.setWordWrap(True)
        self.clear_calibration = QPushButton("&Forget calibration")
        self.clear_calibration.setEnabled(calibration is not None)
        # Its whole text, always: beside a label that wraps, the row would otherwise squeeze it.
        self.clear_calibration.setMinimumWidth(self.clear_calibration.sizeHint().width())
        self.clear_calibration.clicked.connect(self._forget_calibration)
        calib_row = QHBoxLayout()
        calib_row.addWidget(self.calibration_label, 1)
        calib_row.addWidget(self.clear_calibration)
        form.addRow("Calibration:", calib_row)
        layout.addLayout(form)
        self.general_error = ErrorLabel()
        layout.addWidget(self.general_error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._forget = False

    def _forget_calibration(self) -> None:
        self._forget = True
        self.calibration_label.setText("none (will be forgotten on OK)")
        self.clear_calibration.setEnabled(False)

    def edited(self) -> AppSettings | None:
        """The settings as edited, or None with the messages shown next to the fields."""
        values: dict[str, Any] = {}
        bad = False
        for name, editor in self.editors.items():
            value = editor.value()
            if isinstance(value, Invalid):
                self.errors[name].set_message(value.message)
                bad = True
            else:
                self.errors[name].set_message(None)
                values[name] = value
        values["default_purchase"] = Purchase.BUY if self.buy.isChecked() else Purchase.RENT
        if self._forget:
            values["calibration"] = None
        if bad:
            return None
        try:
            return AppSettings.model_validate({**self._settings.model_dump(), **values})
        except ValidationError as exc:
            for err in exc.errors():
                loc, message = error_words(err)
                target = self.errors.get(loc[0] if loc else "", self.general_error)
                target.set_message(message)
            return None

    def accept(self) -> None:  # Qt override: stay open while a field is invalid
        settings = self.edited()
        if settings is not None:
            self.result_settings = settings
            super().accept()
