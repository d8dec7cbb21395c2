"""Events from the ranks to whoever launched them (the `--nproc` launcher, the app), as JSON lines in
the run folder, and each rank's failure as a small JSON file beside them. No torch.

    <run dir>/events.jsonl        one object a line, schema "gpu-advisor/dist-events@1":
        {"kind": "ranks", "ranks": [{"rank", "hostname", "node_rank", "pid"}, ...]}   once, at the start
        {"kind": "progress", "phase", "fraction", "message", "eta_s"}                 rank 0, as it goes
    <run dir>/failure-rank-R.json  {"rank", "hostname", "message"} written atomically by a failing rank

The launcher sets GPU_ADVISOR_DIST_RUN_DIR for every rank; without it (a user's own torchrun) rank 0
prints progress to stderr instead.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpu_advisor.core.files import FileFormatError, parse_json, read_json, write_json_atomic

RUN_DIR_ENV = "GPU_ADVISOR_DIST_RUN_DIR"
EVENTS_SCHEMA = "gpu-advisor/dist-events@1"
EVENTS_FILE = "events.jsonl"


def run_dir_from_env() -> Path | None:
    value = os.environ.get(RUN_DIR_ENV)
    return Path(value) if value else None


class EventWriter:
    """Appends events; each line is written whole with one write() (readers never see half a line
    unless the writer dies mid-write, which the reader tolerates)."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / EVENTS_FILE

    def emit(self, kind: str, **fields: Any) -> None:
        line = json.dumps({"schema": EVENTS_SCHEMA, "kind": kind, **fields}) + "\n"
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line)


_MAX_POLL_CHARS = 8 * 2**20
_MAX_LINE_CHARS = 2**20


@dataclass
class EventReader:
    """Reads the events file incrementally (the launcher polls it)."""

    path: Path
    _offset: int = 0
    _partial: str = field(default="", repr=False)

    def poll(self) -> Iterator[dict[str, Any]]:
        try:
            with open(self.path, encoding="utf-8") as f:
                f.seek(self._offset)
                chunk = f.read(_MAX_POLL_CHARS)  # bounded: the rest waits for the next poll
                self._offset = f.tell()
        except FileNotFoundError:
            return
        text = self._partial + chunk
        lines = text.split("\n")
        self._partial = lines.pop()  # an unfinished last line waits for the next poll
        if len(self._partial) > _MAX_LINE_CHARS:  # no event is this long: skip it to its end
            self._partial = ""
        for line in lines:
            try:
                event = parse_json(line, str(self.path))  # finite numbers, bounded integers and depth
            except FileFormatError:
                continue
            if isinstance(event, dict) and event.get("schema") == EVENTS_SCHEMA:
                yield event


def write_failure(run_dir: Path, rank: int, hostname: str, message: str) -> None:
    write_json_atomic(
        run_dir / f"failure-rank-{rank}.json", {"rank": rank, "hostname": hostname, "message": message}
    )


def read_failures(run_dir: Path) -> dict[int, str]:
    """rank -> message of every failure file in the run folder."""
    found: dict[int, str] = {}
    for path in sorted(run_dir.glob("failure-rank-*.json")):
        try:
            data = read_json(path)
            found[int(data["rank"])] = str(data["message"])[:2000]
        except (OSError, FileFormatError, ValueError, KeyError, TypeError):
            continue
    return found
