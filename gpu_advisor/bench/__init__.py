"""Benchmark engine: real PyTorch workloads, measured honestly, checked against the sizing engine.

No Qt, and no torch at import time: torch loads when a run starts, so the window opens fast.

API for the GUI (call from a QThread worker; nothing here touches widgets)::

    from gpu_advisor.bench import BenchOptions, run_benchmark, save_report, load_report

    options = BenchOptions(device="auto", quick=True)          # or BenchOptions.toy_run() (~2 s, CPU)
    stop = threading.Event()                                     # set it from the GUI thread to cancel
    report = run_benchmark(
        options,
        on_progress=lambda e: ...,   # ProgressEvent(workload, fraction 0-1 of the run, message, eta_s)
        on_sample=lambda s: ...,     # telemetry.Sample, on the sampler thread, every interval_s
        on_result=lambda r: ...,     # WorkloadResult, as each workload variant finishes
        stop=stop,
    )                                # -> BenchReport (the gpu-advisor/bench@1 file as a pydantic model)
    report.save("result.json")       # atomic; load_report(path) validates (ResultsFileError names the field)

- `BenchOptions(device="auto"|"cpu"|"cuda"|"cuda:N", workloads=WORKLOADS subset, model=preset id or None,
  quick, toy, duration_s, interval_s, dataloader_workers, memory_cap_bytes, precision="fp32"|"bf16"|None)`;
  invalid values raise pydantic.ValidationError naming the field; a missing device raises BenchError.
- Workloads: matmul (per dtype), bandwidth (device copy), train (DataLoader-fed step, MFU, input wait,
  peak memory, prediction check), inference (prefill and decode with a preallocated KV cache at several
  batch sizes, prediction check), dataloader (slow preprocessing: shows the input-bound diagnosis),
  transfer (host-to-device pinned/pageable; `unsupported` on the CPU).
- Result statuses: ok, oom (measured at the largest batch that fits, `max_batch_size` in metrics),
  cancelled, error, unsupported.
- `compare(named)` / `compare_files(paths)` build typed side-by-side rows of several results files, with
  the catalogue's figures for the same GPUs (`gpu_advisor.wording.compare` words them);
  `run_monitor(command, ...)` watches a user's own command (see `gpu_advisor.bench.monitor`).
"""

from __future__ import annotations

from gpu_advisor.bench.compare import CompareRow, Comparison, compare, compare_files
from gpu_advisor.bench.device import BenchError
from gpu_advisor.bench.loading import load_report
from gpu_advisor.bench.monitor import MonitorReport, run_monitor
from gpu_advisor.bench.options import WORKLOADS, BenchOptions, ProgressEvent
from gpu_advisor.bench.results import (
    SCHEMA,
    BenchReport,
    Prediction,
    PredictionCheck,
    ResultsFileError,
    Spread,
    WorkloadResult,
    save_report,
)
from gpu_advisor.bench.runner import run_benchmark

__all__ = [
    "SCHEMA",
    "WORKLOADS",
    "BenchError",
    "BenchOptions",
    "BenchReport",
    "CompareRow",
    "Comparison",
    "MonitorReport",
    "Prediction",
    "PredictionCheck",
    "ProgressEvent",
    "ResultsFileError",
    "Spread",
    "WorkloadResult",
    "compare",
    "compare_files",
    "load_report",
    "run_benchmark",
    "run_monitor",
    "save_report",
]
