"""Wizard page 1: the model, as a preset, a Hugging Face Hub id, a config.json, or a parameter count."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QWidget,
)

from gpu_advisor.core.architecture import SUPPORTED_MODEL_TYPES, ModelSpec
from gpu_advisor.core.presets import presets
from gpu_advisor.core.units import format_count
from gpu_advisor.ui.plan.fields import FIELD_WIDTH_PX, FormPage
from gpu_advisor.ui.plan.form import HUB_KIND, PlanForm
from gpu_advisor.ui.plan.hub_field import HubField

KIND_PRESET, KIND_CONFIG, KIND_PARAMS, KIND_HUB = range(4)


def _local_json_path(event: QDragEnterEvent | QDropEvent) -> str | None:
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    paths = [u.toLocalFile() for u in urls if u.isLocalFile()]
    return paths[0] if len(paths) == 1 and paths[0].lower().endswith(".json") else None


class ModelPage(FormPage):
    """Choose the model; shows its parameter count and architecture as soon as it is known."""

    def __init__(self, form: PlanForm, parent: QWidget | None = None) -> None:
        super().__init__(
            "Model",
            "Which model will run? Pick a preset, fetch any model from the Hugging Face Hub by its id, open "
            "its config.json (or drop one on this page), or type a parameter count if that is all you know.",
            parent,
        )
        self._form = form
        self.start_folder = ""  # where Browse… opens; the main window keeps it in the settings
        self.setAcceptDrops(True)

        choose = QGroupBox("Model source")
        grid = QGridLayout(choose)
        grid.setColumnStretch(1, 1)
        grid.setVerticalSpacing(10)
        self.kind_group = QButtonGroup(self)
        self.preset_radio = QRadioButton("&Preset")
        self.config_radio = QRadioButton("&config.json")
        self.params_radio = QRadioButton("Parameter co&unt")
        self.hub_radio = QRadioButton("Hugging F&ace")
        for i, radio in enumerate((self.preset_radio, self.config_radio, self.params_radio, self.hub_radio)):
            self.kind_group.addButton(radio, i)
        self.hub = HubField()

        self.search = QLineEdit()
        self.search.setPlaceholderText("Search presets (e.g. llama, 7b, bert)")
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName("Search presets")
        self.preset_list = QListWidget()
        self.preset_list.setAccessibleName("Model presets")
        self.preset_list.setMinimumHeight(200)
        for preset_id, preset in presets().items():
            item = QListWidgetItem(
                f"{preset.spec.name}  —  {format_count(preset.spec.total_params())} params"
            )
            item.setData(Qt.ItemDataRole.UserRole, preset_id)
            item.setToolTip(f"{preset_id}: {preset.spec.describe()}")
            self.preset_list.addItem(item)
        preset_box = QWidget()
        preset_layout = QGridLayout(preset_box)
        preset_layout.setContentsMargins(0, 0, 0, 0)
        preset_layout.addWidget(self.search, 0, 0)
        preset_layout.addWidget(self.preset_list, 1, 0)

        self.config_path = QLineEdit()
        self.config_path.setPlaceholderText("path/to/config.json — or drop the file on this page")
        self.config_path.setAccessibleName("config.json path")
        self.browse_button = QPushButton("&Browse…")
        self.browse_button.setToolTip(
            "Open a Hugging Face config.json. Counted exactly: "
            f"{', '.join(sorted(SUPPORTED_MODEL_TYPES))}; other decoder models are approximated, "
            "then traced for their exact memory."
        )
        config_box = QWidget()
        config_layout = QHBoxLayout(config_box)
        config_layout.setContentsMargins(0, 0, 0, 0)
        config_layout.addWidget(self.config_path, 1)
        config_layout.addWidget(self.browse_button)

        self.params_edit = QLineEdit()
        self.params_edit.setPlaceholderText("7B, 350M, 7e9")
        self.params_edit.setAccessibleName("Parameter count")
        self.params_edit.setMaximumWidth(FIELD_WIDTH_PX)
        self.params_edit.setToolTip(
            "A Llama-style shape of about this size is assumed (see README, 'Method')."
        )

        grid.addWidget(self.preset_radio, 0, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(preset_box, 0, 1)
        grid.addWidget(self.hub_radio, 1, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.hub, 1, 1)
        grid.addWidget(self.config_radio, 2, 0)
        grid.addWidget(config_box, 2, 1)
        grid.addWidget(self.params_radio, 3, 0)
        grid.addWidget(self.params_edit, 3, 1)
        self.outer_layout.addWidget(choose)
        self.add_error_slot("model", self.outer_layout)

        info = QGroupBox("Selected model")
        info_form = QFormLayout(info)
        self.info_name = QLabel()
        self.info_params = QLabel()
        self.info_arch = QLabel()
        self.info_arch.setWordWrap(True)
        self.info_source = QLabel()
        self.info_source.setWordWrap(True)
        self.info_notes = QLabel()
        self.info_notes.setWordWrap(True)
        for label in (self.info_name, self.info_params, self.info_arch, self.info_source, self.info_notes):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setTextFormat(Qt.TextFormat.PlainText)  # names and paths from users' files
        info_form.addRow("Name:", self.info_name)
        info_form.addRow("Parameters:", self.info_params)
        info_form.addRow("Architecture:", self.info_arch)
        info_form.addRow("Source:", self.info_source)
        info_form.addRow("Notes:", self.info_notes)
        self.outer_layout.addWidget(info)
        self.outer_layout.addStretch(1)

        self.search.textChanged.connect(self._filter)
        self.preset_list.currentItemChanged.connect(self._preset_chosen)
        self.config_path.editingFinished.connect(self._config_typed)
        self.browse_button.clicked.connect(lambda: self.browse_config(self.start_folder))
        self.params_edit.textEdited.connect(self._params_typed)
        self.kind_group.idClicked.connect(self._kind_clicked)
        self.hub.fetch_started.connect(self._hub_fetch_started)
        self.hub.model_fetched.connect(self._hub_fetched)
        self.hub.fetch_failed.connect(lambda hub_id, message: self._form.set_hub_pending(hub_id, message))
        form.model_changed.connect(self._show_model)
        form.request_loaded.connect(lambda _req: self.refresh())
        self.refresh()

    # ---- from the form --------------------------------------------------------------------------
    def refresh(self) -> None:
        """Show the form's model source in the widgets."""
        kind, value = self._form.model_source
        if kind == "preset":
            self.preset_radio.setChecked(True)
            for row in range(self.preset_list.count()):
                item = self.preset_list.item(row)
                if item.data(Qt.ItemDataRole.UserRole) == value:
                    self.preset_list.blockSignals(True)
                    self.preset_list.setCurrentItem(item)
                    self.preset_list.blockSignals(False)
        elif kind in ("config", "spec"):
            self.config_radio.setChecked(True)
            model = self._form.model
            self.config_path.setText(str(value) if kind == "config" else (model.source if model else ""))
        elif kind == HUB_KIND:
            self.hub_radio.setChecked(True)
            self.hub.edit.setText(str(value or ""))
        else:
            self.params_radio.setChecked(True)
            self.params_edit.setText(str(value or ""))
        self._show_model(self._form.model)

    def _show_model(self, spec: ModelSpec | None) -> None:
        if spec is None:
            for label in (
                self.info_name,
                self.info_params,
                self.info_arch,
                self.info_source,
                self.info_notes,
            ):
                label.setText("—")
            return
        total, active = spec.total_params(), spec.active_params()
        params = f"{format_count(total)} ({total:,})"
        if active != total:
            params += f"; {format_count(active)} active per token"
        guess = "  (approximated: see Notes)" if spec.notes else "  (shape guessed from the count)"
        said = "guessed" in spec.name  # a count's own name already says so: say it once
        self.info_name.setText(spec.name + (guess if spec.guessed and not said else ""))
        self.info_params.setText(params)
        self.info_arch.setText(spec.describe() + f", context {spec.max_positions:,} tokens")
        self.info_source.setText(spec.source or "—")
        self.info_notes.setText("\n".join(spec.notes) or "—")

    # ---- to the form ----------------------------------------------------------------------------
    def _filter(self, text: str) -> None:
        words = text.lower().split()
        for row in range(self.preset_list.count()):
            item = self.preset_list.item(row)
            haystack = f"{item.data(Qt.ItemDataRole.UserRole)} {item.text()}".lower()
            item.setHidden(not all(w in haystack for w in words))

    def _preset_chosen(self, item: QListWidgetItem | None, _previous: object = None) -> None:
        if item is None:
            return
        self.preset_radio.setChecked(True)
        self._form.set_model_source("preset", item.data(Qt.ItemDataRole.UserRole))

    def _config_typed(self) -> None:
        if self.config_path.text().strip():
            self.choose_config(self.config_path.text().strip())

    def choose_config(self, path: str) -> None:
        """Use this config.json (from Browse…, a drop, or typing)."""
        self.config_radio.setChecked(True)
        self.config_path.setText(path)
        self._form.set_model_source("config", path)

    def _params_typed(self, text: str) -> None:
        self.params_radio.setChecked(True)
        self._form.set_model_source("params", text.strip())

    def _kind_clicked(self, kind_id: int) -> None:
        if kind_id == KIND_PRESET:
            item = self.preset_list.currentItem()
            self._form.set_model_source("preset", item.data(Qt.ItemDataRole.UserRole) if item else None)
        elif kind_id == KIND_CONFIG:
            self._form.set_model_source("config", self.config_path.text().strip() or None)
        elif kind_id == KIND_PARAMS:
            self._form.set_model_source("params", self.params_edit.text().strip())
        elif self.hub.edit.text().strip():
            self.hub.fetch()
        else:
            self._form.set_hub_pending("", "type a Hugging Face model id, then Fetch")
            self.hub.edit.setFocus()

    def _hub_fetch_started(self, hub_id: str) -> None:
        self.hub_radio.setChecked(True)
        self._form.set_hub_pending(hub_id, f"fetching {hub_id}…")

    def _hub_fetched(self, model: object) -> None:
        self._form.set_hub_model(model.hub_id, model.spec, model.config, model.exact)  # type: ignore[attr-defined]

    def show_errors(self, errors: Mapping[str, str]) -> None:
        """The Hub field shows its own message beside it; the page does not repeat it."""
        if self._form.model_source[0] == HUB_KIND:
            errors = {k: v for k, v in errors.items() if k != "model"}
        super().show_errors(errors)

    def browse_config(self, start_folder: str = "") -> None:
        """Ask for a config.json with a file dialog."""
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a Hugging Face config.json", start_folder, "Model config (*.json);;All files (*)"
        )
        if path:
            self.choose_config(path)

    # ---- drag and drop (Qt overrides) -----------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if _local_json_path(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = _local_json_path(event)
        if path:
            self.choose_config(str(Path(path)))
            event.acceptProposedAction()
