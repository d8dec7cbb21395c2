"""Does the window stay responsive while a CPU benchmark runs?

Opens the main window (offscreen), starts a real benchmark run in the Monitor (its worker thread,
live plots at 15 Hz, texts at 1 Hz), and meanwhile a 10 ms QTimer on the GUI thread records when it
fires. The longest gap between two ticks is the longest time the event loop could not answer the user.
Repeated, and the median of the per-run maxima is reported, with the 99th percentile gap.

Usage: python benchmarks/ui_stall.py [--repeats 3] [--workload train] [--full]
Target: longest gap under 50 ms (median of the runs).
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


def one_run(app, workload: str, quick: bool) -> tuple[float, float, int, float]:
    """(max gap ms, p99 gap ms, ticks, run seconds)."""
    from PySide6.QtCore import QTimer

    from gpu_advisor.ui.main_window import MainWindow
    from gpu_advisor.ui.monitor.backend import BenchBackend

    window = MainWindow(backend=BenchBackend())
    window.resize(1280, 800)
    window.show()
    monitor = window.monitor
    window.tabs.setCurrentWidget(monitor)
    monitor.device_combo.setCurrentIndex(monitor.device_combo.count() - 1)  # the CPU
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData(workload))
    monitor.quick_check.setChecked(quick)
    app.processEvents()
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    started = time.perf_counter()
    monitor.start()
    while monitor.running:
        app.processEvents()
        time.sleep(0.001)
    run_s = time.perf_counter() - started
    timer.stop()
    window.close()
    if monitor.report is None:
        raise RuntimeError(f"the run failed: {window.errors.history}")
    gaps = sorted((b - a) * 1e3 for a, b in itertools.pairwise(ticks))
    p99 = gaps[min(len(gaps) - 1, int(0.99 * len(gaps)))]
    return gaps[-1], p99, len(ticks), run_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--workload", default="train", help="a Monitor workload key (train, inference, matmul, all)"
    )
    parser.add_argument("--full", action="store_true", help="full sizes instead of quick")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["GPU_ADVISOR_CONFIG_DIR"] = tempfile.mkdtemp()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    maxima = []
    for i in range(args.repeats):
        worst, p99, ticks, run_s = one_run(app, args.workload, quick=not args.full)
        maxima.append(worst)
        print(
            f"run {i + 1}: {run_s:.1f} s benchmark, {ticks} ticks, longest gap {worst:.1f} ms, p99 {p99:.1f} ms"
        )
    median = statistics.median(maxima)
    print(
        f"median of the longest gaps: {median:.1f} ms over {args.repeats} runs ({args.workload}, "
        f"{'full' if args.full else 'quick'}, {os.cpu_count()} CPUs)"
    )
    print(f"target < {TARGET_MS:.0f} ms: {'met' if median < TARGET_MS else 'MISSED'}")
    return 0 if median < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
