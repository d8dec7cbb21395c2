"""kill -9 of `bench --nproc N`: torchrun and the ranks stop with it, and the results file the user
kept is not replaced by an orphaned run (issue 27, defect 5)."""

from __future__ import annotations

import json
import os
import time

import psutil

from gpu_advisor.bench.distributed.lifeline import LAUNCHER_PID_ENV, launcher_alive
from tests.bench.distributed.helpers import cli, find_rank, start, wait_until_measuring


def test_killing_the_launcher_outright_ends_torchrun_and_every_rank_and_keeps_the_old_file(tmp_path):
    kept = tmp_path / "c.json"
    kept.write_text(json.dumps({"kept": True}))
    argv = ["bench", "--nproc", "2", "--device", "cpu", "--toy", "--duration", "30", "--json", str(kept)]
    launcher = start(cli(argv))
    rank0 = find_rank([launcher], 0)
    wait_until_measuring(rank0)
    tree = psutil.Process(launcher.pid).children(recursive=True)
    assert len(tree) >= 3  # torchrun and two ranks
    launcher.kill()
    launcher.communicate(timeout=30)
    _gone, alive = psutil.wait_procs(tree, timeout=30)
    assert alive == [], [p.cmdline() for p in alive]
    time.sleep(1.0)
    assert json.loads(kept.read_text()) == {"kept": True}


def test_without_a_launcher_pid_a_rank_counts_the_launcher_as_alive(monkeypatch):
    monkeypatch.delenv(LAUNCHER_PID_ENV, raising=False)
    assert launcher_alive()
    monkeypatch.setenv(LAUNCHER_PID_ENV, str(os.getpid()))
    assert launcher_alive()
    child = psutil.Popen(["true"])
    child.wait()
    monkeypatch.setenv(LAUNCHER_PID_ENV, str(child.pid))
    assert not launcher_alive()
