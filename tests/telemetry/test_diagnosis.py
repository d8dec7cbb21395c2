"""Diagnosis rules on synthetic evidence: the verdict a user reads after a benchmark."""

from __future__ import annotations

import pytest

from gpu_advisor.telemetry import (
    COMPUTE_BOUND,
    GPU_LOST,
    HOST_CPU_SATURATED,
    IDLE_GPU,
    INPUT_BOUND,
    INSUFFICIENT_EVIDENCE,
    LATENCY_BOUND,
    MEMORY_BOUND,
    MEMORY_NEARLY_FULL,
    NO_CLEAR_BOTTLENECK,
    THROTTLED,
    RunEvidence,
    Verdict,
    diagnose,
    primary,
    summarize,
)
from tests.telemetry.synthetic import gpu_samples

H100_PEAK_FLOPS = 989e12  # dense BF16, datasheet
H100_PEAK_BYTES = 3.35e12  # HBM3, datasheet


def kinds(verdicts: list[Verdict]) -> list[str]:
    return [v.kind for v in verdicts]


def only(verdicts: list[Verdict], kind: str) -> Verdict:
    matching = [v for v in verdicts if v.kind == kind]
    assert len(matching) == 1, kinds(verdicts)
    return matching[0]


# ---- input-bound and its 10 % / 20 % boundaries ----------------------------------------------------------


@pytest.mark.parametrize(
    ("input_wait_s", "severity"),
    [(0.099, None), (0.10, "warning"), (0.199, "warning"), (0.20, "critical"), (0.6, "critical")],
)
def test_input_bound_thresholds(input_wait_s: float, severity: str | None) -> None:
    verdicts = diagnose(RunEvidence(step_time_s=1.0, input_wait_s=input_wait_s))
    found = [v for v in verdicts if v.kind == INPUT_BOUND]
    if severity is None:
        assert found == []
    else:
        assert [v.severity for v in found] == [severity]


def test_input_bound_evidence_reads_well_and_fix_names_dataloader_settings() -> None:
    verdict = only(
        diagnose(RunEvidence(step_time_s=0.167, input_wait_s=0.052, host_cpu_count=8)), INPUT_BOUND
    )
    assert verdict.evidence["summary"] == "input wait 31% of step time (52.0 ms of 167.0 ms)"
    assert verdict.evidence["input_wait_fraction"] == pytest.approx(0.052 / 0.167)
    assert verdict.severity == "critical"
    assert "num_workers" in verdict.fix and "pin_memory" in verdict.fix and "8 logical CPUs" in verdict.fix


def test_input_bound_critical_is_primary_over_compute_bound() -> None:
    evidence = RunEvidence(
        step_time_s=1.0,
        input_wait_s=0.3,
        achieved_flops_per_s=0.6 * H100_PEAK_FLOPS,
        peak_flops_per_s=H100_PEAK_FLOPS,
    )
    verdicts = diagnose(evidence)
    assert set(kinds(verdicts)) == {INPUT_BOUND, COMPUTE_BOUND}
    assert primary(verdicts).kind == INPUT_BOUND  # type: ignore[union-attr]
    assert verdicts[0].kind == INPUT_BOUND  # most severe first


# ---- compute- and memory-bound ---------------------------------------------------------------------


def test_compute_bound_from_flops() -> None:
    evidence = RunEvidence(achieved_flops_per_s=600e12, peak_flops_per_s=H100_PEAK_FLOPS)
    verdict = only(diagnose(evidence), COMPUTE_BOUND)
    assert verdict.severity == "ok"
    assert verdict.evidence["summary"] == "arithmetic at 61% of peak (600 TFLOP/s of 989 TFLOP/s)"


def test_compute_bound_from_busy_gpu_when_flops_unknown() -> None:
    telemetry = summarize(gpu_samples(gpu_util_pct=[97, 98, 99, None]))
    verdict = only(diagnose(RunEvidence(telemetry=telemetry)), COMPUTE_BOUND)
    assert verdict.evidence["gpu_util_mean_pct"] == pytest.approx(98.0)
    assert "98%" in str(verdict.evidence["summary"])


def test_memory_bound_from_bandwidth_with_low_flops() -> None:
    evidence = RunEvidence(
        achieved_flops_per_s=0.2 * H100_PEAK_FLOPS,
        peak_flops_per_s=H100_PEAK_FLOPS,
        achieved_bytes_per_s=2.5e12,
        peak_bytes_per_s=H100_PEAK_BYTES,
        telemetry=summarize(gpu_samples(gpu_util_pct=[99, 99])),  # busy GPU, but waiting on DRAM
    )
    verdicts = diagnose(evidence)
    verdict = only(verdicts, MEMORY_BOUND)
    assert COMPUTE_BOUND not in kinds(verdicts)
    assert verdict.evidence["bandwidth_fraction"] == pytest.approx(2.5 / 3.35)
    assert "75% of peak (2.5 TB/s of 3.35 TB/s)" in str(verdict.evidence["summary"])
    assert "batch" in verdict.fix and "precision" in verdict.fix


def test_high_bandwidth_with_high_flops_is_compute_not_memory() -> None:
    evidence = RunEvidence(
        achieved_flops_per_s=0.55 * H100_PEAK_FLOPS,
        peak_flops_per_s=H100_PEAK_FLOPS,
        achieved_bytes_per_s=0.7 * H100_PEAK_BYTES,
        peak_bytes_per_s=H100_PEAK_BYTES,
    )
    assert kinds(diagnose(evidence)) == [COMPUTE_BOUND]


def test_memory_bound_from_gpm_dram_counters() -> None:
    telemetry = summarize(gpu_samples(dram_pct=[80.0, 70.0, None]))
    verdict = only(diagnose(RunEvidence(telemetry=telemetry)), MEMORY_BOUND)
    assert verdict.evidence["gpm_dram_activity_pct"] == pytest.approx(75.0)
    assert "GPM" in str(verdict.evidence["summary"])


# ---- throttling and the host ---------------------------------------------------------------------


def test_thermal_throttling_in_a_quarter_of_samples_is_a_warning() -> None:
    reasons = [("sw_thermal",), (), (), ()] * 5
    telemetry = summarize(gpu_samples(reasons=reasons, temperature_c=[83.0] * 20))
    verdict = only(diagnose(RunEvidence(telemetry=telemetry)), THROTTLED)
    assert verdict.severity == "warning"
    assert verdict.evidence["thermal_fraction"] == pytest.approx(0.25)
    assert verdict.evidence["summary"] == (
        "thermal slowdown active in 25% of samples on GPU 0 (NVIDIA H100 80GB HBM3), peak 83 °C"
    )
    assert "cooling" in verdict.fix.lower()


def test_power_capping_is_information_not_a_fault() -> None:
    telemetry = summarize(gpu_samples(reasons=[("sw_power_cap",)] * 3 + [()] * 7))
    verdict = only(diagnose(RunEvidence(telemetry=telemetry)), THROTTLED)
    assert verdict.severity == "info"
    assert verdict.evidence["power_fraction"] == pytest.approx(0.3)


def test_rare_throttling_below_ten_percent_is_ignored() -> None:
    telemetry = summarize(gpu_samples(reasons=[("hw_thermal",)] + [()] * 10))
    assert THROTTLED not in kinds(diagnose(RunEvidence(telemetry=telemetry)))


def test_saturated_host_cpu_warns_on_gpu_runs_only() -> None:
    telemetry = summarize(gpu_samples(host_cpu_pct=[95.0, 97.0, None]))
    gpu_run = only(diagnose(RunEvidence(telemetry=telemetry, host_cpu_count=2)), HOST_CPU_SATURATED)
    assert gpu_run.severity == "warning"
    assert gpu_run.evidence["summary"] == "host CPU busy 96% on average across 2 logical CPUs"
    cpu_run = diagnose(RunEvidence(telemetry=telemetry, device_kind="cpu"))
    assert HOST_CPU_SATURATED not in kinds(cpu_run)  # a CPU benchmark is meant to fill the CPU


# ---- low utilisation, and too little evidence ------------------------------------------------------


def test_idle_gpu_without_other_explanation_is_latency_bound() -> None:
    telemetry = summarize(gpu_samples(gpu_util_pct=[30, 35, 25]))
    evidence = RunEvidence(
        step_time_s=0.01,
        input_wait_s=0.0005,
        achieved_flops_per_s=0.05 * H100_PEAK_FLOPS,
        peak_flops_per_s=H100_PEAK_FLOPS,
        telemetry=telemetry,
    )
    verdict = only(diagnose(evidence), LATENCY_BOUND)
    assert verdict.severity == "warning"
    assert verdict.evidence["summary"] == "GPU busy only 30% of the time, arithmetic at 5% of peak FLOP/s"
    assert "batch" in verdict.fix and "CUDA graphs" in verdict.fix


def test_low_flops_on_cpu_gives_cpu_advice() -> None:
    evidence = RunEvidence(achieved_flops_per_s=1e10, peak_flops_per_s=1e12, device_kind="cpu")
    verdict = only(diagnose(evidence), LATENCY_BOUND)
    assert "CPU" in verdict.title and "threads" in verdict.fix


def test_busy_cpu_at_low_arithmetic_says_busy_not_idle() -> None:
    # The CPU plot beside the verdict shows every core busy: the verdict must agree with it, and
    # not send the user to check thread counts that are already filling the machine.
    telemetry = summarize(gpu_samples(host_cpu_pct=[99.0, 100.0, 100.0]))
    evidence = RunEvidence(
        achieved_flops_per_s=0.28e12, peak_flops_per_s=1e12, device_kind="cpu", telemetry=telemetry
    )
    verdict = only(diagnose(evidence), LATENCY_BOUND)
    assert verdict.title.startswith("CPU fully busy")
    assert verdict.evidence["summary"] == "CPU busy 100% of the time, arithmetic at 28% of peak FLOP/s"
    assert "threads" not in verdict.fix and "larger batch" in verdict.fix


def test_half_idle_cpu_at_low_arithmetic_names_the_thread_count() -> None:
    telemetry = summarize(gpu_samples(host_cpu_pct=[50.0, 50.0]))
    evidence = RunEvidence(
        achieved_flops_per_s=0.1e12, peak_flops_per_s=1e12, device_kind="cpu", telemetry=telemetry
    )
    verdict = only(diagnose(evidence), LATENCY_BOUND)
    assert "CPU busy 50% of the time" in verdict.evidence["summary"]
    assert "get_num_threads" in verdict.fix


def test_input_bound_explains_low_utilisation_so_no_latency_verdict() -> None:
    telemetry = summarize(gpu_samples(gpu_util_pct=[20, 20]))
    verdicts = diagnose(RunEvidence(step_time_s=1.0, input_wait_s=0.5, telemetry=telemetry))
    assert kinds(verdicts) == [INPUT_BOUND]


def test_no_evidence_says_so() -> None:
    verdicts = diagnose(RunEvidence())
    assert kinds(verdicts) == [INSUFFICIENT_EVIDENCE]


def test_middling_numbers_give_no_clear_bottleneck() -> None:
    evidence = RunEvidence(
        step_time_s=1.0, input_wait_s=0.05, achieved_flops_per_s=0.4e15, peak_flops_per_s=1e15
    )
    verdict = only(diagnose(evidence), NO_CLEAR_BOTTLENECK)
    assert verdict.evidence["summary"] == "arithmetic at 40% of peak FLOP/s, input wait 5% of step time"


def test_unknown_peak_does_not_invent_a_fraction() -> None:
    verdicts = diagnose(RunEvidence(achieved_flops_per_s=1e14, peak_flops_per_s=None))
    assert kinds(verdicts) == [INSUFFICIENT_EVIDENCE]


# ---- primary and the Verdict type ------------------------------------------------------------------


def test_primary_prefers_severity_then_relevance() -> None:
    ok = Verdict(kind=COMPUTE_BOUND, severity="ok", title="c")
    info_memory = Verdict(kind=MEMORY_BOUND, severity="info", title="m")
    info_throttle = Verdict(kind=THROTTLED, severity="info", title="t")
    warning = Verdict(kind=LATENCY_BOUND, severity="warning", title="l")
    assert primary([ok, info_memory, warning]) is warning
    assert primary([ok, info_memory, info_throttle]) is info_throttle
    assert primary([Verdict(kind="custom", severity="info", title="x"), ok]).kind == "custom"  # type: ignore[union-attr]
    assert primary([]) is None


def test_verdicts_are_frozen_hashable_and_serialisable() -> None:
    verdict = diagnose(RunEvidence(step_time_s=1.0, input_wait_s=0.5))[0]
    assert hash(verdict) == hash(verdict)
    data = verdict.to_dict()
    assert data["kind"] == INPUT_BOUND and data["evidence"]["input_wait_s"] == 0.5


# ---- per-device findings: a lost GPU, nearly full memory, an idle GPU -------------------------------


def _gpus(*readings: dict) -> list:
    """Four samples of several GPUs; each dict holds one GPU's GpuSample fields."""
    from gpu_advisor.telemetry import GpuSample, HostSample, Sample

    return [
        Sample(
            t_s=0.5 * i,
            wall_time=1_700_000_000.0 + 0.5 * i,
            host=HostSample(cpu_pct=20.0),
            gpus=tuple(GpuSample(index=n, name="NVIDIA H100 80GB HBM3", **r) for n, r in enumerate(readings)),
        )
        for i in range(4)
    ]


def _diagnose(samples: list) -> list[Verdict]:
    return diagnose(RunEvidence(step_time_s=0.2, input_wait_s=0.0, telemetry=summarize(samples)))


def test_a_lone_idle_gpu_is_low_utilisation_not_an_idle_neighbour() -> None:
    verdicts = _diagnose(_gpus({"gpu_util_pct": 0.0}))
    assert IDLE_GPU not in kinds(verdicts) and LATENCY_BOUND in kinds(verdicts)


def test_an_idle_second_gpu_is_named_and_left_out_of_the_utilisation_verdict() -> None:
    verdicts = _diagnose(_gpus({"gpu_util_pct": 97.0}, {"gpu_util_pct": 4.0}))
    idle = only(verdicts, IDLE_GPU)
    assert idle.severity == "info" and idle.evidence["nvml_index"] == 1.0
    assert LATENCY_BOUND not in kinds(verdicts)  # GPU 0 is busy; the mean with GPU 1 would be 50%
    # 5% busy at its peak is work, not idleness
    assert IDLE_GPU not in kinds(_diagnose(_gpus({"gpu_util_pct": 97.0}, {"gpu_util_pct": 5.0})))


def test_memory_from_95_percent_of_the_device_is_nearly_full() -> None:
    total = 80 * 1024**3
    at_95 = _diagnose(_gpus({"memory_used_bytes": int(0.95 * total), "memory_total_bytes": total}))
    assert only(at_95, MEMORY_NEARLY_FULL).evidence["memory_total_bytes"] == float(total)
    below = _diagnose(_gpus({"memory_used_bytes": int(0.94 * total), "memory_total_bytes": total}))
    assert MEMORY_NEARLY_FULL not in kinds(below)
    # no total known: nothing to compare with
    assert MEMORY_NEARLY_FULL not in kinds(_diagnose(_gpus({"memory_used_bytes": total})))


def test_a_gpu_that_stopped_answering_is_critical_and_the_bottleneck_is_still_given() -> None:
    from dataclasses import replace

    from gpu_advisor.telemetry import GpuSample

    samples = _gpus({"gpu_util_pct": 97.0}, {"gpu_util_pct": 97.0})
    lost_reading = GpuSample(index=1, name="NVIDIA H100 80GB HBM3", error="GPU lost: GPU is lost")
    samples[-1] = replace(samples[-1], gpus=(samples[-1].gpus[0], lost_reading))
    verdicts = _diagnose(samples)
    lost = only(verdicts, GPU_LOST)
    assert lost.severity == "critical" and primary(verdicts) is lost
    assert (
        lost.evidence["summary"]
        == "1 of 4 readings failed on GPU 1 (NVIDIA H100 80GB HBM3): GPU lost: GPU is lost"
    )
    assert any(k not in (GPU_LOST, IDLE_GPU, MEMORY_NEARLY_FULL) for k in kinds(verdicts))
