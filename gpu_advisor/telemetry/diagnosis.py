"""Why is this run as fast as it is? Pure rules over measured numbers; no I/O, no torch.

:func:`diagnose` turns a :class:`RunEvidence` into :class:`Verdict` objects, each naming the numbers
it used (``evidence``, with a readable ``summary``) and what to do about it (``fix``).
:func:`primary` picks the one to show first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar

from gpu_advisor.core.units import format_bytes_of, format_celsius, format_duration, format_pct, format_si
from gpu_advisor.telemetry.stats import GpuSummary, MetricStats, TelemetrySummary

Severity = Literal["ok", "info", "warning", "critical"]
SEVERITY_RANK: dict[str, int] = {"ok": 0, "info": 1, "warning": 2, "critical": 3}

INPUT_BOUND = "input_bound"
THROTTLED = "throttled"
HOST_CPU_SATURATED = "host_cpu_saturated"
MEMORY_BOUND = "memory_bound"
COMPUTE_BOUND = "compute_bound"
LATENCY_BOUND = "latency_bound"
NO_CLEAR_BOTTLENECK = "no_clear_bottleneck"
INSUFFICIENT_EVIDENCE = "insufficient_evidence"
GPU_LOST = "gpu_lost"
MEMORY_NEARLY_FULL = "memory_nearly_full"
IDLE_GPU = "idle_gpu"
# Findings about one device beside the run's bottleneck: they never stand in for it.
_SIDE_FINDINGS = frozenset({THROTTLED, HOST_CPU_SATURATED, GPU_LOST, MEMORY_NEARLY_FULL, IDLE_GPU})

# Among verdicts of equal severity, the one listed first is the more useful thing to fix first:
# a starved or throttled GPU makes every other number misleading.
_RELEVANCE_ORDER = (
    GPU_LOST,
    INPUT_BOUND,
    THROTTLED,
    MEMORY_NEARLY_FULL,
    HOST_CPU_SATURATED,
    MEMORY_BOUND,
    LATENCY_BOUND,
    COMPUTE_BOUND,
    IDLE_GPU,
    NO_CLEAR_BOTTLENECK,
    INSUFFICIENT_EVIDENCE,
)

# A tenth of every step spent waiting for the next batch is worth fixing: the usual fixes
# (workers, pinned memory, prefetch) are cheap and give that time straight back.
INPUT_WAIT_WARNING_FRACTION = 0.10
# From a fifth on, a faster accelerator would barely help: the data pipeline sets the pace.
INPUT_WAIT_CRITICAL_FRACTION = 0.20
# Well-tuned large-model training reaches roughly 40-60 % of peak FLOP/s (PaLM reports 46 % MFU):
# at half of peak the arithmetic units are the limit.
COMPUTE_BOUND_FLOPS_FRACTION = 0.50
# Streaming copies reach about 80-90 % of datasheet bandwidth; 60 % sustained means DRAM is busy
# enough to be the limit ...
MEMORY_BOUND_BANDWIDTH_FRACTION = 0.60
# ... provided arithmetic is under a third of peak (otherwise both are loaded and it is compute).
MEMORY_BOUND_MAX_FLOPS_FRACTION = 0.30
# NVML utilisation is the share of time any kernel ran. Above 90 % the GPU never waits for the host.
GPU_BUSY_UTIL_PCT = 90.0
# Below half the time busy, the GPU mostly waits: launches, syncs, tiny kernels.
GPU_LOW_UTIL_PCT = 50.0
# Arithmetic under a third of peak with no memory or input explanation: work too small per launch.
LOW_FLOPS_FRACTION = 0.30
# Clock-event reasons in a tenth of the samples cost measurable speed (clocks drop 10-30 % while
# a reason is active), and are more than the odd transient spike.
THROTTLE_SAMPLE_FRACTION = 0.10
# A host CPU busy 90 % of the time on average leaves no headroom for the data loader and launches.
HOST_CPU_SATURATED_PCT = 90.0

# A GPU that never reached 5 % utilisation ran no sustained kernels: an idle data-centre GPU reads 0 %,
# one that drives a desktop a few percent (compositing), any training or inference loop far more.
IDLE_GPU_MAX_UTIL_PCT = 5.0
# Memory at 95 % of the device leaves a few GiB on an 80 GB card: less than one more activation or
# KV-cache block of a large model, and the caching allocator's free blocks are fragmented besides
# (PyTorch "CUDA semantics: memory management").
MEMORY_NEARLY_FULL_FRACTION = 0.95

# Tolerance for fractions computed from decimal inputs (0.1 / 1.0 must count as 10 %).
_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class RunEvidence:
    """Numbers measured in one run. Unknown values are None.

    ``step_time_s`` is the wall time of a typical step *including* the wait for its input;
    ``input_wait_s`` is the part of it spent waiting for the next batch. Give both as means over the
    same steps (the training benchmark does) so that their ratio is the run's input-wait fraction;
    medians of the two can disagree widely.
    """

    step_time_s: float | None = None
    input_wait_s: float | None = None
    achieved_flops_per_s: float | None = None
    peak_flops_per_s: float | None = None  # catalogue or measured
    achieved_bytes_per_s: float | None = None
    peak_bytes_per_s: float | None = None
    device_kind: str = "cuda"  # "cuda" or "cpu"
    telemetry: TelemetrySummary | None = None
    host_cpu_count: int | None = None  # logical CPUs


@dataclass(frozen=True, slots=True)
class Verdict:
    """One finding. ``evidence`` holds the numbers used and a readable ``summary``."""

    kind: str
    severity: Severity
    title: str
    evidence: dict[str, float | str] = field(default_factory=dict, hash=False)
    fix: str = ""

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-friendly dict."""
        return {
            "kind": self.kind,
            "severity": self.severity,
            "title": self.title,
            "evidence": dict(self.evidence),
            "fix": self.fix,
        }


def _fraction(achieved: float | None, peak: float | None) -> float | None:
    if achieved is None or peak is None or peak <= 0:
        return None
    return achieved / peak


def _is_idle(gpu: GpuSummary) -> bool:
    return gpu.gpu_util_pct is not None and gpu.gpu_util_pct.max + _EPS < IDLE_GPU_MAX_UTIL_PCT


def _working_gpus(telemetry: TelemetrySummary) -> tuple[GpuSummary, ...]:
    """The GPUs that did the work: an idle neighbour must not make the busy ones look idle."""
    working = tuple(g for g in telemetry.gpus if not _is_idle(g))
    return working or telemetry.gpus


def _mean_of_means(series: Iterable[MetricStats | None]) -> float | None:
    """The mean of the GPUs' mean readings, skipping a GPU without the reading."""
    means = [s.mean for s in series if s is not None]
    return sum(means) / len(means) if means else None


def _mean_gpu_util_pct(telemetry: TelemetrySummary | None) -> float | None:
    if telemetry is None:
        return None
    return _mean_of_means(g.gpu_util_pct for g in _working_gpus(telemetry))


def _mean_host_cpu_pct(telemetry: TelemetrySummary | None) -> float | None:
    if telemetry is None or telemetry.host_cpu_pct is None:
        return None
    return telemetry.host_cpu_pct.mean


def _mean_gpm_dram_pct(telemetry: TelemetrySummary | None) -> float | None:
    if telemetry is None:
        return None
    return _mean_of_means(g.gpm_dram_activity_pct for g in telemetry.gpus)


def _gpus(e: RunEvidence) -> tuple[GpuSummary, ...]:
    return e.telemetry.gpus if e.telemetry else ()


def _gpu_label(gpu: GpuSummary) -> str:
    """How a finding names one GPU: its NVML index and its name."""
    return f"GPU {gpu.index} ({gpu.name})"


def _gpu_verdict(
    gpu: GpuSummary, *, kind: str, severity: Severity, title: str, evidence: dict[str, float | str], fix: str
) -> Verdict:
    """A finding about one GPU: its evidence starts with the GPU's NVML index."""
    return Verdict(
        kind=kind,
        severity=severity,
        title=title,
        evidence={"nvml_index": float(gpu.index), **evidence},
        fix=fix,
    )


def _arithmetic(flops_fraction: float) -> str:
    return f"arithmetic at {format_pct(flops_fraction)} of peak FLOP/s"


def _gpu_busy(util_pct: float) -> str:
    return f"GPU busy {format_pct(util_pct / 100)}"


def _gpu_busy_only(util_pct: float) -> str:
    return f"GPU busy only {format_pct(util_pct / 100)} of the time"


def _cpu_busy(cpu_pct: float) -> str:
    return f"CPU busy {format_pct(cpu_pct / 100)} of the time"


def _input_wait(input_fraction: float) -> str:
    return f"input wait {format_pct(input_fraction)} of step time"


def _measured(*measurements: tuple[str, float | None, Callable[[float], str]]) -> dict[str, float | str]:
    """Evidence from the measurements that exist (key, value, how to say it), and a summary naming each."""
    known = [(key, value, say) for key, value, say in measurements if value is not None]
    evidence: dict[str, float | str] = {key: value for key, value, _ in known}
    evidence["summary"] = ", ".join(say(value) for _, value, say in known)
    return evidence


# ---- rules ---------------------------------------------------------------------------------------


def _input_bound(e: RunEvidence) -> Verdict | None:
    if e.step_time_s is None or e.input_wait_s is None or e.step_time_s <= 0:
        return None
    fraction = e.input_wait_s / e.step_time_s
    if fraction + _EPS < INPUT_WAIT_WARNING_FRACTION:
        return None
    severity: Severity = "critical" if fraction + _EPS >= INPUT_WAIT_CRITICAL_FRACTION else "warning"
    cpus = f" (this machine has {e.host_cpu_count} logical CPUs)" if e.host_cpu_count else ""
    return Verdict(
        kind=INPUT_BOUND,
        severity=severity,
        title="Input-bound: the data pipeline starves the device",
        evidence={
            "input_wait_s": e.input_wait_s,
            "step_time_s": e.step_time_s,
            "input_wait_fraction": fraction,
            "summary": (
                f"input wait {format_pct(fraction)} of step time ({format_duration(e.input_wait_s)} of {format_duration(e.step_time_s)})"
            ),
        },
        fix=(
            f"Feed batches faster: raise DataLoader num_workers{cpus}, set pin_memory=True and "
            "persistent_workers=True, raise prefetch_factor, and make preprocessing cheaper "
            "(decode and resize once offline, or augment on the GPU)."
        ),
    )


def _throttled(e: RunEvidence, gpu: GpuSummary) -> Verdict | None:
    thermal, power = gpu.thermal_throttle_fraction, gpu.power_throttle_fraction
    label = _gpu_label(gpu)
    if thermal is not None and thermal + _EPS >= THROTTLE_SAMPLE_FRACTION:
        evidence: dict[str, float | str] = {"thermal_fraction": thermal}
        summary = f"thermal slowdown active in {format_pct(thermal)} of samples on {label}"
        if gpu.temperature_c is not None:
            evidence["temperature_max_c"] = gpu.temperature_c.max
            summary += f", peak {format_celsius(gpu.temperature_c.max)}"
        evidence["summary"] = summary
        return _gpu_verdict(
            gpu,
            kind=THROTTLED,
            severity="warning",
            title=f"Thermally throttled: {label} slows down because it is too hot",
            evidence=evidence,
            fix=(
                "Improve cooling: clear airflow and dust, raise the fan curve, lower the room "
                "temperature or space the cards apart; confirm with `nvidia-smi -q -d PERFORMANCE`."
            ),
        )
    elif power is not None and power + _EPS >= THROTTLE_SAMPLE_FRACTION:
        # Holding clocks at the power limit is by design under sustained full load: information,
        # not a fault, but it explains a gap to the datasheet's boost-clock figures.
        return _gpu_verdict(
            gpu,
            kind=THROTTLED,
            severity="info",
            title=f"Power-limited: {label} holds its clocks down to stay under its power limit",
            evidence={
                "power_fraction": power,
                "summary": f"power cap active in {format_pct(power)} of samples on {label}",
            },
            fix=(
                "Expected under sustained full load. If the board and power supply allow, raise the "
                "limit (`nvidia-smi -pl`); otherwise plan with these clocks, not the boost clock."
            ),
        )
    return None


def _gpu_lost(e: RunEvidence, gpu: GpuSummary) -> Verdict | None:
    if gpu.error_count == 0:
        return None
    label = _gpu_label(gpu)
    readings = e.telemetry.sample_count if e.telemetry else 0
    return _gpu_verdict(
        gpu,
        kind=GPU_LOST,
        severity="critical",
        title=f"{label} stopped answering during the run: its later figures are missing",
        evidence={
            "failed_readings": float(gpu.error_count),
            "summary": f"{gpu.error_count} of {readings} readings failed on {label}: "
            f"{gpu.error or 'no reason given'}",
        },
        fix=(
            "Check the device with `nvidia-smi` (or `amd-smi`) and the kernel log (`dmesg`; NVIDIA's "
            "Xid 79 means the GPU fell off the bus): it needs a reset or a reboot. Repeated losses "
            "point at power delivery, cooling or the slot."
        ),
    )


def _memory_nearly_full(e: RunEvidence, gpu: GpuSummary) -> Verdict | None:
    total, used = gpu.memory_total_bytes, gpu.memory_used_bytes
    if not total or used is None or used.max < MEMORY_NEARLY_FULL_FRACTION * total:
        return None
    label = _gpu_label(gpu)
    fraction = used.max / total
    return _gpu_verdict(
        gpu,
        kind=MEMORY_NEARLY_FULL,
        severity="warning",
        title=f"Memory nearly full: {label} has almost no room left",
        evidence={
            "memory_used_max_bytes": float(used.max),
            "memory_total_bytes": float(total),
            "summary": f"peak {format_bytes_of(used.max, total)} ({format_pct(fraction)}) on {label}",
        },
        fix=(
            "A larger batch, a longer sequence or a memory spike will not fit: lower the batch and "
            "accumulate gradients, turn on activation checkpointing, or shard the model across more "
            "GPUs; plan with this peak, not the average."
        ),
    )


def _idle_gpus(e: RunEvidence) -> list[Verdict]:
    gpus = _gpus(e)
    working = [g for g in gpus if not _is_idle(g)]
    if len(gpus) < 2 or not working:
        return []
    busy = ", ".join(f"GPU {g.index}" for g in working)
    verdicts = []
    for gpu in gpus:
        if not _is_idle(gpu):
            continue
        label = _gpu_label(gpu)
        assert gpu.gpu_util_pct is not None  # _is_idle needs a reading
        verdicts.append(
            _gpu_verdict(
                gpu,
                kind=IDLE_GPU,
                severity="info",
                title=f"{label} stayed idle while {busy} worked",
                evidence={
                    "gpu_util_max_pct": gpu.gpu_util_pct.max,
                    "summary": f"{label} never above {format_pct(gpu.gpu_util_pct.max / 100)} busy",
                },
                fix=(
                    "If the job was meant to use this GPU, start one process per GPU (torchrun "
                    "--nproc_per_node) and check CUDA_VISIBLE_DEVICES; if not, it is spare: the job needs "
                    "fewer GPUs than this machine has."
                ),
            )
        )
    return verdicts


def _host_cpu_saturated(e: RunEvidence) -> Verdict | None:
    # On a CPU run the workload is meant to fill the CPU; only a GPU run suffers from a busy host.
    if e.device_kind != "cuda" or e.telemetry is None or e.telemetry.host_cpu_pct is None:
        return None
    mean = e.telemetry.host_cpu_pct.mean
    if mean + _EPS < HOST_CPU_SATURATED_PCT:
        return None
    cpus = f" across {e.host_cpu_count} logical CPUs" if e.host_cpu_count else ""
    return Verdict(
        kind=HOST_CPU_SATURATED,
        severity="warning",
        title="Host CPU saturated: the CPU cannot keep the GPU fed",
        evidence={
            "host_cpu_mean_pct": mean,
            "summary": f"host CPU busy {format_pct(mean / 100)} on average{cpus}",
        },
        fix=(
            "Free the CPU: stop competing processes, move preprocessing to the GPU or offline, "
            "and budget more CPU cores per GPU when buying."
        ),
    )


def _memory_bound(e: RunEvidence, flops_fraction: float | None) -> Verdict | None:
    if flops_fraction is not None and flops_fraction + _EPS >= MEMORY_BOUND_MAX_FLOPS_FRACTION:
        return None
    bandwidth_fraction = _fraction(e.achieved_bytes_per_s, e.peak_bytes_per_s)
    evidence: dict[str, float | str]
    if bandwidth_fraction is not None:
        if bandwidth_fraction + _EPS < MEMORY_BOUND_BANDWIDTH_FRACTION:
            return None
        assert e.achieved_bytes_per_s is not None and e.peak_bytes_per_s is not None
        summary = (
            f"memory bandwidth {format_pct(bandwidth_fraction)} of peak "
            f"({format_si(e.achieved_bytes_per_s, 'B/s')} of {format_si(e.peak_bytes_per_s, 'B/s')})"
        )
        evidence = {"bandwidth_fraction": bandwidth_fraction}
    else:
        dram_pct = _mean_gpm_dram_pct(e.telemetry)
        if dram_pct is None or dram_pct + _EPS < MEMORY_BOUND_BANDWIDTH_FRACTION * 100:
            return None
        summary = f"DRAM bandwidth {format_pct(dram_pct / 100)} busy on average (GPM counters)"
        evidence = {"gpm_dram_activity_pct": dram_pct}
    if flops_fraction is not None:
        evidence["flops_fraction"] = flops_fraction
        summary += f" while {_arithmetic(flops_fraction)}"
    evidence["summary"] = summary
    return Verdict(
        kind=MEMORY_BOUND,
        severity="info",
        title="Memory-bound: moving data, not arithmetic, sets the pace",
        evidence=evidence,
        fix=(
            "Do more arithmetic per byte: a larger batch, fused kernels (torch.compile, fused optimizers, "
            "FlashAttention), lower precision (bf16/fp16, fp8 where supported); a GPU with more memory "
            "bandwidth helps more than one with more FLOP/s."
        ),
    )


def _compute_bound(e: RunEvidence, flops_fraction: float | None, memory_bound: bool) -> Verdict | None:
    util_pct = _mean_gpu_util_pct(e.telemetry)
    if flops_fraction is not None and flops_fraction + _EPS >= COMPUTE_BOUND_FLOPS_FRACTION:
        assert e.achieved_flops_per_s is not None and e.peak_flops_per_s is not None
        summary = (
            f"arithmetic at {format_pct(flops_fraction)} of peak "
            f"({format_si(e.achieved_flops_per_s, 'FLOP/s')} of {format_si(e.peak_flops_per_s, 'FLOP/s')})"
        )
        evidence: dict[str, float | str] = {"flops_fraction": flops_fraction, "summary": summary}
        title = "Compute-bound: the arithmetic units are the limit"
    elif not memory_bound and util_pct is not None and util_pct + _EPS >= GPU_BUSY_UTIL_PCT:
        summary = f"{_gpu_busy(util_pct)} of the time"
        if flops_fraction is not None:
            summary += f", {_arithmetic(flops_fraction)}"
        evidence = {"gpu_util_mean_pct": util_pct, "summary": summary}
        if flops_fraction is not None:
            evidence["flops_fraction"] = flops_fraction
        title = "Compute-bound: the GPU is busy all the time"
    else:
        return None
    return Verdict(
        kind=COMPUTE_BOUND,
        severity="ok",
        title=title,
        evidence=evidence,
        fix=(
            "The device is used well. To go faster: lower precision (bf16, fp8 where supported), "
            "more or faster GPUs."
        ),
    )


def _latency_bound(e: RunEvidence, flops_fraction: float | None) -> Verdict | None:
    util_pct = _mean_gpu_util_pct(e.telemetry)
    low_util = util_pct is not None and util_pct < GPU_LOW_UTIL_PCT
    low_flops = flops_fraction is not None and flops_fraction < LOW_FLOPS_FRACTION
    if not (low_util or low_flops):
        return None
    # On a CPU run the CPU plot is what the user sees beside this verdict: say how busy it was, so
    # that "far below peak" is not read as "idle".
    host_cpu_pct = _mean_host_cpu_pct(e.telemetry) if e.device_kind == "cpu" else None
    cpu_busy = host_cpu_pct is not None and host_cpu_pct + _EPS >= HOST_CPU_SATURATED_PCT
    evidence = _measured(
        ("gpu_util_mean_pct", util_pct, _gpu_busy_only if low_util else _gpu_busy),
        ("host_cpu_mean_pct", host_cpu_pct, _cpu_busy),
        ("flops_fraction", flops_fraction, _arithmetic),
    )
    device = "GPU" if e.device_kind == "cuda" else "CPU"
    if e.device_kind == "cuda":
        fix = (
            "Give the device more work per launch: a larger batch, fewer and bigger kernels (torch.compile, "
            "CUDA graphs), and no host synchronisation inside the step (.item(), .cpu(), printing tensors)."
        )
    elif cpu_busy:
        # Every core busy at a fraction of the matmul peak: the time goes to element-wise,
        # normalisation, softmax and copy operations, which move memory rather than multiply, and
        # to per-operator dispatch; more threads cannot help.
        fix = (
            "Usual for a small model on a CPU: most of each step goes to element-wise, normalisation and "
            "copy operations rather than matrix multiplies. A larger batch or longer sequences raise the "
            "matrix-multiply share; torch.compile fuses the small operations."
        )
    else:
        fix = (
            "Give each step more work (a larger batch) and check the thread count "
            "(torch.get_num_threads() should match the physical cores)."
        )
    if low_util:
        title = f"Low utilisation: each step is too small or too chatty to keep the {device} busy"
    elif cpu_busy:
        title = (
            "CPU fully busy, but its arithmetic runs far below peak: small operations take most of each step"
        )
    else:
        # Busy but slow is not "low utilisation": a device can run its arithmetic far below its
        # matmul peak (small operations, dispatch overhead); say which it is.
        title = f"Arithmetic far below the {device}'s peak: each step's operations are too small to run at full speed"
    return Verdict(kind=LATENCY_BOUND, severity="warning", title=title, evidence=evidence, fix=fix)


def diagnose(evidence: RunEvidence) -> list[Verdict]:
    """Apply every rule; return the verdicts, most severe first. Never empty."""
    flops_fraction = _fraction(evidence.achieved_flops_per_s, evidence.peak_flops_per_s)
    verdicts: list[Verdict] = []
    input_bound = _input_bound(evidence)
    if input_bound is not None:
        verdicts.append(input_bound)
    for gpu_rule in (_gpu_lost, _throttled, _memory_nearly_full):
        verdicts.extend(v for gpu in _gpus(evidence) if (v := gpu_rule(evidence, gpu)) is not None)
    verdicts.extend(_idle_gpus(evidence))
    host = _host_cpu_saturated(evidence)
    if host is not None:
        verdicts.append(host)
    memory_bound = _memory_bound(evidence, flops_fraction)
    if memory_bound is not None:
        verdicts.append(memory_bound)
    compute_bound = _compute_bound(evidence, flops_fraction, memory_bound is not None)
    if compute_bound is not None:
        verdicts.append(compute_bound)
    # Low utilisation is only the answer when nothing above explains it.
    if input_bound is None and memory_bound is None and compute_bound is None:
        latency = _latency_bound(evidence, flops_fraction)
        if latency is not None:
            verdicts.append(latency)
    if not any(v.kind not in _SIDE_FINDINGS for v in verdicts):
        verdicts.append(_fallback(evidence, flops_fraction))
    return sorted(verdicts, key=_priority, reverse=True)


def _fallback(e: RunEvidence, flops_fraction: float | None) -> Verdict:
    util_pct = _mean_gpu_util_pct(e.telemetry)
    input_fraction = _fraction(e.input_wait_s, e.step_time_s)
    if flops_fraction is None and util_pct is None and input_fraction is None:
        return Verdict(
            kind=INSUFFICIENT_EVIDENCE,
            severity="info",
            title="Not enough measurements to say what limits this run",
            evidence={"summary": "no FLOP/s against a known peak, no GPU utilisation, no input-wait timing"},
            fix="Run a benchmark workload (it measures FLOP/s and input wait), or give the device's peak.",
        )
    evidence = _measured(
        ("flops_fraction", flops_fraction, _arithmetic),
        ("gpu_util_mean_pct", util_pct, _gpu_busy),
        ("input_wait_fraction", input_fraction, _input_wait),
    )
    return Verdict(
        kind=NO_CLEAR_BOTTLENECK,
        severity="info",
        title="No single bottleneck stands out",
        evidence=evidence,
        fix="Profile one step (torch.profiler) to see which operators take the time.",
    )


class Ranked(Protocol):
    """Anything with a verdict's kind and severity (a Verdict, or a results file's VerdictRecord)."""

    @property
    def kind(self) -> str: ...

    @property
    def severity(self) -> str: ...


RankedT = TypeVar("RankedT", bound=Ranked)


def _priority(verdict: Ranked) -> tuple[int, int]:
    kind = verdict.kind
    relevance = len(_RELEVANCE_ORDER) - _RELEVANCE_ORDER.index(kind) if kind in _RELEVANCE_ORDER else 0
    return SEVERITY_RANK[verdict.severity], relevance


def primary(verdicts: Sequence[RankedT]) -> RankedT | None:
    """The verdict to show first: the most severe, then the most useful to act on. None if empty."""
    return max(verdicts, key=_priority, default=None)
