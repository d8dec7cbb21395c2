"""gpu_advisor.core must import neither Qt nor torch: the CLI, GUI, PDF and tests share it."""

import subprocess
import sys

CHECK = """
import sys
import gpu_advisor.core.recommend, gpu_advisor.core.predict, gpu_advisor.core.files, gpu_advisor.cli
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.request import PlanRequest
gpu_advisor.core.recommend.plan(PlanRequest(model=get_preset("llama-3-8b")))
bad = sorted(m for m in sys.modules if m.split(".")[0] in {"PySide6", "pyqtgraph", "torch"})
print(",".join(bad))
"""


def test_core_and_cli_import_neither_qt_nor_torch():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
