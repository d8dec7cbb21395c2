"""Time plan() over the whole catalogue for representative requests.

Target (issue 26): median under 10 ms per request type, fast enough to re-plan on every keystroke in the wizard.
Run: .venv/bin/python benchmarks/plan_speed.py
To compare two trees on a shared machine, run each several times, alternating, in one time window.
"""

from __future__ import annotations

import statistics
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


def main(repeats: int = 40) -> None:
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
    print(f"plan() over {len(catalog.gpus)} catalogue GPUs, {repeats} rounds of every request")
    # CPU time of this thread beside the wall time: on a shared machine the wall time also counts the
    # time other processes held the cores.
    print(f"{'request':<50} {'median ms':>10} {'p90 ms':>8} {'CPU ms':>8}")
    medians, cpu_medians = [], []
    for name in requests:
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


if __name__ == "__main__":
    main()
