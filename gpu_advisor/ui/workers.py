"""Background work for the GUI: QObject workers on long-lived QThreads (STYLE.md, "Workers").

Workers never touch widgets. They emit signals whose payloads are immutable (frozen pydantic models,
frozen dataclasses, tuples, strings), delivered to the GUI thread by queued connections. A long job
checks a `threading.Event` that the GUI thread sets directly: a queued "stop" slot would never run
while the worker's loop is busy.
"""

from __future__ import annotations

import itertools
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

from gpu_advisor.core.errors import UserInputError

_log = logging.getLogger(__name__)
THREAD_EXIT_TIMEOUT_MS = 10_000


def describe_exception(exc: BaseException) -> str:
    """One line for the user: OSError with its file, otherwise the exception's message."""
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, ValueError | OSError | RuntimeError) else f"{type(exc).__name__}: {text}"


class _TaskWorker(QObject):
    task_finished = Signal(int, object)
    task_failed = Signal(int, str)

    @Slot(int, object)
    def run_task(self, task_id: int, fn: Callable[[], Any]) -> None:
        try:
            result = fn()
        except Exception as exc:  # reported to the user as one message; the thread lives on
            if isinstance(exc, UserInputError):  # 'not in the cache': theirs to fix, not a bug to trace
                _log.info("background task: %s", exc)
            else:
                _log.exception("background task failed")
            self.task_failed.emit(task_id, describe_exception(exc))
        else:
            self.task_finished.emit(task_id, result)


class TaskRunner(QObject):
    """Runs short blocking calls (exports, the hardware probe) one at a time on one worker thread.

    `submit(fn, on_done, on_error)`: `fn()` runs on the worker thread; `on_done(result)` or
    `on_error(message)` run on the GUI thread afterwards.
    """

    _submitted = Signal(int, object)

    def __init__(self, name: str = "gpu-advisor tasks", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ids = itertools.count(1)
        self._callbacks: dict[int, tuple[Callable[[Any], None], Callable[[str], None]]] = {}
        self._thread = QThread()
        self._thread.setObjectName(name)
        self._worker = _TaskWorker()
        self._worker.moveToThread(self._thread)
        self._submitted.connect(self._worker.run_task)
        self._worker.task_finished.connect(self._finished)
        self._worker.task_failed.connect(self._failed)
        self._thread.start()

    @property
    def busy(self) -> bool:
        return bool(self._callbacks)

    def submit(
        self,
        fn: Callable[[], Any],
        on_done: Callable[[Any], None] = lambda _r: None,
        on_error: Callable[[str], None] = lambda _m: None,
    ) -> int:
        task_id = next(self._ids)
        self._callbacks[task_id] = (on_done, on_error)
        self._submitted.emit(task_id, fn)
        return task_id

    @Slot(int, object)
    def _finished(self, task_id: int, result: Any) -> None:
        callbacks = self._callbacks.pop(task_id, None)
        if callbacks is not None:
            callbacks[0](result)

    @Slot(int, str)
    def _failed(self, task_id: int, message: str) -> None:
        callbacks = self._callbacks.pop(task_id, None)
        if callbacks is not None:
            callbacks[1](message)

    def shutdown(self) -> None:
        """Let the current task finish, then end the thread (pending callbacks are dropped)."""
        self._callbacks.clear()
        self._thread.quit()
        self._thread.wait(THREAD_EXIT_TIMEOUT_MS)

    def is_running(self) -> bool:
        return self._thread.isRunning()


class RunContext:
    """What a long job receives: the stop flag and callbacks that forward to the GUI as signals."""

    def __init__(
        self, stop: threading.Event, emit_progress: Callable[[Any], None], emit_result: Callable[[Any], None]
    ):
        self.stop = stop
        self.report_progress = emit_progress
        self.report_result = emit_result


def lower_this_thread_priority(nice_increment: int) -> bool:
    """Raise the calling thread's nice value (Linux: nice is per thread, and threads it starts, such
    as PyTorch's CPU thread pool, inherit it). The GUI thread then wins the CPU when both want it, so
    the window stays responsive while a benchmark keeps every core busy. False where unsupported."""
    if not sys.platform.startswith("linux") or nice_increment <= 0:
        return False
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + nice_increment)
    except OSError:
        return False
    return True


class _JobWorker(QObject):
    run_started = Signal(int)
    progress_changed = Signal(int, object)
    partial_result = Signal(int, object)
    run_finished = Signal(int, object)
    run_failed = Signal(int, str)
    prepared = Signal()

    def __init__(self, nice_increment: int = 0) -> None:
        super().__init__()
        self._nice_increment = nice_increment
        self._niced = False

    def _lower_priority_once(self) -> None:
        if not self._niced:  # once: the thread lives as long as the runner
            self._niced = True
            lower_this_thread_priority(self._nice_increment)

    @Slot(object)
    def prepare(self, fn: Callable[[], Any]) -> None:
        self._lower_priority_once()
        try:
            fn()
        except Exception:  # the run that needs it reports the same failure to the user
            _log.exception("background preparation failed")
        self.prepared.emit()

    @Slot(int, object, object)
    def run_job(self, run_id: int, job: Callable[[RunContext], Any], stop: threading.Event) -> None:
        self._lower_priority_once()
        self.run_started.emit(run_id)
        context = RunContext(
            stop,
            lambda payload: self.progress_changed.emit(run_id, payload),
            lambda payload: self.partial_result.emit(run_id, payload),
        )
        try:
            result = job(context)
        except Exception as exc:
            _log.exception("background run failed")
            self.run_failed.emit(run_id, describe_exception(exc))
        else:
            self.run_finished.emit(run_id, result)


class JobRunner(QObject):
    """One long job at a time (a benchmark, a watched command) on a long-lived thread, stoppable.

    Starting a job while one runs stops the old one first; signals of an old run are dropped, so a
    stale result never lands (Orange's habit). `stop()` sets the event from the GUI thread.
    """

    run_started = Signal()
    progress_changed = Signal(object)
    partial_result = Signal(object)
    run_finished = Signal(object)
    run_failed = Signal(str)
    prepared = Signal()  # a prepare() call finished
    _submitted = Signal(int, object, object)
    _prepare_submitted = Signal(object)

    def __init__(
        self,
        name: str = "gpu-advisor runs",
        nice_increment: int = 0,
        parent: QObject | None = None,
        *,
        switch_interval_s: float | None = None,
    ) -> None:
        """`nice_increment`: the worker thread's lower priority (lower_this_thread_priority).
        `switch_interval_s`: the interpreter's GIL switch interval while a job runs (None: leave it).
        A thread that wants the GIL waits up to that long for a busy thread to hand it over, and a
        repaint of the GUI takes it hundreds of times (each Python override Qt calls), so a job that
        runs Python in a loop can make one repaint wait hundreds of ms at the default 5 ms."""
        super().__init__(parent)
        self._run_id = 0
        self._running = False
        self._switch_interval_s = switch_interval_s
        self._saved_switch_interval_s: float | None = None
        self._stop = threading.Event()
        self._thread = QThread()
        self._thread.setObjectName(name)
        self._worker = _JobWorker(nice_increment)
        self._worker.moveToThread(self._thread)
        self._submitted.connect(self._worker.run_job)
        self._prepare_submitted.connect(self._worker.prepare)
        self._worker.prepared.connect(self.prepared)
        # Bound slots of this GUI-thread object: the connections are queued into the GUI thread.
        self._worker.run_started.connect(self._started)
        self._worker.progress_changed.connect(self._progress)
        self._worker.partial_result.connect(self._partial)
        self._worker.run_finished.connect(self._finished)
        self._worker.run_failed.connect(self._failed)
        self._thread.start()

    @property
    def running(self) -> bool:
        """True from start() until the job's finished or failed signal arrives."""
        return self._running

    @property
    def stop_event(self) -> threading.Event:
        return self._stop

    def start(self, job: Callable[[RunContext], Any]) -> None:
        """Run `job(context)` on the worker thread; a running job is asked to stop first."""
        self._stop.set()
        self._stop = threading.Event()
        self._run_id += 1
        self._set_running(True)
        self._submitted.emit(self._run_id, job, self._stop)

    def _set_running(self, running: bool) -> None:
        self._running = running
        if self._switch_interval_s is None:
            return
        if running and self._saved_switch_interval_s is None:
            self._saved_switch_interval_s = sys.getswitchinterval()
            sys.setswitchinterval(self._switch_interval_s)
        elif not running and self._saved_switch_interval_s is not None:
            sys.setswitchinterval(self._saved_switch_interval_s)
            self._saved_switch_interval_s = None

    def prepare(self, fn: Callable[[], Any]) -> None:
        """Run `fn()` on the worker thread ahead of the jobs (load what they need), with no job
        signals; `prepared` is emitted after it. A job started meanwhile runs when it returns."""
        self._prepare_submitted.emit(fn)

    def stop(self) -> None:
        """Ask the current job to stop (it returns at its next check)."""
        self._stop.set()

    def shutdown(self) -> None:
        """Stop the job, end the thread and wait for it (window closing)."""
        self._stop.set()
        self._set_running(False)
        self._run_id += 1  # drop whatever the old run still emits
        self._thread.quit()
        self._thread.wait(THREAD_EXIT_TIMEOUT_MS)

    def is_thread_running(self) -> bool:
        return self._thread.isRunning()

    def _current(self, run_id: int) -> bool:
        return run_id == self._run_id

    @Slot(int)
    def _started(self, run_id: int) -> None:
        if self._current(run_id):
            self.run_started.emit()

    @Slot(int, object)
    def _progress(self, run_id: int, payload: Any) -> None:
        if self._current(run_id):
            self.progress_changed.emit(payload)

    @Slot(int, object)
    def _partial(self, run_id: int, payload: Any) -> None:
        if self._current(run_id):
            self.partial_result.emit(payload)

    @Slot(int, object)
    def _finished(self, run_id: int, result: Any) -> None:
        if self._current(run_id):
            self._set_running(False)
            self.run_finished.emit(result)

    @Slot(int, str)
    def _failed(self, run_id: int, message: str) -> None:
        if self._current(run_id):
            self._set_running(False)
            self.run_failed.emit(message)
