"""What a long run's probe events cost the watcher: monitor memory and the app's refresh at 1 M events.

1. Monitor memory: `bench.monitor.run_monitor` (what `gpu-advisor monitor` runs) in its own process,
   watching a command that appends --events step lines to the events file as fast as it can; this
   process samples the monitor process's RSS (not the command's) every 20 ms. Target: the peak within
   50 MB of the RSS before the first event (issue 27; before the aggregates it grew ~1 KB per event).
2. App refresh: the Monitor's command view folds --events events as the monitor thread hands them
   over (CommandLive.add, in chunks), then its 1 Hz refresh (CommandLive.summary + the live cards)
   is timed, median of 21. Target: under 20 ms at 1 M events.

Usage: python benchmarks/probe_events_scale.py [--events 1000000]
Exit 0 when both targets hold.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

TARGET_GROWTH_BYTES = 50 * 2**20
TARGET_REFRESH_S = 0.020

WRITER = r"""
import json, os, sys
n = int(sys.argv[1])
path = os.environ["GPU_ADVISOR_EVENTS"]
pid = os.getpid()
with open(path, "a") as f:
    f.write(json.dumps({"event": "start", "schema": "gpu-advisor/probe-events@1", "rank": 0, "pid": pid, "t": 0}) + "\n")
    chunk = []
    for i in range(n):
        chunk.append('{"event":"step","epoch":0,"step_s":%.6f,"data_wait_s":0.001,"samples":8,"tokens":1024,"pid":%d,"t":%d}\n'
                     % (0.01 + (i % 97) * 1e-4, pid, i))
        if len(chunk) == 10000:
            f.write("".join(chunk)); chunk = []
    f.write("".join(chunk))
"""

MONITOR = r"""
import json, sys, time
from gpu_advisor.bench.monitor import run_monitor
print("ready", flush=True)
sys.stdin.readline()
began = time.monotonic()
report = run_monitor([sys.executable, "-c", sys.argv[1], sys.argv[2]], interval_s=0.5)
print(json.dumps({"wall_s": time.monotonic() - began, "count": report.steps.count}), flush=True)
"""


def monitor_memory(events: int) -> dict:
    import psutil

    proc = subprocess.Popen(
        [sys.executable, "-c", MONITOR, WRITER, str(events)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "ready"
    watched = psutil.Process(proc.pid)
    baseline = watched.memory_info().rss
    proc.stdin.write("go\n")
    proc.stdin.flush()
    peak = baseline
    while proc.poll() is None:
        try:
            peak = max(peak, watched.memory_info().rss)
        except psutil.Error:
            break
        time.sleep(0.02)
    result = json.loads(proc.stdout.readline())
    return {"baseline_rss": baseline, "peak_rss": peak, **result}


def app_refresh(events: int) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gpu_advisor.ui.monitor.command_run import CommandLive
    from gpu_advisor.wording.command import live_cards

    live = CommandLive()
    try:
        live.add([{"event": "start", "rank": 0, "pid": 1, "t": 0}])
        began = time.perf_counter()
        for first in range(0, events, 10_000):
            live.add(
                [
                    {
                        "event": "step",
                        "epoch": 0,
                        "step_s": 0.01 + (i % 97) * 1e-4,
                        "data_wait_s": 0.001,
                        "samples": 8,
                        "tokens": 1024,
                        "pid": 1,
                        "t": float(i),
                    }
                    for i in range(first, min(first + 10_000, events))
                ]
            )
        fold_s = time.perf_counter() - began
        times = []
        for k in range(21):
            live.add([{"event": "step", "epoch": 0, "step_s": 0.01, "samples": 8, "pid": 1, "t": events + k}])
            t = time.perf_counter()
            steps, epochs, _counters = live.summary()
            live_cards(steps, epochs, 100.0)
            times.append(time.perf_counter() - t)
        return {
            "fold_s": fold_s,
            "refresh_s": statistics.median(times),
            "refresh_max_s": max(times),
            "count": steps.count,
        }
    finally:
        live.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    args = parser.parse_args()
    mem = monitor_memory(args.events)
    growth = mem["peak_rss"] - mem["baseline_rss"]
    print(
        f"monitor: {mem['count']:,} step events in {mem['wall_s']:.1f} s; RSS {mem['baseline_rss'] / 2**20:.1f} MB "
        f"before, peak {mem['peak_rss'] / 2**20:.1f} MB (+{growth / 2**20:.1f} MB; target within "
        f"{TARGET_GROWTH_BYTES / 2**20:.0f} MB)"
    )
    app = app_refresh(args.events)
    print(
        f"app: {app['count']:,} step events folded in {app['fold_s']:.1f} s "
        f"({app['fold_s'] / app['count'] * 1e6:.2f} us each); refresh {app['refresh_s'] * 1e3:.2f} ms median, "
        f"{app['refresh_max_s'] * 1e3:.2f} ms max (target under {TARGET_REFRESH_S * 1e3:.0f} ms)"
    )
    ok = growth <= TARGET_GROWTH_BYTES and app["refresh_s"] < TARGET_REFRESH_S and mem["count"] == args.events
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
