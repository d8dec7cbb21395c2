"""The memory-bound kernels between a training step's GEMMs, timed at the memory bandwidth.

Elementwise kernels (norms, the MLP's activation, residual adds) move bytes in proportion to h per token
while the GEMMs do FLOPs in proportion to h^2: at a small hidden size they are a larger share of the
step, which is why a small model reaches less of a GPU's peak. Eager attention also writes its
a x s x s scores to memory and reads them back (softmax, the PV GEMM, and again in backward); flash
attention (SDPA) never does: at a long sequence on a small model that is a large share of the step,
which is why 2021-era stacks reached far less of the peak on small models than on large ones."""

from __future__ import annotations

import pytest

from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.layouts import layout
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.published import _gpt
from gpu_advisor.core.recommend import gpu_peaks
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.speed import training_speed

A100 = "nvidia-a100-sxm-80gb"


def _speed(model, attention: str, checkpointing: bool, seq_len: int = 2048, batch: int = 4):
    catalog = load_catalog(user_file=None)
    req = PlanRequest(
        model=model,
        task="pretrain",
        seq_len=seq_len,
        batch_size=batch,
        attention=attention,
        grad_checkpointing=checkpointing,
        gpu=A100,
    )
    peaks, _ = gpu_peaks(catalog.get(A100), req)
    assert peaks is not None
    return training_speed(req, layout(1, 1, 1, 0), peaks), peaks


@pytest.mark.parametrize("checkpointing", [False, True], ids=["stored", "recomputed"])
def test_eager_scores_cost_their_bytes_at_the_memory_bandwidth_counted_by_hand(checkpointing):
    """GPT 1.7B shape (h 2,304, 24 heads, 24 layers), 4 x 2,048 tokens, 16-bit, no dropout: per score
    4 x 2 B forward (written, softmax read and write, read by PV), 7 x 2 B backward, and the forward
    again under recomputation."""
    model = _gpt("GPT 1.7B", 2304, 24, 24, vocab=51200)
    eager, peaks = _speed(model, "eager", checkpointing)
    sdpa, _ = _speed(model, "sdpa", checkpointing)
    scores = 4 * 24 * 24 * 2048 * 2048
    bytes_per_score = (8 * 2 if checkpointing else 8) + 14
    term = next(t for t in eager.terms if t.name == "eager attention scores")
    bandwidth_efficiency = peaks.efficiency.bandwidth
    expected_s = scores * bytes_per_score / (peaks.bandwidth_bytes_per_s * bandwidth_efficiency)
    assert term.seconds == pytest.approx(expected_s, rel=1e-9)
    assert eager.step_time_s == pytest.approx(sdpa.step_time_s + expected_s, rel=1e-6)
    assert not any(t.name == "eager attention scores" for t in sdpa.terms)


def test_the_scores_weigh_on_a_small_model_at_a_long_sequence_not_on_a_large_one():
    """The scores grow as a s^2 per layer, the GEMMs as s h^2: a 1.7B GPT loses a fifth or more of its
    speed to them at 2,048 tokens, a 175B GPT under a tenth."""
    small = _gpt("GPT 1.7B", 2304, 24, 24, vocab=51200)
    large = _gpt("GPT-3 175B", 12288, 96, 96, vocab=51200)
    small_ratio = _speed(small, "eager", True)[0].tokens_per_s / _speed(small, "sdpa", True)[0].tokens_per_s
    large_ratio = (
        _speed(large, "eager", True, batch=1)[0].tokens_per_s
        / _speed(large, "sdpa", True, batch=1)[0].tokens_per_s
    )
    assert small_ratio < 0.8
    assert 0.9 < large_ratio < 1.0


def test_inference_tasks_and_flash_attention_add_no_score_traffic():
    llama = get_preset("llama-3-8b")
    speed, _ = _speed(llama, "sdpa", False)
    assert all("scores" not in t.name for t in speed.terms)


def test_elementwise_kernels_cost_their_bytes_at_the_memory_bandwidth_counted_by_hand():
    """GPT 1.7B shape, 16-bit, no dropout, recomputation off: per token per layer two LayerNorms read and
    write h, two residual adds read 2h and write h, GELU reads and writes f = 4h: 36h bytes forward, and
    twice that backward."""
    model = _gpt("GPT 1.7B", 2304, 24, 24, vocab=51200)
    speed, peaks = _speed(model, "sdpa", False)
    term = next(t for t in speed.terms if t.name == "elementwise kernels")
    tokens, h = 4 * 2048, 2304
    expected_s = tokens * 24 * 3 * 36 * h / (peaks.bandwidth_bytes_per_s * peaks.efficiency.bandwidth)
    assert term.seconds == pytest.approx(expected_s, rel=1e-9)


def test_a_small_model_spends_more_on_elementwise_kernels_per_second_of_gemms_than_a_large_one():
    def share(model) -> float:
        seconds = {t.name: t.seconds for t in _speed(model, "sdpa", False, batch=8)[0].terms}
        return seconds["elementwise kernels"] / seconds["compute"]

    small, large = _gpt("GPT 760M", 1536, 24, 12), _gpt("GPT 30B", 7168, 48, 64)
    assert share(small) > 3 * share(large)
