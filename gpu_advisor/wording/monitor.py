"""How a run in progress and a watched command read: the Monitor tab's cards and `gpu-advisor monitor`.

The figures are worded by `wording.results` (the same functions the CLI table and the report use), so a
card and a report never disagree. No Qt.
"""

from __future__ import annotations

import shlex
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
# The metric that says how fast each kind of workload ran, in order of preference.
HEADLINE_KEYS = ("tokens_per_s", "decode_tokens_per_s", "samples_per_s", "flops_per_s", "bytes_per_s")


def headline_key(result: WorkloadResult) -> str | None:
    """The metric that says how fast the workload ran (one of HEADLINE_KEYS), if it reported one."""
    return next((key for key in HEADLINE_KEYS if result.number(key) is not None), None)


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
        # Memory leads: it carries over to any device. A CPU's step time says nothing of a GPU's.
        prediction = f"memory {format_error_pct(mem.error_pct)}"
        memory_words = f"{format_bytes(mem.predicted)} predicted, {format_bytes(mem.measured)} measured"
        if device_kind == "cpu":
            step_words = f"step time {format_error_pct(st.error_pct)} (CPU: not meaningful for a GPU plan)"
        else:
            prediction += f", time {format_error_pct(st.error_pct)}"
            step_words = (
                f"step {format_duration(st.predicted)} predicted, {format_duration(st.measured)} measured"
            )
        prediction_detail = f"{memory_words}; {step_words}"
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


def command_cards(report: MonitorReport) -> Cards:
    """Card texts for a watched command: how long it ran, how it ended, what limited it."""
    top = primary_verdict(report.diagnosis)
    rss = report.summary.process_rss_bytes
    return Cards(
        step_time=format_duration(report.duration_s),
        step_detail=f"{shlex.join(report.command)} (exit code {report.exit_code})",
        throughput=NA,
        throughput_detail="a watched command reports no throughput",
        peak_memory=EMPTY if rss is None else format_bytes(rss.max),
        memory_detail="" if rss is None else "process tree RSS",
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
    lines = [
        f"monitor: `{shlex.join(report.command)}` exited with {report.exit_code} after "
        f"{format_duration(report.duration_s)} ({s.sample_count} samples every "
        f"{format_duration(report.telemetry.interval_s)})",
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
