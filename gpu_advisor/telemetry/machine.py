"""What machine is this? CPU, cores, RAM, OS, Python and GPUs (NVIDIA or AMD), as plain JSON-friendly data.

The torch version is added by the bench layer (this package never imports torch).
"""

from __future__ import annotations

import contextlib
import platform
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import psutil

from gpu_advisor.telemetry.gpu_source import AutoGpuSource, GpuSource

CPU_MODE_PREFIX = "No NVIDIA GPU: CPU mode"


def cpu_model(cpuinfo_path: Path = Path("/proc/cpuinfo")) -> str | None:
    """The CPU's marketing name ("AMD EPYC 7B13"), from /proc/cpuinfo on Linux, else platform."""
    try:
        with cpuinfo_path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                key, _, value = line.partition(":")
                # x86 says "model name"; some ARM kernels say "Model" or "Hardware".
                if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or None


def describe_machine(nvml: GpuSource | None = None) -> dict[str, Any]:
    """Describe this machine for a benchmark result.

    ``nvml``: a GPU source to ask about GPUs (opened if it is not yet; NvmlSource, AmdSmiSource or
    AutoGpuSource). None: an AutoGpuSource is opened and closed here. Keys: ``cpu_model``,
    ``physical_cores``, ``logical_cores``, ``ram_total_bytes``, ``os``, ``python_version``, ``gpus``
    (list of dicts with ``index``, ``name``, ``uuid``, ``memory_total_bytes``, ``power_limit_w``,
    ``driver_version``, ``nvml_version``, ``cuda_driver_version``, ``mig_mode``, ``error``,
    ``pci_bus_id``, ``backend``) and ``gpu_status`` (a sentence for the user).
    """
    machine: dict[str, Any] = {
        "cpu_model": cpu_model(),
        "physical_cores": psutil.cpu_count(logical=False),
        "logical_cores": psutil.cpu_count(logical=True),
        "ram_total_bytes": int(psutil.virtual_memory().total),
        "os": f"{platform.system()} {platform.release()}".strip() or None,
        "python_version": platform.python_version(),
    }
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):  # no /etc/os-release: keep "Linux <kernel>"
            machine["os"] = platform.freedesktop_os_release().get("PRETTY_NAME") or machine["os"]
    source = nvml if nvml is not None else AutoGpuSource()
    try:
        available = source.open()
        gpus = [info.to_dict() for info in source.devices()] if available else []
        if not available:
            status = f"{CPU_MODE_PREFIX} ({source.unavailable_reason})"
        elif not gpus:
            status = f"{CPU_MODE_PREFIX} (the {source.vendor} driver reports no GPU)"
        else:
            plural = "s" if len(gpus) != 1 else ""
            status = f"{len(gpus)} {source.vendor} GPU{plural} found through {source.label}"
    finally:
        if nvml is None:
            source.close()
    machine["gpus"] = gpus
    machine["gpu_status"] = status
    return machine


def _cores_text(machine: dict[str, Any]) -> str | None:
    physical, logical = machine.get("physical_cores"), machine.get("logical_cores")
    if physical and logical and physical != logical:
        return f"{physical} cores / {logical} threads"
    cores = physical or logical
    return f"{cores} core{'s' if cores != 1 else ''}" if cores else None


def hardware_summary(machine: dict[str, Any]) -> str:
    """One line for a status bar: "2 x NVIDIA RTX 4090, driver 550.54" or the CPU-mode sentence."""
    gpus = machine.get("gpus") or []
    if gpus:
        counts = Counter(str(gpu.get("name") or "unknown GPU") for gpu in gpus)
        text = ", ".join(f"{count} x {name}" for name, count in counts.items())
        driver = next((gpu.get("driver_version") for gpu in gpus if gpu.get("driver_version")), None)
        return f"{text}, driver {driver}" if driver else text
    cpu = ", ".join(part for part in (machine.get("cpu_model"), _cores_text(machine)) if part)
    reason = str(machine.get("gpu_status") or CPU_MODE_PREFIX)
    # The status bar shows the CPU, not the technical reason; the reason stays in gpu_status.
    return f"{CPU_MODE_PREFIX} ({cpu})" if cpu else reason.split(" (")[0]
