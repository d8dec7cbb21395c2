"""Tie a local cluster run's processes to the launcher's life (no torch).

`bench --nproc N` (launcher.run_local) starts torchrun, which starts the ranks, each in a session of
its own, so none of them dies with the launcher by itself. If the launcher is killed (kill -9, the OOM
killer), they would run on and rank 0 would replace the results file the user kept. So:

- torchrun gets the parent-death signal (Linux `prctl(PR_SET_PDEATHSIG, SIGTERM)`): when the launcher
  dies, the kernel sends it SIGTERM, and torchrun stops its workers;
- the launcher names its PID in LAUNCHER_PID_ENV; each rank watches it (`watch_launcher`) and ends
  itself when it is gone (the second line of defence: where prctl is missing, or torchrun is stuck),
  and rank 0 writes its results only while it lives (`launcher_alive`).

A rank started by hand (torchrun on a cluster, no launcher) has no LAUNCHER_PID_ENV: nothing applies.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable

LAUNCHER_PID_ENV = "GPU_ADVISOR_LAUNCHER_PID"
# How often a rank checks that the launcher lives, and how long it gives itself to stop on SIGTERM
# before it exits outright.
WATCH_S = 0.5
EXIT_GRACE_S = 5.0
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> Callable[[], None] | None:
    """A preexec_fn for Popen that has the child SIGTERMed when the thread that started it ends
    (Linux `prctl(PR_SET_PDEATHSIG)`; None elsewhere, where the ranks' own watch ends the run).
    libc is looked up here, in the parent: between fork and exec the child only calls it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    term = int(signal.SIGTERM)

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, term, 0, 0, 0)

    return preexec


def _launcher_pid() -> int | None:
    text = os.environ.get(LAUNCHER_PID_ENV, "")
    return int(text) if text.isdigit() else None


def launcher_alive() -> bool:
    """False once the launcher that started this run is gone; True without a launcher (run by hand)."""
    pid = _launcher_pid()
    if pid is None:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else (its PID was reused): treat as gone
        return False
    return True


def watch_launcher() -> threading.Thread | None:
    """Start a daemon thread that ends this process once the launcher is gone: SIGTERM to itself (the
    rank's usual clean stop), then exit after EXIT_GRACE_S. None without a launcher."""
    if _launcher_pid() is None:
        return None

    def watch() -> None:
        while launcher_alive():
            time.sleep(WATCH_S)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(EXIT_GRACE_S)
        os._exit(1)

    thread = threading.Thread(target=watch, name="gpu-advisor launcher watch", daemon=True)
    thread.start()
    return thread
