"""The probe on its own: standard library only, silent outside `monitor`, its events inside."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from gpu_advisor.bench.probe_events import summarize_epochs, summarize_steps
from gpu_advisor.bench.probe_tail import EventTail


def _run(code: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return out.stdout.strip()


def test_importing_the_probe_loads_only_the_standard_library():
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from gpu_advisor import probe\n"
        "probe.step(samples=1); probe.epoch_end(); list(probe.wrap([1, 2]))\n"
        "new = sorted(m.split('.')[0] for m in set(sys.modules) - before)\n"
        "print(','.join(sorted(set(new) - set(sys.stdlib_module_names) - {'gpu_advisor'})))\n"
    )
    assert _run(code) == ""


def test_outside_monitor_the_probe_writes_nothing_and_returns_the_iterable_itself(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "GPU_ADVISOR_EVENTS"}
    code = "from gpu_advisor import probe\nx = [1]\nprint(probe.wrap(x) is x, probe._writer is None)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=tmp_path
    )
    assert out.stdout.split() == ["True", "True"]
    assert list(tmp_path.iterdir()) == []


def test_events_of_a_wrapped_loop_with_a_slow_iterable(tmp_path):
    events = tmp_path / "events.jsonl"
    code = (
        "import time\n"
        "from gpu_advisor import probe\n"
        "def slow():\n"
        "    for i in range(5):\n"
        "        time.sleep(0.08)\n"
        "        yield i\n"
        "for epoch in range(2):\n"
        "    for i in probe.wrap(slow()):\n"
        "        time.sleep(0.02)\n"
        "        probe.step(samples=4, tokens=64)\n"
        "    probe.epoch_end()\n"
    )
    began = time.monotonic()
    _run(code, {"GPU_ADVISOR_EVENTS": str(events)})
    took = time.monotonic() - began
    parsed = EventTail(events).read()
    assert [e["event"] for e in parsed] == ["start", *["step"] * 5, "epoch", *["step"] * 5, "epoch"]
    steps = summarize_steps(parsed)
    assert steps is not None and steps.count == 10 and steps.samples == 40 and steps.tokens == 640
    # 80 ms waiting of every 100 ms step. A loaded machine wakes each sleep late, the wait and the
    # work alike, which pulls the share towards 1/2: above 0.6 while a wake-up is late by under 100 ms.
    # Below 0.95: the work is not counted as waiting.
    assert 0.6 < steps.data_wait_fraction < 0.95
    assert steps.samples_per_s == steps.samples / steps.total_s
    epochs = summarize_epochs(parsed)
    assert [(e.index, e.steps, e.samples) for e in epochs] == [(0, 5, 20), (1, 5, 20)]
    assert sum(e.time_s for e in epochs) < took
    assert all(e.time_s >= 5 * 0.04 for e in epochs)
    assert all(e.peak_memory_bytes is None for e in epochs)  # this script never imported torch


def test_a_truncated_last_line_waits_and_stray_lines_are_skipped(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"event":"start","pid":1,"t":0}\nnot json\n{"event":"st')
    tail = EventTail(path)
    assert [e["event"] for e in tail.read()] == ["start"]
    with path.open("a") as f:
        f.write('ep","pid":1,"t":1,"step_s":0.5,"data_wait_s":0.1}\n' + json.dumps([1]) + "\n")
    assert [e["event"] for e in tail.read()] == ["step"]
    assert tail.aggregate.steps().step_time.median == 0.5
