"""Ctrl-C and SIGTERM to `gpu-advisor monitor`: real signals to a real monitor and its command's tree."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie waiting for its parent to reap it counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _wait_for(predicate, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _start_monitor(tmp_path: Path, shell: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gpu_advisor",
            "monitor",
            "--interval",
            "0.1",
            "--grace",
            "1",
            "--json",
            str(tmp_path / "run.json"),
            "--",
            "sh",
            "-c",
            shell,
        ],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
    )


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_the_whole_tree_and_the_results_are_still_written(tmp_path, sig, code):
    # The background sleep is a grandchild of the monitor, and a shell's background job ignores SIGINT.
    monitor = _start_monitor(tmp_path, "sleep 60 & echo $! > grandchild; wait")
    try:
        _wait_for(
            lambda: (tmp_path / "grandchild").is_file() and (tmp_path / "grandchild").read_text().strip()
        )
        grandchild = int((tmp_path / "grandchild").read_text())
        assert _alive(grandchild)
        time.sleep(0.3)  # a few telemetry samples
        monitor.send_signal(sig)
        _, err = monitor.communicate(timeout=20)
    finally:
        if monitor.poll() is None:
            monitor.kill()
    assert monitor.returncode == code
    _wait_for(lambda: not _alive(grandchild), timeout_s=5)
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["interrupted"] == sig.name
    assert len(run["telemetry"]["samples"]) >= 2
    assert f"Stopped ({sig.name}" in err.decode()


def test_the_command_runs_in_its_own_session_at_the_monitors_priority(tmp_path):
    monitor = _start_monitor(tmp_path, "ps -o sid=,pgid=,ni= -p $$ > ids")
    monitor.communicate(timeout=30)
    sid, pgid, nice = (int(v) for v in (tmp_path / "ids").read_text().split())
    assert monitor.returncode == 0
    assert sid == pgid != os.getsid(0)  # a session of its own, which it leads
    assert nice == os.nice(0)


def test_the_exit_code_and_a_killing_signal_pass_through(tmp_path):
    failing = subprocess.run(
        [sys.executable, "-m", "gpu_advisor", "monitor", "--", sys.executable, "-c", "raise SystemExit(7)"],
        capture_output=True,
        timeout=60,
    )
    assert failing.returncode == 7 and b"Failed (exit code 7)" in failing.stderr
    killed = subprocess.run(
        [sys.executable, "-m", "gpu_advisor", "monitor", "--", "sh", "-c", "kill -KILL $$"],
        capture_output=True,
        timeout=60,
    )
    assert killed.returncode == 128 + 9 and b"Killed (SIGKILL)" in killed.stderr
