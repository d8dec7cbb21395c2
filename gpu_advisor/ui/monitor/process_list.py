"""The Monitor's process list (nvitop style): who uses the watched GPU, or this app's process tree.

Refreshed once a second while it is on screen only: reading processes costs a few milliseconds of
the GUI thread, nothing to pay for a list nobody looks at.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from gpu_advisor.core.units import NA, format_bytes, format_pct
from gpu_advisor.telemetry.processes import HostProcesses, ProcessRow

HEADERS = ("PID", "Process", "CPU", "Host memory (RSS)", "GPU memory", "GPU SM")
GPU_COLUMNS = (4, 5)
REFRESH_MS = 1000


def process_cells(row: ProcessRow) -> tuple[str, ...]:
    """A row's texts in HEADERS order; psutil's CPU % is of one core (200% = two cores busy)."""
    return (
        str(row.pid),
        row.name,
        NA if row.cpu_pct is None else format_pct(row.cpu_pct / 100),
        NA if row.rss_bytes is None else format_bytes(row.rss_bytes),
        NA if row.gpu_memory_bytes is None else format_bytes(row.gpu_memory_bytes),
        NA if row.gpu_sm_pct is None else format_pct(row.gpu_sm_pct / 100),
    )


class ProcessTable(QTableWidget):
    """`set_source(gpu_reader)`: a callable giving the watched GPU's processes, or None for the CPU
    (this app's process tree: the benchmark and any command it started)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(HEADERS), parent)
        self.setHorizontalHeaderLabels(list(HEADERS))
        self.setAccessibleName("Processes")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self._host = HostProcesses(os.getpid())
        self._gpu_reader: Callable[[], list[ProcessRow]] | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.set_source(None)

    def set_source(self, gpu_reader: Callable[[], list[ProcessRow]] | None) -> None:
        self._gpu_reader = gpu_reader
        for column in GPU_COLUMNS:
            self.setColumnHidden(column, gpu_reader is None)
        for column in (2, 3):
            self.setColumnHidden(column, gpu_reader is not None)
        self.setToolTip(
            "Compute processes on the watched GPU, from NVML (any user's; names need permission)."
            if gpu_reader is not None
            else "This app and the processes it started (a watched command), from psutil. CPU: % of one core."
        )

    def refresh(self) -> None:
        rows = self._gpu_reader() if self._gpu_reader is not None else self._host.read()
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(process_cells(row)):
                item = self.item(r, c)
                if item is None:
                    item = QTableWidgetItem()
                    if c != 1:
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    self.setItem(r, c, item)
                item.setText(text)

    def showEvent(self, event: QShowEvent) -> None:  # Qt override
        self.refresh()
        self.timer.start()
        super().showEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:  # Qt override
        self.timer.stop()
        super().hideEvent(event)
