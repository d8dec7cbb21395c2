"""What gpu_advisor.probe costs a training loop: the time its calls add to each step.

Inside `gpu-advisor monitor` (the events file named, so every step writes a line) a loop of
--steps iterations of `for batch in probe.wrap(loader): probe.step(samples=...)` is timed against
the same loop with no probe, in a fresh interpreter each, alternating, --repeats times; the median
difference per step is the probe's cost. The target: under 1% of a step for steps of 10 ms or more,
that is under 100 us per step. The cost of `epoch_end` with torch loaded (peak memory: on CPU a walk
over the live tensors) is reported per epoch, with a model of --params parameters alive. Outside
`monitor` the probe is one comparison per call (measured too).

Usage: python benchmarks/probe_overhead.py [--steps 20000] [--repeats 5] [--params 10000000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET_STEP_S = 0.010
TARGET_FRACTION = 0.01

LOOP = r"""
import json, sys, time
mode, steps = sys.argv[1], int(sys.argv[2])
data = list(range(steps))
if mode == "bare":
    t = time.perf_counter()
    for x in data:
        pass
else:
    from gpu_advisor import probe
    t = time.perf_counter()
    for x in probe.wrap(data):
        probe.step(samples=8)
elapsed = time.perf_counter() - t
print(json.dumps({"per_step_s": elapsed / steps}))
"""

EPOCH_END = r"""
import json, sys, time
import torch
from gpu_advisor import probe
model = torch.nn.Linear(int(sys.argv[1]) // 1000, 1000)
times = []
for _ in range(5):
    t = time.perf_counter()
    probe.epoch_end()
    times.append(time.perf_counter() - t)
print(json.dumps({"epoch_end_s": sorted(times)[2]}))
"""


def run(code: str, args: list[str], events: Path | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "GPU_ADVISOR_EVENTS"}
    if events is not None:
        env["GPU_ADVISOR_EVENTS"] = str(events)
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, env=env
    )
    return json.loads(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--params", type=int, default=10_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        events = Path(scratch) / "events.jsonl"
        inside, outside = [], []
        for _ in range(args.repeats):
            bare = run(LOOP, ["bare", str(args.steps)], None)["per_step_s"]
            inside.append(run(LOOP, ["probe", str(args.steps)], events)["per_step_s"] - bare)
            outside.append(run(LOOP, ["probe", str(args.steps)], None)["per_step_s"] - bare)
            events.unlink(missing_ok=True)
        epoch_end = run(EPOCH_END, [str(args.params)], events)["epoch_end_s"]
    cost = statistics.median(inside)
    fraction = cost / TARGET_STEP_S
    print(
        f"probe cost per step inside monitor: {cost * 1e6:.1f} us (median of {args.repeats}; {args.steps} steps each)"
    )
    print(f"  = {fraction:.3%} of a {TARGET_STEP_S * 1e3:.0f} ms step (target under {TARGET_FRACTION:.0%})")
    print(f"probe cost per step outside monitor: {statistics.median(outside) * 1e6:.2f} us")
    print(
        f"epoch_end with {args.params:,} parameters alive (CPU: live-tensor walk): {epoch_end * 1e3:.1f} ms per epoch"
    )
    return 0 if fraction < TARGET_FRACTION else 1


if __name__ == "__main__":
    sys.exit(main())
