"""Starting real multi-process runs for the tests: free ports, the CLI as a subprocess, finding ranks."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import psutil

# nccl-tests' busbw / algbw (doc/PERFORMANCE.md), written out per rank count: the test's own numbers.
BUS_FACTOR = {
    2: {"all_reduce": 1.0, "all_gather": 0.5, "reduce_scatter": 0.5, "broadcast": 1.0},
    4: {"all_reduce": 1.5, "all_gather": 0.75, "reduce_scatter": 0.75, "broadcast": 1.0},
}
OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli(args: Sequence[str]) -> list[str]:
    return [sys.executable, "-m", "gpu_advisor", *args]


def torchrun_node(
    node_rank: int, port: int, nproc: int, args: Sequence[str], log_dir: Path | None = None
) -> list[str]:
    """One of two "nodes" on this machine meeting at a c10d rendezvous on 127.0.0.1. `log_dir`:
    torchrun's own folder (else a `torchelastic_*` temporary folder it leaves behind)."""
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nnodes=2",
        f"--node-rank={node_rank}",
        f"--nproc-per-node={nproc}",
        "--rdzv-backend=c10d",
        f"--rdzv-endpoint=127.0.0.1:{port}",
        f"--rdzv-id=test-{port}",
        "--rdzv-conf=join_timeout=60",
        "--max-restarts=0",
        "--monitor-interval=0.1",
        *([f"--log-dir={log_dir / f'node{node_rank}'}"] if log_dir is not None else []),
        "-m",
        "gpu_advisor",
        "bench",
        "--distributed",
        *args,
    ]


def env(**extra: str) -> dict[str, str]:
    out = {
        k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
    }
    out.update(OMP_NUM_THREADS="1", **extra)
    return out


def start(argv: Sequence[str], **extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(**extra)
    )


def find_rank(parents: Sequence[subprocess.Popen[str]], rank: int, timeout_s: float = 60.0) -> psutil.Process:
    """The process running `rank` below one of `parents` (torchrun starts it with RANK set)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for parent in parents:
            try:
                children = psutil.Process(parent.pid).children(recursive=True)
            except psutil.NoSuchProcess:
                continue
            for child in children:
                try:
                    if child.environ().get("RANK") == str(rank):
                        return child
                except psutil.Error:
                    continue
        time.sleep(0.1)
    raise AssertionError(f"rank {rank} never started")


def wait_until_measuring(rank_process: psutil.Process, timeout_s: float = 60.0) -> None:
    """Until the run has moved past start-up: the launcher's events file (GPU_ADVISOR_DIST_RUN_DIR)
    holds a progress event, or (under a user's torchrun) the rank holds its connections to the store
    (two) and to another rank (gloo): the process group has formed."""
    run_dir = rank_process.environ().get("GPU_ADVISOR_DIST_RUN_DIR")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if run_dir:
            events = Path(run_dir) / "events.jsonl"
            if events.exists() and '"progress"' in events.read_text():
                return
        elif len(rank_process.net_connections()) >= 3:
            return
        time.sleep(0.1)
    raise AssertionError("the run never started measuring")


def start_two_nodes(
    port: int, nproc: int, args: Sequence[str], log_dir: Path | None = None
) -> list[subprocess.Popen[str]]:
    """Node 0 first, node 1 once node 0's launcher listens on the rendezvous port: then node 0 hosts
    the rendezvous store (as the endpoint's own machine does on a real cluster), whichever starts
    faster."""
    first = start(torchrun_node(0, port, nproc, args, log_dir))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            listening = any(
                c.status == psutil.CONN_LISTEN and c.laddr.port == port
                for c in psutil.Process(first.pid).net_connections()
            )
        except psutil.Error:
            listening = False
        if listening or first.poll() is not None:
            break
        time.sleep(0.05)
    return [first, start(torchrun_node(1, port, nproc, args, log_dir))]
