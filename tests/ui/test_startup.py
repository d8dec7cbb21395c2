"""Work after the first paint: it waits for the paint, runs one step per turn of the event loop, and
stops when the window closes."""

from __future__ import annotations

import sys
from itertools import pairwise

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel

from gpu_advisor.ui.startup import AfterFirstPaint, import_steps, pyqtgraph_steps


def test_steps_wait_for_the_first_paint_then_run_one_per_turn(qtbot):
    label = QLabel("window")
    qtbot.addWidget(label)
    ticks = [0]
    ticker = QTimer()  # fires once per pass of the event loop
    ticker.timeout.connect(lambda: ticks.__setitem__(0, ticks[0] + 1))
    ticker.start(0)
    seen: list[int] = []  # the pass count each step ran in
    after = AfterFirstPaint(label, [lambda: seen.append(ticks[0]) for _ in range(4)])
    for _ in range(5):
        QApplication.processEvents()
    assert seen == [] and after.pending == 4  # not shown, not painted: nothing runs
    label.show()
    qtbot.waitUntil(lambda: after.pending == 0, timeout=5000)
    ticker.stop()
    assert len(seen) == 4
    assert all(a < b for a, b in pairwise(seen))  # other events ran between steps


def test_cancelled_steps_never_run(qtbot):
    label = QLabel("window")
    qtbot.addWidget(label)
    ran: list[int] = []
    after = AfterFirstPaint(label, [lambda i=i: ran.append(i) for i in range(3)])
    label.show()
    after.cancel()  # the window closed before it was painted
    qtbot.wait(100)
    assert ran == [] and after.pending == 0


def test_pyqtgraph_steps_end_with_pyqtgraph_imported():
    steps = pyqtgraph_steps()
    assert len(steps) > 10  # the Qt names are read a few dozen at a time
    for step in steps:
        step()
    assert "pyqtgraph" in sys.modules and "numpy" in sys.modules


def test_import_steps_import_in_order():
    steps = import_steps("json", "gpu_advisor.core.units")
    assert [step() for step in steps] == [sys.modules["json"], sys.modules["gpu_advisor.core.units"]]


def test_a_failing_step_is_reported_and_the_others_still_run(qtbot):
    label = QLabel("window")
    qtbot.addWidget(label)
    ran: list[int] = []

    def fails() -> None:
        raise RuntimeError("step failed")

    after = AfterFirstPaint(label, [fails, lambda: ran.append(1)])
    with qtbot.capture_exceptions() as exceptions:
        label.show()
        qtbot.waitUntil(lambda: after.pending == 0 and ran == [1], timeout=5000)
    assert [str(e[1]) for e in exceptions] == ["step failed"]
