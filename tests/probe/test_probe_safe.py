"""The probe never raises into the loop it measures, and writes only valid JSON (issue 27, defect 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

LOOP = r"""
import numpy as np, torch
from gpu_advisor import probe
mask = torch.ones(8, 16, dtype=torch.bool)
values = [
    (8, np.ones((8, 128), dtype=np.int64).sum()),   # a NumPy integer
    (np.int32(8), mask.sum()),                       # a 0-d tensor
    ("eight", "many"),                               # strings
    (10**400, float("nan")),                         # a huge int, NaN
    (8.0, float("inf")),                             # an integral float, infinity
    (-3, np.float64(2.5)),                           # a negative, a fractional NumPy float
    (torch.tensor([1, 2]), object()),                # a 1-element-plus tensor, an object
]
for samples, tokens in values:
    probe.step(samples=samples, tokens=tokens)
probe.epoch_end()
print("done")
"""


def test_counts_a_numpy_or_torch_loop_passes_never_raise_and_are_written_as_plain_json(tmp_path):
    events = tmp_path / "events.jsonl"
    out = subprocess.run(
        [sys.executable, "-c", LOOP],
        capture_output=True,
        text=True,
        env={**os.environ, "GPU_ADVISOR_EVENTS": str(events)},
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "done"
    lines = events.read_text().splitlines()

    def strict(text: str):
        return json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))

    parsed = [strict(line) for line in lines]  # no NaN or Infinity anywhere
    steps = [e for e in parsed if e["event"] == "step"]
    assert [(e["samples"], e["tokens"]) for e in steps] == [
        (8, 1024),
        (8, 128),
        (None, None),
        (None, None),
        (8, None),
        (None, None),
        (None, None),
    ]
    epoch = next(e for e in parsed if e["event"] == "epoch")
    assert epoch["steps"] == 7 and epoch["samples"] == 24 and epoch["tokens"] == 1152


def test_a_probe_whose_file_breaks_stops_measuring_with_one_line_and_the_loop_goes_on(tmp_path):
    code = (
        "from gpu_advisor import probe\n"
        "probe._writer._write = lambda *a: 1 / 0\n"  # any fault inside the writer
        "for i in range(3):\n"
        "    probe.step(samples=1)\n"
        "probe.epoch_end()\n"
        "print('finished', probe._writer is None)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "GPU_ADVISOR_EVENTS": str(tmp_path / "e.jsonl")},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["finished", "True"]
    assert out.stderr.count("gpu_advisor.probe: stopped measuring") == 1
