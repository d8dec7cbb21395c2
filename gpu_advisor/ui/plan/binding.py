"""Two-way links between editors and PlanForm fields: edits go in, loaded or shared values come out."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QAbstractButton, QButtonGroup, QCheckBox, QComboBox

from gpu_advisor.ui.plan.fields import NumberEdit, set_combo_value
from gpu_advisor.ui.plan.form import PlanForm


class FieldBinder:
    """Connects editors to form fields ('seq_len' or 'assumptions.mfu') and refreshes them."""

    def __init__(self, form: PlanForm) -> None:
        self._form = form
        self._refreshers: dict[str, Callable[[Any], None]] = {}
        form.field_changed.connect(self.refresh)
        form.request_loaded.connect(lambda _request: self.refresh_all())

    def _get(self, field: str) -> Any:
        if field.startswith("assumptions."):
            return self._form.assumption(field.removeprefix("assumptions."))
        return self._form.value(field)

    def _set(self, field: str, value: Any) -> None:
        if field.startswith("assumptions."):
            self._form.set_assumption(field.removeprefix("assumptions."), value)
        else:
            self._form.set_field(field, value)

    def number(self, editor: NumberEdit, field: str) -> None:
        editor.value_edited.connect(lambda value: self._set(field, value))
        self._refreshers[field] = editor.set_value
        editor.set_value(self._get(field))

    def combo(self, combo: QComboBox, field: str) -> None:
        combo.currentIndexChanged.connect(lambda _i: self._set(field, combo.currentData()))
        self._refreshers[field] = lambda value: set_combo_value(combo, value)
        set_combo_value(combo, self._get(field))

    def check(self, box: QCheckBox, field: str) -> None:
        box.toggled.connect(lambda checked: self._set(field, checked))
        self._refreshers[field] = lambda value: box.setChecked(bool(value))
        box.setChecked(bool(self._get(field)))

    def choice(self, group: QButtonGroup, values: dict[QAbstractButton, Any], field: str) -> None:
        """Radio buttons, each standing for one value."""
        group.buttonToggled.connect(lambda button, on: on and self._set(field, values[button]))

        def show(value: Any) -> None:
            for button, button_value in values.items():
                if button_value == value and not button.isChecked():
                    button.setChecked(True)

        self._refreshers[field] = show
        show(self._get(field))

    def refresh(self, field: str) -> None:
        """Show the form's value of `field` in its editor (no-op if this binder does not own it)."""
        refresher = self._refreshers.get(field)
        if refresher is not None:
            refresher(self._get(field))

    def refresh_all(self) -> None:
        for field in self._refreshers:
            self.refresh(field)
