"""The launcher's reader of the ranks' events and failure notes uses the strict JSON reader: a line
with NaN, Infinity or a 60-digit integer is skipped, the lines around it are read, and an over-long
unterminated line does not grow the reader's memory (issue 27)."""

from __future__ import annotations

import json

from gpu_advisor.bench.distributed.events import EVENTS_SCHEMA, EventReader, read_failures


def _line(**fields) -> str:
    return json.dumps({"schema": EVENTS_SCHEMA, **fields}) + "\n"


def test_hostile_numbers_skip_their_line_only(tmp_path):
    path = tmp_path / "events.jsonl"
    schema = f'{{"schema": "{EVENTS_SCHEMA}", '
    hostile = [
        schema + '"kind": "progress", "fraction": NaN}\n',
        schema + '"kind": "progress", "fraction": Infinity}\n',
        schema + '"kind": "collective", "bytes": ' + "9" * 60 + "}\n",
        "[" * 100_000 + "\n",
    ]
    path.write_text(_line(kind="ranks", ranks=[]) + "".join(hostile) + _line(kind="progress", fraction=0.5))
    events = list(EventReader(path).poll())
    assert [e["kind"] for e in events] == ["ranks", "progress"] and events[1]["fraction"] == 0.5


def test_an_unterminated_flood_is_skipped_and_the_reader_goes_on(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text("x" * (3 * 2**20))  # no newline: no event is this long
    reader = EventReader(path)
    for _ in range(3):
        assert list(reader.poll()) == []
    assert len(reader._partial) <= 2**20
    with path.open("a") as f:
        f.write("\n" + _line(kind="progress", fraction=1.0))
    assert [e["fraction"] for e in reader.poll()] == [1.0]


def test_a_failure_note_with_a_hostile_number_is_ignored(tmp_path):
    (tmp_path / "failure-rank-0.json").write_text('{"rank": 0, "message": "ok", "x": NaN}')
    (tmp_path / "failure-rank-1.json").write_text('{"rank": 1, "message": "rank 1 ran out of memory"}')
    assert read_failures(tmp_path) == {1: "rank 1 ran out of memory"}
