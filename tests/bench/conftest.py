"""Shared fixtures: one toy run of every workload on the CPU (about 5 s), reused by many tests."""

from __future__ import annotations

import pytest

from gpu_advisor.bench import BenchOptions, BenchReport, run_benchmark


@pytest.fixture(scope="session")
def toy_report() -> BenchReport:
    """Every workload at toy size on the CPU, with telemetry every 0.1 s."""
    return run_benchmark(BenchOptions.toy_run())
