"""AMD GPUs through AMD SMI (the `amdsmi` Python package over ROCm's libamd_smi.so).

The same interface as NvmlSource (telemetry.gpu_source.GpuSource), the same GpuInfo and GpuSample, so
the sampler, the Monitor, the diagnosis and the results files treat an MI300X as they treat an H100.
Every AMD SMI call goes through one guarded helper (:meth:`AmdSmiSource._call`): an unsupported metric
is None; nothing amdsmi raises leaves this class.

Units, from the AMD SMI reference (amdsmi.h, ROCm 6.1-7.1): activity in percent; VRAM through
amdsmi_get_gpu_memory_total/usage in bytes; socket power in W (amdsmi_power_info_t, Linux bare metal);
the power cap in microwatts (amdsmi_power_cap_info_t); clocks in MHz; temperatures in degrees Celsius.
Values a driver cannot give arrive as the string "N/A" or as an all-ones integer; both become None.

Throttling comes from amdsmi_get_violation_status (MI300 and newer): which limit holds the clocks
down now. Its causes are named here as AMD names them (samples.THERMAL_REASONS, POWER_REASONS).
"""

from __future__ import annotations

import contextlib
import functools
import io
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from gpu_advisor.telemetry.library_source import LibrarySource
from gpu_advisor.telemetry.nvml import GpuInfo
from gpu_advisor.telemetry.samples import GpuSample

_MICROWATTS_PER_WATT = 1e6
# The largest reading a driver can mean: AMD SMI marks unsupported fields with all-ones values of
# their width (0xFFFF for 16-bit fields, UINT32_MAX and UINT64_MAX for wider ones).
_UNSUPPORTED_FLOOR = 0xFFFF

# amdsmi_get_violation_status' "active_*" flags -> this package's clock-event reason names.
_VIOLATION_REASONS = (
    ("active_ppt_pwr", "ppt_power"),  # package power tracking: the board's power limit
    ("active_socket_thrm", "socket_thermal"),
    ("active_hbm_thrm", "hbm_thermal"),
    ("active_vr_thrm", "vr_thermal"),  # a voltage regulator too hot
    ("active_prochot_thrm", "prochot"),  # the hardware's processor-hot signal
)

# Status codes after which a device is treated as gone (asking again only burns time).
_FATAL_STATUS = ("AMDSMI_STATUS_AMDGPU_RESTART_ERR", "AMDSMI_STATUS_DRIVER_NOT_LOADED")

_INIT_FAILURE_REASONS = {
    "AMDSMI_STATUS_DRIVER_NOT_LOADED": "AMD SMI: the amdgpu driver is not loaded",
    "AMDSMI_STATUS_NO_PERM": "AMD SMI: no permission to read the GPUs (add the user to the render and video groups)",
    "AMDSMI_STATUS_INIT_ERROR": "AMD SMI: the library could not initialise",
}


AMDSMI_NOT_INSTALLED = "AMD SMI unavailable: the amdsmi package is not installed"


class _DeviceLost(Exception):
    """Internal: a fatal AMD SMI error on one device."""


@dataclass(slots=True)
class _Device:
    info: GpuInfo
    handle: Any
    lost: str | None = None


def _number(value: Any) -> float | None:
    """A reading as a float; None for "N/A", all-ones "unsupported" markers and non-numbers."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value >= _UNSUPPORTED_FLOOR and float(value).is_integer() and (int(value) + 1) & int(value) == 0:
        return None  # 0xFFFF, 0xFFFFFFFF, ...: "not supported"
    return float(value)


def _text(value: Any) -> str | None:
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    if not isinstance(value, str) or not value.strip() or value.strip() == "N/A":
        return None
    return value.strip()


def _describe(err: BaseException) -> str:
    """The short form of an amdsmi error ("AMDSMI_STATUS_NOT_SUPPORTED"); its str() spans lines."""
    info = getattr(err, "get_error_info", None)
    if callable(info):
        with contextlib.suppress(Exception):
            return str(info(False))
    return " ".join(str(err).split())


@functools.cache
def import_amdsmi() -> tuple[ModuleType | None, str | None]:
    """(the amdsmi module, None) or (None, why not), found once per process (ROCm does not appear
    mid-run). The package prints to stdout and raises KeyError when libamd_smi.so is missing; both
    are kept from the user."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            import amdsmi
    except ImportError:
        return None, AMDSMI_NOT_INSTALLED
    except Exception:  # its wrapper fails at import without ROCm's library (KeyError, OSError)
        return None, "AMD SMI unavailable: ROCm's libamd_smi.so was not found (install amd-smi-lib)"
    return amdsmi, None


class AmdSmiSource(LibrarySource):
    """Reads AMD GPUs through AMD SMI; degrades to "n/a" on any AMD SMI problem.

    ``amdsmi_module`` is the amdsmi module (imported lazily when None); tests pass a fake built from
    its real exception and enum types. Call :meth:`open` first. Methods are safe to call from several
    threads.
    """

    backend = "amdsmi"
    label = "AMD SMI"
    vendor = "AMD"

    def __init__(self, amdsmi_module: ModuleType | Any | None = None) -> None:
        super().__init__()
        self._amdsmi: Any = amdsmi_module
        self._devices: dict[int, _Device] = {}
        self._package_found = False

    # ---- lifecycle -------------------------------------------------------------------------------

    @property
    def installed(self) -> bool:
        """Whether the amdsmi package is installed (known after :meth:`open`): its absence is not
        worth a word on an NVIDIA or CPU machine; a package without ROCm's library is."""
        return self._amdsmi is not None or self._package_found

    def open(self) -> bool:
        """Initialise AMD SMI and list the AMD GPUs. Return whether it is available. Never raises."""
        with self._lock:
            if self._available:
                return True
            if self._amdsmi is None:
                module, reason = import_amdsmi()
                if module is None:
                    self._reason = reason
                    self._package_found = reason != AMDSMI_NOT_INSTALLED
                    return False
                self._amdsmi = module
            amdsmi = self._amdsmi
            try:
                amdsmi.amdsmi_init(amdsmi.AmdSmiInitFlags.INIT_AMD_GPUS)
            except amdsmi.AmdSmiException as err:
                self._reason = self._init_failure_reason(err)
                return False
            except Exception as err:  # a library that does not match the wrapper: unusable, not fatal
                self._reason = f"AMD SMI unavailable: {type(err).__name__}: {err}"
                return False
            self._available = True
            self._reason = None
            self._enumerate()
            return True

    def _shut_down(self) -> None:
        with contextlib.suppress(Exception):
            self._amdsmi.amdsmi_shut_down()

    # ---- public queries --------------------------------------------------------------------------

    def read(self, index: int) -> GpuSample:
        """Every metric of GPU ``index``; unsupported ones are None. Never raises."""
        with self._lock:
            device, unreadable = self._unreadable(index)
            if unreadable is not None:
                return unreadable
            if device.lost is None:
                try:
                    return self._read_device(device)
                except _DeviceLost as lost:
                    device.lost = str(lost)
            info = device.info
            return GpuSample(index=info.index, name=info.name, uuid=info.uuid, error=device.lost)

    def processes(self, index: int) -> list[tuple[int, int | None, float | None]]:
        """(pid, VRAM bytes, None) of each process on GPU ``index``: AMD SMI gives no per-process
        share of compute time that is a percentage (its gfx engine usage is cumulative nanoseconds)."""
        with self._lock:
            device = self._devices.get(index)
            if not self._available or device is None or device.lost is not None:
                return []
            try:
                listed = self._call("amdsmi_get_gpu_process_list", device.handle) or []
            except _DeviceLost:
                return []
            rows: list[tuple[int, int | None, float | None]] = []
            for item in listed:
                # ROCm 6.0 listed process handles to ask amdsmi_get_gpu_process_info about; later, dicts.
                info = (
                    item
                    if isinstance(item, dict)
                    else self._safe("amdsmi_get_gpu_process_info", device.handle, item)
                )
                if not isinstance(info, dict) or not isinstance(info.get("pid"), int):
                    continue
                usage = info.get("memory_usage")
                vram = _number(usage.get("vram_mem")) if isinstance(usage, dict) else None
                memory = vram if vram is not None else _number(info.get("mem"))
                rows.append((int(info["pid"]), None if memory is None else int(memory), None))
            return rows

    # ---- the guarded helper ----------------------------------------------------------------------

    def _status(self, name: str) -> int | None:
        wrapper = getattr(self._amdsmi, "amdsmi_wrapper", None)
        value = getattr(wrapper, name, None)
        return value if isinstance(value, int) else None

    def _call(self, name: str, *args: Any) -> Any:
        """Call amdsmi.`name`; None if this version lacks it or the device refuses. Raises _DeviceLost."""
        amdsmi = self._amdsmi
        function = None if name in self._missing_functions else getattr(amdsmi, name, None)
        if function is None:
            self._missing_functions.add(name)
            return None
        try:
            return function(*args)
        except amdsmi.AmdSmiLibraryException as err:
            code = err.get_error_code() if hasattr(err, "get_error_code") else getattr(err, "err_code", None)
            if code is not None and code in {self._status(s) for s in _FATAL_STATUS}:
                raise _DeviceLost(f"GPU lost: AMD SMI: {_describe(err)}") from err
            if code == self._status("AMDSMI_STATUS_NOT_YET_IMPLEMENTED"):
                self._missing_functions.add(name)
            return None
        except amdsmi.AmdSmiException:
            return None  # a parameter or key error inside the wrapper: this metric is n/a
        except (OSError, AttributeError, TypeError, ValueError):
            return None  # a wrapper built for another library version

    def _safe(self, name: str, *args: Any) -> Any:
        try:
            return self._call(name, *args)
        except _DeviceLost:
            return None

    def _init_failure_reason(self, err: BaseException) -> str:
        code = getattr(err, "err_code", None)
        for constant, reason in _INIT_FAILURE_REASONS.items():
            if code is not None and code == self._status(constant):
                return reason
        return f"AMD SMI unavailable: {_describe(err)}"

    # ---- enumeration -----------------------------------------------------------------------------

    def _enumerate(self) -> None:
        handles = self._safe("amdsmi_get_processor_handles") or []
        for index, handle in enumerate(handles):
            self._devices[index] = self._open_device(index, handle)
        self._infos = tuple(device.info for _, device in sorted(self._devices.items()))

    def _open_device(self, index: int, handle: Any) -> _Device:
        amdsmi = self._amdsmi
        asic = self._safe("amdsmi_get_gpu_asic_info", handle) or {}
        board = self._safe("amdsmi_get_gpu_board_info", handle) or {}
        name = _text(asic.get("market_name")) or _text(board.get("product_name")) or f"AMD GPU {index}"
        driver = self._safe("amdsmi_get_gpu_driver_info", handle) or {}
        cap = self._safe("amdsmi_get_power_cap_info", handle) or {}
        cap_uw = _number(cap.get("power_cap"))
        total = _number(self._safe("amdsmi_get_gpu_memory_total", handle, amdsmi.AmdSmiMemoryType.VRAM))
        info = GpuInfo(
            index=index,
            name=name,
            uuid=_text(self._safe("amdsmi_get_gpu_device_uuid", handle)),
            memory_total_bytes=None if total is None else int(total),
            power_limit_w=None if cap_uw is None else cap_uw / _MICROWATTS_PER_WATT,
            driver_version=_text(driver.get("driver_version")),
            nvml_version=None,
            cuda_driver_version=None,
            mig_mode=None,  # AMD partitions GPUs differently (compute and memory partition modes)
            pci_bus_id=_text(self._safe("amdsmi_get_gpu_device_bdf", handle)),
            backend=self.backend,
        )
        return _Device(info=info, handle=handle)

    # ---- one reading -----------------------------------------------------------------------------

    def _read_device(self, device: _Device) -> GpuSample:
        amdsmi, handle, info = self._amdsmi, device.handle, device.info
        activity = self._call("amdsmi_get_gpu_activity", handle) or {}
        used = _number(self._call("amdsmi_get_gpu_memory_usage", handle, amdsmi.AmdSmiMemoryType.VRAM))
        total = _number(self._call("amdsmi_get_gpu_memory_total", handle, amdsmi.AmdSmiMemoryType.VRAM))
        power = self._call("amdsmi_get_power_info", handle) or {}
        # MI300 and newer report the instantaneous socket power, older boards a 1 s average.
        power_w = _number(power.get("current_socket_power"))
        if power_w is None:
            power_w = _number(power.get("average_socket_power"))
        cap = self._call("amdsmi_get_power_cap_info", handle) or {}
        cap_uw = _number(cap.get("power_cap"))
        gfx = self._call("amdsmi_get_clock_info", handle, amdsmi.AmdSmiClkType.GFX) or {}
        mem = self._call("amdsmi_get_clock_info", handle, amdsmi.AmdSmiClkType.MEM) or {}
        sm_clock, mem_clock = _number(gfx.get("clk")), _number(mem.get("clk"))
        return GpuSample(
            index=info.index,
            name=info.name,
            uuid=info.uuid,
            gpu_util_pct=_number(activity.get("gfx_activity")),
            mem_util_pct=_number(activity.get("umc_activity")),  # the memory controllers' busy share
            memory_used_bytes=None if used is None else int(used),
            memory_total_bytes=None if total is None else int(total),
            power_w=power_w,
            power_limit_w=None if cap_uw is None else cap_uw / _MICROWATTS_PER_WATT,
            temperature_c=self._temperature_c(handle),
            sm_clock_mhz=None if sm_clock is None else int(sm_clock),
            mem_clock_mhz=None if mem_clock is None else int(mem_clock),
            clock_event_reasons=self._throttle_reasons(handle),
        )

    def _temperature_c(self, handle: Any) -> float | None:
        """The hotspot (junction) sensor, the one AMD's own tools lead with; the edge sensor where the
        GPU has no hotspot reading (MI300X has no edge sensor)."""
        amdsmi = self._amdsmi
        for sensor in ("HOTSPOT", "EDGE"):
            kind = getattr(amdsmi.AmdSmiTemperatureType, sensor, None)
            if kind is None:
                continue
            value = _number(
                self._call("amdsmi_get_temp_metric", handle, kind, amdsmi.AmdSmiTemperatureMetric.CURRENT)
            )
            if value is not None:
                return value
        return None

    def _throttle_reasons(self, handle: Any) -> tuple[str, ...] | None:
        status = self._call("amdsmi_get_violation_status", handle)
        if not isinstance(status, dict):
            return None
        flags = [(reason, status.get(key)) for key, reason in _VIOLATION_REASONS]
        if all(not isinstance(value, bool | int) for _, value in flags):
            return None  # every flag "N/A": this GPU does not report violations
        return tuple(reason for reason, value in flags if value is True or value == 1)
