"""Poll for a condition instead of sleeping a fixed time (robust on a loaded 2-core machine)."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], bool], timeout_s: float = 5.0, poll_s: float = 0.01) -> bool:
    """Return True as soon as ``condition()`` holds, False after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(poll_s)
    return condition()
