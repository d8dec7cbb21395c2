"""How long from process start to the main window on screen, against a bare PySide6 + pyqtgraph window?

Starts `python -c <child>` several times; each child opens the window as `gpu-advisor` does
(`gpu_advisor.app.open_main_window`: the QApplication, the MainWindow, shown), runs the event loop
until the window is exposed, and prints a line. The parent measures
from Popen() to that line: interpreter start, imports, building every view, first paint. The child
also reports whether torch was imported (it must not be: workloads import it when they start).
Each run is paired with a reference child that imports PySide6 and pyqtgraph and shows one label,
so the ratio holds however busy the machine is.

`--direct` builds the MainWindow in the child directly instead (no start-up path of the app: the
garbage collector stays on), to see what that path saves.

Usage: python benchmarks/ui_startup.py [--repeats 5] [--platform offscreen] [--direct]
Targets: median under 2 s on the development machines (2 cores), and within 1.3x of the bare window.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

TARGET_S = 2.0
TARGET_RATIO = 1.3

# Both children end alike: show `window`, run the event loop until it is exposed, say so.
SHOW = """
window.show()
while not window.isVisible() or window.windowHandle() is None or not window.windowHandle().isExposed():
    app.processEvents()
app.processEvents()
print("shown", "torch" in sys.modules, flush=True)
window.close()
"""

BARE = (
    """
import sys
import pyqtgraph
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication([])
window = QLabel("bare window")
"""
    + SHOW
)

CHILD = (
    """
import sys
from gpu_advisor.app import open_main_window
app, window = open_main_window()
"""
    + SHOW
)

DIRECT = (
    """
import sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from gpu_advisor.ui.main_window import MainWindow
window = MainWindow()
"""
    + SHOW
)


# Bytecode as an installed app has it: compiled by the first (uncounted) run into this folder and
# read by the others, even where the environment sets PYTHONDONTWRITEBYTECODE (the app would
# otherwise be timed compiling its own sources on every start, which no installed copy does).
PYCACHE = tempfile.mkdtemp(prefix="gpu-advisor-startup-pycache-")


def one_run(platform: str, code: str = CHILD) -> tuple[float, bool]:
    env = {**os.environ, "QT_QPA_PLATFORM": platform, "GPU_ADVISOR_CONFIG_DIR": tempfile.mkdtemp()}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = PYCACHE
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None
    line = child.stdout.readline()
    elapsed = time.perf_counter() - start
    child.wait(60)
    if not line.startswith("shown"):
        raise RuntimeError(f"the child did not show the window (exit code {child.returncode})")
    return elapsed, line.split()[1] == "True"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--platform", default=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    parser.add_argument("--direct", action="store_true", help="build the MainWindow directly")
    args = parser.parse_args()
    child = DIRECT if args.direct else CHILD
    one_run(args.platform, child)  # warm the OS file cache and compile the bytecode; not counted
    one_run(args.platform, BARE)
    times, bare_times, ratios, torch_seen = [], [], [], False
    for i in range(args.repeats):
        bare, _ = one_run(args.platform, BARE)
        elapsed, torch_imported = one_run(args.platform, child)
        times.append(elapsed)
        bare_times.append(bare)
        ratios.append(elapsed / bare)
        torch_seen |= torch_imported
        print(f"run {i + 1}: {elapsed:.2f} s, bare window {bare:.2f} s, ratio {elapsed / bare:.2f}")
    median = statistics.median(times)
    ratio = statistics.median(ratios)
    print(
        f"median {median:.2f} s (min {min(times):.2f}, max {max(times):.2f}) over {args.repeats} runs, "
        f"bare PySide6 + pyqtgraph window {statistics.median(bare_times):.2f} s, median ratio {ratio:.2f}, "
        f"platform {args.platform}{', MainWindow built directly' if args.direct else ''}; "
        f"torch imported at startup: {torch_seen}"
    )
    ok = median < TARGET_S and ratio <= TARGET_RATIO and not torch_seen
    print(
        f"target < {TARGET_S:.0f} s and within {TARGET_RATIO}x of the bare window, without torch: "
        f"{'met' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
