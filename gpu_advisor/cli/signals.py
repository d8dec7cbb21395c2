"""Ctrl-C and SIGTERM as requests to stop, so that an interrupted command still saves what it has.

Two tools:
- `terminate_like_interrupt()`: SIGTERM raises `Terminated` (a KeyboardInterrupt) in the main thread,
  as Ctrl-C does, so `finally` blocks run and a file being written is removed instead of left as a
  hidden temporary. `run_cli` turns it into exit code 143.
- `StopOnSignals(event)`: while a worker thread does the work, both signals only set `event`. The
  handler never raises, because on Python 3.11 an exception raised inside `Thread.join()` can mark a
  still-running thread as finished; the main thread waits on an Event instead of joining.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType
from typing import Any


def shell_exit_code(signum: int) -> int:
    """What a shell reports for a process ended by signal `signum`: 128 + its number."""
    return 128 + signum


EXIT_SIGINT = shell_exit_code(signal.SIGINT)  # 130, what shells report for Ctrl-C
EXIT_SIGTERM = shell_exit_code(signal.SIGTERM)  # 143
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like KeyboardInterrupt so the same clean-up code handles both."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def terminate_like_interrupt() -> None:
    """Make SIGTERM raise Terminated in the main thread (no-op elsewhere: signals need the main thread)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)


def exit_code_for(exc: KeyboardInterrupt) -> int:
    """143 for SIGTERM, 130 for Ctrl-C."""
    return EXIT_SIGTERM if isinstance(exc, Terminated) else EXIT_SIGINT


class StopOnSignals:
    """A context in which SIGINT and SIGTERM set `stop` (and are remembered) instead of raising.

    The first signal prints `message` once; later ones are only counted, since the work is already
    stopping. `exit_code` is 130 or 143 after a signal, None without one.
    """

    def __init__(self, stop: threading.Event, message: str = "stopping after the current step ...") -> None:
        self.stop = stop
        self.message = message
        self.signum: int | None = None
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        first = self.signum is None
        self.signum = self.signum or signum
        self.stop.set()
        if first:
            print(f"\n{self.message}", file=sys.stderr, flush=True)

    @property
    def exit_code(self) -> int | None:
        return None if self.signum is None else shell_exit_code(self.signum)

    def __enter__(self) -> StopOnSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in _STOP_SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()
