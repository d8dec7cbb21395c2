"""The probe's events file is the command's to write: whatever it holds, the monitor keeps working,
keeps its memory bounded and writes a file the product reads back (issue 27, defects 2-4)."""

from __future__ import annotations

import json
import os
import random
import sys
import time

import pytest

from gpu_advisor.bench.loading import load_report
from gpu_advisor.bench.monitor import run_monitor
from gpu_advisor.bench.probe_events import RESERVOIR_STEPS, StepAggregate
from gpu_advisor.bench.probe_tail import MAX_LINE_BYTES, MAX_READ_BYTES, EventTail
from gpu_advisor.bench.stats import spread

START = '{"event":"start","rank":0,"pid":7,"t":0}\n'


def _step(step_s: float, samples: int = 8, t: float = 1.0) -> str:
    return (
        json.dumps(
            {
                "event": "step",
                "epoch": 0,
                "step_s": step_s,
                "data_wait_s": 0.0,
                "samples": samples,
                "pid": 7,
                "t": t,
            }
        )
        + "\n"
    )


def test_a_fifo_at_the_events_path_is_refused_at_once_with_one_warning(tmp_path):
    path = tmp_path / "events.jsonl"
    os.mkfifo(path)
    warnings: list[str] = []
    tail = EventTail(path, on_warning=warnings.append)
    began = time.monotonic()
    assert tail.read() == [] and tail.read() == []
    assert time.monotonic() - began < 1.0
    assert len(warnings) == 1 and "not a regular file" in warnings[0]


def test_a_symlink_to_dev_zero_is_refused_and_nothing_is_read(tmp_path):
    path = tmp_path / "events.jsonl"
    path.symlink_to("/dev/zero")
    warnings: list[str] = []
    tail = EventTail(path, on_warning=warnings.append)
    assert tail.read() == []
    tail.drain()
    assert len(warnings) == 1 and "symbolic link" in warnings[0]


def test_an_over_long_line_is_skipped_once_and_the_events_after_it_count(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_bytes(START.encode() + b"x" * (3 * MAX_LINE_BYTES))  # no newline yet
    tail = EventTail(path, on_warning=lambda _m: None)
    assert [e["event"] for e in tail.read()] == ["start"]
    assert tail.skipped_lines == 1
    with path.open("ab") as f:
        f.write(b"y" * MAX_LINE_BYTES + b"\n" + _step(0.5).encode())
    seen = []
    for _ in range(4):  # each poll reads at most MAX_READ_BYTES, past the long line, never back
        seen += tail.read()
    assert [e["event"] for e in seen] == ["step"]
    assert tail.aggregate.steps().step_time.median == 0.5


def test_each_poll_reads_a_bounded_amount(tmp_path):
    path = tmp_path / "events.jsonl"
    line = _step(0.01).encode()
    count = (3 * MAX_READ_BYTES) // len(line)
    path.write_bytes(START.encode() + line * count)
    tail = EventTail(path)
    first = tail.read()
    assert 0 < len(first) <= MAX_READ_BYTES // len(line) + 1
    tail.drain()
    assert tail.aggregate.steps().count == count


@pytest.mark.parametrize("bad", ["Infinity", "NaN", "-Infinity", "1e400", "9" * 400, "-0.5"])
def test_hostile_numbers_count_as_absent(tmp_path, bad):
    path = tmp_path / "events.jsonl"
    text = START + _step(0.5)
    text += f'{{"event":"step","epoch":0,"step_s":{bad},"data_wait_s":{bad},"samples":{bad},"pid":7,"t":2}}\n'
    text += (
        f'{{"event":"epoch","index":0,"time_s":{bad},"steps":2,"samples":8,"data_wait_s":{bad},'
        f'"peak_memory_bytes":{"9" * 60},"pid":7,"t":3}}\n'
    )
    path.write_text(text)
    tail = EventTail(path)
    tail.read()
    steps = tail.aggregate.steps()
    assert steps.count == 2 and steps.step_time.n == 1 and steps.total_s == 0.5 and steps.samples == 8
    (epoch,) = tail.aggregate.epochs()
    assert epoch.time_s is None and epoch.peak_memory_bytes is None and epoch.data_wait_s == 0.0


def test_a_run_whose_probe_wrote_hostile_numbers_keeps_its_results_and_they_read_back(tmp_path):
    lines = START + _step(0.1)
    lines += (
        '{"event":"step","epoch":0,"step_s":Infinity,"data_wait_s":NaN,"samples":'
        + "9" * 400
        + ',"pid":7,"t":1}\n'
    )
    lines += (
        '{"event":"epoch","index":0,"time_s":NaN,"steps":2,"peak_memory_bytes":'
        + "9" * 60
        + ',"pid":7,"t":2}\n'
    )
    code = f"import os; open(os.environ['GPU_ADVISOR_EVENTS'], 'a').write({lines!r})"
    report = run_monitor([sys.executable, "-c", code], interval_s=0.1, cwd=tmp_path)
    out = tmp_path / "m.json"
    report.save(out)
    assert report.steps.count == 2 and report.steps.step_time.n == 1
    loaded = load_report(out)  # what compare, report --results and plan --calibrate read
    assert loaded is not None


def test_a_fifo_made_by_the_command_does_not_hang_the_monitor(tmp_path):
    code = "import os, time; os.mkfifo(os.environ['GPU_ADVISOR_EVENTS']); time.sleep(0.5)"
    began = time.monotonic()
    report = run_monitor([sys.executable, "-c", code], interval_s=0.1, cwd=tmp_path)
    assert report.exit_code == 0 and report.steps is None
    assert time.monotonic() - began < 20


def test_the_aggregate_keeps_a_bounded_reservoir_whose_quantiles_match_the_exact_ones():
    rng = random.Random(3)
    times = [rng.lognormvariate(-3, 0.5) for _ in range(5 * RESERVOIR_STEPS)]
    aggregate = StepAggregate()
    aggregate.add({"event": "step", "step_s": s, "samples": 1, "pid": 1, "t": i} for i, s in enumerate(times))
    got, exact = aggregate.steps().step_time, spread(times)
    assert got.n == exact.n and got.min == exact.min and got.max == exact.max
    for q in ("median", "p10", "p90"):
        assert getattr(got, q) == pytest.approx(getattr(exact, q), rel=0.03)
    assert len(aggregate._main().reservoir) == RESERVOIR_STEPS
