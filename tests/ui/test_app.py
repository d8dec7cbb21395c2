"""The entry point: no-display message, headless self-test, startup without torch."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gpu_advisor.app import NO_DISPLAY_MESSAGE, display_available, run_gui


def test_no_display_prints_how_to_use_the_cli(monkeypatch, capsys):
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert run_gui([]) == 2
    err = capsys.readouterr().err
    assert "gpu-advisor --help" in err and "gpu-advisor plan --model llama-3-8b" in err
    assert err.strip() == NO_DISPLAY_MESSAGE.strip()


def test_display_detection():
    assert not display_available({}, "linux")
    assert display_available({"DISPLAY": ":0"}, "linux")
    assert display_available({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert display_available({"QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert display_available({}, "darwin")


STARTUP_CHECK = """
import sys

import pytest
from PySide6.QtWidgets import QApplication
app = QApplication([])
from gpu_advisor.ui.main_window import MainWindow
window = MainWindow()
window.show()
app.processEvents()
window.close()
print("torch imported:", "torch" in sys.modules)
"""


def test_window_opens_without_importing_torch(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "GPU_ADVISOR_CONFIG_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", STARTUP_CHECK], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "torch imported: False" in result.stdout


@pytest.mark.parametrize("last_tab", [None, 1], ids=["first start", "closed last on the Monitor tab"])
def test_self_test_passes_headless(tmp_path, last_tab):
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    env["GPU_ADVISOR_CONFIG_DIR"] = str(tmp_path)
    if last_tab is not None:  # the window opens on the tab it was closed on
        (tmp_path / "window.ini").write_text(f"[General]\ntab={last_tab}\n")
    result = subprocess.run(
        [sys.executable, "-m", "gpu_advisor", "--self-test"],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "self-test: ok" in result.stdout
    assert "samples plotted" in result.stdout


def test_self_test_reports_a_failed_run_instead_of_blocking(qapp, monkeypatch, capsys):
    """A failing workload must not open a modal box (it would wait forever headless)."""
    from gpu_advisor.ui import self_test
    from tests.ui.conftest import FakeBackend

    class FailingBackend(FakeBackend):
        def run(self, request, context, on_sample, on_step=None):
            raise RuntimeError("device: simulated failure")

    monkeypatch.setattr(self_test, "BenchBackend", lambda toy: FailingBackend())
    monkeypatch.setattr(self_test, "bench_available", lambda: True)
    assert self_test.run_self_test(qapp) == 1
    captured = capsys.readouterr()
    assert "simulated failure" in captured.out + captured.err
    assert "FAILED" in captured.out


def test_self_test_says_so_when_pytorch_is_missing(qapp, monkeypatch, capsys):
    """Before, the check looked for gpu_advisor.bench (always there), so it could never fail."""
    import importlib.util

    from gpu_advisor.ui import self_test
    from tests.ui.conftest import FakeBackend

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real_find_spec(name, *a)
    )
    monkeypatch.setattr(self_test, "BenchBackend", lambda toy: FakeBackend())
    assert self_test.run_self_test(qapp) == 1
    assert "FAILED: PyTorch is not installed" in capsys.readouterr().out
