"""Which library reads this machine's GPUs: NVML for NVIDIA, AMD SMI for AMD, the first that finds one.

    gpus = AutoGpuSource()      # NvmlSource, then AmdSmiSource
    if gpus.open():              # never raises
        gpus.devices(), gpus.read_all(), gpus.label   # "NVML" or "AMD SMI"
    gpus.close()

Both backends give the same GpuInfo and GpuSample, so nothing above this module knows which vendor it
reads. No Qt, no torch.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

from gpu_advisor.telemetry.nvml import GpuInfo
from gpu_advisor.telemetry.samples import GpuSample


class GpuSource(Protocol):
    """What the sampler, the Monitor and the doctor need from a GPU library (NvmlSource, AmdSmiSource)."""

    # Read-only (properties): AutoGpuSource answers them from the backend it chose.
    @property
    def backend(self) -> str: ...  # "nvml" | "amdsmi"

    @property
    def label(self) -> str: ...  # the library's name for sentences: "NVML", "AMD SMI"

    @property
    def vendor(self) -> str: ...  # "NVIDIA", "AMD"

    @property
    def available(self) -> bool: ...

    @property
    def unavailable_reason(self) -> str | None: ...

    def open(self) -> bool: ...

    def close(self) -> None: ...

    def devices(self) -> list[GpuInfo]: ...

    def read(self, index: int) -> GpuSample: ...

    def read_all(self) -> tuple[GpuSample, ...]: ...

    def processes(self, index: int) -> list[tuple[int, int | None, float | None]]: ...


_LIBRARY_LABELS = {"nvml": "NVML", "amdsmi": "AMD SMI"}


def library_label(backend: str | None) -> str:
    """ "NVML" for "nvml", "AMD SMI" for "amdsmi" (GpuInfo.backend); NVML for records without one
    (results files written before AMD SMI was read)."""
    return _LIBRARY_LABELS.get(backend or "nvml", str(backend))


def default_sources() -> list[GpuSource]:
    """NVML first (the common case, and the cheaper library to load), then AMD SMI."""
    from gpu_advisor.telemetry.amd import AmdSmiSource
    from gpu_advisor.telemetry.nvml import NvmlSource

    return [NvmlSource(), AmdSmiSource()]


class AutoGpuSource:
    """The first of `sources` that opens and lists a GPU; it then answers every query.

    Where none lists a GPU, the first one that opened answers (a driver that sees no GPU), else none
    is available and :attr:`unavailable_reason` says why: NVML's reason, and AMD SMI's where the amdsmi
    package is installed (an absent optional package is not news on an NVIDIA or CPU machine).
    """

    def __init__(self, sources: Sequence[GpuSource] | None = None) -> None:
        self._sources = list(sources) if sources is not None else default_sources()
        self._chosen: GpuSource | None = None
        self._reason: str | None = "no GPU library opened yet"
        self._lock = threading.Lock()

    @property
    def chosen(self) -> GpuSource | None:
        """The backend in use after :meth:`open`; None when none is available."""
        return self._chosen

    @property
    def backend(self) -> str:
        return (self._chosen or self._sources[0]).backend

    @property
    def label(self) -> str:
        return (self._chosen or self._sources[0]).label

    @property
    def vendor(self) -> str:
        return (self._chosen or self._sources[0]).vendor

    @property
    def available(self) -> bool:
        return self._chosen is not None and self._chosen.available

    @property
    def unavailable_reason(self) -> str | None:
        return None if self.available else self._reason

    def open(self) -> bool:
        """Open the backends in order until one lists a GPU. Return whether any is available."""
        with self._lock:
            if self.available:
                return True
            fallback: GpuSource | None = None
            reasons: list[str] = []
            for source in self._sources:
                if not source.open():
                    if source.unavailable_reason and getattr(source, "installed", True):
                        reasons.append(source.unavailable_reason)
                    continue
                if source.devices():
                    if fallback is not None:
                        fallback.close()
                    self._chosen = source
                    return True
                if fallback is None:
                    fallback = source
                else:
                    source.close()
            self._chosen = fallback
            self._reason = "; ".join(reasons) or "no GPU library found"
            return fallback is not None

    def close(self) -> None:
        with self._lock:
            if self._chosen is not None:
                self._chosen.close()
            self._chosen = None
            self._reason = "GPU library closed"

    def __enter__(self) -> AutoGpuSource:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def devices(self) -> list[GpuInfo]:
        chosen = self._chosen
        return chosen.devices() if chosen is not None else []

    def read(self, index: int) -> GpuSample:
        chosen = self._chosen
        if chosen is None:
            return GpuSample(index=index, name=f"GPU {index}", error=self.unavailable_reason)
        return chosen.read(index)

    def read_all(self) -> tuple[GpuSample, ...]:
        chosen = self._chosen
        return chosen.read_all() if chosen is not None else ()

    def processes(self, index: int) -> list[tuple[int, int | None, float | None]]:
        chosen = self._chosen
        return chosen.processes(index) if chosen is not None else []
