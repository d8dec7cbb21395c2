"""The cluster run shared by the tests that read its results file (registered in tests/conftest.py):
one real two-process gloo run through `gpu-advisor bench --nproc 2` (about 10 s on a 2-core machine)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.bench.distributed.helpers import cli, env


@dataclass(frozen=True)
class ClusterRun:
    path: Path
    stdout: str
    stderr: str
    returncode: int


@pytest.fixture(scope="session")
def cluster_run(tmp_path_factory) -> ClusterRun:
    path = tmp_path_factory.mktemp("cluster") / "cluster.json"
    done = subprocess.run(
        cli(["bench", "--nproc", "2", "--device", "cpu", "--toy", "--timeout", "20", "--json", str(path)]),
        capture_output=True,
        text=True,
        env=env(),
        timeout=180,
    )
    return ClusterRun(path, done.stdout, done.stderr, done.returncode)
