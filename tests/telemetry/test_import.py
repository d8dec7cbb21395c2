"""The telemetry layer must import without Qt and without torch (the CLI and bench workers rely on it)."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import gpu_advisor.telemetry
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "torch"))
print("heavy:", heavy)
print("pynvml loaded:", "pynvml" in sys.modules)
sys.exit(1 if heavy else 0)
"""


def test_import_pulls_in_neither_qt_nor_torch() -> None:
    result = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "heavy: []" in result.stdout
    # pynvml is imported only when an NvmlSource is opened, so importing telemetry stays cheap.
    assert "pynvml loaded: False" in result.stdout
