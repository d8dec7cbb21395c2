"""Small form widgets: a number field that keeps what was typed, an inline error label, a page base."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpu_advisor.core.units import format_number
from gpu_advisor.ui import theme
from gpu_advisor.ui.plan.numbers import Invalid, parse_number

FIELD_WIDTH_PX = 260


class ErrorLabel(QLabel):
    """A validation message under a field: hidden when there is none, red in light and dark themes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setTextFormat(Qt.TextFormat.PlainText)  # messages quote file paths and names
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self._apply_color()
        self.hide()

    def set_message(self, message: str | None) -> None:
        self.setText(message or "")
        self.setVisible(bool(message))

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_color()
        super().changeEvent(event)

    def _apply_color(self) -> None:
        pal = self.palette()
        pal.setColor(QPalette.ColorRole.WindowText, theme.error_color())
        self.setPalette(pal)


class NumberEdit(QLineEdit):
    """A line edit for a number. Emits the parsed value or an Invalid; never rewrites the user's text."""

    value_edited = Signal(object)

    def __init__(
        self,
        *,
        integer: bool,
        optional: bool = False,
        placeholder: str = "",
        scale: int = 1,
        hours: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._hours = hours  # a duration in hours: '48', '7d', '1 week'
        self._integer = integer
        self._optional = optional
        self._scale = scale  # shown value = stored value / scale (e.g. MiB shown, bytes stored)
        self.setPlaceholderText(placeholder)
        self.setMaximumWidth(FIELD_WIDTH_PX)
        self.textEdited.connect(self._on_edited)

    def value(self) -> int | float | Invalid | None:
        value = parse_number(
            self.text(),
            integer=self._integer and self._scale == 1,
            optional=self._optional,
            hours=self._hours,
        )
        if self._scale == 1 or value is None or isinstance(value, Invalid):
            return value
        return round(value * self._scale) if self._integer else value * self._scale

    def set_value(self, value: Any) -> None:
        """Show a value from the model (no signal). An Invalid keeps its original text."""
        if isinstance(value, Invalid):
            text = value.text
        else:
            shown = value if value is None or self._scale == 1 else value / self._scale
            text = format_number(shown)
        if text != self.text() and self.value() != value:
            self.setText(text)

    def _on_edited(self, _text: str) -> None:
        self.value_edited.emit(self.value())


def make_combo(items: Iterable[tuple[str, Any]], tooltip: str = "") -> QComboBox:
    """A combo box of (label, value) pairs."""
    combo = QComboBox()
    for label, value in items:
        combo.addItem(label, value)
    combo.setToolTip(tooltip)
    combo.setMaximumWidth(FIELD_WIDTH_PX)
    return combo


def set_combo_value(combo: QComboBox, value: Any) -> None:
    """Select the item whose data equals `value` (without emitting when already selected)."""
    # findData() cannot look up None (an invalid QVariant), so compare item by item.
    index = next((i for i in range(combo.count()) if combo.itemData(i) == value), -1)
    if index >= 0 and index != combo.currentIndex():
        combo.setCurrentIndex(index)


class FormPage(QWidget):
    """A wizard page: a title, an explanation, and labelled fields each with an inline error label."""

    def __init__(self, title: str, subtitle: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self._errors: dict[str, ErrorLabel] = {}
        self._field_names: dict[str, str] = {}  # field -> its label as the user reads it
        outer = QVBoxLayout(self)
        outer.setContentsMargins(24, 16, 24, 16)
        heading = QLabel(f"<h2>{title}</h2>")
        heading.setAccessibleName(title)
        explanation = QLabel(subtitle)
        explanation.setWordWrap(True)
        outer.addWidget(heading)
        outer.addWidget(explanation)
        outer.addSpacing(8)
        self.outer_layout = outer

    @property
    def fields(self) -> frozenset[str]:
        """Request fields whose errors this page shows (and which block its Next button)."""
        return frozenset(self._errors)

    def new_form_layout(self) -> QFormLayout:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        form.setHorizontalSpacing(16)
        form.setVerticalSpacing(10)
        return form

    def add_field(
        self, form: QFormLayout, label: str, editor: QWidget, field: str, tooltip: str = ""
    ) -> QLabel:
        """Add `editor` for request field `field` with its error label beneath; returns the label."""
        container = QWidget()
        box = QVBoxLayout(container)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addWidget(editor)
        error = ErrorLabel()
        error.setObjectName(f"error_{field}")
        box.addWidget(error)
        self._errors[field] = error
        label_widget = QLabel(label)
        label_widget.setBuddy(editor)
        self._field_names[field] = label.replace("&", "").rstrip(":").strip()
        if tooltip:
            editor.setToolTip(tooltip)
            label_widget.setToolTip(tooltip)
        editor.setAccessibleName(label.replace("&", ""))
        form.addRow(label_widget, container)
        return label_widget

    def add_error_slot(self, field: str, layout: QVBoxLayout) -> ErrorLabel:
        """An error label for `field` placed in any layout (for fields that are not a form row)."""
        error = ErrorLabel()
        error.setObjectName(f"error_{field}")
        layout.addWidget(error)
        self._errors[field] = error
        return error

    def field_name(self, field: str) -> str:
        """'Sequence length (tokens)' for 'seq_len'; the field name itself when it has no label."""
        return self._field_names.get(field, field.replace("_", " ").capitalize())

    def show_errors(self, errors: Mapping[str, str]) -> None:
        """Show the messages for this page's fields; clear the others."""
        for field, label in self._errors.items():
            label.set_message(errors.get(field))

    def error_text(self, field: str) -> str:
        """The message currently shown for `field` ('' when none)."""
        label = self._errors.get(field)
        return label.text() if label is not None and label.isVisibleTo(self) else ""
