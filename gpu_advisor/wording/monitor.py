"""How a benchmark run in progress reads: the Monitor tab's cards (a watched command: wording.command).

The figures are worded by `wording.results` (the same functions the CLI table and the report use), so a
card and a report never disagree. No Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpu_advisor.bench.results import WorkloadResult
from gpu_advisor.core.units import (
    NA,
    format_bytes,
    format_duration,
    format_error_pct,
)
from gpu_advisor.wording.results import (
    memory_meaning,
    metric_text,
    peak_memory_bytes,
    primary_verdict,
    value_text,
    verdict_detail,
)

EMPTY = "—"
# The metric that says how fast each kind of workload ran, in order of preference.
HEADLINE_KEYS = ("tokens_per_s", "decode_tokens_per_s", "samples_per_s", "flops_per_s", "bytes_per_s")


def headline_key(result: WorkloadResult) -> str | None:
    """The metric that says how fast the workload ran (one of HEADLINE_KEYS), if it reported one."""
    return next((key for key in HEADLINE_KEYS if result.number(key) is not None), None)


def measured_mfu(result: WorkloadResult) -> float | None:
    """Model FLOPs utilisation measured by a training workload (0-1), if it reported one."""
    value = result.number("mfu")
    return value if value is not None and 0 < value <= 1 else None


def pick_result(results: Sequence[WorkloadResult]) -> WorkloadResult | None:
    """The result the cards describe: the latest training or inference run, else the latest finished."""
    ok = [r for r in results if r.status == "ok"]
    for workload in ("train", "inference"):
        matches = [r for r in ok if r.workload == workload]
        if matches:
            return matches[-1]
    return ok[-1] if ok else (results[-1] if results else None)


@dataclass(frozen=True, slots=True)
class Cards:
    """Texts for the four cards and the diagnosis box."""

    step_time: str = EMPTY
    step_detail: str = ""
    throughput: str = EMPTY
    throughput_detail: str = ""
    peak_memory: str = EMPTY
    memory_detail: str = ""
    prediction: str = EMPTY
    prediction_detail: str = ""
    diagnosis_title: str = ""
    diagnosis_detail: str = ""


def cards_for(results: Sequence[WorkloadResult], device_kind: str) -> Cards:
    """Card texts for the results so far of a run on a `device_kind` ('cpu' or 'cuda') device."""
    result = pick_result(results)
    if result is None:
        return Cards()
    step = result.step
    key = headline_key(result)
    prediction, prediction_detail = EMPTY, ""
    if result.prediction is not None:
        st, mem = result.prediction.step_time_s, result.prediction.peak_memory_bytes
        # Memory leads: it carries over to any device. A CPU's step time says nothing of a GPU's.
        prediction = f"memory {format_error_pct(mem.error_pct)}"
        memory_words = f"{format_bytes(mem.predicted)} predicted, {format_bytes(mem.measured)} measured"
        if device_kind == "cpu":
            step_words = f"step time {format_error_pct(st.error_pct)} (CPU: not meaningful for a GPU plan)"
        else:
            prediction += f", time {format_error_pct(st.error_pct)}"
            step_words = (
                f"step {format_duration(st.predicted)} predicted, {format_duration(st.measured)} measured"
            )
        prediction_detail = f"{memory_words}; {step_words}"
    top = primary_verdict(result.diagnosis)
    mfu = measured_mfu(result)
    return Cards(
        step_time=format_duration(None if step is None else step.median),
        step_detail=f"{result.name}, median of {step.n} steps" if step else result.name,
        throughput=NA if key is None else value_text(key, result.metrics[key]),
        throughput_detail="" if mfu is None else str(metric_text("mfu", mfu)),
        peak_memory=format_bytes(peak_memory_bytes(result)),
        memory_detail=memory_meaning(device_kind),
        prediction=prediction,
        prediction_detail=prediction_detail,
        diagnosis_title="" if top is None else top.title,
        diagnosis_detail="" if top is None else verdict_detail(top),
    )
