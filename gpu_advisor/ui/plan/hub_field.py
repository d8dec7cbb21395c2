"""A Hugging Face Hub id field: search and fetch in the background, a busy bar, one-line errors.

The network (or the cache) is only touched on a worker thread (ui.workers.TaskRunner, started on first
use); the window never waits. A fetch or search that a newer one replaced is dropped when it lands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QWidget,
)

from gpu_advisor.ui.plan.fields import ErrorLabel
from gpu_advisor.ui.workers import TaskRunner

PLACEHOLDER = "ORG/NAME or ORG/NAME@revision, e.g. Qwen/Qwen2.5-7B-Instruct"


def _fetch(hub_id: str) -> Any:
    from gpu_advisor.hub import fetch_model

    return fetch_model(hub_id)


def _search(text: str) -> list[str]:
    from gpu_advisor.hub import search_models

    return search_models(text)


class HubField(QWidget):
    """Type or search a Hub id, then Fetch: emits `model_fetched(HubModel)` or `fetch_failed(message)`."""

    fetch_started = Signal(str)  # the Hub id
    model_fetched = Signal(object)  # gpu_advisor.hub.HubModel
    fetch_failed = Signal(str, str)  # the Hub id, one line

    def __init__(
        self,
        parent: QWidget | None = None,
        fetch: Callable[[str], Any] = _fetch,
        search: Callable[[str], list[str]] = _search,
    ) -> None:
        super().__init__(parent)
        self._fetch, self._search = fetch, search
        self._runner: TaskRunner | None = None
        self._generation = 0  # the newest request; older answers are dropped
        self.edit = QLineEdit()
        self.edit.setPlaceholderText(PLACEHOLDER)
        self.edit.setToolTip(
            f"A Hugging Face model id: {PLACEHOLDER}"
        )  # the example, where the field is short
        self.edit.setAccessibleName("Hugging Face model id")
        self.edit.setClearButtonEnabled(True)
        self.search_button = QPushButton("Sea&rch")
        self.search_button.setToolTip("Models matching the text: cached ones first, then the Hub's")
        self.fetch_button = QPushButton("Fe&tch")
        self.fetch_button.setToolTip("Read config.json and the safetensors parameter count (no weights)")
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # indeterminate: a fetch has no known length
        self.busy.setMaximumHeight(6)
        self.busy.setTextVisible(False)
        self.busy.setAccessibleName("Fetching from the Hugging Face Hub")
        self.busy.hide()
        self.results = QListWidget()
        self.results.setAccessibleName("Hub search results")
        self.results.setMaximumHeight(120)
        self.results.hide()
        self.error = ErrorLabel()
        self.error.setObjectName("hub_error")

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit, 1)
        row.addWidget(self.search_button)
        row.addWidget(self.fetch_button)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setVerticalSpacing(4)
        grid.addLayout(row, 0, 0)
        grid.addWidget(self.busy, 1, 0)
        grid.addWidget(self.error, 2, 0)
        grid.addWidget(self.results, 3, 0)

        self.edit.returnPressed.connect(self.fetch)
        self.fetch_button.clicked.connect(self.fetch)
        self.search_button.clicked.connect(self.search)
        self.results.itemActivated.connect(self._result_chosen)
        self.results.itemClicked.connect(self._result_chosen)

    # ---- state -------------------------------------------------------------------------------------
    @property
    def working(self) -> bool:
        return self.busy.isVisible() or (self._runner is not None and self._runner.busy)

    def _tasks(self) -> TaskRunner:
        if self._runner is None:
            self._runner = TaskRunner("gpu-advisor hub", self)
        return self._runner

    def _begin(self) -> int:
        self._generation += 1
        self.error.set_message(None)
        self.busy.show()
        return self._generation

    def _end(self, generation: int) -> bool:
        """True when this answer is the newest; the busy bar goes once the newest has landed."""
        if generation != self._generation:
            return False
        self.busy.hide()
        return True

    # ---- actions -----------------------------------------------------------------------------------
    def fetch(self) -> None:
        """Fetch the typed id in the background."""
        hub_id = self.edit.text().strip()
        if not hub_id:
            self.error.set_message("type a model id (ORG/NAME)")
            return
        generation = self._begin()
        self.results.hide()
        self.fetch_started.emit(hub_id)
        self._tasks().submit(
            lambda: self._fetch(hub_id),
            lambda model: self._fetched(generation, model),
            lambda message: self._failed(generation, hub_id, message),
        )

    def search(self) -> None:
        """List matching ids in the background; choosing one fetches it."""
        text = self.edit.text().strip()
        generation = self._begin()
        self._tasks().submit(
            lambda: self._search(text),
            lambda ids: self._found(generation, ids),
            lambda message: self._search_failed(generation, message),
        )

    def shutdown(self) -> None:
        """End the worker thread (window closing)."""
        if self._runner is not None:
            self._runner.shutdown()

    # ---- answers (GUI thread) ----------------------------------------------------------------------
    def _fetched(self, generation: int, model: Any) -> None:
        if self._end(generation):
            self.model_fetched.emit(model)

    def _failed(self, generation: int, hub_id: str, message: str) -> None:
        if self._end(generation):
            message = message.removeprefix("model: ")
            self.error.set_message(message)
            self.fetch_failed.emit(hub_id, message)

    def _found(self, generation: int, ids: list[str]) -> None:
        if not self._end(generation):
            return
        self.results.clear()
        for hub_id in ids:
            item = QListWidgetItem(hub_id)
            item.setData(Qt.ItemDataRole.UserRole, hub_id)
            self.results.addItem(item)
        self.results.setVisible(bool(ids))
        if not ids:
            self.error.set_message("no model found (offline, only cached models are searched)")

    def _search_failed(self, generation: int, message: str) -> None:
        if self._end(generation):
            self.error.set_message(message.removeprefix("model: "))

    def _result_chosen(self, item: QListWidgetItem) -> None:
        self.edit.setText(item.data(Qt.ItemDataRole.UserRole))
        self.fetch()
