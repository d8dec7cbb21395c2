"""Linux host readings straight from /proc, for the sampler's per-tick path.

psutil opens, reads and closes a file for each reading and builds named tuples and dicts from it. At
10 Hz that is most of the sampler's cost: on the 2-core development machine a cold Python `open()` of
a /proc file costs about 0.1 ms of CPU, re-reading a file kept open costs 0.01-0.05 ms. So each file
is opened once and re-read from offset 0 with `os.pread` (the kernel regenerates a /proc file on every
read from its start), and only the few numbers the sample carries are parsed.

The arithmetic is psutil's (its Linux module, `_pslinux.py`), so readings do not change:
`/proc/stat` fields are user, nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice
(guest time is already inside user time); RAM used = MemTotal - MemAvailable; RSS = the second field
of `/proc/PID/statm` times the page size. Where a file is missing (not Linux, an old kernel without
MemAvailable) `open_host_files` returns None and the caller keeps using psutil.
"""

from __future__ import annotations

import contextlib
import os

# /proc/stat field positions (proc(5)).
_IDLE, _IOWAIT, _GUEST = 3, 4, 8
PAGE_SIZE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class ProcFile:
    """One /proc (or sysfs) file kept open and re-read whole from its start on each `read()`.

    Raises OSError from the constructor when the file cannot be opened, and from `read()` when it can
    no longer be read (a process's file after the process was reaped raises ProcessLookupError)."""

    __slots__ = ("_fd", "_size")

    def __init__(self, path: str, size: int = 4096) -> None:
        self._fd: int | None = None
        self._fd = os.open(path, os.O_RDONLY)
        self._size = size

    def read(self) -> bytes:
        """The file's whole content now."""
        if self._fd is None:
            raise ValueError("read of a closed ProcFile")
        data = os.pread(self._fd, self._size, 0)
        while len(data) >= self._size:  # it may go on: read again with room to spare
            self._size *= 2
            data = os.pread(self._fd, self._size, 0)
        return data

    def close(self) -> None:
        """Close the file (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def __del__(self) -> None:
        self.close()


def cpu_ticks(stat: bytes) -> tuple[tuple[int, ...] | None, list[tuple[int, ...]]]:
    """The machine's counters (clock ticks, the `cpu` line) and each logical CPU's (`cpuN` lines, in
    file order) from /proc/stat."""
    machine: tuple[int, ...] | None = None
    cores: list[tuple[int, ...]] = []
    # The cpu lines come first and together; the rest (interrupt counts, often most of the file) is
    # not split.
    end = stat.find(b"\nintr")
    for line in (stat if end < 0 else stat[:end]).split(b"\n"):
        if not line.startswith(b"cpu"):
            if cores:
                break
            continue
        fields = line.split()
        counters = tuple(map(int, fields[1:]))
        if len(fields[0]) > 3:
            cores.append(counters)
        else:
            machine = counters
    return machine, cores


def busy_and_total_ticks(before: tuple[int, ...], after: tuple[int, ...]) -> tuple[int, int]:
    """(busy, total) ticks between two readings of one CPU: psutil's arithmetic (each counter's change
    clamped at 0, since iowait can step back; guest time removed, as user time already holds it;
    iowait counted as idle)."""
    deltas = [b - a if b > a else 0 for a, b in zip(before, after, strict=False)]
    total = sum(deltas) - sum(deltas[_GUEST : _GUEST + 2])
    idle = sum(deltas[_IDLE : _IOWAIT + 1])
    return total - idle, total


def meminfo_total_and_available_bytes(meminfo: bytes) -> tuple[int, int] | None:
    """(MemTotal, MemAvailable) in bytes from /proc/meminfo, or None where either is missing."""
    total = _meminfo_kib(meminfo, b"MemTotal:")
    available = _meminfo_kib(meminfo, b"MemAvailable:")
    if total is None or available is None:
        return None
    # psutil: on some containers MemAvailable exceeds MemTotal; it then uses MemFree.
    if available > total:
        free = _meminfo_kib(meminfo, b"MemFree:")
        available = free if free is not None else total
    return total * 1024, available * 1024


def _meminfo_kib(meminfo: bytes, key: bytes) -> int | None:
    start = meminfo.find(key)
    if start < 0:
        return None
    end = meminfo.find(b"\n", start)
    fields = meminfo[start + len(key) : end if end >= 0 else None].split()
    return int(fields[0]) if fields else None


def statm_rss_bytes(statm: bytes) -> int:
    """Resident set size in bytes from /proc/PID/statm (its second field is resident pages)."""
    return int(statm.split(None, 2)[1]) * PAGE_SIZE_BYTES


class HostFiles:
    """The machine-wide files one sample reads: /proc/stat and /proc/meminfo, kept open."""

    __slots__ = ("meminfo", "stat")

    def __init__(self, stat: ProcFile, meminfo: ProcFile) -> None:
        self.stat, self.meminfo = stat, meminfo

    def close(self) -> None:
        self.stat.close()
        self.meminfo.close()


def open_host_files(proc: str = "/proc") -> HostFiles | None:
    """The machine-wide files, or None where this is not a Linux /proc that gives what psutil would
    (no per-core lines, no MemAvailable): the caller then reads through psutil."""
    try:
        files = HostFiles(ProcFile(f"{proc}/stat"), ProcFile(f"{proc}/meminfo"))
    except OSError:
        return None
    try:
        usable = bool(cpu_ticks(files.stat.read())[1]) and (
            meminfo_total_and_available_bytes(files.meminfo.read()) is not None
        )
    except (OSError, ValueError):
        usable = False
    if not usable:
        files.close()
        return None
    return files


class CpuClockFiles:
    """Each cpufreq policy's `scaling_cur_freq` (kHz), kept open: psutil.cpu_freq() opens three files
    per policy on every call, which on a 128-core server is hundreds of opens a reading."""

    __slots__ = ("_files",)

    def __init__(self, files: list[ProcFile]) -> None:
        self._files = files

    def mean_mhz(self) -> float | None:
        """The mean current clock over the policies in MHz (psutil's cpu_freq().current), or None."""
        khz = []
        for file in self._files:
            try:
                khz.append(int(file.read()))
            except (OSError, ValueError):
                return None
        return sum(khz) / len(khz) / 1000 if khz and any(khz) else None


def open_cpu_clock_files(sysfs: str = "/sys/devices/system/cpu") -> CpuClockFiles | None:
    """The policies' clock files, or None where there are none (psutil then reads /proc/cpuinfo)."""
    try:
        policies = [name for name in os.listdir(f"{sysfs}/cpufreq") if name.startswith("policy")]
    except OSError:
        return None
    files = []
    for name in sorted(policies, key=lambda n: int(n[len("policy") :] or 0)):
        try:
            files.append(ProcFile(f"{sysfs}/cpufreq/{name}/scaling_cur_freq", size=64))
        except OSError:
            for file in files:
                file.close()
            return None  # an old kernel's cpuinfo_cur_freq only: psutil knows those
    return CpuClockFiles(files) if files else None
