"""Host telemetry through psutil: CPU load, RAM, a watched process tree, CPU clock and temperature.

CPU load is a rate between two readings. psutil's own ``cpu_percent()`` keeps its previous reading
per calling thread, so priming it on the GUI thread and reading on the sampler thread would report
0 % on the first tick. This source keeps its own previous reading instead, primed at construction,
so any thread can read it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import psutil

from gpu_advisor.telemetry.samples import HostSample

# psutil.sensors_temperatures() chip names that measure the CPU package, best first.
# coretemp: Intel; k10temp/zenpower: AMD; cpu_thermal/cpu-thermal/soc_thermal: ARM boards.
# acpitz is the ACPI thermal zone: often the CPU, sometimes the motherboard, so it comes last.
_CPU_SENSOR_CHIPS = ("coretemp", "k10temp", "zenpower", "cpu_thermal", "cpu-thermal", "soc_thermal", "acpitz")
# Finding descendants scans every process on the machine (about 1 ms per hundred processes), while
# reading the RSS of known ones is cheap. So the tree is re-scanned at most this often; a new
# DataLoader worker is counted within this delay.
PROCESS_TREE_REFRESH_S = 2.0


def cpu_busy_pct(before: Any, after: Any) -> float | None:
    """Percent of time busy between two ``psutil.cpu_times()`` readings; None if no time passed.

    Same arithmetic as ``psutil.cpu_percent``: guest time is already inside user time on Linux,
    and iowait counts as idle (htop does the same).
    """
    deltas = {name: max(0.0, getattr(after, name) - getattr(before, name)) for name in after._fields}
    total = sum(deltas.values()) - deltas.get("guest", 0.0) - deltas.get("guest_nice", 0.0)
    if total <= 0:
        return None
    busy = total - deltas["idle"] - deltas.get("iowait", 0.0)
    return round(min(100.0, max(0.0, 100.0 * busy / total)), 1)


class HostSource:
    """Reads the host. ``watch_pid``: also report the RSS of that process and all its descendants."""

    def __init__(self, watch_pid: int | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._watch_pid = watch_pid
        self._process: psutil.Process | None = None
        self._descendants: list[psutil.Process] = []
        self._tree_scanned_s: float | None = None
        if watch_pid is not None:
            try:
                self._process = psutil.Process(watch_pid)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                self._process = None
        # Prime the CPU counters: the first rate needs a previous reading.
        self._last_total = psutil.cpu_times()
        self._last_per_core: Sequence[Any] = psutil.cpu_times(percpu=True)

    @property
    def watch_pid(self) -> int | None:
        """The pid whose process tree is measured, or None."""
        return self._watch_pid

    def read(self) -> HostSample:
        """Take one reading. Values the platform cannot give are None. Thread-safe."""
        with self._lock:
            cpu_pct, per_core = self._cpu_load()
            process_rss_bytes = self._process_tree_rss_bytes()
        memory = psutil.virtual_memory()
        return HostSample(
            cpu_pct=cpu_pct,
            per_core_pct=per_core,
            ram_used_bytes=int(memory.total - memory.available),
            ram_total_bytes=int(memory.total),
            process_rss_bytes=process_rss_bytes,
            cpu_freq_mhz=_cpu_freq_mhz(),
            cpu_temp_c=_cpu_temp_c(),
        )

    def _cpu_load(self) -> tuple[float | None, tuple[float, ...] | None]:
        total = psutil.cpu_times()
        per_core = psutil.cpu_times(percpu=True)
        cpu_pct = cpu_busy_pct(self._last_total, total)
        per_core_pct: tuple[float, ...] | None = None
        if len(per_core) == len(self._last_per_core):  # a CPU going offline changes the count
            values = [cpu_busy_pct(a, b) for a, b in zip(self._last_per_core, per_core, strict=True)]
            if all(v is not None for v in values):
                per_core_pct = tuple(float(v) for v in values if v is not None)
        self._last_total, self._last_per_core = total, per_core
        return cpu_pct, per_core_pct

    def _process_tree_rss_bytes(self) -> int | None:
        """RSS of the watched process plus its descendants. Processes that exit meanwhile are skipped."""
        root = self._process
        if root is None:
            return None
        now_s = self._clock()
        if self._tree_scanned_s is None or now_s - self._tree_scanned_s >= PROCESS_TREE_REFRESH_S:
            self._tree_scanned_s = now_s
            try:
                self._descendants = root.children(recursive=True)
            except (psutil.NoSuchProcess, psutil.ZombieProcess):
                return None  # the watched process itself has gone
            except psutil.AccessDenied:
                self._descendants = []
        try:
            if not root.is_running() or root.status() == psutil.STATUS_ZOMBIE:
                return None  # gone (or exited, not yet reaped), or its pid was reused
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            return None
        total_bytes = 0
        counted = 0
        for process in [root, *self._descendants]:
            try:
                total_bytes += process.memory_info().rss
                counted += 1
            except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
                continue
        return total_bytes if counted else None


def _cpu_freq_mhz() -> float | None:
    try:
        freq = psutil.cpu_freq()
    except (AttributeError, NotImplementedError, OSError, RuntimeError):
        return None
    if freq is None or not freq.current:
        return None  # 0.0 means "not reported" (many VMs)
    return float(freq.current)


def _cpu_temp_c() -> float | None:
    read_sensors = getattr(psutil, "sensors_temperatures", None)  # absent on Windows and macOS
    if read_sensors is None:
        return None
    try:
        chips = read_sensors()
    except (OSError, RuntimeError, NotImplementedError):
        return None
    for chip in _CPU_SENSOR_CHIPS:
        readings = [entry.current for entry in chips.get(chip, ()) if entry.current is not None]
        if readings:
            return float(max(readings))
    return None
