"""The telemetry channels, declared once: what each plotted quantity is called, its unit, which
sample field it comes from on a GPU and on the host, the scale from that field to the unit, and on
which kinds of device it is measured. The Monitor's live plots and cards and the report's charts
read this table; a new channel is one row here.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.core.units import GIB
from gpu_advisor.telemetry.samples import GpuSample, HostSample

GPU_KINDS = frozenset({"cuda"})
ALL_KINDS = frozenset({"cuda", "cpu"})


@dataclass(frozen=True, slots=True)
class Channel:
    key: str  # "memory_gib": the name with its unit
    unit: str  # the unit plotted: "GiB"
    gpu_field: str | None  # GpuSample field, None where a GPU has no such reading
    host_field: str | None  # HostSample field, None where the host has none (power: psutil has none)
    scale: float  # field units per plotted unit (bytes per GiB); 1 when the field is in the unit
    gpu_label: str  # "GPU memory used"
    cpu_label: str  # "Process memory (RSS)": what the host field is, never another quantity
    title: str  # the report's panel: "Memory used"
    axis_label: str  # the report's y axis: "GiB"
    device_kinds: frozenset[str]  # the DeviceInfo.kind values where it is measured
    tooltip: str = ""

    def label(self, device_kind: str) -> str:
        return self.gpu_label if device_kind == "cuda" else self.cpu_label

    def gpu_value(self, gpu: GpuSample) -> float | None:
        """This channel's reading of one GPU, in `unit` (None: not read)."""
        raw = None if self.gpu_field is None else getattr(gpu, self.gpu_field)
        return None if raw is None else raw / self.scale

    def host_value(self, host: HostSample) -> float | None:
        """This channel's reading of the host, in `unit` (None: not read)."""
        raw = None if self.host_field is None else getattr(host, self.host_field)
        return None if raw is None else raw / self.scale


CHANNELS: tuple[Channel, ...] = (
    Channel(
        "utilisation_pct",
        "%",
        "gpu_util_pct",
        "cpu_pct",
        1.0,
        "GPU utilisation",
        "CPU utilisation",
        "Utilisation",
        "busy (%)",
        ALL_KINDS,
        "Share of time busy (NVML / psutil)",
    ),
    Channel(
        "memory_gib",
        "GiB",
        "memory_used_bytes",
        "process_rss_bytes",
        GIB,
        "GPU memory used",
        "Process RSS",
        "Memory used",
        "GiB",
        ALL_KINDS,
        "GiB = 2^30 bytes",
    ),
    Channel(
        "power_w",
        "W",
        "power_w",
        None,
        1.0,
        "Power draw",
        "Power draw",
        "Power",
        "W",
        GPU_KINDS,
        "Board power from NVML; not measured on CPU",
    ),
    Channel(
        "temperature_c",
        "°C",
        "temperature_c",
        "cpu_temp_c",
        1.0,
        "GPU temperature",
        "CPU temperature",
        "Temperature",
        "°C",
        ALL_KINDS,
    ),
    Channel(
        "clock_mhz",
        "MHz",
        "sm_clock_mhz",
        "cpu_freq_mhz",
        1.0,
        "SM clock",
        "CPU clock",
        "Clocks",
        "MHz",
        ALL_KINDS,
        "Clocks drop when the GPU throttles for heat or power",
    ),
)
CHANNEL_KEYS = tuple(c.key for c in CHANNELS)
BY_KEY = {c.key: c for c in CHANNELS}


def unmeasured_on(device_kind: str) -> set[str]:
    """The channels a device of this kind never has a reading for (power on a CPU)."""
    return {c.key for c in CHANNELS if device_kind not in c.device_kinds}
