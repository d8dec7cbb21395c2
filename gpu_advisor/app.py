"""The desktop app's entry: `gpu-advisor` with no arguments, or `gpu-advisor --self-test`."""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

NO_DISPLAY_MESSAGE = """\
gpu-advisor: no display found, so the desktop app cannot open here.

Use the command line instead, for example:
  gpu-advisor --help
  gpu-advisor plan --model llama-3-8b --task inference --users 16
  gpu-advisor catalog

Or run the app headless as a check: gpu-advisor --self-test
(To force a platform, set QT_QPA_PLATFORM, e.g. QT_QPA_PLATFORM=offscreen.)"""


# The models and wording behind the window's first page (no Qt in them): see open_main_window.
WINDOW_MODELS = (
    "gpu_advisor.core.request",
    "gpu_advisor.core.presets",
    "gpu_advisor.core.result",
    "gpu_advisor.wording.plan",
    "gpu_advisor.ui.settings",
)


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
    if self_test:
        from gpu_advisor.ui.self_test import run_self_test

        return run_self_test(create_app())
    app, _window = open_main_window()
    return app.exec()


def create_app() -> Any:
    """The QApplication, named for the desktop (settings, the taskbar entry)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "gpu-advisor"])
    app.setApplicationName("GPU Advisor")
    app.setOrganizationName("gpu-advisor")
    app.setDesktopFileName("gpu-advisor")
    return app


def open_main_window() -> tuple[Any, Any]:
    """Create the application and show the main window; (app, window). The caller runs the loop.

    The garbage collector waits while the modules load and the window is built: start-up makes
    hundreds of thousands of long-lived objects and almost no garbage, and each full collection
    would walk everything loaded so far (about a tenth of the start-up time on the development
    machines: benchmarks/ui_startup.py against its --direct). Then everything built so far, which
    lives as long as the app, is frozen out of later full collections (each one pauses every
    thread) and collection resumes.

    The pure-Python modules the first page needs load before PySide6: once PySide6 is loaded, its
    import hook (shibokensupport.feature) reads the source of every module imported after it.
    """
    gc.disable()
    try:
        for name in WINDOW_MODELS:
            importlib.import_module(name)
        app = create_app()
        from gpu_advisor.ui.main_window import MainWindow

        window = MainWindow()
        window.show()
    finally:
        gc.freeze()
        gc.enable()
    return app, window
