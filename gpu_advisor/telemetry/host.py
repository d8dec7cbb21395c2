"""Host telemetry through psutil: CPU load, RAM, a watched process tree, CPU clock and temperature.

CPU load is a rate between two readings. psutil's own ``cpu_percent()`` keeps its previous reading
per calling thread, so priming it on the GUI thread and reading on the sampler thread would report
0 % on the first tick. This source keeps its own previous reading instead, primed at construction,
so any thread can read it.

On Linux the per-tick readings (CPU counters, RAM, the watched tree's RSS) come from /proc files kept
open (procfs.py): the same numbers as psutil's for a fraction of its cost. Elsewhere, psutil.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import psutil

from gpu_advisor.telemetry import procfs
from gpu_advisor.telemetry.procfs import ProcFile
from gpu_advisor.telemetry.samples import HostSample

# psutil.sensors_temperatures() chip names that measure the CPU package, best first.
# coretemp: Intel; k10temp/zenpower: AMD; cpu_thermal/cpu-thermal/soc_thermal: ARM boards.
# acpitz is the ACPI thermal zone: often the CPU, sometimes the motherboard, so it comes last.
_CPU_SENSOR_CHIPS = ("coretemp", "k10temp", "zenpower", "cpu_thermal", "cpu-thermal", "soc_thermal", "acpitz")
# Finding descendants reads a children file per thread of each process in the tree (psutil's
# fallback scans every process on the machine), while reading the RSS of known ones is cheap. So the
# tree is re-scanned at most this often; a new DataLoader worker is counted within this delay.
PROCESS_TREE_REFRESH_S = 2.0
# psutil.sensors_temperatures() reads every hwmon chip (disks, NICs, ...): the costliest host reading.
# A CPU package's temperature moves over seconds (heatsink mass), so once a second is enough; the
# value in between is the last one read.
CPU_TEMP_REFRESH_S = 1.0
# The clock (one sysfs file per core) changes with load over tenths of a second; shown once a second.
CPU_FREQ_REFRESH_S = 1.0


def cpu_busy_pct(before: Any, after: Any) -> float | None:
    """Percent of time busy between two ``psutil.cpu_times()`` readings; None if no time passed.

    Same arithmetic as ``psutil.cpu_percent``: guest time is already inside user time on Linux,
    and iowait counts as idle (htop does the same).
    """
    return _pct(*_busy_and_total(before, after))


def _busy_and_total(before: Any, after: Any) -> tuple[float, float]:
    """(busy, total) CPU seconds between two readings."""
    deltas = {name: max(0.0, getattr(after, name) - getattr(before, name)) for name in after._fields}
    total = sum(deltas.values()) - deltas.get("guest", 0.0) - deltas.get("guest_nice", 0.0)
    return total - deltas["idle"] - deltas.get("iowait", 0.0), total


def _pct(busy: float, total: float) -> float | None:
    if total <= 0:
        return None
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
        # Linux: /proc/stat, /proc/meminfo and each watched process's statm, kept open (None: psutil).
        self._files = procfs.open_host_files()
        self._clock_files = procfs.open_cpu_clock_files() if self._files is not None else None
        self._root_statm: ProcFile | None = None
        self._descendant_statm: dict[int, ProcFile] = {}
        # Sensors and cpufreq do not appear while the app runs: once absent, they are not asked again.
        self._has_cpu_sensor = True
        self._has_cpu_freq = True
        self._freq_read_s: float | None = None
        self._freq_mhz: float | None = None
        self._temp_read_s: float | None = None
        self._temp_c: float | None = None
        if watch_pid is not None:
            try:
                self._process = psutil.Process(watch_pid)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                self._process = None
            if self._process is not None and self._files is not None:
                self._root_statm = _open_statm(watch_pid)
        # Prime the CPU counters: the first rate needs a previous reading.
        if self._files is not None:
            self._last_ticks, self._last_core_ticks = procfs.cpu_ticks(self._files.stat.read())
        else:
            self._last_total = psutil.cpu_times()
            self._last_per_core: Sequence[Any] = psutil.cpu_times(percpu=True)

    @property
    def watch_pid(self) -> int | None:
        """The pid whose process tree is measured, or None."""
        return self._watch_pid

    def read(self) -> HostSample:
        """Take one reading. Values the platform cannot give are None. Thread-safe."""
        with self._lock:
            if self._files is not None:
                cpu_pct, per_core = self._cpu_load_procfs(self._files.stat.read())
                process_rss_bytes = self._process_tree_rss_bytes_procfs()
                ram = procfs.meminfo_total_and_available_bytes(self._files.meminfo.read())
            else:
                cpu_pct, per_core = self._cpu_load()
                process_rss_bytes = self._process_tree_rss_bytes()
                ram = None
            cpu_freq_mhz = self._cpu_freq_mhz()
            cpu_temp_c = self._cpu_temp_c()
        if ram is None:
            memory = psutil.virtual_memory()
            ram = int(memory.total), int(memory.available)
        total_bytes, available_bytes = ram
        return HostSample(
            cpu_pct=cpu_pct,
            per_core_pct=per_core,
            ram_used_bytes=total_bytes - available_bytes,
            ram_total_bytes=total_bytes,
            process_rss_bytes=process_rss_bytes,
            cpu_freq_mhz=cpu_freq_mhz,
            cpu_temp_c=cpu_temp_c,
        )

    def _cpu_load_procfs(self, stat: bytes) -> tuple[float | None, tuple[float, ...] | None]:
        machine, cores = procfs.cpu_ticks(stat)
        before_machine, before_cores = self._last_ticks, self._last_core_ticks
        self._last_ticks, self._last_core_ticks = machine, cores
        if len(cores) != len(before_cores):  # a CPU went offline: the machine-wide counter
            if machine is None or before_machine is None:
                return None, None
            return _pct(*procfs.busy_and_total_ticks(before_machine, machine)), None
        # The machine-wide load is the sum over the cores (as /proc/stat's "cpu" line).
        busy_sum = total_sum = 0
        values = []
        for before, after in zip(before_cores, cores, strict=True):
            busy, total = procfs.busy_and_total_ticks(before, after)
            busy_sum += busy
            total_sum += total
            values.append(_pct(busy, total))
        per_core_pct = tuple(values) if None not in values else None
        return _pct(busy_sum, total_sum), per_core_pct  # type: ignore[return-value]

    def _process_tree_rss_bytes_procfs(self) -> int | None:
        """As `_process_tree_rss_bytes`, from the statm files of the tree's processes, kept open."""
        root = self._root_statm
        if root is None:
            return None
        now_s = self._clock()
        if self._tree_scanned_s is None or now_s - self._tree_scanned_s >= PROCESS_TREE_REFRESH_S:
            self._tree_scanned_s = now_s
            self._rescan_descendant_statm()
        try:
            root_rss_bytes = procfs.statm_rss_bytes(root.read())
        except OSError:  # the watched process was reaped: the run is over
            root.close()
            self._root_statm = None
            return None
        if not root_rss_bytes:
            return None  # a zombie (exited, not yet reaped) has no memory: the process is over
        total_bytes = root_rss_bytes
        for pid, statm in list(self._descendant_statm.items()):
            try:
                total_bytes += procfs.statm_rss_bytes(statm.read())
            except OSError:  # a worker that exited since the last scan
                statm.close()
                del self._descendant_statm[pid]
        return total_bytes

    def _rescan_descendant_statm(self) -> None:
        assert self._watch_pid is not None
        pids = _descendant_pids(self._watch_pid)
        if pids is None:  # no children files on this kernel: psutil's scan of every process
            try:
                pids = [p.pid for p in psutil.Process(self._watch_pid).children(recursive=True)]
            except psutil.Error:
                pids = []
        known = self._descendant_statm
        for pid in set(known) - set(pids):
            known.pop(pid).close()
        for pid in pids:
            if pid not in known:
                statm = _open_statm(pid)
                if statm is not None:
                    known[pid] = statm

    def _cpu_freq_mhz(self) -> float | None:
        if not self._has_cpu_freq:
            return None
        now_s = self._clock()
        if self._freq_read_s is None or now_s - self._freq_read_s >= CPU_FREQ_REFRESH_S:
            self._freq_read_s = now_s
            self._freq_mhz = read_cpu_freq_mhz(self._clock_files)
            self._has_cpu_freq = self._freq_mhz is not None
        return self._freq_mhz

    def _cpu_temp_c(self) -> float | None:
        if not self._has_cpu_sensor:
            return None
        now_s = self._clock()
        if self._temp_read_s is None or now_s - self._temp_read_s >= CPU_TEMP_REFRESH_S:
            self._temp_read_s = now_s
            self._temp_c = read_cpu_temp_c()
            self._has_cpu_sensor = self._temp_c is not None
        return self._temp_c

    def _cpu_load(self) -> tuple[float | None, tuple[float, ...] | None]:
        per_core = psutil.cpu_times(percpu=True)
        if len(per_core) != len(self._last_per_core):  # a CPU went offline: the machine-wide counter
            total = psutil.cpu_times()
            cpu_pct = cpu_busy_pct(self._last_total, total)
            self._last_total, self._last_per_core = total, per_core
            return cpu_pct, None
        # The machine-wide load is the sum over the cores (as /proc/stat's "cpu" line): one read.
        pairs = [_busy_and_total(a, b) for a, b in zip(self._last_per_core, per_core, strict=True)]
        values = [_pct(busy, total) for busy, total in pairs]
        per_core_pct = tuple(v for v in values if v is not None) if None not in values else None
        cpu_pct = _pct(sum(b for b, _ in pairs), sum(t for _, t in pairs))
        self._last_per_core = per_core
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
                self._descendants = _descendants(root)
            except (psutil.NoSuchProcess, psutil.ZombieProcess):
                return None  # the watched process itself has gone
            except psutil.AccessDenied:
                self._descendants = []
        try:
            root_rss_bytes = root.memory_info().rss
        except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
            return None  # gone
        if not root_rss_bytes:
            return None  # a zombie (exited, not yet reaped) has no memory: the process is over
        total_bytes = root_rss_bytes
        for process in self._descendants:
            try:
                total_bytes += process.memory_info().rss
            except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
                continue  # a worker that exited since the last scan
        return total_bytes


def _open_statm(pid: int) -> ProcFile | None:
    """/proc/PID/statm kept open, or None where the process is gone or hidden from this user."""
    try:
        return ProcFile(f"/proc/{pid}/statm", size=256)
    except OSError:
        return None


def _descendant_pids(root_pid: int) -> list[int] | None:
    """Every descendant of `root_pid` from each thread's /proc/PID/task/TID/children (a few small
    files), or None where the kernel has no children files."""
    found: list[int] = []
    pending = [root_pid]
    while pending:
        kids = _linux_children(pending.pop())
        if kids is None:
            return None
        found += kids
        pending += kids
    return found


def _descendants(root: psutil.Process) -> list[psutil.Process]:
    """Every descendant of `root`. On Linux from the /proc children files (`_descendant_pids`), else
    psutil's scan of every process on the machine (about 1.7 ms here)."""
    pids = _descendant_pids(root.pid)
    if pids is None:
        return root.children(recursive=True)
    found: list[psutil.Process] = []
    for pid in pids:
        try:
            found.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            continue  # exited meanwhile
    return found


def _linux_children(pid: int) -> list[int] | None:
    """Direct children's pids, or None where the kernel has no children files (not Linux, or built
    without CONFIG_PROC_CHILDREN)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return None if not os.path.isdir("/proc/self/task") else []  # no /proc, or the process is gone
    except OSError:
        return []
    kids: list[int] = []
    for tid in threads:
        try:
            kids += [int(p) for p in _read_whole(f"/proc/{pid}/task/{tid}/children").split()]
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{tid}"):
                continue  # the thread ended
            return None
        except OSError:
            continue
    return kids


def _read_whole(path: str) -> bytes:
    """A small file's content through the bare system calls (a third of the CPU of Python's open(),
    measured on /proc files here)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_cpu_freq_mhz(files: procfs.CpuClockFiles | None = None) -> float | None:
    """Current CPU clock in MHz (average over cores where the OS gives several), or None.
    `files`: the cpufreq files kept open (Linux); else psutil (sysfs files per core, or /proc/cpuinfo)."""
    if files is not None:
        return files.mean_mhz()
    try:
        freq = psutil.cpu_freq()
    except (AttributeError, NotImplementedError, OSError, RuntimeError):
        return None
    if freq is None or not freq.current:
        return None  # 0.0 means "not reported" (many VMs)
    return float(freq.current)


def read_cpu_temp_c() -> float | None:
    """Hottest reading of the CPU package sensor in °C, or None where there is none."""
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
