"""The background sampler: one daemon thread reads the sources at fixed deadlines into a ring buffer.

The thread wakes at ``start + k * interval_s``. If a reading overruns (a slow driver call, a loaded
machine) the missed deadlines are skipped, not made up in a burst, so samples stay evenly spaced.
It sleeps on a lock that :meth:`Sampler.stop` releases, so stop returns within one interval (a bare
lock's timed acquire is one C call; ``threading.Event.wait`` builds a Condition waiter each time,
about a third of an idle tick's CPU at 10 Hz on the development machine).
No Qt here: the GUI polls :meth:`Sampler.snapshot` or :meth:`Sampler.latest` from its own timer.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable

from gpu_advisor.telemetry.gpu_source import GpuSource
from gpu_advisor.telemetry.host import HostSource
from gpu_advisor.telemetry.samples import Sample

_log = logging.getLogger(__name__)

# 10 Hz is the fastest rate NVML's own counters refresh at usefully (power is averaged over ~1 s
# on many boards); slower than 10 s and a short benchmark gets too few samples to summarise.
MIN_INTERVAL_S = 0.1
MAX_INTERVAL_S = 10.0
DEFAULT_INTERVAL_S = 0.5
# One hour at the default interval; a sample with two GPUs is a few kilobytes at most.
DEFAULT_CAPACITY = 7200


def next_deadline(previous_deadline_s: float, now_s: float, interval_s: float) -> float:
    """Return the first deadline on the grid ``previous + k * interval`` (k >= 1) that is after ``now``.

    Deadlines already missed are skipped rather than run back to back.
    """
    deadline = previous_deadline_s + interval_s
    if deadline <= now_s:
        missed = int((now_s - deadline) // interval_s) + 1
        deadline += missed * interval_s
    return deadline


class Sampler:
    """Samples the host (always) and GPUs (if ``nvml`` is given) on a daemon thread.

    ``nvml``: an *opened* GPU source (NvmlSource, AmdSmiSource, AutoGpuSource), or None to sample no
    GPU. The caller owns it and closes it.
    ``host``: a HostSource; None creates a default one (no watched process).
    ``on_sample``: called on the sampler thread with each new Sample. Keep it short; an exception
    in it is recorded (:attr:`callback_error_count`, :attr:`last_callback_error`) and sampling
    goes on.
    ``clock``: monotonic seconds; tests may inject their own.
    """

    def __init__(
        self,
        interval_s: float = DEFAULT_INTERVAL_S,
        capacity: int = DEFAULT_CAPACITY,
        nvml: GpuSource | None = None,
        host: HostSource | None = None,
        on_sample: Callable[[Sample], None] | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not MIN_INTERVAL_S <= interval_s <= MAX_INTERVAL_S:
            raise ValueError(
                f"interval_s must be between {MIN_INTERVAL_S} and {MAX_INTERVAL_S} seconds, got {interval_s}"
            )
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1 sample, got {capacity}")
        self._interval_s = float(interval_s)
        self._nvml = nvml
        self._host = host if host is not None else HostSource()
        self._on_sample = on_sample
        self._clock = clock
        self._buffer: deque[Sample] = deque(maxlen=capacity)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._wake: threading.Lock | None = None  # held while running; stop() releases it
        self._thread: threading.Thread | None = None
        self._start_s = clock()
        self._missed_deadlines = 0
        self._callback_error_count = 0
        self._last_callback_error: BaseException | None = None
        self._sampling_error_count = 0
        self._last_sampling_error: BaseException | None = None

    # ---- properties ------------------------------------------------------------------------------

    @property
    def interval_s(self) -> float:
        """Seconds between deadlines."""
        return self._interval_s

    @property
    def capacity(self) -> int:
        """Most samples kept; older ones are dropped."""
        return self._buffer.maxlen or 0

    @property
    def running(self) -> bool:
        """True while the sampling thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def missed_deadlines(self) -> int:
        """Deadlines skipped because a reading overran."""
        return self._missed_deadlines

    @property
    def callback_error_count(self) -> int:
        """How many times ``on_sample`` raised."""
        return self._callback_error_count

    @property
    def last_callback_error(self) -> BaseException | None:
        """The latest exception raised by ``on_sample``."""
        return self._last_callback_error

    @property
    def sampling_error_count(self) -> int:
        """How many readings failed with an unexpected exception (the tick was skipped)."""
        return self._sampling_error_count

    @property
    def last_sampling_error(self) -> BaseException | None:
        """The latest unexpected exception raised while reading a source."""
        return self._last_sampling_error

    # ---- lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        """Start sampling on a daemon thread. Raises RuntimeError if already running."""
        if self.running:
            raise RuntimeError("sampler is already running")
        self._stop_event.clear()
        if self._thread is None:  # t_s counts from the first start, so a restart keeps it monotonic
            self._start_s = self._clock()
        wake = threading.Lock()
        wake.acquire()
        self._wake = wake
        self._thread = threading.Thread(target=self._run, args=(wake,), name="telemetry-sampler", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float | None = None) -> None:
        """Ask the thread to stop and wait for it (at most ``timeout_s``; default: a few intervals)."""
        self._stop_event.set()
        wake, self._wake = self._wake, None
        if wake is not None:
            with contextlib.suppress(RuntimeError):  # released already
                wake.release()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s if timeout_s is not None else max(5.0, 3 * self._interval_s))

    def __enter__(self) -> Sampler:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # ---- data ------------------------------------------------------------------------------------

    def snapshot(self) -> tuple[Sample, ...]:
        """All buffered samples, oldest first. Thread-safe; the tuple never changes afterwards."""
        with self._lock:
            return tuple(self._buffer)

    def latest(self) -> Sample | None:
        """The newest sample, or None before the first one."""
        with self._lock:
            return self._buffer[-1] if self._buffer else None

    def clear(self) -> None:
        """Drop every buffered sample (e.g. between two benchmark runs)."""
        with self._lock:
            self._buffer.clear()

    def sample_once(self) -> Sample:
        """Read every source now, store the sample and return it (also usable without the thread)."""
        host = self._host.read()
        gpus = self._nvml.read_all() if self._nvml is not None else ()
        sample = Sample(t_s=self._clock() - self._start_s, wall_time=time.time(), host=host, gpus=gpus)
        with self._lock:
            self._buffer.append(sample)
        return sample

    # ---- the thread ------------------------------------------------------------------------------

    def _run(self, wake: threading.Lock) -> None:
        deadline_s = self._clock()
        while not self._stop_event.is_set():
            self._tick()
            now_s = self._clock()
            following = next_deadline(deadline_s, now_s, self._interval_s)
            self._missed_deadlines += round((following - deadline_s) / self._interval_s) - 1
            deadline_s = following
            if wake.acquire(timeout=max(0.0, deadline_s - self._clock())):
                return  # stop() released it

    def _tick(self) -> None:
        try:
            sample = self.sample_once()
        except Exception as err:  # a source bug must not end telemetry for the whole run
            self._sampling_error_count += 1
            if self._last_sampling_error is None:
                _log.exception("telemetry sampling failed; later failures are counted, not logged")
            self._last_sampling_error = err
            return
        if self._on_sample is None:
            return
        try:
            self._on_sample(sample)
        except Exception as err:
            self._callback_error_count += 1
            if self._last_callback_error is None:
                _log.exception("telemetry on_sample callback failed; later failures are counted, not logged")
            self._last_callback_error = err
