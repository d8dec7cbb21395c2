"""Packaged files the GUI uses: the app icon (made by the packaging work; optional here)."""

from __future__ import annotations

from PySide6.QtGui import QIcon

from gpu_advisor.core.paths import resource

ICON_NAME = "gpu-advisor.svg"


def app_icon() -> QIcon | None:
    """The app icon from resources/, or None when it is not installed (the window keeps Qt's default)."""
    try:
        icon_file = resource(ICON_NAME)
        if not icon_file.is_file():
            return None
        data = icon_file.read_bytes()
    except (OSError, ModuleNotFoundError):
        return None
    from PySide6.QtCore import QByteArray
    from PySide6.QtGui import QPixmap

    pixmap = QPixmap()
    if not pixmap.loadFromData(QByteArray(data), "SVG"):
        return None
    return QIcon(pixmap)
