"""Messages to the user: one error dialog at a time, never one per timer tick."""

from __future__ import annotations

import sys
from html import escape

from PySide6.QtWidgets import QMessageBox, QWidget


class ErrorReporter:
    """Shows an error in a QMessageBox; while one is open, later errors go to the status bar instead.

    Tests patch `QMessageBox.critical`; `history` keeps every message shown, for them and for logs.
    """

    def __init__(self, parent: QWidget, status=None) -> None:
        self._parent = parent
        self._status = status  # callable(text) for the fallback, e.g. statusBar().showMessage
        self._open = False
        self.history: list[tuple[str, str]] = []
        # Headless runs (--self-test) print instead: a modal box offscreen would wait forever.
        self.show_dialogs = True

    def error(self, title: str, message: str) -> None:
        self.history.append((title, message))
        if not self.show_dialogs:
            print(f"{title}: {message}", file=sys.stderr, flush=True)
            return
        if self._open:
            if self._status is not None:
                self._status(f"{title}: {message}")
            return
        self._open = True
        try:
            # Messages quote paths and names from users' files: escaped, so they show as text.
            text = "<p>" + escape(message).replace("\n", "<br>") + "</p>"
            QMessageBox.critical(self._parent, title, text)
        finally:
            self._open = False
