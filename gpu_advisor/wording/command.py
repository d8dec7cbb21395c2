"""How a watched command reads: its ending, its steps and epochs, the Monitor tab's cards for it (live,
from the probe's events so far, and when it has ended) and the summary `gpu-advisor monitor` prints.
No Qt."""

from __future__ import annotations

import shlex
import signal
from collections.abc import Sequence
from dataclasses import replace

from gpu_advisor.bench.monitor import MonitorReport
from gpu_advisor.bench.probe_events import EpochRecord, StepsSummary
from gpu_advisor.core.units import (
    NA,
    format_bytes,
    format_celsius,
    format_duration,
    format_pct,
    format_rate,
    format_watts,
)
from gpu_advisor.telemetry.stats import MetricStats
from gpu_advisor.wording.monitor import EMPTY, Cards
from gpu_advisor.wording.results import finding_text, primary_verdict, verdict_detail

# The cards' captions for a command: with the probe's steps, and without (its duration instead).
PROBE_CAPTIONS = ("Time per step", "Throughput", "Peak memory", "Time per epoch")
PLAIN_CAPTIONS = ("Duration", "Throughput", "Peak memory", "Time per epoch")
NO_PROBE = "no steps reported: instrument the script with gpu_advisor.probe"


def signal_name(number: int) -> str:
    """'SIGKILL' for 9; 'signal 64' for a number with no name here."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def ending(report: MonitorReport) -> tuple[str, bool]:
    """(status, failed): 'Finished (exit code 0)', 'Failed (exit code N)', 'Killed (SIGKILL)',
    'Stopped by you (SIGTERM)' after Stop, or 'Stopped (SIGINT)' when the monitor got that signal."""
    code = report.exit_code
    if report.interrupted == "stop":  # the Monitor's Stop ends the command with SIGTERM
        return "Stopped by you (SIGTERM)", True
    if report.interrupted is not None:
        return f"Stopped ({report.interrupted})", True
    if code is None:
        return "Failed (no exit code)", True
    if code < 0:
        return f"Killed ({signal_name(-code)})", True
    if code > 0:
        return f"Failed (exit code {code})", True
    return f"Finished (exit code {code})", False


def _rate(steps: StepsSummary) -> tuple[float | None, str]:
    """The step's headline rate: samples/s, else tokens/s, else steps/s."""
    for rate, unit in (
        (steps.samples_per_s, "samples/s"),
        (steps.tokens_per_s, "tokens/s"),
        (steps.steps_per_s, "steps/s"),
    ):
        if rate is not None:
            return rate, unit
    return None, ""


def steps_text(steps: StepsSummary | None) -> str | None:
    """'120 steps, median 48.2 ms, 20.7 steps/s, 663 samples/s, waiting for data 12%', if any step."""
    if steps is None:
        return None
    parts = [f"{steps.count} steps"]
    if steps.step_time is not None:
        parts.append(f"median {format_duration(steps.step_time.median)}")
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


def mean_epoch_s(epochs: Sequence[EpochRecord]) -> float | None:
    """Mean time per finished epoch, in seconds."""
    times = [e.time_s for e in epochs if e.time_s is not None]
    return sum(times) / len(times) if times else None


def _memory_text(e: EpochRecord) -> str:
    text = format_bytes(e.peak_memory_bytes)
    if e.memory_kind == "cpu_live_tensors_at_epoch_end":
        return text + " live tensors at its end"
    if e.memory_kind == "cuda_max_allocated":
        return text + " peak allocated"
    return text


def epoch_lines(epochs: Sequence[EpochRecord]) -> list[str]:
    """One line per finished epoch: time, steps, samples, data wait share and memory."""
    lines = []
    for e in epochs:
        wait = NA if not e.time_s else format_pct(e.data_wait_s / e.time_s)
        samples = "" if e.samples is None else f", {e.samples:,} samples"
        lines.append(
            f"epoch {e.index + 1}: {format_duration(e.time_s)}, {e.steps} steps{samples}, "
            f"data wait {wait}, memory {_memory_text(e)}, process peak RSS {format_bytes(e.peak_rss_bytes)}"
        )
    return lines


def probe_cards(
    steps: StepsSummary | None,
    epochs: Sequence[EpochRecord],
    *,
    duration_s: float,
    status: str,
    rss_max_bytes: float | None,
) -> tuple[Cards, tuple[str, str, str, str]]:
    """The four cards for a command (running or ended) and their captions."""
    timed = None if steps is None else steps.step_time
    if timed is not None:
        first, first_detail = format_duration(timed.median), f"median of {timed.n} steps; {status}"
    else:
        first, first_detail = format_duration(duration_s), status
    rate, unit = (None, "") if steps is None else _rate(steps)
    peaks = [e.peak_memory_bytes for e in epochs if e.peak_memory_bytes is not None]
    if peaks:
        memory, memory_detail = format_bytes(max(peaks)), "highest of the epochs (probe)"
    else:
        memory = EMPTY if rss_max_bytes is None else format_bytes(rss_max_bytes)
        memory_detail = "" if rss_max_bytes is None else "process tree RSS"
    epoch_s = mean_epoch_s(epochs)
    epoch_detail = "no epoch finished yet" if steps is not None else NO_PROBE
    if epoch_s is not None:
        epoch_detail = f"mean of {len(epochs)}: " + ", ".join(format_duration(e.time_s) for e in epochs[-4:])
        if steps is not None and steps.data_wait_fraction is not None:
            epoch_detail += f"; data wait {format_pct(steps.data_wait_fraction)}"
    cards = Cards(
        step_time=first,
        step_detail=first_detail,
        throughput=NA if rate is None else format_rate(rate, unit),
        throughput_detail=NO_PROBE if steps is None else str(steps_text(steps)),
        peak_memory=memory,
        memory_detail=memory_detail,
        prediction=EMPTY if epoch_s is None else format_duration(epoch_s),
        prediction_detail=epoch_detail,
    )
    return cards, PROBE_CAPTIONS if timed is not None else PLAIN_CAPTIONS


def command_cards(report: MonitorReport) -> tuple[Cards, tuple[str, str, str, str]]:
    """Cards and captions for an ended command, with its diagnosis."""
    status, _ = ending(report)
    rss = report.summary.process_rss_bytes
    cards, captions = probe_cards(
        report.steps,
        report.epochs,
        duration_s=report.duration_s,
        status=status,
        rss_max_bytes=None if rss is None else rss.max,
    )
    top = primary_verdict(report.diagnosis)
    failed = report.interrupted is None and report.exit_code != 0
    if failed:  # the failure leads: the telemetry's verdict is about a run that did not finish
        seen = f" Until then the telemetry read: {top.title.lower()}." if top is not None else ""
        cards = replace(
            cards,
            diagnosis_title=status,
            diagnosis_detail=f"the command did not finish; its output shows why.{seen}",
        )
    elif top is not None:
        cards = replace(cards, diagnosis_title=top.title, diagnosis_detail=verdict_detail(top))
    return cards, captions


def live_cards(
    steps: StepsSummary | None, epochs: Sequence[EpochRecord], elapsed_s: float
) -> tuple[Cards, tuple[str, str, str, str]]:
    """Cards while the command runs, from the probe's steps and epochs so far."""
    return probe_cards(
        steps,
        epochs,
        duration_s=elapsed_s,
        status="running",
        rss_max_bytes=None,
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
    steps = steps_text(report.steps)
    if steps is not None:
        lines.append(f"  steps (gpu_advisor.probe): {steps}")
    lines += [f"  {line}" for line in epoch_lines(report.epochs)]
    if report.epochs:
        lines.append(f"  mean time per epoch: {format_duration(mean_epoch_s(report.epochs))}")
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
