"""Start a cluster run on this machine: torchrun with N processes, watched to the end. No torch here
(torchrun runs in its own process), so the app can call it from a worker thread.

    report = run_local(DistributedOptions(device="cpu"), nproc=2, json_path="cluster.json",
                       on_progress=..., on_ranks=..., stop=threading.Event())

What it starts: `python -m torch.distributed.run --standalone --nproc-per-node N --max-restarts 0
-m gpu_advisor bench --distributed ...`, in its own process group, with a run folder for the ranks'
events and failure notes (events.py) and torchrun's own output in `torchrun.log` there.

How it ends: with the report (rank 0 wrote it atomically); or DistributedRunFailed with one line: a
rank's own explanation when one left it, else torchrun's root cause (the rank and host that died and
the signal or exit code), else the last line of torchrun's log. The whole run is bounded by
`deadline_s`; setting `stop` ends it within a few seconds (SIGTERM to torchrun, which stops its
workers; SIGKILL after a grace period). The run folder (a temporary folder under `run_root`, by
default the system's) is removed on every path: success, failure, a killed rank, the deadline, a stop
or an exception in the caller's thread. After a failure torchrun's log is kept beside the results file
the caller asked for (`<results stem>.torchrun.log`, named in the message); without a results file
the message quotes the log's decisive line and nothing is kept.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpu_advisor.bench.distributed.errors import DistributedRunFailed
from gpu_advisor.bench.distributed.events import RUN_DIR_ENV, EventReader, read_failures
from gpu_advisor.bench.distributed.failures import parse_torchrun_root_cause, rendezvous_failure
from gpu_advisor.bench.distributed.lifeline import LAUNCHER_PID_ENV, die_with_parent
from gpu_advisor.bench.distributed.options import DistributedOptions
from gpu_advisor.bench.loading import load_report
from gpu_advisor.bench.options import ProgressEvent
from gpu_advisor.bench.results import BenchReport

LOG_FILE = "torchrun.log"
RESULTS_FILE = "results.json"
RUN_DIR_PREFIX = "gpu-advisor-dist-"
TORCHRUN_DIR = "torchelastic"  # torchrun's --log-dir, inside the run folder
GRACE_S = 5.0  # torchrun's time to stop its workers after SIGTERM before SIGKILL
FAILURE_GRACE_S = 2.0  # after a rank explained its failure, torchrun normally ends within a second
_POLL_S = 0.1
# Start-up (interpreters importing torch, the rendezvous) and the gathering at the end, on top of the
# measurement budgets; generous on a loaded machine.
STARTUP_ALLOWANCE_S = 60.0


def max_local_ranks() -> int:
    """The most ranks one machine runs: one per CPU core this process may use (each rank is a Python
    interpreter with PyTorch, 300-400 MB; 8 CPU ranks took 2.9 GB, and 100,000 were once accepted)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(2, cores)


def expected_duration_s(options: DistributedOptions) -> float:
    """A rough upper estimate of the measuring time, for the default deadline."""
    budget = options.budget_s()
    phases = {"collectives": 2 * len(options.ops) * budget, "p2p": 2 * budget, "scaling": 12 * budget}
    return sum(phases[p] for p in options.phases)


def default_deadline_s(options: DistributedOptions) -> float:
    return STARTUP_ALLOWANCE_S + 3 * expected_duration_s(options) + options.timeout_s


def torchrun_command(
    options: DistributedOptions,
    nproc: int,
    json_path: Path,
    python: str = sys.executable,
    log_dir: Path | None = None,
) -> list[str]:
    """torchrun's command line. `log_dir`: torchrun's own folder (else it makes a `torchelastic_*`
    temporary folder, which it leaves behind when a rank fails)."""
    return [
        python,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc-per-node={nproc}",
        "--max-restarts=0",
        "--monitor-interval=0.1",
        *([f"--log-dir={log_dir}"] if log_dir is not None else []),
        "-m",
        "gpu_advisor",
        "bench",
        "--distributed",
        *options.to_argv(),
        "--json",
        str(json_path),
    ]


def _thread_env(nproc: int) -> dict[str, str]:
    env = dict(os.environ)
    # torchrun sets 1 thread per worker when OMP_NUM_THREADS is unset; share the cores out instead, so
    # CPU ranks use the machine the way a data-parallel CPU job would.
    env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // nproc)))
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def run_local(
    options: DistributedOptions,
    nproc: int,
    *,
    json_path: str | Path | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    on_ranks: Callable[[list[dict[str, Any]]], None] | None = None,
    on_collective: Callable[[str, str, int, float], None] | None = None,
    stop: threading.Event | None = None,
    deadline_s: float | None = None,
    python: str = sys.executable,
    run_root: str | Path | None = None,
) -> BenchReport:
    """Run `nproc` ranks here under torchrun and return rank 0's report (module docstring).

    `on_collective(op, scope, bytes, bus bandwidth in bytes/s)`: each message size as rank 0 measures it.
    `run_root`: where the run's temporary folder is made (None: the system's temporary folder)."""
    if nproc < 2:
        raise DistributedRunFailed("--nproc: a cluster run needs at least 2 processes")
    if nproc > max_local_ranks():
        raise DistributedRunFailed(
            f"--nproc: at most {max_local_ranks()} processes here (one per CPU core); {nproc:,} asked"
        )
    stop = stop if stop is not None else threading.Event()
    deadline_s = default_deadline_s(options) if deadline_s is None else deadline_s
    asked = Path(json_path).expanduser().resolve() if json_path else None
    run_dir = Path(tempfile.mkdtemp(prefix=RUN_DIR_PREFIX, dir=run_root))
    try:
        results = asked if asked is not None else run_dir / RESULTS_FILE
        listeners = _Listeners(on_progress, on_ranks, on_collective)
        returncode, why_stopped = _watch(
            options, nproc, run_dir, results, listeners, stop, deadline_s, python, options.timeout_s
        )
        if returncode == 0 and why_stopped is None:
            return load_report(results)
        kept_log = _keep_log(run_dir, asked)
        raise DistributedRunFailed(_explain(run_dir, returncode, why_stopped, kept_log))
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def _watch(
    options: DistributedOptions,
    nproc: int,
    run_dir: Path,
    results: Path,
    listeners: _Listeners,
    stop: threading.Event,
    deadline_s: float,
    python: str,
    stalled_after_s: float,
) -> tuple[int | None, str | None]:
    """Start torchrun and watch it to its end: (its exit code, why the launcher stopped it or None)."""
    env = _thread_env(nproc)
    env[RUN_DIR_ENV] = str(run_dir)
    env[LAUNCHER_PID_ENV] = str(os.getpid())
    reader = EventReader(run_dir / "events.jsonl")
    with open(run_dir / LOG_FILE, "wb") as log:
        proc = subprocess.Popen(
            torchrun_command(options, nproc, results, python, log_dir=run_dir / TORCHRUN_DIR),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # its own process group: the whole tree can be signalled
            preexec_fn=die_with_parent(),  # and it dies with the launcher (lifeline module)
        )
    began = time.monotonic()
    why_stopped: str | None = None
    failure_seen_s: float | None = None
    agent = _Agent(proc.pid, stalled_after_s)
    try:
        while proc.poll() is None:
            _deliver(reader, listeners)
            now = time.monotonic()
            if failure_seen_s is None and read_failures(run_dir):
                failure_seen_s = now
            if stop.is_set() and why_stopped is None:
                why_stopped = "stopped by the user"
                _terminate(proc)
            elif now - began > deadline_s and why_stopped is None:
                why_stopped = f"the run did not finish within {deadline_s:,.0f} s"
                _terminate(proc)
            elif why_stopped is None and (stalled := agent.stalled(now)) is not None:
                why_stopped = stalled
                _terminate(proc)
            elif failure_seen_s is not None and now - failure_seen_s > FAILURE_GRACE_S:
                # A rank failed and explained why, but torchrun is still waiting for another one
                # (a frozen rank ignores SIGTERM for torchrun's 30 s grace): end them all now.
                _terminate(proc, grace_s=0.5)
            time.sleep(_POLL_S)
        _deliver(reader, listeners)
    except BaseException:  # KeyboardInterrupt in the CLI, a callback's bug: never leave ranks behind
        _terminate(proc)
        raise
    return proc.returncode, why_stopped


class _Agent:
    """Whether torchrun itself has stalled: stopped (SIGSTOP, a debugger) or still there once its ranks
    have all ended, for longer than the run's timeout. A stopped agent cannot reap its ranks or end, so
    without this the launcher waited until the whole run's deadline (past 150 s at --timeout 20)."""

    CHECK_S = 0.5

    def __init__(self, pid: int, stalled_after_s: float) -> None:
        self.pid = pid
        self.stalled_after_s = stalled_after_s
        self._since: float | None = None
        self._checked = 0.0
        self._had_ranks = False
        self._what = ""

    def stalled(self, now: float) -> str | None:
        """One line once the stall has lasted longer than `stalled_after_s`, else None."""
        if now - self._checked < self.CHECK_S:
            return None
        self._checked = now
        what = self._state()
        if what is None:
            self._since = None
            return None
        if self._since is None or what != self._what:
            self._since, self._what = now, what
        if now - self._since <= self.stalled_after_s:
            return None
        return f"torchrun (PID {self.pid}) {what} for over {self.stalled_after_s:g} s (the run's timeout)"

    def _state(self) -> str | None:
        import psutil

        try:
            agent = psutil.Process(self.pid)
            status = agent.status()
            ranks = [c for c in agent.children() if c.status() != psutil.STATUS_ZOMBIE]
        except psutil.Error:
            return None
        if status in (psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP):
            return "was stopped (SIGSTOP?)"
        self._had_ranks = self._had_ranks or bool(ranks)
        if self._had_ranks and not ranks:
            return "did not end after its ranks had"
        return None


def _keep_log(run_dir: Path, results: Path | None) -> Path | None:
    """Copy torchrun's log beside the results file the caller asked for; None where there is none
    (or it cannot be written: the message then quotes the log's decisive line only)."""
    if results is None:
        return None
    kept = results.with_name(f"{results.stem}.torchrun.log")
    try:
        shutil.copyfile(run_dir / LOG_FILE, kept)
    except OSError:
        return None
    return kept


@dataclass(frozen=True)
class _Listeners:
    """What the caller hears of the ranks' events (run_local's callbacks)."""

    on_progress: Callable[[ProgressEvent], None] | None
    on_ranks: Callable[[list[dict[str, Any]]], None] | None
    on_collective: Callable[[str, str, int, float], None] | None


def _deliver(reader: EventReader, listeners: _Listeners) -> None:
    for event in reader.poll():
        kind = event.get("kind")
        if kind == "progress" and listeners.on_progress is not None:
            listeners.on_progress(
                ProgressEvent(
                    workload=str(event.get("phase", "")),
                    fraction=float(event.get("fraction") or 0.0),
                    message=str(event.get("message", "")),
                    eta_s=event.get("eta_s"),
                )
            )
        elif kind == "ranks" and listeners.on_ranks is not None:
            listeners.on_ranks(list(event.get("ranks") or []))
        elif kind == "collective" and listeners.on_collective is not None:
            listeners.on_collective(
                str(event.get("op", "")),
                str(event.get("scope", "")),
                int(event.get("bytes") or 0),
                float(event.get("busbw_bytes_per_s") or 0.0),
            )


def _terminate(proc: subprocess.Popen[bytes], grace_s: float = GRACE_S) -> None:
    """SIGTERM torchrun (it stops its workers), then SIGKILL whatever of its tree is left after
    `grace_s`. torchrun starts each worker in a session of its own, so the workers are found by
    walking the process tree rather than signalled through torchrun's process group."""
    if proc.poll() is not None:
        return
    import psutil

    try:
        tree = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        tree = []
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        os.killpg(proc.pid, signal.SIGCONT)  # a stopped torchrun acts on the SIGTERM only once continued
        proc.wait(grace_s)
    except subprocess.TimeoutExpired:
        pass
    except ProcessLookupError:
        pass
    for p in tree:
        with contextlib.suppress(psutil.Error):
            p.kill()
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(grace_s)  # SIGKILL ends even a stopped process; bounded all the same


def _explain(
    run_dir: Path, returncode: int | None, why_stopped: str | None, kept_log: Path | None = None
) -> str:
    """One line: why the run ended, naming the rank and host where anything names them, and where
    torchrun's log was kept (`kept_log`), if it was."""
    log = _read_log(run_dir / LOG_FILE)
    where = f" (torchrun's log: {kept_log})" if kept_log is not None else ""
    if why_stopped is not None:
        return f"{why_stopped}{where}"
    failures = read_failures(run_dir)
    root = parse_torchrun_root_cause(log)
    if failures:
        # A failing rank's own words; prefer the rank torchrun saw fail first if it left any.
        rank = root.rank if root is not None and root.rank in failures else min(failures)
        return failures[rank]
    if root is not None:
        # --standalone names every host "localhost": this machine's name is more use.
        return f"{root.describe(socket.gethostname())}; torchrun stopped the other ranks{where}"
    rendezvous = rendezvous_failure(log)
    if rendezvous:
        return f"{rendezvous}{where}"
    last = next((line for line in reversed(log.splitlines()) if line.strip()), "no output")
    return f"torchrun ended with exit code {returncode}: {last.strip()}{where}"


def _read_log(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
