"""A process group that cannot form ends within the timeout with one line naming the rank and host,
and a CLI used outside a launcher says how to start it."""

from __future__ import annotations

import socket
import subprocess
import time

import pytest

from tests.bench.distributed.helpers import cli, env, free_port


@pytest.mark.slow
@pytest.mark.parametrize("rank", [0, 1])
def test_a_rank_whose_peers_never_come_ends_after_the_timeout(rank):
    """Launcher variables set by hand (as a scheduler would): rank 0 hosts the store and waits for
    rank 1; rank 1 waits for rank 0's store. Alone, each gives up after --timeout."""
    timeout_s = 3
    variables = {
        "RANK": str(rank),
        "WORLD_SIZE": "2",
        "LOCAL_RANK": "0",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(free_port()),
    }
    began = time.monotonic()
    done = subprocess.run(
        cli(["bench", "--distributed", "--toy", "--timeout", str(timeout_s)]),
        capture_output=True,
        text=True,
        env=env(**variables),
        timeout=120,
    )
    took_s = time.monotonic() - began
    assert done.returncode == 1
    assert took_s < timeout_s + 30  # interpreter and torch start-up on a loaded 2-core machine
    # torch's own C++ log lines may come first; ours is the one line that says what happened.
    errors = [line for line in done.stderr.splitlines() if line.startswith("gpu-advisor bench: error:")]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith(
        f"gpu-advisor bench: error: rank {rank} on host {socket.gethostname()}: the process group did not "
        f"form within {timeout_s} s"
    )
    assert "127.0.0.1" in errors[0]
    assert "Traceback" not in done.stderr


def test_distributed_outside_a_launcher_says_how_to_start_it():
    done = subprocess.run(
        cli(["bench", "--distributed"]), capture_output=True, text=True, env=env(), timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "gpu-advisor bench: error: --distributed: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT not set: "
        "start it under torchrun, e.g. torchrun --nproc-per-node=2 -m gpu_advisor bench --distributed, "
        "or use --nproc N"
    ]
