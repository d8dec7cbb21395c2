"""Screenshots of every view: `python -m gpu_advisor.tools.screenshots OUTDIR [--light | --dark]`.

Each view is saved at every size of SIZES (the smallest window the app supports, a laptop, a full-HD
screen) as NAME-WxH.png; without --light or --dark both themes are made, in OUTDIR/light and
OUTDIR/dark (the dark one in a second process: a palette is the application's, set before any widget).
Headless (offscreen Qt) and isolated: a temporary config folder, so the user's settings and window
geometry are neither read nor changed. The monitor shots come from a real (toy-sized) CPU benchmark
run on this machine; the comparison adds a second, synthetic results file, named as such.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SIZES = ((1024, 700), (1280, 800), (1920, 1080))


def _wait(app, condition: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    return condition()


def _example_gpu_results(path: Path, cpu_report) -> None:
    """A synthetic results file for a data-center GPU (clearly named), to show two machines side by side."""
    device = cpu_report.device.model_copy(
        update={
            "kind": "cuda",
            "index": 0,
            "nvml_index": 0,
            "name": "NVIDIA H100 80GB HBM3 (synthetic example)",
            "memory_total_bytes": 85_520_809_984,  # synthetic: near an 80 GB card's usable 79.6 GiB
            "catalogue_id": "nvidia-h100-sxm",
        }
    )
    scaled = []
    for result in cpu_report.results:
        metrics = dict(result.metrics)
        for key in ("flops_per_s", "bytes_per_s", "tokens_per_s", "decode_tokens_per_s"):
            if isinstance(metrics.get(key), int | float):
                metrics[key] = metrics[key] * 300
        scaled.append(result.model_copy(update={"metrics": metrics}))
    cpu_report.model_copy(update={"device": device, "results": scaled}).save(path)


def take(outdir: Path, dark: bool = False) -> list[Path]:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(["gpu-advisor-screenshots"])
    from gpu_advisor.ui import theme

    if dark:
        app.setStyle("Fusion")
        app.setPalette(theme.dark_palette())
    from gpu_advisor.ui.main_window import MainWindow
    from gpu_advisor.ui.monitor.backend import BenchBackend
    from gpu_advisor.ui.plan.wizard import STEP_BUDGET, STEP_MODEL, STEP_RESULT, STEP_TRAFFIC, STEP_WORKLOAD

    outdir.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    window = MainWindow(backend=BenchBackend(toy=True))
    window.resize(*SIZES[1])
    window.show()
    _wait(app, lambda: "Detecting" not in window.hardware_label.text(), 10)

    def shot(name: str) -> None:
        window.form.plan_now()  # what the debounce would show 150 ms later
        for width, height in SIZES:
            window.resize(width, height)
            for _ in range(3):
                app.processEvents()
            path = outdir / f"{name}-{width}x{height}.png"
            window.grab().save(str(path))
            saved.append(path)
        window.resize(*SIZES[1])

    wizard, form = window.wizard, window.form
    form.set_model_source("preset", "llama-3-8b")
    wizard.go_to(STEP_MODEL)
    shot("01-plan-model")
    form.set_field("task", "finetune")
    form.set_field("seq_len", 4096)
    form.set_field("batch_size", 4)
    form.set_field("grad_checkpointing", True)
    wizard.go_to(STEP_WORKLOAD)
    shot("02-plan-workload")
    trace = wizard.estimate.trace
    trace.start()  # the exact trace of this step on fake tensors, on its worker thread
    _wait(app, lambda: not trace.running, 120)
    shot("02b-plan-exact-trace")
    form.set_field("train_tokens", 2e9)
    form.set_field("max_hours", 48.0)
    wizard.go_to(STEP_TRAFFIC)
    shot("03-plan-training-target")
    wizard.go_to(STEP_BUDGET)
    shot("04-plan-budget")
    form.set_field("task", "inference")
    form.set_field("users", 32)
    form.set_field("tokens_per_s_per_user", 20.0)
    wizard.go_to(STEP_TRAFFIC)
    shot("05-plan-serving-traffic")
    wizard.go_to(STEP_RESULT)
    tabs = wizard.result_view.tabs
    for index, name in enumerate(("tiers", "overview", "options", "how-computed", "assumptions")):
        tabs.setCurrentIndex(index)
        shot(f"06-recommendation-{name}")
    tabs.setCurrentIndex(0)
    wizard.go_to(STEP_WORKLOAD)
    wizard.workload_page.seq_len.setText("0")
    wizard.workload_page.seq_len.textEdited.emit("0")
    form.set_field("task", "pretrain")
    shot("07-plan-invalid-input")
    form.set_field("seq_len", 2048)
    wizard.workload_page.seq_len.setText("2048")

    monitor = window.monitor
    window.tabs.setCurrentWidget(monitor)
    monitor.device_combo.setCurrentIndex(monitor.device_combo.count() - 1)
    monitor.workload_combo.setCurrentIndex(monitor.workload_combo.findData("all"))
    shot("08a-monitor-idle")
    monitor.start()
    # Mid-run: two workloads done (a toy run ends within seconds, so do not wait for more samples).
    _wait(app, lambda: len(monitor.results) >= 2 or not monitor.running, 120)
    monitor.plots.refresh()
    monitor.refresh_texts()
    shot("08-monitor-running")
    _wait(app, lambda: not monitor.running, 180)
    monitor.refresh_texts()
    shot("09-monitor-finished")
    finished = monitor.report

    monitor.start()  # a second run, stopped after its first workload: what a stopped run reads
    _wait(app, lambda: len(monitor.results) >= 1 or not monitor.running, 120)
    monitor.stop()
    _wait(app, lambda: not monitor.running, 60)
    shot("09b-monitor-stopped")

    if finished is not None and hasattr(finished, "results"):
        files = Path(tempfile.mkdtemp(prefix="gpu-advisor-shots-"))
        cpu_file, gpu_file = files / "this-machine-cpu.json", files / "example-h100-synthetic.json"
        finished.save(cpu_file)
        _example_gpu_results(gpu_file, finished)
        files_to_compare = [cpu_file, gpu_file]
        if monitor.report is not None and hasattr(monitor.report, "results"):
            stopped_file = files / "this-machine-cpu-stopped.json"
            monitor.report.save(stopped_file)
            files_to_compare.append(stopped_file)
        window.import_results(files_to_compare)
        shot("10-compare")
    window.close()
    return saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    theme = parser.add_mutually_exclusive_group()
    theme.add_argument("--dark", action="store_true", help="only the dark palette, into OUTDIR")
    theme.add_argument("--light", action="store_true", help="only the light palette, into OUTDIR")
    args = parser.parse_args(argv)
    if not (args.dark or args.light):
        for flag in ("--light", "--dark"):
            outdir = args.outdir / flag.removeprefix("--")
            done = subprocess.run([sys.executable, "-m", "gpu_advisor.tools.screenshots", str(outdir), flag])
            if done.returncode:
                return done.returncode
        return 0
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["GPU_ADVISOR_CONFIG_DIR"] = tempfile.mkdtemp(prefix="gpu-advisor-shots-config-")
    for path in take(args.outdir, dark=args.dark):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
