"""Read the events `gpu_advisor.probe` writes while a watched command runs, and summarise them.

The file is JSON lines (gpu_advisor.probe.events describes each event). `EventTail` reads the lines
completed since its last call, so the monitor can show steps live; `summarize_events` turns all of
them into the `steps` and `epochs` sections of the monitor@1 file. Lines that are not events (a
truncated last line of a killed run, stray text) are skipped: the file is the command's, not ours.
When several processes write (one per torch.distributed rank), rank 0's events are summarised.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from gpu_advisor.bench.results import Spread
from gpu_advisor.bench.stats import spread

Event = dict[str, Any]


class StepsSummary(BaseModel):
    """Every step the probe saw; rates over the timed steps' total time (input wait included)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    count: int
    step_time: Spread | None  # median and spread of the timed steps (seconds)
    total_s: float  # sum of the timed steps: their mean is total_s / step_time.n
    data_wait_s: float
    data_wait_fraction: float | None  # of total_s
    samples: int | None
    tokens: int | None
    steps_per_s: float | None
    samples_per_s: float | None
    tokens_per_s: float | None


class EpochRecord(BaseModel):
    """One finished epoch."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    index: int
    time_s: float | None
    step_time_s: float = 0.0  # sum of its steps' times
    steps: int
    samples: int | None
    tokens: int | None
    data_wait_s: float
    peak_memory_bytes: int | None
    memory_kind: str | None  # probe.events.CUDA_PEAK or CPU_LIVE
    peak_rss_bytes: int | None


class EventTail:
    """Reads a growing events file: each `read()` returns the events completed since the last one."""

    def __init__(self, path: str | Path) -> None:
        self._path = Path(path)
        self._offset = 0
        self.events: list[Event] = []

    def read(self) -> list[Event]:
        try:
            with self._path.open("rb") as f:
                f.seek(self._offset)
                data = f.read()
        except OSError:  # not created yet (the command has not imported the probe)
            return []
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next read
        self._offset += end
        new = [e for e in (_parse(line) for line in data[:end].splitlines()) if e is not None]
        self.events.extend(new)
        return new


def _parse(line: bytes) -> Event | None:
    try:
        event = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict) or event.get("event") not in ("start", "step", "epoch"):
        return None
    return event


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def main_pid(events: Sequence[Event]) -> int | None:
    """The process whose events count: rank 0 if a rank said so, else the first process that wrote."""
    starts = [e for e in events if e.get("event") == "start"]
    for e in starts:
        if e.get("rank") == 0:
            return e.get("pid")
    return events[0].get("pid") if events else None


def summarize_steps(events: Sequence[Event]) -> StepsSummary | None:
    """The `steps` section; None when the probe reported no step."""
    pid = main_pid(events)
    steps = [e for e in events if e.get("event") == "step" and e.get("pid") == pid]
    if not steps:
        return None
    timed = [e for e in steps if (_num(e.get("step_s")) or -1.0) >= 0]
    times = sorted(float(e["step_s"]) for e in timed)
    total = sum(times)
    wait = sum(_num(e.get("data_wait_s")) or 0.0 for e in timed)

    def rate(key: str) -> float | None:
        known = _total(_int(e.get(key)) for e in timed)
        return known / total if known is not None and total > 0 else None

    return StepsSummary(
        count=len(steps),
        step_time=spread(times) if times else None,
        total_s=total,
        data_wait_s=wait,
        data_wait_fraction=wait / total if total > 0 else None,
        samples=_total(_int(e.get("samples")) for e in steps),
        tokens=_total(_int(e.get("tokens")) for e in steps),
        steps_per_s=len(times) / total if total > 0 else None,
        samples_per_s=rate("samples"),
        tokens_per_s=rate("tokens"),
    )


def _total(values) -> int | None:
    """Sum of the counts given; None if no step gave one."""
    known = [v for v in values if v is not None]
    return sum(known) if known and any(known) else None


def summarize_epochs(events: Sequence[Event]) -> list[EpochRecord]:
    """The `epochs` section: one record per finished epoch of the main process."""
    pid = main_pid(events)
    records = []
    for e in events:
        if e.get("event") != "epoch" or e.get("pid") != pid or _int(e.get("index")) is None:
            continue
        kind = e.get("memory_kind")
        records.append(
            EpochRecord(
                index=int(e["index"]),
                time_s=_num(e.get("time_s")),
                step_time_s=_num(e.get("step_time_s")) or 0.0,
                steps=_int(e.get("steps")) or 0,
                samples=_int(e.get("samples")) or None,
                tokens=_int(e.get("tokens")) or None,
                data_wait_s=_num(e.get("data_wait_s")) or 0.0,
                peak_memory_bytes=_int(e.get("peak_memory_bytes")),
                memory_kind=kind if isinstance(kind, str) else None,
                peak_rss_bytes=_int(e.get("peak_rss_bytes")),
            )
        )
    return records
