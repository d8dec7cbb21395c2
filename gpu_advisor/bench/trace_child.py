"""The trace in a child process with a deadline (no torch in this process).

A trace builds the real architecture with transformers; a config within every bound can still take
minutes (a 1,000-layer model: 160 s on two cores) and gigabytes, and the user's config decides. So
`plan` and the app run it here: `python -m gpu_advisor.bench.trace_child` reads the request and the
config.json as one JSON object on stdin, writes progress lines and then the gpu-advisor/trace@1 result
(or a one-line refusal) as JSON lines on stdout. The parent waits at most `deadline_s`, then ends the
child's whole process group; the child also dies with its parent (PR_SET_PDEATHSIG).

    result = trace_in_child(request, config, deadline_s=60, on_progress=print)   # TraceResult
    # TraceFailed (one line) when the trace cannot run, failed, or ran past its deadline
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from gpu_advisor.bench.distributed.lifeline import die_with_parent
from gpu_advisor.core.errors import UserInputError
from gpu_advisor.core.files import MAX_JSON_BYTES, FileFormatError, parse_json
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.trace import TraceResult

# The automatic trace's deadline: a Llama 70B traces in 7-9 s and a 1,000-layer model in 160 s on two
# loaded cores; past a minute the formulas answer instead.
# GPU_ADVISOR_TRACE_TIMEOUT_S changes it (1 to 3600 s).
TRACE_DEADLINE_S = 60.0
TRACE_DEADLINE_ENV = "GPU_ADVISOR_TRACE_TIMEOUT_S"
_KILL_GRACE_S = 2.0
_MAX_LINE_BYTES = 64 * 2**20  # a result with every module named is a few hundred KB


def trace_deadline_s() -> float:
    """The trace deadline: GPU_ADVISOR_TRACE_TIMEOUT_S where it is a number of seconds in 1-3600."""
    try:
        value = float(os.environ.get(TRACE_DEADLINE_ENV, ""))
    except ValueError:
        return TRACE_DEADLINE_S
    return value if 1 <= value <= 3600 else TRACE_DEADLINE_S


class TraceFailed(UserInputError):
    """The trace did not give a result: it cannot run here, failed, or ran past its deadline."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


def trace_in_child(
    request: PlanRequest,
    config: dict[str, Any] | None,
    *,
    deadline_s: float | None = None,
    on_progress: Callable[[str], None] | None = None,
    stop: threading.Event | None = None,
    python: str = sys.executable,
) -> TraceResult:
    """Trace `request`'s model (its config.json, else one made from its shape) in a child process;
    at most `deadline_s` (None: trace_deadline_s()) or until `stop` is set. TraceFailed with one line
    otherwise."""
    deadline_s = trace_deadline_s() if deadline_s is None else deadline_s
    payload = json.dumps(
        {"request": request.model_copy(update={"trace": None}).model_dump(mode="json"), "config": config},
        allow_nan=False,
    )
    proc = subprocess.Popen(
        [python, "-m", "gpu_advisor.bench.trace_child"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group: whatever it starts ends with it
        preexec_fn=die_with_parent(),
    )
    lines: queue.Queue[bytes | None] = queue.Queue()
    errors: deque[str] = deque(maxlen=20)
    threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
    threading.Thread(target=_keep_tail, args=(proc.stderr, errors), daemon=True).start()
    try:
        assert proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.write(payload.encode())
            proc.stdin.close()
        return _await(proc, lines, errors, deadline_s, on_progress, stop)
    finally:
        _end(proc)


def _await(
    proc: subprocess.Popen[bytes],
    lines: queue.Queue[bytes | None],
    errors: deque[str],
    deadline_s: float,
    on_progress: Callable[[str], None] | None,
    stop: threading.Event | None,
) -> TraceResult:
    ends = time.monotonic() + deadline_s
    while True:
        if stop is not None and stop.is_set():
            raise TraceFailed("the trace was stopped")
        left = ends - time.monotonic()
        if left <= 0:
            raise TraceFailed(f"the trace did not finish within {deadline_s:g} s", timed_out=True)
        try:
            line = lines.get(timeout=min(left, 0.2))
        except queue.Empty:
            continue
        if line is None:  # the child closed its output without a result: it died
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(_KILL_GRACE_S)
            why = errors[-1] if errors else f"exit code {proc.returncode}"
            raise TraceFailed(f"the trace process ended without a result ({why})")
        try:
            message = parse_json(line.decode("utf-8", errors="replace"), "the trace process")
        except FileFormatError:
            continue  # not ours (a library printing to stdout)
        if not isinstance(message, dict):
            continue
        if "progress" in message and on_progress is not None:
            on_progress(str(message["progress"])[:200])
        elif "error" in message:
            raise TraceFailed(str(message["error"]).splitlines()[0][:1000])
        elif "result" in message and isinstance(message["result"], dict):
            data = {k: v for k, v in message["result"].items() if k != "schema"}
            return TraceResult.model_validate(data)


def _pump(stream: Any, lines: queue.Queue[bytes | None]) -> None:
    with contextlib.suppress(OSError, ValueError):
        for line in iter(lambda: stream.readline(_MAX_LINE_BYTES), b""):
            lines.put(line)
    lines.put(None)


def _keep_tail(stream: Any, tail: deque[str]) -> None:
    with contextlib.suppress(OSError, ValueError):
        for line in iter(lambda: stream.readline(4096), b""):
            text = line.decode("utf-8", errors="replace").strip()
            if text:
                tail.append(text[:300])


def _end(proc: subprocess.Popen[bytes]) -> None:
    """End the child's process group; every wait bounded."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(_KILL_GRACE_S)
    for stream in (proc.stdout, proc.stderr):
        with contextlib.suppress(OSError):
            if stream is not None:
                stream.close()


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message, allow_nan=False) + "\n")
    sys.stdout.flush()


def main() -> int:
    """The child: request and config on stdin, JSON lines on stdout (module docstring)."""
    try:
        given = parse_json(sys.stdin.read(MAX_JSON_BYTES), "trace request")
        request = PlanRequest.model_validate(given["request"])
        try:
            from gpu_advisor.bench.trace import TraceSetup, trace_memory
        except ImportError as exc:  # torch itself missing (a bundle built without it)
            _send({"error": f"the trace needs PyTorch ({exc})"})
            return 2

        setup = TraceSetup.from_request(request, config=given.get("config"))
        result = trace_memory(setup, on_progress=lambda m: _send({"progress": m}))
    except UserInputError as exc:  # TraceUnavailable included: the message is the user's line
        _send({"error": str(exc)})
        return 2
    except Exception as exc:  # transformers' own errors for a config it cannot build
        first = str(exc).splitlines()[0] if str(exc) else ""
        _send({"error": f"the trace failed ({type(exc).__name__}: {first})"})
        return 1
    _send({"result": result.to_json_dict()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
