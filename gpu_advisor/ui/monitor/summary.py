"""What the monitor's summary cards say about a run's results (no Qt): one place for the wording.

Results are `gpu_advisor.bench.results.WorkloadResult` objects; metric names follow the bench@1
contract (`tokens_per_s`, `flops_per_s`, `bytes_per_s`, `peak_memory_bytes`, timings `step_time_s`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpu_advisor.core.units import format_bytes, format_duration

# Headline rate of each workload: (metric key, scale, unit shown).
RATE_METRICS: tuple[tuple[str, float, str], ...] = (
    ("tokens_per_s", 1.0, "tokens/s"),
    ("decode_tokens_per_s", 1.0, "tokens/s"),
    ("samples_per_s", 1.0, "samples/s"),
    ("flops_per_s", 1e12, "TFLOP/s"),
    ("bytes_per_s", 1e9, "GB/s"),
)
SEVERITY_ORDER = {"critical": 3, "warning": 2, "info": 1, "ok": 0}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def headline_rate(result: Any) -> tuple[float, str] | None:
    """(value in the shown unit, unit) of the workload's main rate, if it has one."""
    for key, scale, unit in RATE_METRICS:
        value = _number(result.metrics.get(key))
        if value is not None:
            return value / scale, unit
    return None


def step_time_s(result: Any) -> float | None:
    for key in ("step_time_s", "decode_step_s", "copy_time_s"):
        spread = result.timings.get(key)
        if spread is not None:
            return spread.median
    return _number(result.metrics.get("step_time_s"))


def peak_memory_bytes(result: Any) -> float | None:
    value = _number(result.metrics.get("peak_memory_bytes"))
    if value is None and result.prediction is not None:
        value = result.prediction.peak_memory_bytes.measured
    return value


def measured_mfu(result: Any) -> float | None:
    """Model FLOPs utilisation measured by a training workload (0-1), if it reported one."""
    value = _number(result.metrics.get("mfu"))
    return value if value is not None and 0 < value <= 1 else None


def _rate(value: float) -> str:
    """1234.5 -> '1,234'; 10.73 -> '10.7'; 0.00213 -> '0.00213'."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.0f}%"


@dataclass(frozen=True, slots=True)
class Cards:
    """Texts for the four cards and the diagnosis box."""

    step_time: str = "—"
    step_detail: str = ""
    throughput: str = "—"
    throughput_detail: str = ""
    peak_memory: str = "—"
    memory_detail: str = ""
    prediction: str = "—"
    prediction_detail: str = ""
    diagnosis_title: str = ""
    diagnosis_detail: str = ""


def pick_result(results: Sequence[Any]) -> Any | None:
    """The result the cards describe: the latest training or inference run, else the latest finished."""
    ok = [r for r in results if r.status == "ok"]
    for workload in ("train", "inference"):
        matches = [r for r in ok if r.workload == workload]
        if matches:
            return matches[-1]
    return ok[-1] if ok else (results[-1] if results else None)


def cards_for(results: Sequence[Any]) -> Cards:
    """Card texts for the results so far."""
    result = pick_result(results)
    if result is None:
        return Cards()
    step = step_time_s(result)
    rate = headline_rate(result)
    peak = peak_memory_bytes(result)
    prediction, prediction_detail = "—", ""
    if result.prediction is not None:
        p = result.prediction
        st, mem = p.step_time_s, p.peak_memory_bytes
        prediction = f"time {_pct(st.error_pct)}, memory {_pct(mem.error_pct)}"
        prediction_detail = (
            f"step {format_duration(st.predicted)} predicted / {format_duration(st.measured)} measured; "
            f"memory {format_bytes(mem.predicted)} / {format_bytes(mem.measured)}"
        )
    verdicts = sorted(result.diagnosis, key=lambda v: SEVERITY_ORDER.get(v.severity, 0), reverse=True)
    title = detail = ""
    if verdicts:
        top = verdicts[0]
        title = top.title
        summary = top.evidence.get("summary", "")
        detail = f"{summary}. {top.fix}".strip(". ") if summary else top.fix
    mfu = measured_mfu(result)
    return Cards(
        step_time=format_duration(step),
        step_detail=f"{result.name}, median of {_steps(result)}",
        throughput="n/a" if rate is None else f"{_rate(rate[0])} {rate[1]}",
        throughput_detail="" if mfu is None else f"MFU {mfu:.1%}",
        peak_memory=format_bytes(peak),
        memory_detail="live tensors (CPU)" if result.config.get("device_kind") == "cpu" else "",
        prediction=prediction,
        prediction_detail=prediction_detail,
        diagnosis_title=title,
        diagnosis_detail=detail,
    )


def _steps(result: Any) -> str:
    counts = [s.n for s in result.timings.values()]
    return f"{max(counts)} steps" if counts else "the run"
