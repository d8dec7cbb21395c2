"""Record telemetry around a run: the one piece the benchmark runner and the command monitor share.

    with Recording(interval_s=0.5, on_sample=...) as rec:   # opens NVML, describes the machine
        rec.start(watch_pid=os.getpid())                     # samples in the background
        try:
            ...                                              # the run
        finally:
            samples = rec.stop()                             # never empty
    rec.machine                                              # describe_machine()'s dict

No torch, no Qt. A GPU source passed in (tests build one on a fake NVML) is opened but left open for
its owner; one made here (telemetry.gpu_source.AutoGpuSource: NVML, else AMD SMI) is closed on exit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpu_advisor.telemetry.gpu_source import AutoGpuSource, GpuSource
from gpu_advisor.telemetry.host import HostSource
from gpu_advisor.telemetry.machine import describe_machine
from gpu_advisor.telemetry.sampler import Sampler
from gpu_advisor.telemetry.samples import Sample


class Recording:
    """The GPU library opened once, the machine described once, a Sampler with the watched process's memory."""

    def __init__(
        self,
        interval_s: float,
        *,
        nvml: GpuSource | None = None,
        on_sample: Callable[[Sample], None] | None = None,
    ) -> None:
        self.interval_s = interval_s
        self._own_nvml = nvml is None
        self._nvml: GpuSource = nvml if nvml is not None else AutoGpuSource()
        self._on_sample = on_sample
        self._gpus: GpuSource | None = None  # the opened source, None when no GPU library is available
        self._sampler: Sampler | None = None
        self.machine: dict[str, Any] = {}

    def __enter__(self) -> Recording:
        nvml_ok = self._nvml.open()
        self._gpus = self._nvml if nvml_ok else None
        self.machine = describe_machine(self._nvml)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._sampler is not None and self._sampler.running:
            self._sampler.stop()
        if self._own_nvml:
            self._nvml.close()

    def start(self, watch_pid: int | None) -> None:
        """Start sampling the host, the process tree of `watch_pid` and every GPU the library sees."""
        self._sampler = Sampler(
            interval_s=self.interval_s,
            nvml=self._gpus,
            host=HostSource(watch_pid=watch_pid),
            on_sample=self._on_sample,
        )
        self._sampler.start()

    def snapshot(self) -> tuple[Sample, ...]:
        """The samples so far, oldest first (none before start())."""
        return () if self._sampler is None else self._sampler.snapshot()

    def stop(self) -> tuple[Sample, ...]:
        """Stop sampling; the samples, oldest first. A run shorter than one interval gets one sample
        taken now, so the machine's state is always on record."""
        sampler = self._sampler
        if sampler is None:
            raise RuntimeError("Recording.stop() before start()")
        sampler.stop()
        if sampler.latest() is None:
            sampler.sample_once()
        return sampler.snapshot()
