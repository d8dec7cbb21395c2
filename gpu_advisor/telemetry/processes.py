"""Who is using the machine, per process (nvitop's process list): GPU memory and SM utilisation from
NVML on NVIDIA machines, CPU and resident memory of the watched process tree from psutil.

No Qt, no torch. Unknown values are None ("n/a" on screen), never 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import psutil

# NVML's "not available" for a process's memory (a 64-bit all-ones value): unknown, not 16 EiB.
NVML_VALUE_NOT_AVAILABLE = 2**64 - 1


@dataclass(frozen=True, slots=True)
class ProcessRow:
    """One process, as the Monitor lists it."""

    pid: int
    name: str
    cpu_pct: float | None = None  # of one core (psutil's convention: 200 = two cores busy)
    rss_bytes: int | None = None
    gpu_memory_bytes: int | None = None
    gpu_sm_pct: float | None = None  # NVML's per-process SM utilisation over the last interval


def gpu_process_readings(nvml_module, handle) -> list[tuple[int, int | None, float | None]]:
    """(pid, GPU memory bytes, SM %) of the compute processes on one GPU handle. Raises the module's
    NVMLError; callers go through NvmlSource's guarded helper."""
    lister = getattr(nvml_module, "nvmlDeviceGetComputeRunningProcesses", None)
    running = lister(handle) if lister is not None else []
    utilisation: dict[int, float] = {}
    sampler = getattr(nvml_module, "nvmlDeviceGetProcessUtilization", None)
    if sampler is not None:
        try:
            utilisation = {u.pid: float(u.smUtil) for u in sampler(handle, 0)}
        except nvml_module.NVMLError:  # not supported on this GPU, or no samples yet
            utilisation = {}
    rows = []
    for p in running:
        used = getattr(p, "usedGpuMemory", None)
        memory = None if used in (None, NVML_VALUE_NOT_AVAILABLE) else int(used)
        rows.append((int(p.pid), memory, utilisation.get(int(p.pid))))
    return rows


class HostProcesses:
    """The process tree under `root_pid` (this app and what it started), read on demand.

    psutil's cpu_percent needs two readings: the process objects are kept between calls, so every
    call after the first gives the CPU share since the previous one (the first reads None).
    """

    def __init__(self, root_pid: int) -> None:
        self.root_pid = root_pid
        self._known: dict[int, psutil.Process] = {}

    def read(self) -> list[ProcessRow]:
        """The tree's processes, busiest first; vanished ones are dropped."""
        try:
            root = psutil.Process(self.root_pid)
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            return []
        rows = []
        alive: dict[int, psutil.Process] = {}
        for proc in tree:
            known = self._known.get(proc.pid, proc)
            try:
                with known.oneshot():
                    first = proc.pid not in self._known
                    cpu = known.cpu_percent(None)
                    rows.append(
                        ProcessRow(
                            pid=proc.pid,
                            name=known.name(),
                            cpu_pct=None if first else cpu,
                            rss_bytes=known.memory_info().rss,
                        )
                    )
                alive[proc.pid] = known
            except psutil.Error:
                continue
        self._known = alive
        return sorted(rows, key=lambda r: -(r.cpu_pct or 0.0))


def gpu_rows(readings: list[tuple[int, int | None, float | None]]) -> list[ProcessRow]:
    """GPU readings named through psutil (another user's process may only show its pid)."""
    rows = []
    for pid, memory, sm in readings:
        try:
            name = psutil.Process(pid).name()
        except psutil.Error:
            name = f"pid {pid}"
        rows.append(ProcessRow(pid=pid, name=name, gpu_memory_bytes=memory, gpu_sm_pct=sm))
    return sorted(rows, key=lambda r: -(r.gpu_memory_bytes or 0))
