"""Serving on per-operator rooflines: the weight GEMMs and attention over the KV cache each take the
longer of their compute and their memory traffic, and a decode step adds them up, so a large batch
whose GEMMs are compute-bound still pays for reading its KV cache."""

from __future__ import annotations

import pytest

from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.layout import SINGLE
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import gpu_peaks
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.speed import inference_speed


@pytest.fixture(scope="module")
def h100_serving():
    req = PlanRequest(
        model=get_preset("llama-3-8b"),
        task="inference",
        gpu="nvidia-h100-sxm",
        prompt_tokens=1024,
        output_tokens=256,
    )
    gpu = load_catalog(user_file=None).get("nvidia-h100-sxm")
    peaks, _ = gpu_peaks(gpu, req)
    return req, peaks


def _terms(speed) -> dict:
    return {t.name: t for t in speed.terms}


def test_one_user_reads_weights_and_kv_at_the_bandwidth(h100_serving):
    req, peaks = h100_serving
    speed = inference_speed(req, SINGLE, peaks, concurrency=1)
    terms = _terms(speed)
    assert not terms["weight GEMMs"].exposed  # memory-bound
    assert not terms["attention over the KV cache"].exposed
    assert speed.bound == "memory"


def test_a_large_batch_pays_for_its_kv_read_after_compute_bound_gemms(h100_serving):
    req, peaks = h100_serving
    speed = inference_speed(req, SINGLE, peaks, concurrency=512)
    terms = _terms(speed)
    gemms, attention = terms["weight GEMMs"], terms["attention over the KV cache"]
    assert gemms.exposed and "compute-bound" in gemms.formula
    assert not attention.exposed and "memory-bound" in attention.formula
    overhead = terms["step overhead"].seconds if "step overhead" in terms else 0.0
    # The KV read is not hidden behind the GEMMs' compute: the step is the sum of the two.
    assert speed.decode_s_per_token == pytest.approx(gemms.seconds + attention.seconds + overhead)
    assert attention.seconds > 0.1 * gemms.seconds


def _serving_source(gpu: str, engine: str) -> str:
    req = PlanRequest(model=get_preset("llama-3-8b"), task="inference", gpu=gpu, engine=engine)
    peaks, _ = gpu_peaks(load_catalog(user_file=None).get(gpu), req)
    return inference_speed(req, SINGLE, peaks).efficiency_source


def test_an_engine_without_a_measurement_on_the_architecture_says_so():
    assert "no measurement for vLLM on CDNA 3" in _serving_source("amd-instinct-mi300x", "vllm")
    assert "no measurement" not in _serving_source("nvidia-h100-sxm", "vllm")
    assert "no measurement" not in _serving_source("nvidia-a100-sxm-80gb", "tensorrt-llm")


def test_vllm_on_mi300x_fp8_runs_its_gemms_at_the_measured_share_of_the_peak():
    from gpu_advisor.core.efficiency import resolve_efficiency
    from gpu_advisor.core.precision import Engine

    def eff(dtype: str):
        return resolve_efficiency("CDNA 3", False, dtype, dtype, Engine.VLLM, None, None, None)

    fp8, bf16 = eff("fp8"), eff("bf16")
    assert fp8.prefill < 0.25 and "vLLM on CDNA 3 fp8" in fp8.prefill_source
    assert bf16.prefill > 0.4 and "vLLM on CDNA 3" not in bf16.prefill_source
