"""Read the probe's events file while a watched command runs: safely, whatever the command puts there.

The file is JSON lines (gpu_advisor.probe.events describes each event) in the monitor's scratch
folder, but the command can write anything at that path, so `EventTail`:

- opens it without blocking and without following a symlink, and reads it only if it is a regular
  file (a FIFO would block the monitor for good, a symlink to /dev/zero would never end): anything
  else stops the reading with one warning;
- reads at most MAX_READ_BYTES per poll, so one poll never holds more than that;
- skips a line longer than MAX_LINE_BYTES (no event is that long), moving past it rather than
  re-reading it on every poll;
- parses each line as bounded JSON (lines are short, integers past MAX_INT_DIGITS digits, NaN,
  Infinity and 1e400 read as absent), and folds the events into a `StepAggregate`, keeping none.

Lines that are not events (a truncated last line of a killed run, stray text) are skipped.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpu_advisor.bench.probe_events import Event, StepAggregate

MAX_READ_BYTES = 4 * 2**20
# Probe events are under 400 bytes; a line past this is not one.
MAX_LINE_BYTES = 2**20
MAX_INT_DIGITS = 40
# After the command ends, how long the monitor keeps reading events it has not read yet.
DRAIN_S = 30.0


def _int_or_none(text: str) -> int | None:
    return None if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


def _float_or_none(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None


def parse_event(line: bytes | memoryview) -> Event | None:
    """One event line as a dict, or None (not JSON, not an event); non-finite and huge numbers as None."""
    try:
        event = json.loads(
            bytes(line),
            parse_int=_int_or_none,
            parse_float=_float_or_none,
            parse_constant=lambda _name: None,
        )
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict) or event.get("event") not in ("start", "step", "epoch"):
        return None
    return event


def _warn_stderr(message: str) -> None:
    import sys

    print(f"gpu-advisor monitor: warning: {message}", file=sys.stderr)


class EventTail:
    """Reads a growing events file: each `read()` folds and returns the events completed since the
    last one (at most MAX_READ_BYTES of them); `aggregate` holds the summary so far."""

    def __init__(self, path: str | Path, on_warning: Callable[[str], Any] = _warn_stderr) -> None:
        self._path = Path(path)
        self._offset = 0
        self._skipping = False  # inside an over-long line: drop bytes until its newline
        self._stopped = False
        self._on_warning = on_warning
        self.aggregate = StepAggregate()
        self.skipped_lines = 0

    def _stop(self, why: str) -> None:
        self._stopped = True
        self._on_warning(f"probe events: {self._path} {why}; its steps are not read")

    def _read_chunk(self) -> bytes | None:
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(self._path, flags)
        except FileNotFoundError:  # not created yet (the command has not imported the probe)
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                self._stop("is a symbolic link, not the probe's file")
            elif exc.errno != errno.EISDIR:
                return None
            else:
                self._stop("is a folder, not a file")
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                self._stop("is not a regular file")
                return None
            return os.pread(fd, MAX_READ_BYTES, self._offset)
        except OSError:
            return None
        finally:
            os.close(fd)

    def read(self, keep: bool = True) -> list[Event]:
        """Fold the events completed since the last read; return them too when `keep` (the app hands
        them on; the CLI needs only the aggregate)."""
        if self._stopped:
            return []
        data = self._read_chunk()
        if not data:
            return []
        start = 0
        if self._skipping:
            newline = data.find(b"\n")
            if newline < 0:
                self._offset += len(data)
                return []
            start, self._skipping = newline + 1, False
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next read
        if end <= start:
            end = start
        if len(data) - end >= MAX_LINE_BYTES:  # an unterminated line already too long: move past it
            self._skipping = True
            self.skipped_lines += 1
            self._offset += len(data)
        else:
            self._offset += end
        new: list[Event] = []
        fold = self.aggregate.add_one
        view = memoryview(data)
        position = start
        while position < end:  # one line at a time: no list of every line or event of the chunk
            newline = data.index(b"\n", position, end)
            length = newline - position
            if length > MAX_LINE_BYTES:
                self.skipped_lines += 1
            elif length:
                event = parse_event(view[position:newline])
                if event is not None:
                    fold(event)
                    if keep:
                        new.append(event)
            position = newline + 1
        return new

    def drain(self, budget_s: float = DRAIN_S, on_events: Callable[[list[Event]], Any] | None = None) -> None:
        """After the command ended: read what is left, for at most `budget_s` (then say so)."""
        import time

        deadline = time.monotonic() + budget_s
        while not self._stopped:
            before = self._offset
            new = self.read(keep=on_events is not None)
            if new and on_events is not None:
                on_events(new)
            if self._offset == before:
                return
            if time.monotonic() > deadline:
                self._on_warning(
                    f"probe events: stopped reading {self._path} after {budget_s:g} s "
                    f"({self._offset:,} bytes read); the steps after that are not counted"
                )
                return
