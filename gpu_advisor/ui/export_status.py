"""Status-bar companion for exports: progress while a PDF is written, then "Open folder"."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QWidget


class ExportStatus(QWidget):
    """A progress bar fed from the export's worker thread, and a button that opens the export's folder.

    `progressed` may be emitted from any thread: Qt queues it to this widget's (the GUI) thread.
    """

    progressed = Signal(int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = QProgressBar()
        self.bar.setRange(0, 100)
        self.bar.setMaximumWidth(180)
        self.bar.setFormat("PDF %p%")
        self.open_button = QPushButton("Open folder")
        self.open_button.setToolTip("Show the exported file's folder in the file manager")
        self.open_button.clicked.connect(self.open_folder)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar)
        layout.addWidget(self.open_button)
        self.folder: Path | None = None
        self.progressed.connect(self._show_progress)
        self.bar.hide()
        self.open_button.hide()

    def started(self) -> None:
        self.open_button.hide()
        self.bar.setValue(0)
        self.bar.show()

    def finished(self, path: Path | None) -> None:
        """Hide the progress; offer the folder when a file was written (None: the export failed)."""
        self.bar.hide()
        self.folder = None if path is None else path.resolve().parent
        self.open_button.setVisible(self.folder is not None)

    def open_folder(self) -> bool:
        if self.folder is None:
            return False
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.folder)))

    def _show_progress(self, percent: int, step: str) -> None:
        self.bar.setValue(percent)
        self.bar.setToolTip(step)
