"""Time and memory of tracing Llama-3-70B training at sequence length 4096 on fake tensors.

Target (issue 12): under 120 s and under 2 GB resident on this project's 2-core machines: the trace
allocates no real weight memory. Each case runs in a fresh process, so the resident peak is the trace's.
Run: .venv/bin/python benchmarks/trace_speed.py
"""

from __future__ import annotations

import json
import subprocess
import sys

CASES = {
    "llama-3-70b pretrain bf16, batch 1 x 4096": dict(task="pretrain", seq_len=4096),
    "llama-3-70b pretrain bf16, batch 1 x 4096, checkpointing": dict(
        task="pretrain", seq_len=4096, grad_checkpointing=True
    ),
    "llama-3-70b inference bf16, 32 users, 2048 + 512 tokens": dict(
        task="inference", users=32, prompt_tokens=2048, output_tokens=512
    ),
}

CHILD = """
import json, resource, sys, time
from gpu_advisor.bench.trace import TraceSetup, trace_memory
from gpu_advisor.core.presets import get_preset
started = time.perf_counter()
result = trace_memory(TraceSetup.from_spec(get_preset("llama-3-70b"), **json.loads(sys.argv[1])))
print(json.dumps({
    "wall_s": time.perf_counter() - started,
    "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    "peak_bytes": result.peak_bytes,
    "peak_moment": result.peak_moment,
}))
"""


def main() -> int:
    print(f"{'case':<58} {'wall':>8} {'max RSS':>9} {'traced peak':>12}  moment")
    worst = 0.0
    for name, fields in CASES.items():
        out = subprocess.run(
            [sys.executable, "-c", CHILD, json.dumps(fields)], capture_output=True, text=True, check=True
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        worst = max(worst, r["wall_s"])
        print(
            f"{name:<58} {r['wall_s']:>7.1f}s {r['max_rss_bytes'] / 2**30:>7.2f} GiB "
            f"{r['peak_bytes'] / 2**30:>8.1f} GiB  {r['peak_moment']}"
        )
    print(f"targets: under 120 s and under 2 GB resident per trace; slowest {worst:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
