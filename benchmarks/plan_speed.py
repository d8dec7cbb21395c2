"""Time plan() over the whole catalogue for representative requests.

Target (issue 26): median under 10 ms per request type, fast enough to re-plan on every keystroke in the wizard.
Run: .venv/bin/python benchmarks/plan_speed.py
Two trees side by side in one run (each timed RUNS times, alternating, in one time window; the table
holds the median of the runs' medians, and the ratio of the second tree's to the first's per pair):
  .venv/bin/python benchmarks/plan_speed.py compare OLD_TREE NEW_TREE [RUNS]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest

REQUESTS = {
    "llama-3-8b inference, 1 user": dict(model="llama-3-8b", task="inference"),
    "llama-3-70b inference, 32 users, 20 tok/s": dict(
        model="llama-3-70b", task="inference", users=32, tokens_per_s_per_user=20
    ),
    "mixtral-8x7b inference, 64 users, int4": dict(
        model="mixtral-8x7b", task="inference", users=64, precision="int4"
    ),
    "llama-2-7b full fine-tune, 1B tokens in 48 h": dict(
        model="llama-2-7b",
        task="finetune",
        seq_len=4096,
        grad_checkpointing=True,
        train_tokens=1e9,
        max_hours=48,
    ),
    "llama-3-8b QLoRA": dict(model="llama-3-8b", task="qlora", seq_len=2048, batch_size=4),
    "llama-3-70b LoRA, consumer tier": dict(model="llama-3-70b", task="lora", tier="consumer"),
    "gpt2-xl pretrain, 10B tokens in 24 h": dict(
        model="gpt2-xl", task="pretrain", seq_len=1024, batch_size=8, train_tokens=10e9, max_hours=24
    ),
    "llama-3.1-405b pretrain, 15T tokens in 90 days": dict(
        model="llama-3.1-405b",
        task="pretrain",
        seq_len=8192,
        grad_checkpointing=True,
        train_tokens=15e12,
        max_hours=90 * 24,
    ),
}


def measure(repeats: int = 40) -> tuple[int, dict[str, list[float]], dict[str, list[float]]]:
    """(catalogue GPUs, wall ms per request, CPU ms per request), `repeats` plans of each request."""
    catalog = default_catalog()
    requests = {
        name: PlanRequest(**{**kw, "model": get_preset(kw["model"])}) for name, kw in REQUESTS.items()
    }
    for req in requests.values():
        plan(req, catalog)  # warm caches
    # Round-robin: each round plans every request once, so a burst of load from other processes on a
    # shared machine falls on all requests alike instead of on the one being timed at that moment.
    times: dict[str, list[float]] = {name: [] for name in requests}
    cpu_times: dict[str, list[float]] = {name: [] for name in requests}
    for _ in range(repeats):
        for name, req in requests.items():
            t0, c0 = time.perf_counter(), time.thread_time()
            plan(req, catalog)
            times[name].append((time.perf_counter() - t0) * 1e3)
            cpu_times[name].append((time.thread_time() - c0) * 1e3)
    return len(catalog.gpus), times, cpu_times


def main(repeats: int = 40) -> None:
    gpus, times, cpu_times = measure(repeats)
    print(f"plan() over {gpus} catalogue GPUs, {repeats} rounds of every request")
    # CPU time of this thread beside the wall time: on a shared machine the wall time also counts the
    # time other processes held the cores.
    print(f"{'request':<50} {'median ms':>10} {'p90 ms':>8} {'CPU ms':>8}")
    medians, cpu_medians = [], []
    for name in times:
        wall = sorted(times[name])
        medians.append(statistics.median(wall))
        cpu_medians.append(statistics.median(cpu_times[name]))
        print(
            f"{name:<50} {medians[-1]:>10.1f} {wall[int(0.9 * len(wall)) - 1]:>8.1f} {cpu_medians[-1]:>8.1f}"
        )
    print(
        f"median over requests: {statistics.median(medians):.1f} ms (CPU {statistics.median(cpu_medians):.1f}); "
        f"worst request median: {max(medians):.1f} ms (CPU {max(cpu_medians):.1f})"
    )


def _medians() -> None:
    """One run's medians as JSON, for `compare`: {request: [wall ms, CPU ms]}."""
    _, times, cpu_times = measure()
    print(
        json.dumps(
            {name: [statistics.median(times[name]), statistics.median(cpu_times[name])] for name in times}
        )
    )


def compare(old: str, new: str, runs: int = 3) -> None:
    """Both trees' medians side by side: this script run with each tree first on PYTHONPATH in turn."""
    load_before = os.getloadavg()
    results: dict[str, list[dict[str, list[float]]]] = {old: [], new: []}
    for _ in range(runs):
        for tree in (old, new):
            env = {**os.environ, "PYTHONPATH": os.path.abspath(tree)}
            out = subprocess.run(
                [sys.executable, __file__, "medians"], env=env, capture_output=True, text=True, check=True
            ).stdout
            results[tree].append(json.loads(out))
    print(f"old: {old}\nnew: {new}\n{runs} runs each, alternating; median over the runs of each run's median")
    print(f"{'request':<50} {'old ms':>7} {'new ms':>7} {'old CPU':>8} {'new CPU':>8} {'new/old':>8}")
    for name in REQUESTS:
        walls = [statistics.median(run[name][0] for run in results[tree]) for tree in (old, new)]
        cpus = [statistics.median(run[name][1] for run in results[tree]) for tree in (old, new)]
        ratio = statistics.median(
            b[name][0] / a[name][0] for a, b in zip(results[old], results[new], strict=True)
        )
        print(f"{name:<50} {walls[0]:>7.1f} {walls[1]:>7.1f} {cpus[0]:>8.1f} {cpus[1]:>8.1f} {ratio:>8.2f}")
    load_after = os.getloadavg()
    print(f"load average (1, 5, 15 min): before {load_before}, after {load_after}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["compare"] and len(sys.argv) in (4, 5):
        compare(sys.argv[2], sys.argv[3], *(int(a) for a in sys.argv[4:]))
    elif sys.argv[1:] == ["medians"]:
        _medians()
    else:
        main()
