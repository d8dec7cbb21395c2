"""Work that waits until a widget is painted: after a window's first frame, steps run one per turn of
the event loop (AfterFirstPaint); after any next frame, one call (AfterNextPaint).

The window opens on what it shows first; what it does not show yet (the recommendation page and its
charts, the hardware probe, the first plan) is built right after, in steps small enough that the
window keeps answering clicks and keys between them (benchmarks/ui_startup.py measures both).
"""

from __future__ import annotations

import contextlib
import importlib
from collections import deque
from collections.abc import Callable, Iterable
from functools import partial

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

# Start anyway this long after the window is shown if no paint arrives (a window shown minimised).
PAINT_FALLBACK_MS = 1000
NAMES_PER_STEP = 40


def import_steps(*names: str) -> list[Callable[[], object]]:
    """One step per module, imported in this order (list the heavy dependencies first)."""
    return [partial(importlib.import_module, name) for name in names]


def pyqtgraph_steps() -> list[Callable[[], object]]:
    """Steps that import pyqtgraph, each short enough for the window to stay responsive between.

    pyqtgraph's import copies every name of PySide6's QtCore, QtGui and QtWidgets into its own
    modules (pyqtgraph/Qt/__init__.py, _copy_attrs), and PySide6 builds each class, with its enums,
    the first time its name is read: about 700 classes in one go. Reading them a few dozen per step
    first, and numpy and the extra Qt modules each in a step of its own, leaves pyqtgraph's own
    modules for the last step. Not on another thread: PySide6 builds those classes lazily, and
    building them from two threads at once is not safe.
    """
    steps = import_steps("numpy")
    # pyqtgraph also loads these when present (and does without them, as here)
    steps += [
        partial(_import_if_present, name)
        for name in ("PySide6.QtSvg", "PySide6.QtOpenGLWidgets", "PySide6.QtTest")
    ]
    for name in ("PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets"):
        module = importlib.import_module(name)
        names = [n for n in dir(module) if not n.startswith("_")]
        for i in range(0, len(names), NAMES_PER_STEP):
            steps.append(partial(_read_names, module, names[i : i + NAMES_PER_STEP]))
    return [*steps, *import_steps("pyqtgraph")]


def _import_if_present(name: str) -> None:
    with contextlib.suppress(ImportError):  # e.g. QtOpenGLWidgets without the system's OpenGL library
        importlib.import_module(name)


def _read_names(module: object, names: list[str]) -> None:
    for name in names:
        getattr(module, name)


class AfterNextPaint(QObject):
    """Calls `then()` once, on the event loop's pass after `widget` is next painted.

    A frame is one pass (every changed widget of the window is painted in it), so that pass comes
    after the whole frame: the first frame of the window, or of a benchmark run (the Monitor).
    """

    def __init__(self, widget: QWidget, then: Callable[[], object]) -> None:
        super().__init__(widget)
        self._widget, self._then = widget, then
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if watched is self._widget and event.type() == QEvent.Type.Paint:
            self._widget.removeEventFilter(self)
            QTimer.singleShot(0, self._then)  # no context object: this one is deleted before it fires
            self.deleteLater()
        return False


class AfterFirstPaint(QObject):
    """Runs `steps` one per event-loop turn, from the first paint of `widget` on.

    The first paint, not a zero-timer at start-up: a zero-timer fires in the event loop's first pass,
    before the window system's expose event, and would hold up the first frame.
    """

    def __init__(self, widget: QWidget, steps: Iterable[Callable[[], object]]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._steps: deque[Callable[[], object]] = deque(steps)
        self._started = False
        AfterNextPaint(widget, self._begin)
        widget.installEventFilter(self)  # its Show: the fallback should no paint come

    @property
    def pending(self) -> int:
        """How many steps have not run yet."""
        return len(self._steps)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if watched is self._widget and event.type() == QEvent.Type.Show and not self._started:
            QTimer.singleShot(PAINT_FALLBACK_MS, self, self.start)
        return False

    def start(self) -> None:
        """Begin now (idempotent): the first step runs on the next turn of the event loop."""
        if self._begun():
            QTimer.singleShot(0, self, self._run_next)

    def cancel(self) -> None:
        """Drop the steps not run yet (the window is closing)."""
        self._begun()
        self._steps.clear()

    def _begin(self) -> None:  # the pass after the first paint
        if self._begun():
            self._run_next()

    def _begun(self) -> bool:
        """Mark the steps started; False if they already were (started, or cancelled)."""
        if self._started:
            return False
        self._started = True
        self._widget.removeEventFilter(self)
        return True

    def _run_next(self) -> None:
        if not self._steps:
            return
        step = self._steps.popleft()
        try:
            step()
        finally:  # a step that fails is reported (by Qt) and the others still run
            if self._steps:
                QTimer.singleShot(0, self, self._run_next)
