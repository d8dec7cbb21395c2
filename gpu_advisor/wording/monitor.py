"""How a run in progress and a watched command read: the Monitor tab's cards and `gpu-advisor monitor`.

The figures are worded by `wording.results` (the same functions the CLI table and the report use), so a
card and a report never disagree. No Qt.
"""

from __future__ import annotations

import shlex
import signal
from collections.abc import Sequence
from dataclasses import dataclass

from gpu_advisor.bench.monitor import MonitorReport
from gpu_advisor.bench.results import WorkloadResult
from gpu_advisor.core.units import (
    NA,
    format_bytes,
    format_celsius,
    format_duration,
    format_error_pct,
    format_pct,
    format_rate,
    format_watts,
)
from gpu_advisor.telemetry.stats import MetricStats
from gpu_advisor.wording.results import (
    finding_text,
    memory_meaning,
    metric_text,
    peak_memory_bytes,
    primary_verdict,
    value_text,
    verdict_detail,
)

EMPTY = "—"
# The rate each workload is plotted by while it runs: (metric key, scale, unit). The plot keeps one
# unit per workload, so the scale is fixed here rather than chosen per value.
PLOT_RATES: tuple[tuple[str, float, str], ...] = (
    ("tokens_per_s", 1.0, "tokens/s"),
    ("decode_tokens_per_s", 1.0, "tokens/s"),
    ("samples_per_s", 1.0, "samples/s"),
    ("flops_per_s", 1e12, "TFLOP/s"),
    ("bytes_per_s", 1e9, "GB/s"),
)


def headline_key(result: WorkloadResult) -> str | None:
    """The metric that says how fast the workload ran (a key of PLOT_RATES), if it reported one."""
    return next((key for key, _, _ in PLOT_RATES if result.number(key) is not None), None)


def plot_rate(result: WorkloadResult) -> tuple[float, str] | None:
    """(value in the plot's unit, unit) of the workload's headline rate, if it has one."""
    key = headline_key(result)
    if key is None:
        return None
    scale, unit = next((scale, unit) for k, scale, unit in PLOT_RATES if k == key)
    return float(result.metrics[key]) / scale, unit  # type: ignore[arg-type]


def measured_mfu(result: WorkloadResult) -> float | None:
    """Model FLOPs utilisation measured by a training workload (0-1), if it reported one."""
    value = result.number("mfu")
    return value if value is not None and 0 < value <= 1 else None


def pick_result(results: Sequence[WorkloadResult]) -> WorkloadResult | None:
    """The result the cards describe: the latest training or inference run, else the latest finished."""
    ok = [r for r in results if r.status == "ok"]
    for workload in ("train", "inference"):
        matches = [r for r in ok if r.workload == workload]
        if matches:
            return matches[-1]
    return ok[-1] if ok else (results[-1] if results else None)


@dataclass(frozen=True, slots=True)
class Cards:
    """Texts for the four cards and the diagnosis box."""

    step_time: str = EMPTY
    step_detail: str = ""
    throughput: str = EMPTY
    throughput_detail: str = ""
    peak_memory: str = EMPTY
    memory_detail: str = ""
    prediction: str = EMPTY
    prediction_detail: str = ""
    diagnosis_title: str = ""
    diagnosis_detail: str = ""


def cards_for(results: Sequence[WorkloadResult], device_kind: str) -> Cards:
    """Card texts for the results so far of a run on a `device_kind` ('cpu' or 'cuda') device."""
    result = pick_result(results)
    if result is None:
        return Cards()
    step = result.step
    key = headline_key(result)
    prediction, prediction_detail = EMPTY, ""
    if result.prediction is not None:
        st, mem = result.prediction.step_time_s, result.prediction.peak_memory_bytes
        prediction = f"time {format_error_pct(st.error_pct)}, memory {format_error_pct(mem.error_pct)}"
        prediction_detail = (
            f"step {format_duration(st.predicted)} predicted / {format_duration(st.measured)} measured; "
            f"memory {format_bytes(mem.predicted)} / {format_bytes(mem.measured)}"
        )
    top = primary_verdict(result.diagnosis)
    mfu = measured_mfu(result)
    return Cards(
        step_time=format_duration(None if step is None else step.median),
        step_detail=f"{result.name}, median of {step.n} steps" if step else result.name,
        throughput=NA if key is None else value_text(key, result.metrics[key]),
        throughput_detail="" if mfu is None else str(metric_text("mfu", mfu)),
        peak_memory=format_bytes(peak_memory_bytes(result)),
        memory_detail=memory_meaning(device_kind),
        prediction=prediction,
        prediction_detail=prediction_detail,
        diagnosis_title="" if top is None else top.title,
        diagnosis_detail="" if top is None else verdict_detail(top),
    )


def signal_name(number: int) -> str:
    """'SIGKILL' for 9; 'signal 64' for a number with no name here."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def ending(report: MonitorReport) -> tuple[str, bool]:
    """(status, failed): 'Finished', 'Failed (exit code N)', 'Killed (SIGKILL)' or 'Stopped (SIGINT)'."""
    code = report.exit_code
    if report.interrupted is not None:
        by = "Stop" if report.interrupted == "stop" else report.interrupted
        return f"Stopped ({by}; exit code {code})", True
    if code is None:
        return "Failed (no exit code)", True
    if code < 0:
        return f"Killed ({signal_name(-code)})", True
    if code > 0:
        return f"Failed (exit code {code})", True
    return "Finished", False


def steps_text(report: MonitorReport) -> str | None:
    """'120 steps, median 48.2 ms, 20.7 steps/s, 663 samples/s': what the probe measured, if it did."""
    steps = report.steps
    if steps is None:
        return None
    parts = [f"{steps.count} steps"]
    if steps.step_time is not None:
        parts.append(f"median {format_duration(steps.step_time.median_s)}")
    for rate, unit in (
        (steps.steps_per_s, "steps/s"),
        (steps.samples_per_s, "samples/s"),
        (steps.tokens_per_s, "tokens/s"),
    ):
        if rate is not None:
            parts.append(format_rate(rate, unit))
    if steps.data_wait_fraction is not None:
        parts.append(f"waiting for data {format_pct(steps.data_wait_fraction)}")
    return ", ".join(parts)


def mean_epoch_s(report: MonitorReport) -> float | None:
    """Mean time per finished epoch, in seconds."""
    times = [e.time_s for e in report.epochs if e.time_s is not None]
    return sum(times) / len(times) if times else None


def epoch_lines(report: MonitorReport) -> list[str]:
    """One line per finished epoch: time, steps, samples, data wait share and peak memory."""
    lines = []
    for e in report.epochs:
        wait = NA if not e.time_s else format_pct(e.data_wait_s / e.time_s)
        memory = format_bytes(e.peak_memory_bytes)
        if e.memory_kind == "cpu_live_tensors_at_epoch_end":
            memory += " live tensors at its end"
        elif e.memory_kind == "cuda_max_allocated":
            memory += " peak allocated"
        samples = "" if e.samples is None else f", {e.samples} samples"
        lines.append(
            f"epoch {e.index + 1}: {format_duration(e.time_s)}, {e.steps} steps{samples}, "
            f"data wait {wait}, memory {memory}, process peak RSS {format_bytes(e.peak_rss_bytes)}"
        )
    return lines


def command_cards(report: MonitorReport) -> Cards:
    """Card texts for a watched command: its step time (or duration without a probe), how it ended,
    its throughput and memory, what limited it."""
    top = primary_verdict(report.diagnosis)
    rss = report.summary.process_rss_bytes
    status, _ = ending(report)
    steps = report.steps
    timed = None if steps is None else steps.step_time
    epoch_s = mean_epoch_s(report)
    peaks = [e.peak_memory_bytes for e in report.epochs if e.peak_memory_bytes is not None]
    if timed is not None:
        step_time, step_detail = format_duration(timed.median_s), f"median of {timed.count} steps; {status}"
    else:
        step_time, step_detail = format_duration(report.duration_s), f"duration; {status}"
    if epoch_s is not None:
        step_detail += f"; {format_duration(epoch_s)} per epoch"
    rate = None if steps is None else steps.samples_per_s or steps.tokens_per_s or steps.steps_per_s
    unit = (
        "samples/s"
        if steps and steps.samples_per_s
        else "tokens/s"
        if steps and steps.tokens_per_s
        else "steps/s"
    )
    return Cards(
        step_time=step_time,
        step_detail=step_detail,
        throughput=NA if rate is None else format_rate(rate, unit),
        throughput_detail="no steps reported (gpu_advisor.probe)"
        if steps is None
        else str(steps_text(report)),
        peak_memory=format_bytes(max(peaks)) if peaks else EMPTY if rss is None else format_bytes(rss.max),
        memory_detail="peak of the epochs (probe)" if peaks else "" if rss is None else "process tree RSS",
        prediction=EMPTY,
        prediction_detail="no prediction for a watched command",
        diagnosis_title="" if top is None else top.title,
        diagnosis_detail="" if top is None else verdict_detail(top),
    )


# ---- `gpu-advisor monitor` ------------------------------------------------------------------------
def _stats(stats: MetricStats | None, word) -> str:
    """'52% / 87% / 100%': mean / p95 / max, each worded by `word`."""
    return NA if stats is None else " / ".join(word(v) for v in (stats.mean, stats.p95, stats.max))


def _percent(value: float) -> str:
    """NVML and psutil report percentages (0-100); core.units words fractions."""
    return format_pct(value / 100)


def monitor_lines(report: MonitorReport) -> list[str]:
    """The summary `gpu-advisor monitor` prints after the command ends."""
    s = report.summary
    status, _ = ending(report)
    lines = [
        f"monitor: `{shlex.join(report.command)}`: {status} after "
        f"{format_duration(report.duration_s)} ({s.sample_count} samples every "
        f"{format_duration(report.telemetry.interval_s)})",
    ]
    steps = steps_text(report)
    if steps is not None:
        lines.append(f"  steps (gpu_advisor.probe): {steps}")
    lines += [f"  {line}" for line in epoch_lines(report)]
    if report.epochs:
        lines.append(f"  mean time per epoch: {format_duration(mean_epoch_s(report))}")
    lines += [
        "  (mean / p95 / max)",
        f"  host CPU: {_stats(s.host_cpu_pct, _percent)}",
        f"  RAM used: {_stats(s.ram_used_bytes, format_bytes)}",
        f"  process tree RSS: {_stats(s.process_rss_bytes, format_bytes)}",
    ]
    for g in s.gpus:
        lines.append(
            f"  GPU {g.index} {g.name}: util {_stats(g.gpu_util_pct, _percent)}, "
            f"memory {_stats(g.memory_used_bytes, format_bytes)}, power {_stats(g.power_w, format_watts)}, "
            f"temperature {_stats(g.temperature_c, format_celsius)}"
        )
        if g.throttle_fraction is not None:
            lines.append(
                f"      clock-event (throttle) reasons active in {format_pct(g.throttle_fraction)} of samples"
            )
    if not s.gpus:
        lines.append(f"  GPUs: {report.machine.gpu_status or 'none'}")
    lines.append("Diagnosis:")
    for v in report.diagnosis:
        lines.append(f"  {finding_text(v)}")
        if v.severity in ("warning", "critical") and v.fix:
            lines.append(f"      fix: {v.fix}")
    return lines
