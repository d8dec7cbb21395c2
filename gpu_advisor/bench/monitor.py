"""Watch a user's own command: run it, sample its process tree and the GPUs while it runs, diagnose.

No torch and no Qt. GPU metrics are per device (NVML), not per process: other work on the same GPUs
shows up too. The process tree's memory is the RSS of the command and all its descendants (its
DataLoader workers included).

Results file `gpu-advisor/monitor@1`: schema, created, command, exit_code, duration_s, machine,
summary (telemetry.TelemetrySummary as data), diagnosis, telemetry {interval_s, samples}.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import psutil
from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

from gpu_advisor.bench.results import Machine, TelemetryRecord, VerdictRecord
from gpu_advisor.core.errors import UserInputError
from gpu_advisor.core.files import write_json_atomic
from gpu_advisor.telemetry import NvmlSource, RunEvidence, Sample, TelemetrySummary, diagnose, summarize
from gpu_advisor.telemetry.recording import Recording

MONITOR_SCHEMA = "gpu-advisor/monitor@1"
# After Ctrl-C (which the command receives too) or a stop request, how long the command gets to exit
# before it is terminated, and then killed.
GRACE_S = 10.0


class MonitorError(UserInputError):
    """The command could not be started; the message says why."""


class MonitorReport(BaseModel):
    """A watched command: what ran, how it ended, the machine's telemetry and its diagnosis."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, arbitrary_types_allowed=True
    )
    schema_id: Literal["gpu-advisor/monitor@1"] = Field(default=MONITOR_SCHEMA, alias="schema")
    created: str
    command: list[str]
    exit_code: int | None
    duration_s: float
    machine: Machine
    summary: TelemetrySummary
    diagnosis: list[VerdictRecord]
    telemetry: TelemetryRecord

    @field_validator("summary", mode="before")
    @classmethod
    def _summary_parse(cls, summary: Any) -> TelemetrySummary:
        if isinstance(summary, TelemetrySummary):
            return summary
        try:
            return TelemetrySummary.from_dict(summary)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"not a telemetry summary ({type(exc).__name__}: {exc})") from None

    @field_serializer("summary")
    def _summary_dump(self, summary: TelemetrySummary) -> dict[str, Any]:
        return summary.to_dict()

    def save(self, path: str | Path) -> None:
        """Write atomically (temporary file, then rename)."""
        write_json_atomic(path, self.model_dump(mode="json", by_alias=True))


def _wait(process: subprocess.Popen[bytes], stop: threading.Event) -> int:
    """Wait for the command; on a stop request or Ctrl-C give it GRACE_S to exit, then end it."""
    deadline: float | None = None
    while True:
        try:
            code = process.wait(timeout=0.1)
            return code
        except subprocess.TimeoutExpired:
            pass
        except KeyboardInterrupt:  # the command got the same SIGINT from the terminal
            deadline = deadline or time.monotonic() + GRACE_S
        if stop.is_set() and deadline is None:
            process.terminate()
            deadline = time.monotonic() + GRACE_S
        if deadline is not None and time.monotonic() > deadline:
            process.kill()
            return process.wait()


def run_monitor(
    command: Sequence[str],
    *,
    interval_s: float = 0.5,
    on_sample: Callable[[Sample], None] | None = None,
    stop: threading.Event | None = None,
    nvml: NvmlSource | None = None,
    cwd: str | Path | None = None,
) -> MonitorReport:
    """Run `command` (inheriting this terminal) in `cwd`, sample telemetry until it exits, and diagnose.

    Raises MonitorError when the command cannot be started. The command's exit code is in the report.
    Setting `stop` terminates the command (then kills it after GRACE_S).
    """
    if not command:
        raise MonitorError("command: give the command to run after --")
    stop = stop if stop is not None else threading.Event()
    with Recording(interval_s, nvml=nvml, on_sample=on_sample) as recording:
        machine = Machine.model_validate(recording.machine)
        started = time.monotonic()
        try:
            process = subprocess.Popen(list(command), cwd=cwd)
        except FileNotFoundError:
            if cwd is not None and not Path(cwd).is_dir():
                raise MonitorError(f"working folder: {cwd} does not exist") from None
            raise MonitorError(f"command: {command[0]!r} not found") from None
        except PermissionError:
            raise MonitorError(f"command: {command[0]!r} is not executable") from None
        except OSError as exc:
            raise MonitorError(f"command: {command[0]!r} cannot be started ({exc.strerror or exc})") from None
        recording.start(watch_pid=process.pid)
        try:
            exit_code = _wait(process, stop)
        finally:
            samples = recording.stop()
        duration = time.monotonic() - started
    summary = summarize(samples)
    device_kind = "cuda" if any(s.gpus for s in samples) else "cpu"
    verdicts = diagnose(
        RunEvidence(device_kind=device_kind, telemetry=summary, host_cpu_count=psutil.cpu_count(logical=True))
    )
    return MonitorReport(
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        command=list(command),
        exit_code=exit_code,
        duration_s=duration,
        machine=machine,
        summary=summary,
        diagnosis=[VerdictRecord.model_validate(v.to_dict()) for v in verdicts],
        telemetry=TelemetryRecord(interval_s=interval_s, samples=samples),
    )
