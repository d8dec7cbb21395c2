"""What a Monitor run hands back: one of three typed results, told apart by type, not by attributes.

`BenchBackend.run` returns a `RunResult` (or None for a cluster run the user stopped). The reports
themselves are bench's models, imported only for type checking: the window opens without the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpu_advisor.bench.monitor import MonitorReport
    from gpu_advisor.bench.results import BenchReport, DeviceInfo, WorkloadResult


@dataclass(frozen=True, slots=True)
class _BenchFileRun:
    """A run whose report is a results file (bench@1): its device and its workloads' results."""

    report: BenchReport

    @property
    def device(self) -> DeviceInfo:
        return self.report.device

    @property
    def results(self) -> tuple[WorkloadResult, ...]:
        return tuple(self.report.results)


@dataclass(frozen=True, slots=True)
class BenchmarkRun(_BenchFileRun):
    """Built-in workloads on one device (bench@1)."""


@dataclass(frozen=True, slots=True)
class ClusterRun(_BenchFileRun):
    """Collectives, links and scaling over N processes (bench@1 with its `distributed` section)."""


@dataclass(frozen=True, slots=True)
class CommandRun:
    """The user's own command, watched (monitor@1)."""

    report: MonitorReport

    @property
    def device(self) -> None:
        """A watched command has no device of its own: it may use every GPU."""
        return None

    @property
    def results(self) -> tuple[WorkloadResult, ...]:
        return ()


RunResult = BenchmarkRun | ClusterRun | CommandRun
