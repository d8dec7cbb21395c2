"""A fake pynvml module for tests: the real error classes, constants and ctypes structs, fake devices.

Constants (``NVML_*``, ``nvmlClocks*``), error classes (``NVMLError*``) and structs (``c_nvml*``)
are taken from the installed pynvml, so the code under test sees exactly what a driver would give.
Each FakeGpu can be told to fail any NVML function with a real pynvml error class, or to be lost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pynvml

GIB = 1024**3


@dataclass
class FakeGpu:
    """What one fake GPU reports. ``errors`` maps an NVML function name to the error class it raises."""

    name: str = "NVIDIA H100 80GB HBM3"
    uuid: str = "GPU-00000000-1111-2222-3333-444444444444"
    memory_total_bytes: int = 80 * GIB
    memory_used_bytes: int = 12 * GIB
    gpu_util_pct: int = 87
    mem_util_pct: int = 41
    power_mw: int = 350_250
    power_limit_mw: int = 700_000
    temperature_c: int = 61
    sm_clock_mhz: int = 1980
    mem_clock_mhz: int = 2619
    clock_reasons_mask: int = 0
    pcie_rx_kb_per_s: int = 1000
    pcie_tx_kb_per_s: int = 2500
    mig_mode: int = pynvml.NVML_DEVICE_MIG_DISABLE
    gpm_supported: bool = False
    gpm_values: dict[int, float] = field(
        default_factory=lambda: {
            pynvml.NVML_GPM_METRIC_SM_UTIL: 75.5,
            pynvml.NVML_GPM_METRIC_DRAM_BW_UTIL: 62.25,
            pynvml.NVML_GPM_METRIC_ANY_TENSOR_UTIL: 40.0,
        }
    )
    errors: dict[str, type[pynvml.NVMLError]] = field(default_factory=dict)
    lost: bool = False  # every call raises NVMLError_GpuIsLost
    # compute processes: (pid, used GPU memory bytes or NVML's "not available", SM util % or None)
    processes: list[tuple[int, int, int | None]] = field(default_factory=list)


class FakeNvml:
    """Stands in for the pynvml module. ``calls`` records (function name, device index) pairs."""

    def __init__(
        self,
        gpus: list[FakeGpu] | None = None,
        *,
        init_error: type[pynvml.NVMLError] | None = None,
        driver_version: str = "550.54.15",
        nvml_version: str = "12.550.54.15",
        cuda_driver_version: int = 12040,
        old_driver: bool = False,  # no ClocksEventReasons, TemperatureV, MemoryInfo_v2
    ) -> None:
        self.gpus = gpus if gpus is not None else [FakeGpu()]
        self.init_error = init_error
        self.driver_version = driver_version
        self.nvml_version = nvml_version
        self.cuda_driver_version = cuda_driver_version
        self.old_driver = old_driver
        self.calls: list[tuple[str, int | None]] = []
        self.init_count = 0
        self.shutdown_count = 0
        self.gpm_buffers_allocated = 0
        self.gpm_buffers_freed = 0

    def __getattr__(self, name: str) -> Any:
        # Only data is borrowed from the real module; any NVML *function* not defined here is absent,
        # as it would be in an old pynvml.
        if name.startswith(("NVML", "nvmlClocks", "c_nvml")) or name == "nvmlMemory_v2":
            return getattr(pynvml, name)
        raise AttributeError(name)

    # ---- helpers ---------------------------------------------------------------------------------

    def _device(self, function: str, handle: FakeGpu) -> FakeGpu:
        index = self.gpus.index(handle)
        self.calls.append((function, index))
        if handle.lost:
            raise pynvml.NVMLError_GpuIsLost()
        if function in handle.errors:
            raise handle.errors[function]()
        return handle

    def device_calls(self, index: int) -> int:
        """How many NVML calls were made for device ``index``."""
        return sum(1 for _, i in self.calls if i == index)

    # ---- system ----------------------------------------------------------------------------------

    def nvmlDeviceGetComputeRunningProcesses(self, handle: FakeGpu) -> list[Any]:
        gpu = self._device("nvmlDeviceGetComputeRunningProcesses", handle)
        return [SimpleNamespace(pid=pid, usedGpuMemory=used) for pid, used, _ in gpu.processes]

    def nvmlDeviceGetProcessUtilization(self, handle: FakeGpu, last_seen: int) -> list[Any]:
        gpu = self._device("nvmlDeviceGetProcessUtilization", handle)
        return [SimpleNamespace(pid=pid, smUtil=sm) for pid, _, sm in gpu.processes if sm is not None]

    def nvmlInit(self) -> None:
        self.calls.append(("nvmlInit", None))
        if self.init_error is not None:
            raise self.init_error()
        self.init_count += 1

    def nvmlShutdown(self) -> None:
        self.shutdown_count += 1

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlSystemGetDriverVersion(self) -> str:
        return self.driver_version

    def nvmlSystemGetNVMLVersion(self) -> str:
        return self.nvml_version

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return self.cuda_driver_version

    # ---- device ----------------------------------------------------------------------------------

    def nvmlDeviceGetHandleByIndex(self, index: int) -> FakeGpu:
        gpu = self.gpus[index]
        return self._device("nvmlDeviceGetHandleByIndex", gpu)

    def nvmlDeviceGetName(self, handle: FakeGpu) -> str:
        return self._device("nvmlDeviceGetName", handle).name

    def nvmlDeviceGetUUID(self, handle: FakeGpu) -> str:
        return self._device("nvmlDeviceGetUUID", handle).uuid

    def nvmlDeviceGetMemoryInfo(self, handle: FakeGpu, version: int | None = None) -> Any:
        gpu = self._device("nvmlDeviceGetMemoryInfo", handle)
        if version is not None and self.old_driver:
            raise pynvml.NVMLError_FunctionNotFound()  # no nvmlDeviceGetMemoryInfo_v2
        memory = pynvml.c_nvmlMemory_t() if version is None else pynvml.c_nvmlMemory_v2_t()
        memory.total = gpu.memory_total_bytes
        memory.used = gpu.memory_used_bytes
        memory.free = gpu.memory_total_bytes - gpu.memory_used_bytes
        return memory

    def nvmlDeviceGetUtilizationRates(self, handle: FakeGpu) -> pynvml.c_nvmlUtilization_t:
        gpu = self._device("nvmlDeviceGetUtilizationRates", handle)
        if gpu.mig_mode == pynvml.NVML_DEVICE_MIG_ENABLE:
            raise pynvml.NVMLError_NotSupported()
        util = pynvml.c_nvmlUtilization_t()
        util.gpu, util.memory = gpu.gpu_util_pct, gpu.mem_util_pct
        return util

    def nvmlDeviceGetPowerUsage(self, handle: FakeGpu) -> int:
        return self._device("nvmlDeviceGetPowerUsage", handle).power_mw

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: FakeGpu) -> int:
        return self._device("nvmlDeviceGetEnforcedPowerLimit", handle).power_limit_mw

    def nvmlDeviceGetTemperatureV(self, handle: FakeGpu, sensor: int) -> int:
        if self.old_driver:
            self.calls.append(("nvmlDeviceGetTemperatureV", self.gpus.index(handle)))
            raise pynvml.NVMLError_FunctionNotFound()
        assert sensor == pynvml.NVML_TEMPERATURE_GPU
        return self._device("nvmlDeviceGetTemperatureV", handle).temperature_c

    def nvmlDeviceGetTemperature(self, handle: FakeGpu, sensor: int) -> int:
        assert sensor == pynvml.NVML_TEMPERATURE_GPU
        return self._device("nvmlDeviceGetTemperature", handle).temperature_c

    def nvmlDeviceGetClockInfo(self, handle: FakeGpu, clock_type: int) -> int:
        gpu = self._device("nvmlDeviceGetClockInfo", handle)
        return gpu.sm_clock_mhz if clock_type == pynvml.NVML_CLOCK_SM else gpu.mem_clock_mhz

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle: FakeGpu) -> int:
        if self.old_driver:
            self.calls.append(("nvmlDeviceGetCurrentClocksEventReasons", self.gpus.index(handle)))
            raise pynvml.NVMLError_FunctionNotFound()
        return self._device("nvmlDeviceGetCurrentClocksEventReasons", handle).clock_reasons_mask

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle: FakeGpu) -> int:
        return self._device("nvmlDeviceGetCurrentClocksThrottleReasons", handle).clock_reasons_mask

    def nvmlDeviceGetPcieThroughput(self, handle: FakeGpu, counter: int) -> int:
        gpu = self._device("nvmlDeviceGetPcieThroughput", handle)
        return gpu.pcie_rx_kb_per_s if counter == pynvml.NVML_PCIE_UTIL_RX_BYTES else gpu.pcie_tx_kb_per_s

    def nvmlDeviceGetMigMode(self, handle: FakeGpu) -> list[int]:
        gpu = self._device("nvmlDeviceGetMigMode", handle)
        return [gpu.mig_mode, gpu.mig_mode]

    # ---- GPM -------------------------------------------------------------------------------------

    def nvmlGpmQueryDeviceSupport(self, handle: FakeGpu) -> pynvml.c_nvmlGpmSupport_t:
        gpu = self._device("nvmlGpmQueryDeviceSupport", handle)
        support = pynvml.c_nvmlGpmSupport_t()
        support.isSupportedDevice = int(gpu.gpm_supported)
        return support

    def nvmlGpmSampleAlloc(self) -> Any:
        self.gpm_buffers_allocated += 1
        return pynvml.c_nvmlGpmSample_t()

    def nvmlGpmSampleFree(self, sample: Any) -> None:
        self.gpm_buffers_freed += 1

    def nvmlGpmSampleGet(self, handle: FakeGpu, sample: Any) -> Any:
        self._device("nvmlGpmSampleGet", handle)
        self.last_gpm_handle = handle
        return sample

    def nvmlGpmMetricsGet(self, request: Any) -> Any:
        assert request.version == pynvml.NVML_GPM_METRICS_GET_VERSION
        gpu = self.last_gpm_handle
        for slot in range(request.numMetrics):
            metric = request.metrics[slot]
            if metric.metricId in gpu.gpm_values:
                metric.value = gpu.gpm_values[metric.metricId]
                metric.nvmlReturn = pynvml.NVML_SUCCESS
            else:
                metric.nvmlReturn = pynvml.NVML_ERROR_NOT_SUPPORTED
        return request
