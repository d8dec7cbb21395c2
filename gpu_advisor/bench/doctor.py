"""Exercise every GPU-only path once, on the first machine with a GPU, and say what worked.

    report = run_doctor()            # NoGpu (one line) on a machine without a GPU
    write_doctor_report(report, path)

The paths no CPU machine reaches: the GPU library (NVML on NVIDIA, AMD SMI on AMD: power, temperature,
clocks, throttle reasons, NVIDIA's GPM counters and MIG mode), CUDA events around timed regions (HIP's
on a ROCm build of torch), torch.cuda.max_memory_allocated, pinned host-to-device
transfers, and the benchmark's figures against the catalogue and the planner: matmul TFLOP/s against
the catalogue peak, memory bandwidth, decode tokens/s, predicted against measured peak memory. The
benchmark part is the real `run_benchmark` on CUDA with short budgets (2 s per variant, meant to
stay under four minutes; not yet timed on a GPU), so what is checked is what `gpu-advisor bench`
runs. Each check is a row: ok, failed (with the error) or skipped (with why); one failing path never
stops the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from gpu_advisor import __version__
from gpu_advisor.bench.options import BenchOptions
from gpu_advisor.bench.results import BenchReport, WorkloadResult
from gpu_advisor.core.errors import UserInputError
from gpu_advisor.core.files import write_json_atomic
from gpu_advisor.telemetry import AutoGpuSource, GpuSource

DOCTOR_SCHEMA = "gpu-advisor/doctor@1"
# Timed seconds per benchmark variant: enough for a median on a GPU, short enough for the whole
# check to stay under four minutes.
VARIANT_BUDGET_S = 2.0

CheckStatus = Literal["ok", "failed", "skipped"]


class NoGpu(UserInputError):
    """This machine has no GPU that its GPU library and torch both see: nothing to check."""


@dataclass(frozen=True, slots=True)
class Check:
    """One GPU-only path: whether it worked, in words, and its figures (SI units named by the key)."""

    name: str
    status: CheckStatus
    detail: str
    figures: dict[str, float | str | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DoctorReport:
    created: str
    app_version: str
    gpu: str
    duration_s: float
    checks: tuple[Check, ...]
    library: str = "NVML"  # the GPU library that was read: "NVML" or "AMD SMI"

    @property
    def failed(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.status == "failed")

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "schema": DOCTOR_SCHEMA,
            "created": self.created,
            "app_version": self.app_version,
            "gpu": self.gpu,
            "library": self.library,
            "duration_s": self.duration_s,
            "checks": [asdict(c) for c in self.checks],
        }


def write_doctor_report(report: DoctorReport, path: str | Path) -> None:
    """The report as JSON, written atomically."""
    write_json_atomic(path, report.to_json_dict())


def _cuda_available() -> bool:
    """Whether torch can drive a GPU here (ROCm builds answer through torch.cuda too)."""
    try:
        import torch
    except ImportError:  # the benchmarks need torch; NoGpu's message says how to install it
        return False
    return bool(torch.cuda.is_available())


def _run_bench(options: BenchOptions) -> BenchReport:
    from gpu_advisor.bench.runner import run_benchmark

    return run_benchmark(options)


# What to do when the GPU library sees a GPU that torch cannot use, per library.
_TORCH_FIX = {
    "nvml": "a CPU build of torch, or CUDA_VISIBLE_DEVICES hides it): reinstall with ./install.sh on this machine",
    "amdsmi": (
        "a CPU or CUDA build of torch, or HIP_VISIBLE_DEVICES hides it): install PyTorch's ROCm build "
        "(README, AMD GPUs)"
    ),
}


def run_doctor(
    nvml: GpuSource | None = None,
    cuda_available: Callable[[], bool] = _cuda_available,
    bench: Callable[[BenchOptions], BenchReport] = _run_bench,
) -> DoctorReport:
    """Check every GPU-only path on GPU 0. NoGpu, before anything runs, where there is none.

    `nvml` (the GPU library: NVML, else AMD SMI when None), `cuda_available` and `bench` are the
    hardware boundary (tests pass a fake NVML or AMD SMI and a recorded benchmark)."""
    started = time.monotonic()
    nvml = nvml or AutoGpuSource()
    if not nvml.open():
        raise NoGpu(f"no GPU to check here ({nvml.unavailable_reason or 'no GPU library'})")
    library = nvml.label
    try:
        devices = nvml.devices()
        if not devices:
            raise NoGpu(f"no GPU to check here ({library} sees none)")
        if not cuda_available():
            fix = _TORCH_FIX.get(nvml.backend, _TORCH_FIX["nvml"])
            raise NoGpu(f"{library} sees {devices[0].name} but torch cannot use it ({fix}")
        checks = list(nvml_checks(nvml))
    finally:
        nvml.close()
    try:
        report = bench(BenchOptions(device="cuda:0", quick=True, duration_s=VARIANT_BUDGET_S))
    except Exception as exc:  # the whole benchmark failed: every check it carries failed with it
        checks.append(Check("benchmark on CUDA", "failed", f"{type(exc).__name__}: {exc}"))
    else:
        checks += bench_checks(report)
    return DoctorReport(
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        app_version=__version__,
        gpu=devices[0].name,
        duration_s=time.monotonic() - started,
        checks=tuple(checks),
        library=library,
    )


def nvml_checks(nvml: GpuSource) -> list[Check]:
    """What the GPU library (NVML or AMD SMI) reports for GPU 0: each metric read, or why not."""
    info = nvml.devices()[0]
    library = nvml.label
    sample = nvml.read(0)
    if sample.error:
        return [Check(f"{library} reading", "failed", sample.error)]
    checks = [
        _metric(f"{library} power", sample.power_w, "power_w", library),
        _metric(f"{library} temperature", sample.temperature_c, "temperature_c", library),
        _metric(f"{library} SM clock", sample.sm_clock_mhz, "sm_clock_mhz", library),
        _metric(f"{library} memory used", sample.memory_used_bytes, "memory_used_bytes", library),
    ]
    reasons = sample.clock_event_reasons
    if reasons is not None:
        checks.append(
            Check(
                "throttle reasons", "ok", ", ".join(reasons) or "none active", {"reasons": ", ".join(reasons)}
            )
        )
    elif nvml.backend == "amdsmi":
        checks.append(
            Check("throttle reasons", "skipped", "AMD SMI reports throttling causes on MI300 and newer only")
        )
    else:
        checks.append(Check("throttle reasons", "failed", f"{library} gave no clock event reasons"))
    if nvml.backend == "amdsmi":
        checks.append(Check("GPM metrics", "skipped", "GPM counters are NVIDIA's (Hopper and newer)"))
        checks.append(Check("MIG mode", "skipped", "MIG is NVIDIA's; AMD GPUs partition differently"))
        return checks
    gpm = (sample.gpm_sm_activity_pct, sample.gpm_dram_activity_pct, sample.gpm_tensor_activity_pct)
    # GPM needs a Hopper or newer GPU; the first reading has no interval yet, so read twice.
    if all(v is None for v in gpm) and not info.mig_mode:
        time.sleep(0.2)
        later = nvml.read(0)
        gpm = (later.gpm_sm_activity_pct, later.gpm_dram_activity_pct, later.gpm_tensor_activity_pct)
    if info.mig_mode:
        checks.append(
            Check("GPM metrics", "skipped", "MIG is enabled: GPM counters are per instance, not read")
        )
    elif all(v is None for v in gpm):
        checks.append(Check("GPM metrics", "skipped", "not supported on this GPU (Hopper or newer has them)"))
    else:
        figures = dict(zip(("sm_activity_pct", "dram_activity_pct", "tensor_activity_pct"), gpm, strict=True))
        checks.append(Check("GPM metrics", "ok", "SM, DRAM and tensor activity read", figures))
    if info.mig_mode is None:
        checks.append(Check("MIG mode", "skipped", "MIG is not available on this GPU"))
    else:
        checks.append(Check("MIG mode", "ok", "enabled" if info.mig_mode else "disabled"))
    return checks


def _metric(name: str, value: float | None, key: str, library: str) -> Check:
    if value is None:
        return Check(name, "failed", f"{library} gave no value")
    return Check(name, "ok", "read", {key: value})


def bench_checks(report: BenchReport) -> list[Check]:
    """The benchmark's GPU-only paths, one row each, from a CUDA run's results."""
    if report.device.kind != "cuda":
        return [Check("benchmark on CUDA", "failed", f"ran on {report.device.kind}, not on the GPU")]
    by_kind: dict[str, list[WorkloadResult]] = {}
    for result in report.results:
        by_kind.setdefault(result.workload, []).append(result)
    checks = [
        _against(
            "matmul TFLOP/s (CUDA events)", by_kind.get("matmul"), "flops_per_s", "catalogue_peak_flops_per_s"
        ),
        _against("memory bandwidth", by_kind.get("bandwidth"), "bytes_per_s", "catalogue_bytes_per_s"),
        _against(
            "pinned host-to-device transfer",
            by_kind.get("transfer"),
            "bytes_per_s",
            "catalogue_pcie_bytes_per_s",
        ),
        _decode(by_kind.get("inference")),
        _peak_memory(report.results),
    ]
    return checks


def _best_ok(results: list[WorkloadResult] | None, key: str) -> tuple[WorkloadResult | None, str | None]:
    if not results:
        return None, "did not run"
    done = [r for r in results if r.status == "ok" and r.number(key) is not None]
    if not done:
        first = results[0]
        return None, f"{first.status}: {first.error or '; '.join(first.notes) or 'no figure'}"
    return max(done, key=lambda r: r.number(key) or 0.0), None


def _against(name: str, results: list[WorkloadResult] | None, key: str, reference: str) -> Check:
    best, problem = _best_ok(results, key)
    if best is None:
        return Check(name, "failed", problem or "no result")
    measured, peak = best.number(key), best.number(reference)
    figures: dict[str, float | str | None] = {key: measured, reference: peak, "variant": best.name}
    if peak:
        figures["fraction_of_reference"] = measured / peak if measured is not None else None
    return Check(name, "ok", best.name, figures)


def _decode(results: list[WorkloadResult] | None) -> Check:
    best, problem = _best_ok(results, "decode_tokens_per_s")
    if best is None:
        return Check("decode tokens/s", "failed", problem or "no result")
    return Check(
        "decode tokens/s", "ok", best.name, {"decode_tokens_per_s": best.number("decode_tokens_per_s")}
    )


def _peak_memory(results: list[WorkloadResult]) -> Check:
    """torch.cuda.max_memory_allocated against the planner's prediction, for train and inference."""
    checked = [r for r in results if r.prediction is not None and r.prediction.peak_memory_bytes.measured]
    if not checked:
        return Check("peak memory, predicted against measured", "failed", "no workload measured its peak")
    worst = max(checked, key=lambda r: abs(r.prediction.peak_memory_bytes.error_pct or 0.0))  # type: ignore[union-attr]
    check = worst.prediction.peak_memory_bytes  # type: ignore[union-attr]
    figures = {
        "measured_bytes": check.measured,
        "predicted_bytes": check.predicted,
        "error_pct": check.error_pct,
        "variant": worst.name,
    }
    return Check("peak memory, predicted against measured", "ok", f"largest error: {worst.name}", figures)
