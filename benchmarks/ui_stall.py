"""Does the window stay responsive while a CPU benchmark runs?

Opens the main window (offscreen), opens the Monitor (which loads PyTorch on its worker thread
shortly after it is first shown), waits until that is done, then starts a real benchmark run (its
worker thread, live plots at 15 Hz, texts at 1 Hz). Meanwhile a 10 ms QTimer on the GUI thread
records when it fires: the longest gap between two ticks is the longest time the event loop could
not answer the user. Two phases are reported apart: opening the Monitor (the first window of the
process loads PyTorch then: its import holds the GIL for a few hundred ms at a stretch, once per
session) and the run itself. Repeated; the median of the runs' longest gaps is the figure.

`--cold` starts the run at once instead, without waiting for PyTorch (the import then falls in the
first run, as it did before the Monitor loaded it ahead).

Usage: python benchmarks/ui_stall.py [--repeats 3] [--workload train] [--full] [--cold] [--attribute MS]
Target: longest gap during the run under 50 ms (median of the runs).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time

TARGET_MS = 50.0
TICK_MS = 10


def _gaps(ticks: list[float]) -> list[float]:
    return sorted((b - a) * 1e3 for a, b in itertools.pairwise(ticks))


def one_run(
    app, workload: str, quick: bool, cold: bool = False, attribute: float | None = None
) -> tuple[float, float, float, int, float]:
    """(longest gap ms while the Monitor opened, longest gap ms during the run, p99 gap ms during
    the run, ticks during the run, run seconds). `attribute`: print what each gap during the run
    longer than this many ms was made of (stall_watch)."""
    from PySide6.QtCore import QTimer

    from gpu_advisor.ui.main_window import MainWindow
    from gpu_advisor.ui.monitor.backend import BenchBackend

    window = MainWindow(backend=BenchBackend())
    window.resize(1280, 800)
    window.show()
    app.processEvents()
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    monitor = window.monitor
    window.tabs.setCurrentWidget(monitor)
    deadline = time.monotonic() + 120
    while not cold and not monitor.prepared and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.001)
    opening = _gaps(ticks)
    monitor.device_combo.setCurrentIndex(monitor.device_combo.count() - 1)  # the CPU
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData(workload))
    monitor.quick_check.setChecked(quick)
    app.processEvents()
    watch = None
    if attribute is not None:
        from stall_watch import StallWatch

        watch = StallWatch(attribute)
        watch.label = lambda: str(monitor._current_workload)
        timer.timeout.connect(watch.tick)
        watch.start()
    ticks.clear()
    started = time.perf_counter()
    monitor.start()
    while monitor.running:
        app.processEvents()
        time.sleep(0.001)
    run_s = time.perf_counter() - started
    timer.stop()
    if watch is not None:
        from stall_watch import describe, holds_summary, worker_summary

        watch.stop()
        print(f"gaps over {attribute:.0f} ms: {len(watch.gaps)}", flush=True)
        print(describe(watch.gaps), flush=True)
        print("worker frames over those gaps (samples):", flush=True)
        print(worker_summary(watch.gaps), flush=True)
        print("GIL holds over 10 ms (the watchdog's waits), by the worker's next line:", flush=True)
        print(holds_summary(watch), flush=True)
    window.close()
    if monitor.report is None:
        raise RuntimeError(f"the run failed: {window.errors.history}")
    # A workload that did not run (the memory cap on a machine short of free RAM, an error) makes a
    # run shorter and quieter: say so, so that runs are compared like with like.
    odd = [
        f"{r.workload} {r.status}" for r in monitor.report.results if r.status not in ("ok", "unsupported")
    ]
    if odd:
        print(f"  not run in full: {', '.join(odd)}", flush=True)
    gaps = _gaps(ticks)
    p99 = gaps[min(len(gaps) - 1, int(0.99 * len(gaps)))]
    return (opening[-1] if opening else 0.0), gaps[-1], p99, len(ticks), run_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--workload", default="train", help="a Monitor workload key (train, inference, matmul, all)"
    )
    parser.add_argument("--full", action="store_true", help="full sizes instead of quick")
    parser.add_argument("--cold", action="store_true", help="start at once, PyTorch not loaded ahead")
    parser.add_argument(
        "--attribute",
        type=float,
        metavar="MS",
        help="print each gap over MS during the run: the GUI thread's CPU, wait for a core, blocked "
        "time, and the GUI's and the worker's Python stacks (benchmarks/stall_watch.py)",
    )
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["GPU_ADVISOR_CONFIG_DIR"] = tempfile.mkdtemp()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    maxima, openings = [], []
    for i in range(args.repeats):
        opening, worst, p99, ticks, run_s = one_run(
            app, args.workload, not args.full, args.cold, args.attribute
        )
        maxima.append(worst)
        openings.append(opening)
        print(
            f"run {i + 1}: opening the Monitor: longest gap {opening:.1f} ms; {run_s:.1f} s benchmark, "
            f"{ticks} ticks, longest gap {worst:.1f} ms, p99 {p99:.1f} ms",
            flush=True,
        )
    median = statistics.median(maxima)
    print(
        f"median of the longest gaps during the run: {median:.1f} ms over {args.repeats} runs "
        f"({args.workload}, {'full' if args.full else 'quick'}, {'cold' if args.cold else 'PyTorch loaded ahead'}, "
        f"{os.cpu_count()} CPUs); opening the Monitor the first time (PyTorch loading): "
        f"{openings[0]:.1f} ms, later windows: {statistics.median(openings[1:] or [0.0]):.1f} ms"
    )
    print(f"target < {TARGET_MS:.0f} ms during the run: {'met' if median < TARGET_MS else 'MISSED'}")
    return 0 if median < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
