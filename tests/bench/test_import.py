"""The benchmark package loads without torch and without Qt: the window opens fast."""

from __future__ import annotations

import subprocess
import sys


def test_importing_bench_loads_neither_torch_nor_qt():
    code = (
        "import sys\n"
        "import gpu_advisor.bench, gpu_advisor.cli.bench, gpu_advisor.bench.runner\n"
        "import gpu_advisor.bench.compare, gpu_advisor.bench.monitor, gpu_advisor.bench.device\n"
        "import gpu_advisor.wording.results, gpu_advisor.wording.monitor, gpu_advisor.wording.compare\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'PySide6', 'pyqtgraph'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_cli_help_lists_the_bench_commands():
    out = subprocess.run(
        [sys.executable, "-m", "gpu_advisor", "--help"], capture_output=True, text=True, check=True
    )
    for command in ("bench", "monitor", "compare"):
        assert command in out.stdout
