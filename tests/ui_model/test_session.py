"""The Monitor's run state (ui/monitor/session.py), driven without Qt: what the bar, the time-left
line and the cards would show at each moment of a run."""

from __future__ import annotations

import subprocess
import sys

from gpu_advisor.bench.options import ProgressEvent
from gpu_advisor.bench.results import BenchReport, DeviceInfo, Machine, TelemetryRecord, WorkloadResult
from gpu_advisor.ui.monitor.runs import BenchmarkRun, ClusterRun
from gpu_advisor.ui.monitor.session import BAR_STEPS, RunSession


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _result(status: str = "ok") -> WorkloadResult:
    return WorkloadResult(workload="matmul", name="matmul fp32", status=status, metrics={"flops_per_s": 2e12})


def _report(results: list[WorkloadResult]) -> BenchReport:
    return BenchReport(
        created="2026-01-02T03:04:05+00:00",
        app_version="test",
        machine=Machine(cpu_model="Test CPU", physical_cores=2, logical_cores=2),
        device=DeviceInfo(kind="cpu", name="Test CPU", torch_threads=2),
        duration_s=1.0,
        results=results,
        telemetry=TelemetryRecord(interval_s=0.1, samples=[]),
    )


def test_time_left_is_the_whole_runs_and_only_counts_down() -> None:
    clock = Clock()
    session = RunSession(clock)
    session.start()
    assert session.status_text() == "Starting… (loading PyTorch)"
    session.running_now()
    session.progress(ProgressEvent("train", 0.25, "train: step 3", eta_s=60.0))
    assert session.status_text() == "train: step 3 — about 60.0 s left"
    clock.now += 10
    # the next workload is slower: the runner's estimate grows, the shown time left does not
    session.progress(ProgressEvent("inference", 0.30, "inference: prefill", eta_s=90.0))
    assert session.time_left_s == 50.0
    assert session.workload == "inference" and session.bar_value() == round(0.30 * BAR_STEPS)
    clock.now += 60
    assert session.status_text() == "inference: prefill — finishing"


def test_a_stopped_run_keeps_its_bar_where_it_got_to() -> None:
    clock = Clock()
    session = RunSession(clock)
    session.start()
    session.progress(ProgressEvent("matmul", 0.4, "matmul", eta_s=30.0))
    session.stop_asked()
    assert session.status_text() == "Stopping…"
    clock.now += 12
    session.finished(BenchmarkRun(_report([_result("cancelled")])), stop_asked=True)
    assert session.outcome == "stopped" and not session.running
    assert session.bar_value() == 400  # never full for a run that did not finish
    assert session.status_text() == "Stopped at 40% after 12.0 s"


def test_a_finished_run_fills_the_bar_and_takes_the_reports_results() -> None:
    clock = Clock()
    session = RunSession(clock)
    session.start()
    session.result(_result())
    clock.now += 5
    session.finished(BenchmarkRun(_report([_result(), _result()])), stop_asked=False)
    assert session.outcome == "finished" and session.bar_value() == BAR_STEPS
    assert len(session.results) == 2  # the report's, diagnosed from every sample
    assert session.benchmark is not None and session.cluster is None and session.command is None


def test_a_failed_run_is_neither_finished_nor_full_and_keeps_its_error() -> None:
    session = RunSession(Clock())
    session.start()
    session.progress(ProgressEvent("train", 0.1, "train", eta_s=None))
    session.failed("device: simulated failure")
    assert session.outcome == "failed" and session.status_text() == "Failed"
    assert session.bar_value() == 100 and session.errors == ["device: simulated failure"]


def test_a_cluster_run_stopped_before_its_report_reads_stopped() -> None:
    session = RunSession(Clock())
    session.start()
    session.finished(None, stop_asked=True)
    assert session.outcome == "stopped" and session.run is None
    session.start()
    session.finished(ClusterRun(_report([_result()])), stop_asked=False)
    assert session.cluster is not None and session.benchmark is None


def test_the_session_imports_no_qt() -> None:
    code = (
        "import sys, gpu_advisor.ui.monitor.session, gpu_advisor.ui.monitor.runs;"
        "sys.exit(any(m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_a_cpu_run_of_every_workload_shows_the_whole_runs_time_left_until_its_end() -> None:
    # ux-review-3 D15: at 49% of a CPU quick run, with 16 s to go, the status read "finishing". The
    # workloads' durations of a real run (bench.options _CPU_WEIGHTS), on a machine 5x faster (38 s).
    from gpu_advisor.bench.options import SIZES, WORKLOADS
    from gpu_advisor.bench.runner import RunProgress

    seconds = {
        "matmul": 4.2,
        "bandwidth": 2.4,
        "train": 67.0,
        "inference": 74.0,
        "dataloader": 31.0,
        "transfer": 0.7,
    }
    seconds = {name: s / 5 for name, s in seconds.items()}
    clock = Clock()
    session = RunSession(clock)
    session.start()
    session.running_now()
    progress = RunProgress(SIZES[("cpu", "quick")].weight, WORKLOADS, session.progress, clock=clock)
    total_s = sum(seconds.values())
    seen: list[tuple[float, float | None]] = []  # (true seconds left, seconds left shown)
    for name in WORKLOADS:
        for tick in range(10):
            progress.report(name, tick / 10, f"{name}: step {tick}")
            seen.append((total_s - (clock.now - 100.0), session.time_left_s))
            clock.now += seconds[name] / 10
        progress.finished(name)
    late = [(true, shown) for true, shown in seen if true < 0.85 * total_s and true > 3.0]
    assert late and all(shown is not None for _, shown in late)
    # within a factor of two of the truth from the first seventh of the run on, never "finishing"
    assert all(0.5 * true <= shown <= 2 * true for true, shown in late), late
