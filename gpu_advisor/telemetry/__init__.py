"""Telemetry: NVIDIA GPUs through NVML, AMD GPUs through AMD SMI, the host through psutil, a background
sampler, summaries and diagnosis rules. No Qt, no torch: the GUI polls the sampler from its own timer.
"""

from gpu_advisor.telemetry.amd import AmdSmiSource
from gpu_advisor.telemetry.clock_reasons import decode_clock_event_reasons
from gpu_advisor.telemetry.diagnosis import (
    COMPUTE_BOUND,
    GPU_LOST,
    HOST_CPU_SATURATED,
    IDLE_GPU,
    INPUT_BOUND,
    INSUFFICIENT_EVIDENCE,
    LATENCY_BOUND,
    MEMORY_BOUND,
    MEMORY_NEARLY_FULL,
    NO_CLEAR_BOTTLENECK,
    THROTTLED,
    RunEvidence,
    Verdict,
    diagnose,
    primary,
)
from gpu_advisor.telemetry.gpu_source import AutoGpuSource, GpuSource
from gpu_advisor.telemetry.host import HostSource
from gpu_advisor.telemetry.machine import describe_machine, hardware_summary
from gpu_advisor.telemetry.nvml import GpuInfo, NvmlSource
from gpu_advisor.telemetry.sampler import (
    DEFAULT_INTERVAL_S,
    MAX_INTERVAL_S,
    MIN_INTERVAL_S,
    Sampler,
)
from gpu_advisor.telemetry.samples import POWER_REASONS, THERMAL_REASONS, GpuSample, HostSample, Sample
from gpu_advisor.telemetry.stats import (
    GpuSummary,
    MetricStats,
    TelemetrySummary,
    summarize,
    throttle_fraction,
)

__all__ = [
    "COMPUTE_BOUND",
    "DEFAULT_INTERVAL_S",
    "GPU_LOST",
    "HOST_CPU_SATURATED",
    "IDLE_GPU",
    "INPUT_BOUND",
    "INSUFFICIENT_EVIDENCE",
    "LATENCY_BOUND",
    "MAX_INTERVAL_S",
    "MEMORY_BOUND",
    "MEMORY_NEARLY_FULL",
    "MIN_INTERVAL_S",
    "NO_CLEAR_BOTTLENECK",
    "POWER_REASONS",
    "THERMAL_REASONS",
    "THROTTLED",
    "AmdSmiSource",
    "AutoGpuSource",
    "GpuInfo",
    "GpuSample",
    "GpuSource",
    "GpuSummary",
    "HostSample",
    "HostSource",
    "MetricStats",
    "NvmlSource",
    "RunEvidence",
    "Sample",
    "Sampler",
    "TelemetrySummary",
    "Verdict",
    "decode_clock_event_reasons",
    "describe_machine",
    "diagnose",
    "hardware_summary",
    "primary",
    "summarize",
    "throttle_fraction",
]
