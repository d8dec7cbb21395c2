"""What a GPU source over a vendor library (NVML, AMD SMI) does the same whatever the library: its
state under one lock, the context manager, closing, and the sample of a GPU that cannot be read.
The subclass opens the library, lists its devices and reads one; see nvml.NvmlSource."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import Any, Self

from gpu_advisor.telemetry.samples import GpuSample


class LibrarySource(ABC):
    """The shared half of NvmlSource and AmdSmiSource; `label` names the library in sentences.
    (Its devices are nvml.GpuInfo, typed Any here: nvml.py imports this module.)"""

    label = "the GPU library"

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._available = False
        self._reason: str | None = f"{self.label} not opened yet"
        self._devices: dict[int, Any] = {}
        self._infos: tuple[Any, ...] = ()  # GpuInfo: replaced, never mutated, read without the lock
        self._missing_functions: set[str] = set()

    @property
    def available(self) -> bool:
        """True after a successful open() and before close()."""
        return self._available

    @property
    def unavailable_reason(self) -> str | None:
        """Why the library cannot be used, in words for the user; None when it is available."""
        return None if self._available else self._reason

    @abstractmethod
    def open(self) -> bool:
        """Open the library and list its devices; False (with the reason kept) where it cannot."""

    @abstractmethod
    def _shut_down(self) -> None:
        """Release the library (the lock held, the source available). Never raises."""

    def close(self) -> None:
        """Shut the library down. Safe to call twice; never raises."""
        with self._lock:
            if not self._available:
                return
            self._shut_down()
            self._available = False
            self._reason = f"{self.label} closed"
            self._devices.clear()
            self._infos = ()

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def devices(self) -> list[Any]:
        """Static facts for every GPU the library reports (empty when it is unavailable)."""
        return list(self._infos)

    def _unreadable(self, index: int) -> tuple[Any, GpuSample | None]:
        """(the device of `index`, None), or (None, the sample saying why it cannot be read)."""
        device = self._devices.get(index)
        if not self._available or device is None:
            reason = self._reason if not self._available else f"no GPU with index {index}"
            return None, GpuSample(index=index, name=f"GPU {index}", error=reason)
        return device, None

    @abstractmethod
    def read(self, index: int) -> GpuSample:
        """One sample of GPU `index`, or a sample that says why it cannot be read."""

    def read_all(self) -> tuple[GpuSample, ...]:
        """Read every GPU, in index order."""
        with self._lock:
            indices = sorted(self._devices)
        return tuple(self.read(index) for index in indices)
