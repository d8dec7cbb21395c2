"""Watch a user's own command: run it, sample its process tree and the GPUs while it runs, diagnose.

No torch and no Qt. GPU metrics are per device (NVML), not per process: other work on the same GPUs
shows up too. The process tree's memory is the RSS of the command and all its descendants (its
DataLoader workers included).

The command runs in its own session (its own process group), at this process's priority. Ctrl-C and
SIGTERM sent to the monitor are forwarded to the whole group; after `grace_s` whatever is left of the
group is killed, so no grandchild outlives the run, and the results are still written.

The command can report its own steps and epochs with `gpu_advisor.probe`: the monitor names a JSON-lines
events file in the environment variable probe.EVENTS_ENV and reads it while the command runs.

Results file `gpu-advisor/monitor@1`: schema, created, command, exit_code (negative: killed by that
signal), interrupted (SIGINT, SIGTERM or stop when the monitor ended the command), duration_s, machine,
summary (telemetry.TelemetrySummary as data), steps and epochs (from the probe; null and [] without
it), diagnosis, telemetry {interval_s, samples}, log (the file holding the command's output, if saved).
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import psutil
from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

from gpu_advisor.bench.probe_events import EpochRecord, Event, StepAggregate, StepsSummary
from gpu_advisor.bench.probe_tail import EventTail
from gpu_advisor.bench.results import Machine, TelemetryRecord, VerdictRecord
from gpu_advisor.core.errors import UserInputError
from gpu_advisor.core.files import write_json_atomic
from gpu_advisor.probe.events import EVENTS_ENV
from gpu_advisor.telemetry import GpuSource, RunEvidence, Sample, TelemetrySummary, diagnose, summarize
from gpu_advisor.telemetry.recording import Recording
from gpu_advisor.telemetry.sampler import DEFAULT_INTERVAL_S

MONITOR_SCHEMA = "gpu-advisor/monitor@1"
# After Ctrl-C, SIGTERM or a stop request, how long the command's process group gets to exit before it
# is killed.
GRACE_S = 10.0
POLL_S = 0.1
Interruption = Literal["SIGINT", "SIGTERM", "stop"]


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
    interrupted: Interruption | None = None
    duration_s: float
    machine: Machine
    summary: TelemetrySummary
    steps: StepsSummary | None = None
    epochs: list[EpochRecord] = Field(default_factory=list)
    diagnosis: list[VerdictRecord]
    telemetry: TelemetryRecord
    log: str | None = None

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


class _Signals:
    """SIGINT/SIGTERM received by the monitor while the command runs (handlers only on the main thread)."""

    def __init__(self) -> None:
        self.received: list[int] = []

    @contextmanager
    def installed(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, self._record) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _record(self, signum: int, _frame: object) -> None:
        self.received.append(signum)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed user: still there
        return True
    return True


def _signal_group(pgid: int, sig: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _wait(
    process: subprocess.Popen[bytes],
    stop: threading.Event,
    signals: _Signals,
    grace_s: float,
    poll: Callable[[], None],
) -> tuple[int, Interruption | None]:
    """Wait for the command. On a signal or a stop request, pass it to the command's whole process
    group, give the group `grace_s` to exit, then kill what is left of it."""
    pgid = process.pid  # start_new_session: the command leads its own group
    interrupted: Interruption | None = None
    deadline: float | None = None
    handled = 0
    code: int | None = None
    while True:
        poll()
        if code is None:
            with suppress(subprocess.TimeoutExpired):
                code = process.wait(timeout=POLL_S)
        else:
            time.sleep(POLL_S)
        if len(signals.received) > handled:
            sig = signals.received[handled]
            handled = len(signals.received)
            if interrupted is None:
                interrupted = "SIGINT" if sig == signal.SIGINT else "SIGTERM"
                _signal_group(pgid, sig)
                deadline = time.monotonic() + grace_s
            else:  # asked twice: no more grace
                deadline = time.monotonic()
        if stop.is_set() and interrupted is None:
            interrupted = "stop"
            _signal_group(pgid, signal.SIGTERM)
            deadline = time.monotonic() + grace_s
        if code is not None and (interrupted is None or not _group_alive(pgid)):
            return code, interrupted
        if deadline is not None and time.monotonic() >= deadline:
            _signal_group(pgid, signal.SIGKILL)
            return (code if code is not None else process.wait()), interrupted


def _start(
    command: Sequence[str], cwd: str | Path | None, env: dict[str, str], log
) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            list(command),
            cwd=cwd,
            env=env,
            start_new_session=True,
            stdout=log,
            stderr=subprocess.STDOUT if log is not None else None,
        )
    except FileNotFoundError:
        if cwd is not None and not Path(cwd).is_dir():
            raise MonitorError(f"working folder: {cwd} does not exist") from None
        raise MonitorError(f"command: {command[0]!r} not found") from None
    except PermissionError:
        raise MonitorError(f"command: {command[0]!r} is not executable") from None
    except OSError as exc:
        raise MonitorError(f"command: {command[0]!r} cannot be started ({exc.strerror or exc})") from None


def run_monitor(
    command: Sequence[str],
    *,
    interval_s: float = DEFAULT_INTERVAL_S,
    on_sample: Callable[[Sample], None] | None = None,
    on_events: Callable[[list[Event]], None] | None = None,
    stop: threading.Event | None = None,
    nvml: GpuSource | None = None,
    cwd: str | Path | None = None,
    log_path: str | Path | None = None,
    grace_s: float = GRACE_S,
) -> MonitorReport:
    """Run `command` in `cwd`, sample telemetry and read its probe events until it exits, and diagnose.

    The command's output goes to this terminal, or to `log_path` (stdout and stderr in one file) when
    given. `on_events` receives the probe events as they arrive (on this thread). Raises MonitorError
    when the command cannot be started. Setting `stop`, or SIGINT/SIGTERM to this process (when called
    on the main thread), ends the command's process group (killed after `grace_s`).
    """
    if not command:
        raise MonitorError("command: give the command to run after --")
    stop = stop if stop is not None else threading.Event()
    signals = _Signals()
    with (
        tempfile.TemporaryDirectory(prefix="gpu-advisor-monitor-") as scratch,
        Recording(interval_s, nvml=nvml, on_sample=on_sample) as recording,
        signals.installed(),
    ):
        events_path = Path(scratch) / "events.jsonl"
        tail = EventTail(events_path)

        def poll() -> None:
            new = tail.read(keep=on_events is not None)
            if new and on_events is not None:
                on_events(new)

        machine = Machine.model_validate(recording.machine)
        env = {**os.environ, EVENTS_ENV: str(events_path)}
        log = None if log_path is None else open(log_path, "wb")  # noqa: SIM115
        started = time.monotonic()
        try:
            process = _start(command, cwd, env, log)
            recording.start(watch_pid=process.pid)
            try:
                exit_code, interrupted = _wait(process, stop, signals, grace_s, poll)
            finally:
                samples = recording.stop()
        finally:
            if log is not None:
                log.close()
        duration = time.monotonic() - started
        tail.drain(on_events=on_events)
    return _report(
        command, machine, samples, tail.aggregate, exit_code, interrupted, duration, interval_s, log_path
    )


def _report(
    command: Sequence[str],
    machine: Machine,
    samples: list[Sample],
    events: StepAggregate,
    exit_code: int,
    interrupted: Interruption | None,
    duration: float,
    interval_s: float,
    log_path: str | Path | None,
) -> MonitorReport:
    summary = summarize(samples)
    steps = events.steps()
    device_kind = "cuda" if any(s.gpus for s in samples) else "cpu"
    timed = steps.step_time if steps is not None else None
    verdicts = diagnose(
        RunEvidence(
            # Means over the same steps, so their ratio is the loop's measured share spent waiting.
            step_time_s=None if timed is None else steps.total_s / timed.n,  # type: ignore[union-attr]
            input_wait_s=None if timed is None else steps.data_wait_s / timed.n,  # type: ignore[union-attr]
            device_kind=device_kind,
            telemetry=summary,
            host_cpu_count=psutil.cpu_count(logical=True),
        )
    )
    return MonitorReport(
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        command=list(command),
        exit_code=exit_code,
        interrupted=interrupted,
        duration_s=duration,
        machine=machine,
        summary=summary,
        steps=steps,
        epochs=events.epochs(),
        diagnosis=[VerdictRecord.model_validate(v.to_dict()) for v in verdicts],
        telemetry=TelemetryRecord(interval_s=interval_s, samples=samples),
        log=None if log_path is None else str(log_path),
    )
