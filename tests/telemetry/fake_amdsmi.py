"""A fake `amdsmi` module for tests: the real package's exceptions, enums and status codes, fake GPUs.

The installed amdsmi package cannot be imported without ROCm's libamd_smi.so (its ctypes wrapper binds
every C function at import), so `real_amdsmi()` imports it once with that library replaced by a
stand-in whose functions all raise: the Python layer (AmdSmiLibraryException, AmdSmiClkType,
amdsmi_wrapper.AMDSMI_STATUS_*) is then the real one. FakeAmdSmi answers the functions
telemetry.amd calls with the shapes amdsmi 7.0's wrapper returns (dicts, "N/A" for unsupported fields),
and raises the real AmdSmiLibraryException with the real status codes.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import io
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest

GIB = 1024**3
MI300X = "AMD Instinct MI300X"


class _AbsentFunction:
    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __call__(self, *args: object) -> int:
        raise OSError(f"{self.__name__}: tests have no libamd_smi.so")


class _AbsentLibrary:
    """Stands in for ctypes.CDLL("libamd_smi.so"): every symbol exists and raises when called."""

    def __getattr__(self, name: str) -> _AbsentFunction:
        if name.startswith("__"):
            raise AttributeError(name)
        function = _AbsentFunction(name)
        setattr(self, name, function)
        return function


_REAL: ModuleType | None = None


def real_amdsmi() -> ModuleType:
    """The installed amdsmi package (skips the test where it is not installed)."""
    global _REAL
    if _REAL is not None:
        return _REAL
    if importlib.util.find_spec("amdsmi") is None:
        pytest.skip("the amdsmi package is not installed (pip install -e '.[test-core]')")
    _forget_amdsmi()  # an earlier failed import may have left a half-built module
    real_cdll = ctypes.CDLL

    def cdll(name: Any, *args: Any, **kwargs: Any) -> Any:
        return _AbsentLibrary() if "amd_smi" in str(name) else real_cdll(name, *args, **kwargs)

    ctypes.CDLL = cdll  # type: ignore[misc,assignment]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            import amdsmi
    finally:
        ctypes.CDLL = real_cdll  # type: ignore[misc]
        # Out of sys.modules again: the app's own `import amdsmi` must keep failing as it does on a
        # machine without ROCm, whatever test ran first.
        _forget_amdsmi()
    _REAL = amdsmi
    return amdsmi


def _forget_amdsmi() -> None:
    for name in [m for m in sys.modules if m == "amdsmi" or m.startswith("amdsmi.")]:
        del sys.modules[name]


def status(name: str) -> int:
    """An AMD SMI status code by name: status("AMDSMI_STATUS_NOT_SUPPORTED")."""
    return int(getattr(real_amdsmi().amdsmi_wrapper, name))


@dataclass
class FakeAmdGpu:
    """What one AMD GPU reports; None marks a field the driver cannot give ("N/A" or unsupported)."""

    name: str = MI300X
    uuid: str = "e4ff74a1-0000-1000-80ae-ae89cfc0c4ee"
    bdf: str = "0000:0c:00.0"
    driver_version: str = "6.8.5"
    vram_total_bytes: int = 192 * GIB
    vram_used_bytes: int = 150 * GIB
    gfx_activity_pct: int | None = 93
    umc_activity_pct: int | None = 47
    current_socket_power_w: int | None = 702
    average_socket_power_w: int | None = None  # MI300 reports the current power, older boards the average
    power_cap_uw: int = 750_000_000
    gfx_clock_mhz: int = 2100
    mem_clock_mhz: int = 1300
    hotspot_c: int | None = 78
    edge_c: int | None = None  # MI300X has no edge sensor
    violations: dict[str, bool] | None = field(default_factory=dict)  # None: not supported
    processes: list[dict[str, Any]] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)  # function name -> AMDSMI_STATUS_* name


class FakeAmdSmi:
    """Stands in for the amdsmi module. `init_status` makes amdsmi_init fail with that status name."""

    def __init__(self, gpus: list[FakeAmdGpu] | None = None, *, init_status: str | None = None) -> None:
        self.real = real_amdsmi()
        self.gpus = gpus if gpus is not None else [FakeAmdGpu()]
        self.init_status = init_status
        self.init_count = 0
        self.shutdown_count = 0
        self._handles = [object() for _ in self.gpus]

    def __getattr__(self, name: str) -> Any:
        # Only the package's data is borrowed: enums, exceptions, status codes. A function not
        # defined here is absent, as in an older amdsmi.
        if name.startswith("AmdSmi") or name == "amdsmi_wrapper":
            return getattr(self.real, name)
        raise AttributeError(name)

    def _raise(self, status_name: str) -> None:
        raise self.real.AmdSmiLibraryException(status(status_name))

    def _gpu(self, function: str, handle: object) -> FakeAmdGpu:
        gpu = self.gpus[self._handles.index(handle)]
        if function in gpu.errors:
            self._raise(gpu.errors[function])
        return gpu

    @staticmethod
    def _na(value: Any) -> Any:
        return "N/A" if value is None else value

    # ---- lifecycle -------------------------------------------------------------------------------

    def amdsmi_init(self, flag: Any) -> None:
        assert flag == self.real.AmdSmiInitFlags.INIT_AMD_GPUS
        if self.init_status:
            self._raise(self.init_status)
        self.init_count += 1

    def amdsmi_shut_down(self) -> None:
        self.shutdown_count += 1

    def amdsmi_get_processor_handles(self) -> list[object]:
        return list(self._handles)

    # ---- identity --------------------------------------------------------------------------------

    def amdsmi_get_gpu_asic_info(self, handle: object) -> dict[str, Any]:
        gpu = self._gpu("amdsmi_get_gpu_asic_info", handle)
        return {
            "market_name": gpu.name,
            "vendor_id": "0x1002",
            "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
            "device_id": "0x74a1",
        }

    def amdsmi_get_gpu_board_info(self, handle: object) -> dict[str, Any]:
        self._gpu("amdsmi_get_gpu_board_info", handle)
        return {"product_name": "N/A"}

    def amdsmi_get_gpu_device_uuid(self, handle: object) -> str:
        return self._gpu("amdsmi_get_gpu_device_uuid", handle).uuid

    def amdsmi_get_gpu_device_bdf(self, handle: object) -> str:
        return self._gpu("amdsmi_get_gpu_device_bdf", handle).bdf

    def amdsmi_get_gpu_driver_info(self, handle: object) -> dict[str, str]:
        gpu = self._gpu("amdsmi_get_gpu_driver_info", handle)
        return {
            "driver_name": "amdgpu",
            "driver_version": gpu.driver_version,
            "driver_date": "2015/01/01 00:00",
        }

    # ---- readings --------------------------------------------------------------------------------

    def amdsmi_get_gpu_memory_total(self, handle: object, mem_type: Any) -> int:
        assert mem_type == self.real.AmdSmiMemoryType.VRAM
        return self._gpu("amdsmi_get_gpu_memory_total", handle).vram_total_bytes

    def amdsmi_get_gpu_memory_usage(self, handle: object, mem_type: Any) -> int:
        assert mem_type == self.real.AmdSmiMemoryType.VRAM
        return self._gpu("amdsmi_get_gpu_memory_usage", handle).vram_used_bytes

    def amdsmi_get_gpu_activity(self, handle: object) -> dict[str, Any]:
        gpu = self._gpu("amdsmi_get_gpu_activity", handle)
        return {
            "gfx_activity": self._na(gpu.gfx_activity_pct),
            "umc_activity": self._na(gpu.umc_activity_pct),
            "mm_activity": "N/A",
        }

    def amdsmi_get_power_info(self, handle: object) -> dict[str, Any]:
        gpu = self._gpu("amdsmi_get_power_info", handle)
        return {
            "socket_power": self._na(gpu.current_socket_power_w),
            "current_socket_power": self._na(gpu.current_socket_power_w),
            "average_socket_power": self._na(gpu.average_socket_power_w),
            "gfx_voltage": "N/A",
            "soc_voltage": "N/A",
            "mem_voltage": "N/A",
            "power_limit": gpu.power_cap_uw // 1_000_000,
        }

    def amdsmi_get_power_cap_info(self, handle: object) -> dict[str, int]:
        gpu = self._gpu("amdsmi_get_power_cap_info", handle)
        return {
            "power_cap": gpu.power_cap_uw,
            "default_power_cap": gpu.power_cap_uw,
            "dpm_cap": 2100,
            "min_power_cap": 0,
            "max_power_cap": gpu.power_cap_uw,
        }

    def amdsmi_get_clock_info(self, handle: object, clock_type: Any) -> dict[str, Any]:
        gpu = self._gpu("amdsmi_get_clock_info", handle)
        clk = gpu.gfx_clock_mhz if clock_type == self.real.AmdSmiClkType.GFX else gpu.mem_clock_mhz
        assert clock_type in (self.real.AmdSmiClkType.GFX, self.real.AmdSmiClkType.MEM)
        return {"clk": clk, "min_clk": 500, "max_clk": 2100, "clk_locked": False, "clk_deep_sleep": 0}

    def amdsmi_get_temp_metric(self, handle: object, sensor: Any, metric: Any) -> int:
        gpu = self._gpu("amdsmi_get_temp_metric", handle)
        assert metric == self.real.AmdSmiTemperatureMetric.CURRENT
        kinds = self.real.AmdSmiTemperatureType
        value = {kinds.HOTSPOT: gpu.hotspot_c, kinds.EDGE: gpu.edge_c}.get(sensor)
        if value is None:
            self._raise("AMDSMI_STATUS_NOT_SUPPORTED")
        return value

    def amdsmi_get_violation_status(self, handle: object) -> dict[str, Any]:
        gpu = self._gpu("amdsmi_get_violation_status", handle)
        if gpu.violations is None:
            self._raise("AMDSMI_STATUS_NOT_SUPPORTED")
        keys = (
            "active_prochot_thrm",
            "active_ppt_pwr",
            "active_socket_thrm",
            "active_vr_thrm",
            "active_hbm_thrm",
        )
        return {key: gpu.violations.get(key, False) for key in keys} | {"acc_counter": 12}

    def amdsmi_get_gpu_process_list(self, handle: object) -> list[dict[str, Any]]:
        return list(self._gpu("amdsmi_get_gpu_process_list", handle).processes)


def amd_process(pid: int, vram_bytes: int, name: str = "python3") -> dict[str, Any]:
    """One entry of amdsmi_get_gpu_process_list, as amdsmi 7.0 returns it."""
    return {
        "name": name,
        "pid": pid,
        "mem": vram_bytes + 64 * 1024**2,
        "engine_usage": {"gfx": 1_500_000_000, "enc": 0},
        "memory_usage": {"gtt_mem": 64 * 1024**2, "cpu_mem": 0, "vram_mem": vram_bytes},
        "cu_occupancy": 120,
    }
