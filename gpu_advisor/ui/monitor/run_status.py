"""The time left of a run as the Monitor shows it: a countdown that never goes up. No Qt."""

from __future__ import annotations

import time
from collections.abc import Callable


class Countdown:
    """Time left from the runner's estimates, never growing.

    The runner's estimate (elapsed x remaining / done) rises whenever a workload turns out slower than
    the ones before it; a bar's "time left" that goes up reads as broken. The shown value is the lower
    of the new estimate and the previous value minus the time since, so it only counts down; when the
    run takes longer than that, it reads "finishing" instead of a wrong number.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._deadline: float | None = None  # clock time the run is shown to end at

    def reset(self) -> None:
        self._deadline = None

    def update(self, eta_s: float | None) -> float | None:
        """Feed the runner's latest estimate (None: unknown); returns the seconds to show, or None."""
        now = self._clock()
        if eta_s is not None:
            deadline = now + eta_s
            self._deadline = deadline if self._deadline is None else min(self._deadline, deadline)
        return self.left()

    def left(self) -> float | None:
        """Seconds left on the shown countdown (0 when past it), None before any estimate."""
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - self._clock())
