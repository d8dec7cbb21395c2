"""Ring buffers of plot points, filled from worker threads and read by the GUI's redraw timer.

Preallocated numpy arrays: appending never allocates, and reading copies into the caller's
preallocated arrays, so the 15 Hz redraw makes no garbage. No Qt here.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence

import numpy as np

from gpu_advisor.telemetry.channels import CHANNEL_KEYS, CHANNELS
from gpu_advisor.telemetry.samples import Sample

# Channels of the telemetry plots, in order (telemetry.channels). GPU readings when a GPU is watched,
# the host's otherwise.
TELEMETRY_CHANNELS = CHANNEL_KEYS


class RingSeries:
    """`capacity` points of (t, value per channel); the oldest are overwritten."""

    def __init__(self, capacity: int, channels: int) -> None:
        if capacity < 2 or channels < 1:
            raise ValueError("capacity must be >= 2 and channels >= 1")
        self._t = np.full(capacity, np.nan)
        self._v = np.full((channels, capacity), np.nan)
        self._capacity = capacity
        self._next = 0
        self._count = 0
        self._total = 0
        self._version = 0  # changes on every append and clear: "is there something new to draw?"
        self._lock = threading.Lock()
        self._tag: object = None  # what the points are (e.g. which workload's rate), set by restart()

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def channels(self) -> int:
        return self._v.shape[0]

    @property
    def total_appended(self) -> int:
        """Points appended since creation or clear() (not capped by the capacity)."""
        return self._total

    @property
    def version(self) -> int:
        return self._version

    def __len__(self) -> int:
        return self._count

    def append(self, t_s: float, values: Sequence[float | None]) -> None:
        """Add one point; None becomes NaN (a gap in the plot)."""
        with self._lock:
            i = self._next
            self._t[i] = t_s
            for c, value in enumerate(values):
                self._v[c, i] = math.nan if value is None else value
            self._next = (i + 1) % self._capacity
            self._count = min(self._count + 1, self._capacity)
            self._total += 1
            self._version += 1

    @property
    def tag(self) -> object:
        return self._tag

    def restart(self, tag: object) -> None:
        """Clear and name what the next points are (a new workload's rate: a new unit)."""
        with self._lock:
            self._tag = tag
        self.clear()

    def clear(self) -> None:
        with self._lock:
            self._next = self._count = self._total = 0
            self._version += 1
            self._t.fill(np.nan)
            self._v.fill(np.nan)

    def read_into(self, t_out: np.ndarray, v_out: np.ndarray) -> int:
        """Copy the points, oldest first, into preallocated arrays; returns how many were copied."""
        with self._lock:
            n = self._count
            start = (self._next - n) % self._capacity
            first = min(n, self._capacity - start)
            t_out[:first] = self._t[start : start + first]
            v_out[:, :first] = self._v[:, start : start + first]
            rest = n - first
            if rest:
                t_out[first:n] = self._t[:rest]
                v_out[:, first:n] = self._v[:, :rest]
            return n

    def latest(self) -> tuple[float, np.ndarray] | None:
        """The newest point (t, values copy), or None."""
        with self._lock:
            if not self._count:
                return None
            i = (self._next - 1) % self._capacity
            return float(self._t[i]), self._v[:, i].copy()


def telemetry_values(sample: Sample, nvml_index: int | None) -> tuple[float | None, ...]:
    """One sample as TELEMETRY_CHANNELS: the watched GPU's readings (by NVML index), or the host's."""
    if nvml_index is not None:
        gpu = next((g for g in sample.gpus if g.index == nvml_index), None)
        if gpu is None or gpu.error:
            return (None,) * len(CHANNELS)
        return tuple(c.gpu_value(gpu) for c in CHANNELS)
    return tuple(c.host_value(sample.host) for c in CHANNELS)
