"""Attribute the GUI thread's long gaps: what it did, what it waited for, and what the worker ran.

Used by `ui_stall.py --attribute`. The GUI timer calls `tick()` every 10 ms; each tick reads the GUI
thread's scheduler counters (/proc/self/task/TID/schedstat: CPU time, time spent runnable but waiting
for a core). A gap longer than `threshold_ms` is then split into
  - cpu: the GUI thread ran (painting, Python slots);
  - core: it was runnable but no core was free (other threads or processes had both cores);
  - blocked: neither: it slept in the event loop or waited for the GIL held by another thread.
Meanwhile a watchdog thread samples every thread's Python stack (sys._current_frames) every 2 ms
while a tick is late, so that each gap names what the GUI thread and the benchmark's worker thread
were in. The watchdog needs the GIL to take a sample, so a sample during a long GIL hold lands just
after the holder let go: it names the holder's next Python line, which is close to its cause.

Linux only (schedstat); elsewhere the split is missing and the stacks remain.
"""

from __future__ import annotations

import collections
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

SAMPLE_S = 0.002
GIL_HOLD_S = 0.005  # a wait for the GIL this long is reported with the holder's stack
MAX_FRAMES = 40  # Python frames kept per sample, innermost first


def _schedstat(tid: int) -> tuple[float, float]:
    """(CPU s, runnable-but-waiting s) of one thread; (nan, nan) where unreadable."""
    try:
        cpu_ns, wait_ns, _slices = Path(f"/proc/self/task/{tid}/schedstat").read_text().split()
    except (OSError, ValueError):
        return float("nan"), float("nan")
    return int(cpu_ns) / 1e9, int(wait_ns) / 1e9


def _host_busy() -> tuple[float, float]:
    """(busy jiffies, all jiffies) of the whole machine (/proc/stat), for the load during a gap."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return float("nan"), float("nan")
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def _thread_tids(prefix: str) -> list[int]:
    """Native ids of this process's threads whose name starts with `prefix` (QThread names them)."""
    tids = []
    for task in Path("/proc/self/task").iterdir():
        try:
            if task.joinpath("comm").read_text().strip().startswith(prefix):
                tids.append(int(task.name))
        except OSError:
            continue
    return tids


def _frames(frame, limit: int = MAX_FRAMES) -> tuple[str, ...]:
    out = []
    while frame is not None and len(out) < limit:
        code = frame.f_code
        name = code.co_filename
        for marker in ("site-packages/", "gpu_advisor/", "benchmarks/"):
            if marker in name:
                name = name.split(marker, 1)[1]
                break
        out.append(f"{name}:{frame.f_lineno} {code.co_name}")
        frame = frame.f_back
    return tuple(out)


@dataclass
class Gap:
    start_s: float  # since the watch started
    gap_ms: float
    gui_cpu_ms: float
    gui_core_wait_ms: float
    worker_cpu_ms: float
    process_cpu_ms: float
    host_busy_pct: float
    label: str = ""
    gil_holds: list[tuple[float, tuple[str, ...]]] = field(default_factory=list)  # (ms, worker stack after)
    gui_stacks: list[tuple[str, ...]] = field(default_factory=list)
    worker_stacks: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def gui_blocked_ms(self) -> float:
        return self.gap_ms - self.gui_cpu_ms - self.gui_core_wait_ms


class StallWatch:
    """Call `start()` on the GUI thread, then `tick()` from its timer; `gaps` lists the long ones."""

    def __init__(self, threshold_ms: float = 25.0, worker_prefix: str = "gpu-advisor mon") -> None:
        self.threshold_s = threshold_ms / 1e3
        self.worker_prefix = worker_prefix
        self.gaps: list[Gap] = []
        self.label = lambda: ""  # what the run is doing (the current workload), read at each gap
        self._gui_ident = threading.get_ident()
        self._gui_tid = threading.get_native_id()
        self._worker_tids: list[int] = []
        self._last = time.perf_counter()
        self._t0 = self._last
        self._last_sched = _schedstat(self._gui_tid)
        self._last_proc = time.process_time()
        self._last_worker = 0.0
        self._last_host = _host_busy()
        self._samples: collections.deque[tuple[float, tuple[str, ...], list[tuple[str, ...]]]] = (
            collections.deque(maxlen=2000)
        )
        self._holds: collections.deque[tuple[float, float, tuple[str, ...]]] = collections.deque(maxlen=2000)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="stall-watch", daemon=True)

    def start(self) -> None:
        self._last = self._t0 = time.perf_counter()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _worker_cpu(self) -> float:
        if not self._worker_tids:
            self._worker_tids = [t for t in _thread_tids(self.worker_prefix) if t != self._gui_tid]
        return sum(_schedstat(t)[0] for t in self._worker_tids)

    def tick(self) -> None:
        now = time.perf_counter()
        sched = _schedstat(self._gui_tid)
        proc = time.process_time()
        worker = self._worker_cpu()
        host = _host_busy()
        gap = now - self._last
        if gap > self.threshold_s:
            busy, total = host[0] - self._last_host[0], host[1] - self._last_host[1]
            inside = [s for s in list(self._samples) if self._last <= s[0] <= now]
            self.gaps.append(
                Gap(
                    start_s=self._last - self._t0,
                    gap_ms=gap * 1e3,
                    gui_cpu_ms=(sched[0] - self._last_sched[0]) * 1e3,
                    gui_core_wait_ms=(sched[1] - self._last_sched[1]) * 1e3,
                    worker_cpu_ms=(worker - self._last_worker) * 1e3,
                    process_cpu_ms=(proc - self._last_proc) * 1e3,
                    host_busy_pct=100 * busy / total if total else float("nan"),
                    label=self.label(),
                    gil_holds=[
                        (h[1] * 1e3, h[2]) for h in list(self._holds) if self._last <= h[0] <= now + 0.01
                    ],
                    gui_stacks=[s[1] for s in inside],
                    worker_stacks=[w for s in inside for w in s[2]],
                )
            )
        self._last, self._last_sched, self._last_proc = now, sched, proc
        self._last_worker, self._last_host = worker, host

    def _watch(self) -> None:
        me = threading.get_ident()
        tid = threading.get_native_id()
        before, sched = time.perf_counter(), _schedstat(tid)
        while not self._stop.wait(SAMPLE_S):
            now = time.perf_counter()
            now_sched = _schedstat(tid)
            # This thread was late by `late`: waiting for a core (its own schedstat says how long)
            # or for the GIL (the rest). A long GIL wait names the holder's next Python line.
            late = now - before - SAMPLE_S
            held = late - (now_sched[1] - sched[1])
            before, sched = now, now_sched
            gui_late = now - self._last >= self.threshold_s * 0.6
            if not gui_late and held < GIL_HOLD_S:
                continue
            frames = sys._current_frames()
            gui = _frames(frames.get(self._gui_ident))
            others = [_frames(f) for ident, f in frames.items() if ident not in (me, self._gui_ident)]
            # The worker: the thread running a job (bench code), not the telemetry sampler.
            workers = [s for s in others if any("run_job" in x or "prepare" in x for x in s)]
            if held >= GIL_HOLD_S:
                self._holds.append((now, held, workers[0] if workers else ()))
            if gui_late:
                self._samples.append((now, gui, workers))
            before, sched = time.perf_counter(), _schedstat(tid)


def _where(stack: tuple[str, ...], depth: int = 3) -> str:
    """The innermost frames of a stack, and the innermost frame of our own code."""
    if not stack:
        return "(no Python frame)"
    own = next((f for f in stack if f.startswith(("bench/", "ui/", "telemetry/", "core/", "wording/"))), "")
    inner = " < ".join(stack[:depth])
    return inner if not own or own in stack[:depth] else f"{inner} … {own}"


def describe(gaps: list[Gap], top: int = 25) -> str:
    """The gaps' totals, then the longest gaps, each with its split and its most frequent stacks."""
    lines = [
        f"  totals over {len(gaps)} gaps: {sum(g.gap_ms for g in gaps):.0f} ms, GUI cpu "
        f"{sum(g.gui_cpu_ms for g in gaps):.0f}, core wait {sum(g.gui_core_wait_ms for g in gaps):.0f}, "
        f"blocked {sum(g.gui_blocked_ms for g in gaps):.0f} ms"
    ]
    for g in sorted(gaps, key=lambda g: -g.gap_ms)[:top]:
        lines.append(
            f"  {g.gap_ms:6.1f} ms at {g.start_s:6.2f} s [{g.label}]: GUI cpu {g.gui_cpu_ms:.1f}, "
            f"core wait {g.gui_core_wait_ms:.1f}, blocked {g.gui_blocked_ms:.1f}; worker cpu "
            f"{g.worker_cpu_ms:.1f}, process cpu {g.process_cpu_ms:.1f} ms, machine busy {g.host_busy_pct:.0f} %"
        )
        for held_ms, stack in sorted(g.gil_holds, key=lambda h: -h[0])[:3]:
            lines.append(f"      GIL held {held_ms:.0f} ms, worker after: {_where(stack, 2)}")
        for title, stacks in (("GUI", g.gui_stacks), ("worker", g.worker_stacks)):
            counts = collections.Counter(_where(s) for s in stacks)
            for where, n in counts.most_common(3):
                lines.append(f"      {title} x{n}: {where}")
    return "\n".join(lines)


def holds_summary(watch: StallWatch, min_ms: float = 10.0) -> str:
    """Every wait of the watchdog for the GIL over `min_ms` during the run (gap or not), by where
    the worker was right after, longest first."""
    by_where: dict[str, list[float]] = collections.defaultdict(list)
    for _t, held, stack in list(watch._holds):
        if held * 1e3 >= min_ms:
            by_where[_where(stack, 2)].append(held * 1e3)
    rows = sorted(by_where.items(), key=lambda kv: -max(kv[1]))
    return "\n".join(f"  max {max(v):5.0f} ms, {len(v):3d}x: {where}" for where, v in rows[:25])


def worker_summary(gaps: list[Gap]) -> str:
    """Own-code frames of the worker over all long gaps, by how many samples they appear in."""
    counts: collections.Counter[str] = collections.Counter()
    for g in gaps:
        for s in g.worker_stacks:
            counts.update({f for f in s if f.startswith(("bench/", "telemetry/", "torch/", "pydantic"))})
    return "\n".join(f"  {n:4d} {where}" for where, n in counts.most_common(30))
