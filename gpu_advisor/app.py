"""The desktop app's entry: `gpu-advisor` with no arguments, or `gpu-advisor --self-test`."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence

NO_DISPLAY_MESSAGE = """\
gpu-advisor: no display found, so the desktop app cannot open here.

Use the command line instead, for example:
  gpu-advisor --help
  gpu-advisor plan --model llama-3-8b --task inference --users 16
  gpu-advisor catalog

Or run the app headless as a check: gpu-advisor --self-test
(To force a platform, set QT_QPA_PLATFORM, e.g. QT_QPA_PLATFORM=offscreen.)"""


def display_available(
    environ: dict[str, str] | os._Environ[str] = os.environ, platform: str = sys.platform
) -> bool:
    """False on Linux/BSD with no X11 or Wayland display and no QT_QPA_PLATFORM chosen."""
    if environ.get("QT_QPA_PLATFORM"):
        return True
    if platform.startswith(("win", "darwin", "cygwin")):
        return True
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def run_gui(args: Sequence[str] = ()) -> int:
    """Open the main window (or run the self-test); returns the process exit code."""
    self_test = "--self-test" in args
    if self_test:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # headless by design, even where a display exists
    elif not display_available():
        print(NO_DISPLAY_MESSAGE, file=sys.stderr)
        return 2

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "gpu-advisor"])
    app.setApplicationName("GPU Advisor")
    app.setOrganizationName("gpu-advisor")
    app.setDesktopFileName("gpu-advisor")

    from gpu_advisor.ui.main_window import MainWindow

    if self_test:
        from gpu_advisor.ui.self_test import run_self_test

        return run_self_test(app)
    window = MainWindow()
    window.show()
    # Everything built so far lives as long as the app: keep it out of full garbage collections,
    # which would otherwise walk it again and again (each one pauses every thread).
    gc.freeze()
    return app.exec()
