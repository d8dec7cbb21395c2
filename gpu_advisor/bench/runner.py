"""Run benchmark workloads with telemetry sampled alongside, and return a BenchReport. No Qt.

    report = run_benchmark(BenchOptions(device="auto", quick=True),
                           on_progress=..., on_sample=..., on_result=..., stop=threading.Event())

Callbacks: `on_progress(ProgressEvent)` and `on_result(WorkloadResult)` run on the calling thread,
between steps; `on_sample(Sample)` runs on the telemetry sampler's thread. All must return quickly and
must not touch widgets (a GUI worker emits a signal from them). Setting `stop` ends the run within one
step (well under a second with the built-in sizes): the current workload is reported as `cancelled`
and the report holds everything measured so far. Workload failures become `error` results; the run
goes on with the next workload. Bad options raise BenchError before anything runs.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import psutil

from gpu_advisor import __version__
from gpu_advisor.bench.context import Cancelled, Outcome, RunContext, now
from gpu_advisor.bench.device import identify, resolve_device
from gpu_advisor.bench.oom import free_memory
from gpu_advisor.bench.options import BenchOptions, ProgressEvent, sizes_for
from gpu_advisor.bench.results import (
    BenchReport,
    DeviceInfo,
    Machine,
    Status,
    TelemetryRecord,
    VerdictRecord,
    WorkloadResult,
)
from gpu_advisor.telemetry import NvmlSource, RunEvidence, Sample, diagnose, summarize
from gpu_advisor.telemetry.recording import Recording
from gpu_advisor.telemetry.samples import of_gpu

_log = logging.getLogger(__name__)

WorkloadFn = Callable[[RunContext], Iterator[Outcome]]
# The CPU memory cap by default: leave a fifth of the free RAM to the rest of the machine.
DEFAULT_CPU_CAP_FRACTION = 0.8


def default_workloads() -> dict[str, WorkloadFn]:
    """The real workloads by name (imports torch)."""
    from gpu_advisor.bench import inference, kernels, training

    return {
        "matmul": kernels.matmul,
        "bandwidth": kernels.bandwidth,
        "train": training.train,
        "inference": inference.inference,
        "dataloader": training.dataloader,
        "transfer": kernels.transfer,
    }


def _machine(described: dict[str, Any]) -> Machine:
    import torch

    return Machine.model_validate(
        described
        | {
            "torch_version": torch.__version__,
            "torch_cuda_version": torch.version.cuda,
            "torch_hip_version": getattr(torch.version, "hip", None),  # ROCm builds: torch.cuda on AMD
            "torch_threads": torch.get_num_threads(),
        }
    )


def diagnose_outcome(
    outcome: Outcome, samples: tuple[Sample, ...], device: DeviceInfo
) -> list[VerdictRecord]:
    """Diagnose one workload from its own evidence and the telemetry of the device that ran it.

    Only the benchmarked GPU's readings count (none on a CPU run, none when NVML cannot say which GPU
    it is): idle neighbours would read as low utilisation, a power-capped one as throttling.
    """
    result = outcome.result
    if result.status not in ("ok", "oom") or all(v is None for v in outcome.evidence.values()):
        return []
    start = result.started_at or 0.0
    end = start + (result.elapsed_s or 0.0)
    window = of_gpu((s for s in samples if start <= s.wall_time <= end), device.nvml_index)
    evidence = RunEvidence(
        step_time_s=outcome.evidence.get("step_time_s"),
        input_wait_s=outcome.evidence.get("input_wait_s"),
        achieved_flops_per_s=outcome.evidence.get("achieved_flops_per_s"),
        peak_flops_per_s=outcome.evidence.get("peak_flops_per_s"),
        achieved_bytes_per_s=outcome.evidence.get("achieved_bytes_per_s"),
        peak_bytes_per_s=outcome.evidence.get("peak_bytes_per_s"),
        device_kind=device.kind,
        telemetry=summarize(window) if window else None,
        host_cpu_count=psutil.cpu_count(logical=True),
    )
    return [VerdictRecord.model_validate(v.to_dict()) for v in diagnose(evidence)]


def _unfinished(workload: str, started: float, status: Status, **details: Any) -> WorkloadResult:
    """The result of a workload that stopped before it finished (cancelled, or an error)."""
    return WorkloadResult(
        workload=workload,
        name=workload,
        status=status,
        started_at=started,
        elapsed_s=now() - started,
        **details,
    )


@dataclass
class RunProgress:
    """The whole run's fraction and time left from each workload's own fraction, weighing the
    workloads by their expected durations (Sizes.weight). `clock`: seconds, monotonic (tests)."""

    weights: Mapping[str, float]
    workloads: tuple[str, ...]
    on_progress: Callable[[ProgressEvent], None] | None
    clock: Callable[[], float] = time.monotonic
    started: float = field(init=False)
    done_weight: float = 0.0

    def __post_init__(self) -> None:
        self.started = self.clock()

    @property
    def total_weight(self) -> float:
        return sum(self.weights.get(w, 1.0) for w in self.workloads) or 1.0

    def report(self, workload: str, fraction: float, message: str) -> None:
        """`fraction`: of `workload`, which is running now."""
        if self.on_progress is None:
            return
        overall = min(
            1.0, (self.done_weight + fraction * self.weights.get(workload, 1.0)) / self.total_weight
        )
        elapsed = self.clock() - self.started
        eta = elapsed * (1 - overall) / overall if overall > 0.02 else None
        self.on_progress(ProgressEvent(workload=workload, fraction=overall, message=message, eta_s=eta))

    def finished(self, workload: str) -> None:
        self.done_weight += self.weights.get(workload, 1.0)


def run_benchmark(
    options: BenchOptions,
    *,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    on_sample: Callable[[Sample], None] | None = None,
    on_result: Callable[[WorkloadResult], None] | None = None,
    on_step: Callable[[str, str, float], None] | None = None,
    stop: threading.Event | None = None,
    nvml: NvmlSource | None = None,
    workloads: Mapping[str, WorkloadFn] | None = None,
) -> BenchReport:
    """Run `options.workloads` in order with telemetry, and return the report (see the module docstring).

    `nvml`: an NvmlSource to use (tests pass one built on a fake NVML); None opens the real one.
    `workloads`: replaces the workload implementations by name (tests inject toy ones).
    `on_step(workload, metric key, rate per s)`: every timed step's rate, on the calling thread.
    """
    stop = stop if stop is not None else threading.Event()
    run_started = time.monotonic()
    device, device_info, catalog_gpu = resolve_device(options.device)
    impls = dict(default_workloads()) if workloads is None else {**default_workloads(), **workloads}
    sizes = sizes_for(device_info.kind, options)
    cap = options.memory_cap_bytes
    if cap is None and device_info.kind == "cpu":
        cap = int(psutil.virtual_memory().available * DEFAULT_CPU_CAP_FRACTION)
    progress = RunProgress(sizes.weight, options.workloads, on_progress)
    report_progress = progress.report

    outcomes: list[Outcome] = []
    with Recording(options.interval_s, nvml=nvml, on_sample=on_sample) as recording:
        machine = _machine(recording.machine)
        device_info = identify(device_info, machine.gpus)
        ctx = RunContext(
            options=options,
            sizes=sizes,
            device=device,
            device_info=device_info,
            catalog_gpu=catalog_gpu,
            stop=stop,
            memory_cap_bytes=cap,
            report_progress=report_progress,
        )
        if on_step is not None:
            ctx.report_step = lambda key, rate: on_step(ctx.current_workload, key, rate)

        def record(outcome: Outcome) -> None:
            outcomes.append(outcome)
            if on_result is not None:
                # Diagnosed from the telemetry so far, so that a run's list shows each verdict as
                # its workload ends; the report's results are diagnosed again from every sample.
                so_far = recording.snapshot()
                on_result(
                    outcome.result.model_copy(
                        update={"diagnosis": diagnose_outcome(outcome, so_far, device_info)}
                    )
                )

        recording.start(watch_pid=os.getpid())
        try:
            for name in options.workloads:
                ctx.current_workload = name
                report_progress(name, 0.0, f"{name}: starting")
                started = now()
                try:
                    ctx.check()
                    for outcome in impls[name](ctx):
                        record(outcome)
                except Cancelled:
                    record(Outcome(_unfinished(name, started, "cancelled", notes=["stopped by the user"])))
                    break
                except Exception as exc:
                    _log.exception("workload %s failed", name)
                    record(Outcome(_unfinished(name, started, "error", error=f"{type(exc).__name__}: {exc}")))
                finally:
                    free_memory(device)
                progress.finished(name)
                report_progress(name, 0.0, f"{name}: done")
        finally:
            stopped = stop.is_set()
            samples = recording.stop()
    results = [
        o.result.model_copy(update={"diagnosis": diagnose_outcome(o, samples, device_info)}) for o in outcomes
    ]
    return BenchReport(
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        app_version=__version__,
        machine=machine,
        device=device_info,
        options=options.model_dump(mode="json") | {"memory_cap_bytes": cap},
        duration_s=time.monotonic() - run_started,
        results=results,
        telemetry=TelemetryRecord(interval_s=options.interval_s, samples=samples),
        partial=stopped,
    )
