"""The launcher side of a cluster run loads neither torch nor Qt: the app starts it from a thread, and
the CLI parses flags, without paying for torch."""

from __future__ import annotations

import subprocess
import sys


def test_launcher_side_modules_load_neither_torch_nor_qt():
    code = (
        "import sys\n"
        "import gpu_advisor.bench.distributed, gpu_advisor.bench.distributed.launcher\n"
        "import gpu_advisor.bench.distributed.calibrate, gpu_advisor.bench.distributed.assemble\n"
        "import gpu_advisor.bench.distributed.environment, gpu_advisor.bench.distributed.liveness\n"
        "import gpu_advisor.cli.bench_distributed, gpu_advisor.wording.distributed\n"
        "import gpu_advisor.telemetry.topology\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'PySide6', 'pyqtgraph'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
