"""Out of memory is a result: the batch is halved until it fits, and the largest that fits is reported."""

from __future__ import annotations

import threading

import pytest
import torch

from gpu_advisor.bench import BenchOptions, run_benchmark
from gpu_advisor.bench.context import Outcome, RunContext
from gpu_advisor.bench.oom import with_oom_backoff
from gpu_advisor.bench.options import SIZES
from gpu_advisor.bench.results import DeviceInfo, WorkloadResult
from gpu_advisor.core.memory import Device
from gpu_advisor.core.precision import Precision
from gpu_advisor.core.predict import predict_inference


def _predicted(batch: int) -> int:
    sizes = SIZES[("cpu", "toy")]
    return predict_inference(
        sizes.infer_model,
        batch_size=batch,
        prompt_tokens=sizes.prompt_tokens,
        output_tokens=sizes.output_tokens,
        precision=Precision.FP32,
        device=Device.CPU,
    ).peak_memory_bytes


def test_memory_cap_halves_the_batch_and_reports_the_largest_that_fits():
    cap = (_predicted(1) + _predicted(2)) // 2  # the toy sweep is batch 1 then 2: 2 is over the cap
    report = run_benchmark(BenchOptions.toy_run(workloads=["inference"], memory_cap_bytes=cap))
    first, second = report.results
    assert first.status == "ok" and first.metrics["peak_memory_bytes"] <= cap
    assert second.status == "oom"
    assert second.metrics["requested_batch_size"] == 2
    assert second.metrics["max_batch_size"] == 1
    assert second.config["batch_size"] == 1 and second.metrics["decode_tokens_per_s"] > 0
    assert second.notes[0].startswith("batch 2 does not fit (batch 2: predicted peak")


def test_nothing_fits_under_a_tiny_cap():
    report = run_benchmark(BenchOptions.toy_run(workloads=["train", "inference"], memory_cap_bytes=1000))
    assert [r.status for r in report.results] == ["oom", "oom"]
    assert all(r.metrics["max_batch_size"] is None for r in report.results)


def _ctx() -> RunContext:
    return RunContext(
        options=BenchOptions.toy_run(),
        sizes=SIZES[("cpu", "toy")],
        device=torch.device("cpu"),
        device_info=DeviceInfo(kind="cpu", name="cpu", torch_threads=1),
        catalog_gpu=None,
        stop=threading.Event(),
        memory_cap_bytes=None,
    )


def test_cuda_out_of_memory_errors_are_caught_and_retried():
    tried = []

    def attempt(batch: int) -> Outcome:
        tried.append(batch)
        if batch > 3:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return Outcome(WorkloadResult(workload="train", name="t", status="ok", metrics={"tokens_per_s": 1.0}))

    outcome = with_oom_backoff(_ctx(), 16, attempt, workload="train", name="t", config={})
    assert tried == [16, 8, 4, 2]
    assert outcome.result.status == "oom" and outcome.result.metrics["max_batch_size"] == 2
    assert "CUDA out of memory" in outcome.result.notes[0]


def test_other_errors_are_not_mistaken_for_out_of_memory():
    def attempt(batch: int) -> Outcome:
        raise ValueError("shape mismatch")

    with pytest.raises(ValueError):
        with_oom_backoff(_ctx(), 4, attempt, workload="train", name="t", config={})
