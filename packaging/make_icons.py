"""Render resources/gpu-advisor.svg to the PNG sizes desktops ask for (resources/icons/NxN.png).

Run from the repository root: .venv/bin/python packaging/make_icons.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 24, 32, 48, 64, 128, 256)  # freedesktop hicolor sizes


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    svg = root / "resources" / "gpu-advisor.svg"
    out = root / "resources" / "icons"
    out.mkdir(exist_ok=True)
    app = QGuiApplication(sys.argv[:1])  # noqa: F841  (fonts and image plugins need it)
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        print(f"{svg}: not a valid SVG", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        path = out / f"{size}x{size}.png"
        if not image.save(str(path)):
            print(f"{path}: cannot write", file=sys.stderr)
            return 1
        print(path.relative_to(root))
    return 0


if __name__ == "__main__":
    sys.exit(main())
