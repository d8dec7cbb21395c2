"""Run code against the mock libnvidia-ml.so.1 through the real nvidia-ml-py, in a child process.

    mock = MockNvml(build_library(folder))
    result = mock.probe(scenario, "read_all")          # a function of tests/nvml_mock/probes.py
    done = mock.command(scenario, "doctor")            # `python -m gpu_advisor doctor`

Each run is a fresh interpreter: the dynamic loader reads LD_LIBRARY_PATH once, at process start,
and pynvml loads the library once per process, so the mock cannot be swapped in (or out) of the test
process itself, and must never be: on a machine with a real GPU it would stand in for the driver for
the rest of the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCENARIOS = HERE / "scenarios"
# A child that hangs (a deadlock in the library, say) fails its test instead of the whole run.
CHILD_TIMEOUT_S = 120


class MockBuildError(RuntimeError):
    """build.sh failed: no C compiler, or the source does not compile."""


def build_library(out_dir: Path) -> Path:
    """Build OUTDIR/libnvidia-ml.so.1 with tests/nvml_mock/build.sh; the folder holding it."""
    if shutil.which(os.environ.get("CC", "cc")) is None:
        raise MockBuildError("tests/nvml_mock needs a C compiler: install gcc (or set CC)")
    done = subprocess.run(
        ["bash", str(HERE / "build.sh"), str(out_dir)],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
    )
    if done.returncode != 0:
        raise MockBuildError(f"tests/nvml_mock/build.sh failed:\n{done.stdout}{done.stderr}")
    return out_dir


def load_scenario(name: str) -> dict[str, Any]:
    """A scenario file of tests/nvml_mock/scenarios/ as a dict (to change before use)."""
    return json.loads((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class MockNvml:
    """The built library and a folder for scenario files."""

    library_dir: Path
    work_dir: Path

    def scenario_file(self, scenario: dict[str, Any] | Path) -> Path:
        if isinstance(scenario, Path):
            return scenario
        path = self.work_dir / f"scenario-{uuid.uuid4().hex}.json"
        path.write_text(json.dumps(scenario), encoding="utf-8")
        return path

    def env(self, scenario: dict[str, Any] | Path, extra: dict[str, str] | None = None) -> dict[str, str]:
        """The environment of a process that sees `scenario` as its machine's GPUs."""
        env = {k: v for k, v in os.environ.items() if k not in ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")}
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            p for p in (str(self.library_dir), os.environ.get("LD_LIBRARY_PATH", "")) if p
        )
        env["MOCK_NVML_SCENARIO"] = str(self.scenario_file(scenario))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        return {**env, **(extra or {})}

    def run(
        self, scenario: dict[str, Any] | Path, argv: list[str], extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv,
            env=self.env(scenario, extra_env),
            cwd=self.work_dir,
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT_S,
        )

    def command(
        self, scenario: dict[str, Any] | Path, *args: str, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """`python -m gpu_advisor ARGS...` on the scenario's machine."""
        return self.run(scenario, [sys.executable, "-m", "gpu_advisor", *args], extra_env)

    def probe(
        self,
        scenario: dict[str, Any] | Path,
        name: str,
        extra_env: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Call probes.`name`(**kwargs) in a child on the scenario's machine; its JSON result."""
        done = self.run(
            scenario, [sys.executable, "-m", "tests.nvml_mock.probes", name, json.dumps(kwargs)], extra_env
        )
        if done.returncode != 0:
            raise AssertionError(f"probe {name} failed (exit {done.returncode}):\n{done.stderr}")
        return json.loads(done.stdout.strip().splitlines()[-1])
