"""Every wait of the launcher is bounded (issue 27): a stopped torchrun agent, or one that lingers once
its ranks have ended, ends the run after the run's timeout with one line, and `--nproc` is bounded by
the machine's cores. torchrun is replaced here by a stub script (`run_local(python=...)`)."""

from __future__ import annotations

import os
import sys

import psutil
import pytest

from gpu_advisor.bench.distributed.errors import DistributedRunFailed
from gpu_advisor.bench.distributed.launcher import RUN_DIR_PREFIX, max_local_ranks, run_local
from gpu_advisor.bench.distributed.options import DistributedOptions
from gpu_advisor.cli import run_cli

# A 1 s timeout against an agent stalled for ever; the deadline of the whole run is far away (600 s),
# so only the stall check can end these runs.
FAST = DistributedOptions(device="cpu", mode="toy", timeout_s=1)


def _stub(tmp_path, body: str):
    path = tmp_path / "torchrun-stub"
    path.write_text(body)
    path.chmod(0o755)
    return str(path)


def _left(tmp_path) -> list[str]:
    return [p.name for p in tmp_path.iterdir() if p.name.startswith(RUN_DIR_PREFIX)]


def test_a_stopped_torchrun_agent_ends_the_run_after_its_timeout(tmp_path):
    """Probe 3: SIGSTOP of the torchrun agent kept `bench --nproc 2 --timeout 20` waiting past 150 s."""
    stub = _stub(tmp_path, "#!/bin/sh\nkill -STOP $$\nsleep 1000\n")  # stops itself at once
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with pytest.raises(DistributedRunFailed) as failed:
        run_local(FAST, 2, python=stub, deadline_s=600, run_root=tmp_path)
    message = str(failed.value)
    assert "was stopped" in message and "1 s (the run's timeout)" in message and "\n" not in message
    assert {p.pid for p in psutil.Process().children(recursive=True)} <= before  # nothing left
    assert _left(tmp_path) == []


def test_a_torchrun_agent_that_lingers_after_its_ranks_ended_is_ended(tmp_path):
    # a "rank" that lives 3 s (the launcher looks every 0.5 s), then an agent that never ends
    rank_then_hang = (
        f"#!{sys.executable}\nimport subprocess, time\nsubprocess.run(['sleep', '3'])\ntime.sleep(1000)\n"
    )
    stub = _stub(tmp_path, rank_then_hang)
    with pytest.raises(DistributedRunFailed, match="did not end after its ranks had"):
        run_local(FAST, 2, python=stub, deadline_s=600, run_root=tmp_path)
    assert _left(tmp_path) == []


def test_nproc_beyond_the_cores_is_refused_in_one_line(capsys):
    """Probe 3: `--nproc 100000` was accepted and started spawning."""
    with pytest.raises(DistributedRunFailed, match=r"--nproc: at most \d+ processes here"):
        run_local(FAST, 100_000)
    code = run_cli(["bench", "--nproc", "100000", "--device", "cpu", "--toy"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"--nproc: at most {max_local_ranks()} on this machine" in err
    assert max_local_ranks() <= max(2, os.cpu_count() or 1)
