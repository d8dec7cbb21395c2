"""Cluster flags the user can get wrong: one line naming the flag, exit code 2, nothing started."""

from __future__ import annotations

import pytest

from gpu_advisor.cli import run_cli


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--nproc", "1"], "--nproc: a cluster run needs at least 2 processes"),
        (["--nproc", "2", "--distributed"], "--nproc starts torchrun, which runs --distributed on each rank"),
        (["--nproc", "2", "--workloads", "matmul"], "--workloads: not used by a cluster run"),
        (["--nproc", "2", "--device", "cuda:0"], "--device: 'cuda:0': a cluster run takes auto, cpu or cuda"),
        (["--nproc", "2", "--phases", "p2p,dance"], "--phases: choose from collectives, p2p, scaling"),
    ],
)
def test_bad_cluster_flags_exit_2_with_one_line(argv, message, capsys):
    assert run_cli(["bench", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"gpu-advisor bench: error: {message}")
