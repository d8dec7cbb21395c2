"""The Qt application a report needs (fonts, images, PDF), created headless when there is none."""

from __future__ import annotations

import os
import sys
import threading
from functools import cache

from PySide6.QtGui import QFontDatabase, QGuiApplication

# First family found wins; DejaVu and Liberation ship with most Linux desktops, the rest elsewhere.
PREFERRED_FAMILIES = ("DejaVu Sans", "Liberation Sans", "Noto Sans", "Segoe UI", "Helvetica Neue", "Arial")

_app: QGuiApplication | None = None  # keeps the app we created alive for the process


def ensure_gui_app() -> QGuiApplication:
    """Return the running QGuiApplication (or QApplication), creating an offscreen one if needed.

    A report draws nothing on screen, so the app we create uses the offscreen platform unless the
    caller chose one (QT_QPA_PLATFORM): a CLI on a server without a display works.
    """
    global _app
    app = QGuiApplication.instance()
    if app is not None:
        if not isinstance(app, QGuiApplication):
            raise RuntimeError("a QCoreApplication exists; reports need a QGuiApplication for fonts")
        return app
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("create the QGuiApplication on the main thread before writing reports")
    argv = [sys.argv[0] if sys.argv else "gpu-advisor"]
    if not os.environ.get("QT_QPA_PLATFORM"):
        argv += ["-platform", "offscreen"]
    _app = QGuiApplication(argv)
    return _app


@cache
def report_font_family() -> str:
    """A sans-serif family that exists here (embedded into PDFs as a subset)."""
    ensure_gui_app()
    available = set(QFontDatabase.families())
    for family in PREFERRED_FAMILIES:
        if family in available:
            return family
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont).family()
