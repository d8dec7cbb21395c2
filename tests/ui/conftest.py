"""GUI test fixtures: a toy benchmark backend (no torch), patched dialogs, results files, the window."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox

from gpu_advisor.bench.options import ProgressEvent
from gpu_advisor.bench.results import (
    BenchReport,
    DeviceInfo,
    Machine,
    Prediction,
    PredictionCheck,
    Spread,
    TelemetryRecord,
    VerdictRecord,
    WorkloadResult,
)
from gpu_advisor.telemetry.samples import HostSample, Sample
from gpu_advisor.ui.monitor.backend import BenchBackend, MonitorRequest
from gpu_advisor.ui.monitor.runs import BenchmarkRun
from gpu_advisor.ui.plan.form import PlanForm
from gpu_advisor.ui.plan.wizard import PlanWizard
from gpu_advisor.ui.workers import RunContext


def make_train_result(status: str = "ok", tokens_per_s: float = 1234.0, mfu: float = 0.31) -> WorkloadResult:
    spread = Spread(median=0.25, p10=0.24, p90=0.27, min=0.23, max=0.3, n=12)
    return WorkloadResult(
        workload="train",
        name="train bench-gpt2-test",
        status=status,
        metrics={"tokens_per_s": tokens_per_s, "mfu": mfu, "peak_memory_bytes": 3_000_000_000},
        timings={"step_time_s": spread},
        diagnosis=[
            VerdictRecord(
                kind="compute_bound",
                severity="info",
                title="Compute-bound",
                evidence={"summary": "arithmetic at 31% of peak"},
                fix="Use a lower precision.",
            )
        ],
        prediction=Prediction(
            peak_memory_bytes=PredictionCheck.of(2_900_000_000, 3_000_000_000),
            step_time_s=PredictionCheck.of(0.2, 0.25),
        ),
        started_at=time.time(),
        elapsed_s=0.5,
    )


def make_report(
    device: str = "Test CPU",
    kind: str = "cpu",
    results: list[WorkloadResult] | None = None,
    flops: float = 2e12,
) -> BenchReport:
    matmul = WorkloadResult(
        workload="matmul",
        name="matmul fp32",
        status="ok",
        config={"dtype": "fp32"},
        metrics={"flops_per_s": flops},
        timings={"step_time_s": Spread(median=0.01, p10=0.01, p90=0.01, min=0.01, max=0.01, n=5)},
    )
    return BenchReport(
        created="2026-01-02T03:04:05+00:00",
        app_version="test",
        machine=Machine(cpu_model="Test CPU", physical_cores=2, logical_cores=2, torch_version="2.13.0"),
        device=DeviceInfo(kind=kind, name=device, torch_threads=2, index=0 if kind == "cuda" else None),
        duration_s=1.0,
        results=[matmul, *(results if results is not None else [make_train_result()])],
        telemetry=TelemetryRecord(interval_s=0.1, samples=[]),
    )


class FakeBackend(BenchBackend):
    """A toy workload on the real worker thread: a host sample and a progress event every `tick_s`,
    until stopped (or after `steps`). No torch, no NVML."""

    def __init__(self, steps: int | None = None, tick_s: float = 0.02, device_kind: str = "cpu") -> None:
        super().__init__(toy=True)
        self.steps = steps
        self.tick_s = tick_s
        self.device_kind = device_kind
        self.stop_seen = threading.Event()
        self.requests: list[MonitorRequest] = []

    def machine(self) -> dict[str, Any]:
        return {
            "cpu_model": "Test CPU",
            "physical_cores": 2,
            "logical_cores": 2,
            "gpus": [],
            "gpu_status": "No NVIDIA GPU: CPU mode (test)",
        }

    def run(self, request: MonitorRequest, context: RunContext, on_sample, on_step=None) -> BenchmarkRun:
        self.requests.append(request)
        start = time.time()
        i = 0
        while not context.stop.wait(self.tick_s):
            host = HostSample(
                cpu_pct=40.0 + i % 20, ram_used_bytes=2_000_000_000, process_rss_bytes=500_000_000
            )
            on_sample(Sample(t_s=i * self.tick_s, wall_time=time.time(), host=host))
            fraction = min(1.0, i / self.steps) if self.steps else 0.5
            context.report_progress(ProgressEvent("train", fraction, f"step {i}", eta_s=1.0))
            if on_step is not None:
                on_step("train", "tokens_per_s", 1000.0 + i)
            i += 1
            if self.steps is not None and i >= self.steps:
                break
        if context.stop.is_set():
            self.stop_seen.set()
        result = make_train_result(status="cancelled" if context.stop.is_set() else "ok")
        result = result.model_copy(update={"started_at": start, "elapsed_s": time.time() - start})
        context.report_result(result)
        if self.device_kind == "cuda":
            return BenchmarkRun(
                make_report(device="NVIDIA H100 80GB HBM3 (test)", kind="cuda", results=[result])
            )
        return BenchmarkRun(make_report(results=[result]))


@pytest.fixture
def dialogs(monkeypatch) -> list[tuple[str, str]]:
    """Replace the error dialog: record (title, text) instead of blocking on a modal box."""
    shown: list[tuple[str, str]] = []

    def critical(_parent, title, text, *args, **kwargs):
        shown.append((title, text))
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "critical", critical)
    monkeypatch.setattr(QMessageBox, "about", lambda *a, **k: None)
    return shown


@pytest.fixture
def backend() -> FakeBackend:
    return FakeBackend()


@pytest.fixture
def window(qtbot, dialogs, backend) -> Iterator[Any]:
    from gpu_advisor.ui.main_window import MainWindow

    win = MainWindow(backend=backend)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


@pytest.fixture
def results_files(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "cpu-box.json", tmp_path / "gpu-box.json"
    make_report("Test CPU", "cpu", flops=2e12).save(first)
    make_report("NVIDIA H100 80GB HBM3", "cuda", flops=600e12).save(second)
    return first, second


@pytest.fixture
def wizard(qtbot, dialogs) -> PlanWizard:
    """The Plan wizard at the screenshot size (1280x800), shown offscreen."""
    widget = PlanWizard(PlanForm())
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    widget.show()
    qtbot.waitExposed(widget)
    return widget
