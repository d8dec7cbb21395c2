"""NVIDIA GPUs through NVML (the ``nvidia-ml-py`` package, module ``pynvml``).

Every NVML call goes through one guarded helper, :meth:`NvmlSource._call`: an unsupported or
forbidden metric becomes ``None``; a lost GPU turns into a sample with ``error`` set, and that
device is not queried again; nothing NVML raises ever leaves this class. Units are converted
here once: NVML's milliwatts become watts, its PCIe KB/s become bytes/s.

Which NVML symbols nvidia-ml-py 13 calls (checked against its source, and exercised through the real
bindings by tests/telemetry/test_nvml_mock.py): nvmlInitWithFlags, nvmlDeviceGetCount_v2,
nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetMemoryInfo_v2 (struct version nvmlMemory_v2),
nvmlDeviceGetTemperatureV (nvmlTemperature_v1), nvmlDeviceGetComputeRunningProcesses_v3 and the GPM
calls with version 1 structs.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, fields
from types import ModuleType
from typing import Any, TypedDict

from gpu_advisor.telemetry.clock_reasons import decode_clock_event_reasons, reason_bits
from gpu_advisor.telemetry.library_source import LibrarySource
from gpu_advisor.telemetry.samples import GpuSample

# NVML reports PCIe throughput in KB/s where KB = 1024 bytes (nvidia-smi and nvitop read it so).
_PCIE_BYTES_PER_KB = 1024
_MILLIWATTS_PER_WATT = 1000.0

# Errors after which a device is treated as gone: asking again only burns time, or hangs.
_FATAL_ERROR_CODES = ("NVML_ERROR_GPU_IS_LOST", "NVML_ERROR_UNKNOWN", "NVML_ERROR_RESET_REQUIRED")

# _call_one's answer where the driver (or pynvml) has no such function: an older driver.
_FUNCTION_MISSING = object()

# Why nvmlInit() failed, in words a user can act on. Keyed by pynvml error-code constant name.
_INIT_FAILURE_REASONS = {
    "NVML_ERROR_LIBRARY_NOT_FOUND": "NVIDIA driver not found (NVML library missing)",
    "NVML_ERROR_DRIVER_NOT_LOADED": "NVML: driver not loaded",
    "NVML_ERROR_NO_PERMISSION": "NVML: no permission to talk to the NVIDIA driver",
    "NVML_ERROR_LIB_RM_VERSION_MISMATCH": (
        "NVML: library and kernel driver versions differ (reboot after a driver update)"
    ),
    "NVML_ERROR_GPU_IS_LOST": "NVML: a GPU fell off the bus (reset or reboot needed)",
}


@dataclass(frozen=True, slots=True)
class GpuInfo:
    """Static facts about one GPU, read once when NVML is opened."""

    index: int
    name: str
    uuid: str | None
    memory_total_bytes: int | None
    power_limit_w: float | None
    driver_version: str | None
    nvml_version: str | None
    cuda_driver_version: str | None  # e.g. "12.4": the newest CUDA the driver supports
    mig_mode: bool | None  # None where MIG does not exist or cannot be read
    error: str | None = None  # set when the device could not be opened
    pci_bus_id: str | None = None  # "00000000:18:00.0": the order CUDA_DEVICE_ORDER=PCI_BUS_ID counts in
    backend: str = "nvml"  # which library reads this GPU: "nvml" (NVIDIA) or "amdsmi" (AMD)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-friendly dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


class _Versions(TypedDict):
    """The driver's versions, the same for every GPU: GpuInfo's fields of those names."""

    driver_version: str | None
    nvml_version: str | None
    cuda_driver_version: str | None


class _DeviceLost(Exception):
    """Internal: a fatal NVML error on one device."""


@dataclass(slots=True)
class _Device:
    """Mutable per-device state, private to NvmlSource."""

    info: GpuInfo
    handle: Any = None
    lost: str | None = None
    gpm_supported: bool | None = None  # None: not asked yet
    gpm_buffers: list[Any] | None = None  # two nvmlGpmSample_t, alternated
    gpm_have_previous: bool = False


def _text(value: Any) -> str | None:
    """NVML strings arrive as str (new pynvml) or bytes (old pynvml)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return str(value)


def format_cuda_version(version: int | None) -> str | None:
    """Turn NVML's integer CUDA driver version (12040) into "12.4"."""
    if version is None or version <= 0:
        return None
    return f"{version // 1000}.{(version % 1000) // 10}"


class NvmlSource(LibrarySource):
    """Reads NVIDIA GPUs through NVML; degrades to "n/a" on any NVML problem.

    ``nvml_module`` is the pynvml module (imported lazily when None); tests pass a fake.
    Call :meth:`open` first; it returns False, with :attr:`unavailable_reason` set, where there is
    no usable driver. Methods are safe to call from several threads.
    """

    backend = "nvml"
    label = "NVML"  # the library's name, for sentences such as "found through NVML"
    vendor = "NVIDIA"

    def __init__(self, nvml_module: ModuleType | Any | None = None, *, read_pcie: bool = True) -> None:
        super().__init__()
        self._nvml: Any = nvml_module
        # nvmlDeviceGetPcieThroughput waits ~20 ms per counter inside the driver: callers that sample
        # many GPUs at a high rate can switch it off.
        self._read_pcie = read_pcie
        self._devices: dict[int, _Device] = {}
        self._reason_bits: tuple[tuple[str, int], ...] = ()

    # ---- lifecycle -------------------------------------------------------------------------------

    def open(self) -> bool:
        """Initialise NVML and enumerate GPUs. Return whether NVML is available. Never raises."""
        with self._lock:
            if self._available:
                return True
            if self._nvml is None:
                try:
                    import pynvml
                except ImportError:
                    self._reason = "NVML unavailable: the nvidia-ml-py package is not installed"
                    return False
                self._nvml = pynvml
            try:
                self._nvml.nvmlInit()
            except self._nvml.NVMLError as err:
                self._reason = self._init_failure_reason(err)
                return False
            self._available = True
            self._reason = None
            self._reason_bits = reason_bits(self._nvml)
            self._enumerate()
            return True

    def _shut_down(self) -> None:
        """Free GPM buffers and shut NVML down."""
        for device in self._devices.values():
            self._free_gpm(device)
        with contextlib.suppress(self._nvml.NVMLError):  # shutting down anyway
            self._nvml.nvmlShutdown()

    # ---- public queries --------------------------------------------------------------------------

    def read(self, index: int) -> GpuSample:
        """Read every metric of GPU ``index``; unsupported ones are None. Never raises."""
        with self._lock:
            device, unreadable = self._unreadable(index)
            if unreadable is not None:
                return unreadable
            if device.lost is not None:
                return self._error_sample(device)
            try:
                return self._read_device(device)
            except _DeviceLost as lost:
                device.lost = str(lost)
                self._free_gpm(device)
                return self._error_sample(device)

    def processes(self, index: int) -> list[tuple[int, int | None, float | None]]:
        """(pid, GPU memory bytes, SM %) of each compute process on GPU ``index``; empty when NVML
        cannot say (unavailable, lost, not supported). Never raises."""
        from gpu_advisor.telemetry.processes import gpu_process_readings

        with self._lock:
            device = self._devices.get(index)
            if not self._available or device is None or device.lost is not None:
                return []
            try:
                return gpu_process_readings(self._nvml, device.handle)
            except self._nvml.NVMLError:
                return []

    # ---- the guarded helper ----------------------------------------------------------------------

    def _call(self, names: str | tuple[str, ...], *args: Any) -> Any:
        """Call the first of ``names`` this driver has. Return None if unsupported or refused.

        Raises _DeviceLost (internal) on errors that mean the device is gone.
        """
        for name in (names,) if isinstance(names, str) else names:
            value, code = self._call_one(name, *args)
            if code is not _FUNCTION_MISSING:
                return value  # None when not supported, no permission, not ready: this metric is n/a
            self._missing_functions.add(name)  # older driver: try the next name
        return None

    def _call_one(self, name: str, *args: Any) -> tuple[Any, object]:
        """(value, None), or (None, the NVML error code), or (None, _FUNCTION_MISSING) where the
        driver or pynvml lacks the function. Raises _DeviceLost on errors that mean the device is gone."""
        nvml = self._nvml
        function = None if name in self._missing_functions else getattr(nvml, name, None)
        if function is None:
            return None, _FUNCTION_MISSING
        try:
            return function(*args), None
        except nvml.NVMLError as err:
            code = getattr(err, "value", None)
            if code == getattr(nvml, "NVML_ERROR_FUNCTION_NOT_FOUND", _FUNCTION_MISSING):
                return None, _FUNCTION_MISSING
            if code in self._fatal_codes():
                raise _DeviceLost(f"GPU lost: {self._error_text(err)}") from err
            return None, code

    def _memory(self, handle: Any) -> tuple[int, int] | None:
        """(used, total) bytes. NVML's v2 query first: its "used" is what was allocated, the figure
        `nvidia-smi -q` lists as Used beside Reserved; v1's "used" also counts the memory the driver
        reserves for itself (nvml.h, nvmlMemory_t and nvmlMemory_v2_t). Drivers without v2 get v1."""
        nvml = self._nvml
        version = getattr(nvml, "nvmlMemory_v2", None)
        if version is not None and "memory_v2" not in self._missing_functions:
            memory, code = self._call_one("nvmlDeviceGetMemoryInfo", handle, version)
            if memory is not None:
                return int(memory.used), int(memory.total)
            if code is not _FUNCTION_MISSING and code != getattr(
                nvml, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", _FUNCTION_MISSING
            ):
                return None
            self._missing_functions.add("memory_v2")
        memory = self._call("nvmlDeviceGetMemoryInfo", handle)
        return None if memory is None else (int(memory.used), int(memory.total))

    def _fatal_codes(self) -> set[int]:
        return {getattr(self._nvml, name) for name in _FATAL_ERROR_CODES if hasattr(self._nvml, name)}

    def _error_text(self, err: BaseException) -> str:
        try:
            return str(err)
        except Exception:  # pynvml's __str__ may itself call into NVML
            return type(err).__name__

    def _init_failure_reason(self, err: BaseException) -> str:
        code = getattr(err, "value", None)
        for constant, reason in _INIT_FAILURE_REASONS.items():
            if code is not None and code == getattr(self._nvml, constant, object()):
                return reason
        return f"NVML unavailable: {self._error_text(err)}"

    # ---- enumeration -----------------------------------------------------------------------------

    def _enumerate(self) -> None:
        try:
            count = self._call(("nvmlDeviceGetCount",)) or 0
            driver = _text(self._call("nvmlSystemGetDriverVersion"))
            nvml_version = _text(self._call("nvmlSystemGetNVMLVersion"))
            cuda = self._call(("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"))
        except _DeviceLost as lost:
            count, driver, nvml_version, cuda = 0, None, None, None
            self._reason = str(lost)
        versions: _Versions = {
            "driver_version": driver,
            "nvml_version": nvml_version,
            "cuda_driver_version": format_cuda_version(cuda),
        }
        for index in range(int(count)):
            self._devices[index] = self._open_device(index, versions)
        self._infos = tuple(device.info for _, device in sorted(self._devices.items()))

    def _open_device(self, index: int, versions: _Versions) -> _Device:
        try:
            handle = self._call("nvmlDeviceGetHandleByIndex", index)
            if handle is None:
                raise _DeviceLost("NVML: cannot open this GPU (no permission or not found)")
            name = _text(self._call("nvmlDeviceGetName", handle)) or f"GPU {index}"
            uuid = _text(self._call("nvmlDeviceGetUUID", handle))
            memory = self._memory(handle)
            limit_mw = self._call("nvmlDeviceGetEnforcedPowerLimit", handle)
            mig = self._call("nvmlDeviceGetMigMode", handle)
            pci = self._call("nvmlDeviceGetPciInfo", handle)
        except _DeviceLost as lost:
            info = GpuInfo(
                index, f"GPU {index}", None, None, None, **versions, mig_mode=None, error=str(lost)
            )
            return _Device(info=info, lost=str(lost))
        mig_enabled = None
        if mig is not None:
            mig_enabled = mig[0] == getattr(self._nvml, "NVML_DEVICE_MIG_ENABLE", 1)
        info = GpuInfo(
            index=index,
            name=name,
            uuid=uuid,
            memory_total_bytes=None if memory is None else memory[1],
            power_limit_w=None if limit_mw is None else limit_mw / _MILLIWATTS_PER_WATT,
            **versions,
            mig_mode=mig_enabled,
            pci_bus_id=None if pci is None else _text(getattr(pci, "busId", None)),
        )
        return _Device(info=info, handle=handle)

    # ---- one reading -----------------------------------------------------------------------------

    def _error_sample(self, device: _Device) -> GpuSample:
        info = device.info
        return GpuSample(index=info.index, name=info.name, uuid=info.uuid, error=device.lost)

    def _read_device(self, device: _Device) -> GpuSample:
        nvml, handle, info = self._nvml, device.handle, device.info
        # In MIG mode whole-GPU utilisation is not defined; NVML answers NotSupported. Skip the call.
        util = None if info.mig_mode else self._call("nvmlDeviceGetUtilizationRates", handle)
        memory = self._memory(handle)
        power_mw = self._call("nvmlDeviceGetPowerUsage", handle)
        limit_mw = self._call("nvmlDeviceGetEnforcedPowerLimit", handle)
        temperature_c = self._call(
            ("nvmlDeviceGetTemperatureV", "nvmlDeviceGetTemperature"), handle, nvml.NVML_TEMPERATURE_GPU
        )
        sm_clock_mhz = self._call("nvmlDeviceGetClockInfo", handle, nvml.NVML_CLOCK_SM)
        mem_clock_mhz = self._call("nvmlDeviceGetClockInfo", handle, nvml.NVML_CLOCK_MEM)
        mask = self._call(
            ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"), handle
        )
        rx_kb = tx_kb = None
        if self._read_pcie:
            rx_kb = self._call("nvmlDeviceGetPcieThroughput", handle, nvml.NVML_PCIE_UTIL_RX_BYTES)
            tx_kb = self._call("nvmlDeviceGetPcieThroughput", handle, nvml.NVML_PCIE_UTIL_TX_BYTES)
        sm_pct, dram_pct, tensor_pct = self._read_gpm(device)
        return GpuSample(
            index=info.index,
            name=info.name,
            uuid=info.uuid,
            gpu_util_pct=None if util is None else float(util.gpu),
            mem_util_pct=None if util is None else float(util.memory),
            memory_used_bytes=None if memory is None else memory[0],
            memory_total_bytes=None if memory is None else memory[1],
            power_w=None if power_mw is None else power_mw / _MILLIWATTS_PER_WATT,
            power_limit_w=None if limit_mw is None else limit_mw / _MILLIWATTS_PER_WATT,
            temperature_c=None if temperature_c is None else float(temperature_c),
            sm_clock_mhz=None if sm_clock_mhz is None else int(sm_clock_mhz),
            mem_clock_mhz=None if mem_clock_mhz is None else int(mem_clock_mhz),
            clock_event_reasons=None if mask is None else decode_clock_event_reasons(mask, self._reason_bits),
            pcie_rx_bytes_per_s=None if rx_kb is None else int(rx_kb) * _PCIE_BYTES_PER_KB,
            pcie_tx_bytes_per_s=None if tx_kb is None else int(tx_kb) * _PCIE_BYTES_PER_KB,
            gpm_sm_activity_pct=sm_pct,
            gpm_dram_activity_pct=dram_pct,
            gpm_tensor_activity_pct=tensor_pct,
        )

    # ---- GPM (Hopper and newer): rates over the interval between two device samples --------------

    def _read_gpm(self, device: _Device) -> tuple[float | None, float | None, float | None]:
        none = (None, None, None)
        if device.info.mig_mode or device.gpm_supported is False:
            return none  # MIG needs per-instance GPM samples; not measured here
        if device.gpm_supported is None and not self._init_gpm(device):
            return none
        assert device.gpm_buffers is not None
        current, previous = device.gpm_buffers
        if self._call("nvmlGpmSampleGet", device.handle, current) is None:
            device.gpm_have_previous = False
            return none
        had_previous = device.gpm_have_previous
        device.gpm_buffers = [previous, current]  # this reading is the next one's "previous"
        device.gpm_have_previous = True
        if not had_previous:
            return none  # GPM metrics need two samples: the first reading has none
        return self._gpm_metrics(previous, current)

    def _init_gpm(self, device: _Device) -> bool:
        nvml = self._nvml
        device.gpm_supported = False
        if not hasattr(nvml, "c_nvmlGpmMetricsGet_t"):
            return False  # pynvml too old for GPM
        support = self._call("nvmlGpmQueryDeviceSupport", device.handle)
        if support is None or not support.isSupportedDevice:
            return False
        buffers = [self._call("nvmlGpmSampleAlloc"), self._call("nvmlGpmSampleAlloc")]
        if any(buffer is None for buffer in buffers):
            for buffer in buffers:
                if buffer is not None:
                    self._call("nvmlGpmSampleFree", buffer)
            return False
        device.gpm_buffers = buffers
        device.gpm_supported = True
        return True

    def _gpm_metrics(self, sample1: Any, sample2: Any) -> tuple[float | None, float | None, float | None]:
        nvml = self._nvml
        metric_ids = (
            nvml.NVML_GPM_METRIC_SM_UTIL,
            nvml.NVML_GPM_METRIC_DRAM_BW_UTIL,
            nvml.NVML_GPM_METRIC_ANY_TENSOR_UTIL,
        )
        request = nvml.c_nvmlGpmMetricsGet_t()
        request.version = nvml.NVML_GPM_METRICS_GET_VERSION
        request.numMetrics = len(metric_ids)
        request.sample1 = sample1
        request.sample2 = sample2
        for slot, metric_id in enumerate(metric_ids):
            request.metrics[slot].metricId = metric_id
        result = self._call("nvmlGpmMetricsGet", request)
        if result is None:
            return (None, None, None)
        values = [
            float(result.metrics[slot].value)
            if result.metrics[slot].nvmlReturn == nvml.NVML_SUCCESS
            else None
            for slot in range(len(metric_ids))
        ]
        return values[0], values[1], values[2]

    def _free_gpm(self, device: _Device) -> None:
        if device.gpm_buffers is not None:
            for buffer in device.gpm_buffers:
                with contextlib.suppress(_DeviceLost):  # a lost device's buffers go with nvmlShutdown
                    self._call("nvmlGpmSampleFree", buffer)
            device.gpm_buffers = None
        device.gpm_supported = False if device.lost else device.gpm_supported
        device.gpm_have_previous = False
