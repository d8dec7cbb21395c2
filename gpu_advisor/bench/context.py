"""What every workload is handed: the device, its sizes, the stop flag, progress, measured peaks.

No torch at import time: the device is held as an opaque object and the workloads, which import
torch, use it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpu_advisor.bench.options import BenchOptions, Sizes
from gpu_advisor.bench.results import DeviceInfo, WorkloadKind, WorkloadResult
from gpu_advisor.core.catalog import GpuSpec
from gpu_advisor.core.units import format_bytes


class Cancelled(Exception):
    """The stop event was set; raised between steps."""


class MemoryCapExceeded(Exception):
    """A workload needs more than the configured memory cap: handled exactly like an out-of-memory error."""

    def __init__(self, needed_bytes: int, cap_bytes: int, what: str = "predicted") -> None:
        super().__init__(
            f"{what} peak {format_bytes(needed_bytes)} exceeds the memory cap of {format_bytes(cap_bytes)}"
        )
        self.needed_bytes = needed_bytes
        self.cap_bytes = cap_bytes


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished workload variant and the numbers the diagnosis rules need (telemetry.RunEvidence fields)."""

    result: WorkloadResult
    evidence: dict[str, float | None] = field(default_factory=dict)


@dataclass
class RunContext:
    """Shared by the workloads of one run. `measured` collects peaks measured on this device
    (keys like "flops_per_s.fp32", "bandwidth_bytes_per_s") for later predictions."""

    options: BenchOptions
    sizes: Sizes
    device: Any  # torch.device
    device_info: DeviceInfo
    catalog_gpu: GpuSpec | None
    stop: threading.Event
    memory_cap_bytes: int | None
    report_progress: Callable[[str, float, str], None] = lambda workload, fraction, message: None
    # Each timed step's rate as it happens (metric key, value per second), for live plots.
    report_step: Callable[[str, float], None] = lambda key, rate: None
    measured: dict[str, float] = field(default_factory=dict)
    current_workload: str = ""

    @property
    def is_cuda(self) -> bool:
        return self.device_info.kind == "cuda"

    @property
    def duration_s(self) -> float:
        return self.options.duration_s if self.options.duration_s is not None else self.sizes.duration_s

    def check(self) -> None:
        """Raise Cancelled if the run was asked to stop. Call between steps."""
        if self.stop.is_set():
            raise Cancelled

    def progress(self, fraction: float, message: str) -> None:
        """Progress within the current workload (0-1)."""
        self.report_progress(self.current_workload, min(1.0, max(0.0, fraction)), message)

    def check_cap(self, needed_bytes: int | None, what: str = "predicted") -> None:
        """Raise MemoryCapExceeded when `needed_bytes` is over the cap."""
        if (
            self.memory_cap_bytes is not None
            and needed_bytes is not None
            and needed_bytes > self.memory_cap_bytes
        ):
            raise MemoryCapExceeded(needed_bytes, self.memory_cap_bytes, what)

    def peak_flops(self, dtype: str) -> tuple[float | None, str]:
        """The device's peak FLOP/s for a dtype and where it came from (catalogue on GPU, measured on CPU)."""
        if self.is_cuda:
            if self.catalog_gpu is not None:
                peak = self.catalog_gpu.peak_flops_per_s(dtype)
                if peak is not None:
                    return peak, f"catalogue {self.catalog_gpu.name} {dtype}"
            measured = self.measured.get(f"flops_per_s.{dtype}")
            return measured, f"measured matmul {dtype}" if measured else "unknown"
        measured = self.measured.get(f"flops_per_s.{dtype}")
        return measured, f"measured matmul {dtype} on {self.device_info.torch_threads} threads"

    def peak_bandwidth(self) -> tuple[float | None, str]:
        if self.is_cuda and self.catalog_gpu is not None and self.catalog_gpu.bandwidth_bytes_per_s:
            return self.catalog_gpu.bandwidth_bytes_per_s, f"catalogue {self.catalog_gpu.name}"
        measured = self.measured.get("bandwidth_bytes_per_s")
        return measured, "measured device copy" if measured else "unknown"

    def common_config(self) -> dict[str, Any]:
        return {"device": self.device_info.name, "torch_threads": self.device_info.torch_threads}


def now() -> float:
    """Unix time (for lining results up with telemetry samples)."""
    return time.time()


def ok_result(workload: WorkloadKind, name: str, started: float, **measured: Any) -> WorkloadResult:
    """A workload variant that ran to the end: `measured` (config, metrics, timings, prediction,
    notes), its start and its time so far."""
    return WorkloadResult(
        workload=workload, name=name, status="ok", started_at=started, elapsed_s=now() - started, **measured
    )
