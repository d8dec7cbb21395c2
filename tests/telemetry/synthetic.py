"""Build synthetic telemetry for stats and diagnosis tests."""

from __future__ import annotations

from collections.abc import Sequence

from gpu_advisor.telemetry import GpuSample, HostSample, Sample


def gpu_samples(
    *,
    gpu_util_pct: Sequence[float | None] = (),
    reasons: Sequence[tuple[str, ...] | None] = (),
    dram_pct: Sequence[float | None] = (),
    temperature_c: Sequence[float | None] = (),
    host_cpu_pct: Sequence[float | None] = (),
    index: int = 0,
    name: str = "NVIDIA H100 80GB HBM3",
) -> list[Sample]:
    """One Sample per position; shorter sequences are padded with None, 0.5 s apart."""
    count = max(len(gpu_util_pct), len(reasons), len(dram_pct), len(temperature_c), len(host_cpu_pct), 1)

    def at(values: Sequence, i: int):
        return values[i] if i < len(values) else None

    return [
        Sample(
            t_s=0.5 * i,
            wall_time=1_700_000_000.0 + 0.5 * i,
            host=HostSample(cpu_pct=at(host_cpu_pct, i)),
            gpus=(
                GpuSample(
                    index=index,
                    name=name,
                    gpu_util_pct=at(gpu_util_pct, i),
                    clock_event_reasons=at(reasons, i),
                    gpm_dram_activity_pct=at(dram_pct, i),
                    temperature_c=at(temperature_c, i),
                ),
            ),
        )
        for i in range(count)
    ]
