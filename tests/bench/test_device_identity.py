"""The diagnosis of a benchmark uses the telemetry of the GPU that ran it, never its neighbours'.

Synthetic NVML samples go through the real `summarize` and `diagnose` (bench.runner.diagnose_outcome).
"""

from __future__ import annotations

from gpu_advisor.bench.context import Outcome
from gpu_advisor.bench.device import identify
from gpu_advisor.bench.results import DeviceInfo, WorkloadResult
from gpu_advisor.bench.runner import diagnose_outcome
from gpu_advisor.telemetry import (
    COMPUTE_BOUND,
    IDLE_GPU,
    LATENCY_BOUND,
    THROTTLED,
    RunEvidence,
    diagnose,
    summarize,
)
from gpu_advisor.telemetry.samples import GpuSample, HostSample, Sample

START = 1_700_000_000.0
UUIDS = [f"GPU-{i:08d}-1111-2222-3333-444444444444" for i in range(8)]


def _box(gpus: int, busy: dict[int, float], power_capped: frozenset[int] = frozenset()) -> tuple[Sample, ...]:
    """20 samples, 0.5 s apart, of `gpus` H100s: utilisation per GPU (idle unless listed)."""
    return tuple(
        Sample(
            t_s=0.5 * k,
            wall_time=START + 0.5 * k,
            host=HostSample(cpu_pct=20.0),
            gpus=tuple(
                GpuSample(
                    index=i,
                    name="NVIDIA H100 80GB HBM3",
                    uuid=UUIDS[i],
                    gpu_util_pct=busy.get(i, 0.0),
                    clock_event_reasons=("sw_power_cap",) if i in power_capped else (),
                )
                for i in range(gpus)
            ),
        )
        for k in range(20)
    )


def _training_step() -> Outcome:
    """A training run on GPU 0 whose own evidence names no bottleneck: the telemetry decides."""
    result = WorkloadResult(workload="train", name="train", status="ok", started_at=START, elapsed_s=10.0)
    return Outcome(result, {"step_time_s": 0.2, "input_wait_s": 0.0})


def _on(nvml_index: int | None) -> DeviceInfo:
    return DeviceInfo(
        kind="cuda", index=0, nvml_index=nvml_index, name="NVIDIA H100 80GB HBM3", torch_threads=8
    )


def _kinds(samples: tuple[Sample, ...], device: DeviceInfo) -> set[str]:
    return {v.kind for v in diagnose_outcome(_training_step(), samples, device)}


def test_seven_idle_neighbours_do_not_make_a_busy_gpu_look_latency_bound():
    alone = _kinds(_box(1, {0: 97.0}), _on(0))
    in_a_full_box = _kinds(_box(8, {0: 97.0}), _on(0))
    assert COMPUTE_BOUND in alone
    assert in_a_full_box == alone  # the same evidence for GPU 0 gives the same diagnosis
    assert LATENCY_BOUND not in in_a_full_box
    # the machine-wide summary (monitor's: it cannot know the command's GPUs) names the seven idle
    # GPUs instead of averaging them in: the mean over eight GPUs would be 12% busy
    machine_wide = diagnose(
        RunEvidence(step_time_s=0.2, input_wait_s=0.0, telemetry=summarize(_box(8, {0: 97.0})))
    )
    assert LATENCY_BOUND not in {v.kind for v in machine_wide}
    assert sorted(v.evidence["nvml_index"] for v in machine_wide if v.kind == IDLE_GPU) == list(range(1, 8))


def test_a_power_capped_neighbour_does_not_mark_the_run_throttled():
    assert THROTTLED not in _kinds(_box(8, {0: 97.0}, power_capped=frozenset({3})), _on(0))
    # the benchmarked GPU's own power cap still counts
    assert THROTTLED in _kinds(_box(8, {0: 97.0}, power_capped=frozenset({0})), _on(0))


def test_the_benchmarked_gpu_is_found_by_uuid_whatever_cuda_calls_it():
    samples = _box(8, {5: 97.0})  # CUDA_VISIBLE_DEVICES=5: cuda:0 is NVML GPU 5
    torch_info = DeviceInfo(
        kind="cuda",
        index=0,
        uuid=UUIDS[5].removeprefix("GPU-"),
        name="NVIDIA H100 80GB HBM3",
        torch_threads=8,
    )
    machine_gpus = [{"index": i, "name": "NVIDIA H100 80GB HBM3", "uuid": UUIDS[i]} for i in range(8)]
    device = identify(torch_info, machine_gpus)
    assert (device.index, device.nvml_index, device.uuid) == (0, 5, UUIDS[5])
    assert COMPUTE_BOUND in _kinds(samples, device)
    assert LATENCY_BOUND in _kinds(samples, _on(0))  # NVML GPU 0 (idle) is not the one that ran


def test_unknown_gpu_and_cpu_runs_use_no_gpu_telemetry():
    # When NVML cannot say which GPU ran the workload, no GPU's readings are used (none is guessed).
    unknown = diagnose_outcome(_training_step(), _box(8, {3: 97.0}), _on(None))
    assert all("GPU busy" not in str(v.evidence.get("summary")) for v in unknown)
    cpu = DeviceInfo(kind="cpu", name="CPU", torch_threads=8)
    assert LATENCY_BOUND not in {v.kind for v in diagnose_outcome(_training_step(), _box(8, {}), cpu)}
