"""'My command': run the user's command, sample the machine while it runs, and diagnose it.

Runs on the monitor's worker thread. Stop terminates the command (then kills it after a grace
period). The result is an immutable CommandReport; telemetry comes from gpu_advisor.telemetry.
"""

from __future__ import annotations

import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gpu_advisor.telemetry.diagnosis import RunEvidence, Verdict, diagnose
from gpu_advisor.telemetry.host import HostSource
from gpu_advisor.telemetry.nvml import NvmlSource
from gpu_advisor.telemetry.sampler import Sampler
from gpu_advisor.telemetry.samples import Sample
from gpu_advisor.telemetry.stats import TelemetrySummary, summarize

if TYPE_CHECKING:
    from collections.abc import Callable

    from gpu_advisor.ui.monitor.backend import MonitorRequest
    from gpu_advisor.ui.workers import RunContext

POLL_S = 0.1  # how often the stop flag and the process are checked
TERMINATE_GRACE_S = 3.0  # SIGTERM first; SIGKILL if the command has not exited by then


@dataclass(frozen=True, slots=True)
class CommandProgress:
    """Progress of a watched command (no fraction: its length is unknown)."""

    elapsed_s: float
    message: str


@dataclass(frozen=True, slots=True)
class CommandReport:
    command: str
    working_dir: str
    exit_code: int | None  # None when stopped by the user
    duration_s: float
    samples: tuple[Sample, ...]
    summary: TelemetrySummary
    verdicts: tuple[Verdict, ...]
    stopped: bool


def parse_command(command: str, working_dir: str) -> tuple[list[str], Path | None]:
    """The argument list and folder; ValueError with a message for the user."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"command: {exc}") from None
    if not argv:
        raise ValueError("command: enter the command to run, e.g. python train.py")
    folder = Path(working_dir).expanduser() if working_dir.strip() else None
    if folder is not None and not folder.is_dir():
        raise ValueError(f"working folder: {folder} is not a folder")
    return argv, folder


def run_command(
    request: MonitorRequest, context: RunContext, on_sample: Callable[[Sample], None]
) -> CommandReport:
    argv, folder = parse_command(request.command, request.working_dir)
    nvml = NvmlSource(read_pcie=False) if request.device.gpu_index is not None else None
    if nvml is not None and not nvml.open():
        nvml = None
    started = time.monotonic()
    try:
        process = subprocess.Popen(argv, cwd=folder, stdin=subprocess.DEVNULL)
    except OSError as exc:
        if nvml is not None:
            nvml.close()
        raise ValueError(f"command: cannot start {argv[0]!r} ({exc.strerror or exc})") from None
    sampler = Sampler(
        interval_s=max(0.1, request.interval_s),
        nvml=nvml,
        host=HostSource(watch_pid=process.pid),
        on_sample=on_sample,
    )
    sampler.start()
    stopped = False
    try:
        while process.poll() is None:
            if context.stop.wait(POLL_S):
                stopped = True
                process.terminate()
                try:
                    process.wait(TERMINATE_GRACE_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
                break
            elapsed = time.monotonic() - started
            context.report_progress(CommandProgress(elapsed, f"{argv[0]} running, pid {process.pid}"))
    finally:
        sampler.stop()
        if nvml is not None:
            nvml.close()
    samples = sampler.snapshot()
    summary = summarize(samples)
    evidence = RunEvidence(
        device_kind="cpu" if request.device.gpu_index is None else "cuda",
        telemetry=summary,
        host_cpu_count=None,
    )
    return CommandReport(
        command=request.command,
        working_dir=str(folder or Path.cwd()),
        exit_code=None if stopped else process.returncode,
        duration_s=time.monotonic() - started,
        samples=samples,
        summary=summary,
        verdicts=tuple(diagnose(evidence)),
        stopped=stopped,
    )
