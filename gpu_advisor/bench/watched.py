"""A watched command's file (`gpu-advisor/monitor@1`) read as a results file, so that Compare, the
report, the app's Import and the planner's calibration take it like a benchmark run.

The command becomes one result of workload `command`: its exit code and duration, and what the probe
measured (step times, rates, data wait, time per epoch, peak memory) where the command reported it.
"""

from __future__ import annotations

import shlex
from typing import Any

from pydantic import ValidationError

from gpu_advisor.bench.monitor import MonitorReport
from gpu_advisor.bench.results import (
    BenchReport,
    DeviceInfo,
    MetricValue,
    ResultsFileError,
    WorkloadResult,
    describe_error,
)


def report_from_monitor_dict(data: dict[str, Any], name: str) -> BenchReport:
    """Validate a monitor@1 object and view it as a bench report; ResultsFileError names the field."""
    try:
        monitor = MonitorReport.model_validate(data)
    except ValidationError as exc:
        raise ResultsFileError(f"{name}: {describe_error(exc)}") from None
    return bench_view(monitor)


def _device(monitor: MonitorReport) -> DeviceInfo:
    """The GPU the command's telemetry saw first (NVML watches every GPU), else the CPU."""
    machine = monitor.machine
    gpus = monitor.summary.gpus
    if gpus:
        g = gpus[0]
        return DeviceInfo(
            kind="cuda",
            nvml_index=g.index,
            name=g.name,
            torch_threads=1,
            memory_total_bytes=next(
                (
                    int(x["memory_total_bytes"])
                    for x in machine.gpus
                    if x.get("index") == g.index and x.get("memory_total_bytes")
                ),
                None,
            ),
        )
    return DeviceInfo(kind="cpu", name=machine.cpu_model or "CPU", torch_threads=machine.logical_cores or 1)


def command_metrics(monitor: MonitorReport) -> dict[str, MetricValue]:
    """The command's figures as bench metrics (keys with units: _s, _bytes, _per_s, _fraction)."""
    metrics: dict[str, MetricValue] = {"exit_code": monitor.exit_code, "duration_s": monitor.duration_s}
    steps = monitor.steps
    if steps is not None:
        metrics |= {
            "steps": steps.count,
            "steps_per_s": steps.steps_per_s,
            "samples_per_s": steps.samples_per_s,
            "tokens_per_s": steps.tokens_per_s,
            "input_wait_fraction": steps.data_wait_fraction,
        }
    epochs = [e.time_s for e in monitor.epochs if e.time_s is not None]
    if epochs:
        metrics |= {"epochs": len(monitor.epochs), "time_per_epoch_s": sum(epochs) / len(epochs)}
    peaks = [e.peak_memory_bytes for e in monitor.epochs if e.peak_memory_bytes is not None]
    if peaks:
        metrics["peak_memory_bytes"] = max(peaks)
    rss = monitor.summary.process_rss_bytes
    if rss is not None:
        metrics["process_rss_peak_bytes"] = int(rss.max)
    return {k: v for k, v in metrics.items() if v is not None}


def bench_view(monitor: MonitorReport) -> BenchReport:
    """The monitor report as a bench report with one `command` result."""
    steps = monitor.steps
    timings = {} if steps is None or steps.step_time is None else {"step_time_s": steps.step_time}
    ok = monitor.exit_code == 0 and monitor.interrupted is None
    result = WorkloadResult(
        workload="command",
        name=shlex.join(monitor.command),
        status="ok" if ok else "cancelled" if monitor.interrupted else "error",
        metrics=command_metrics(monitor),
        timings=timings,
        diagnosis=list(monitor.diagnosis),
        error=None if ok or monitor.interrupted else f"exit code {monitor.exit_code}",
    )
    return BenchReport(
        created=monitor.created,
        app_version=str(monitor.machine.model_extra.get("app_version", ""))
        if monitor.machine.model_extra
        else "",
        machine=monitor.machine,
        device=_device(monitor),
        options={"command": monitor.command},
        duration_s=monitor.duration_s,
        results=[result],
        telemetry=monitor.telemetry,
    )
