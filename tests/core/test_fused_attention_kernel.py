"""Fused (SDPA/flash) attention's score FLOPs timed at the attention kernel's own utilisation.

A training step's FLOPs are the parameter GEMMs (6P per token) plus the attention scores (12 L s a d, 16
with the forward recomputed). The GEMMs run at the architecture's MFU; on an H100 FlashAttention-2
reaches far less of the peak (resources/efficiencies.json, Hopper 'attention', from the FlashAttention-3
paper's figures), so at a long sequence, where the scores are most of the FLOPs, the step takes much longer
than its FLOPs at the GEMMs' utilisation. Eager attention's score products are cuBLAS batched GEMMs: they
stay at the MFU (its softmax and score traffic are timed apart at the bandwidth)."""

from __future__ import annotations

import pytest

from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.efficiency import efficiencies
from gpu_advisor.core.layouts import layout
from gpu_advisor.core.published import _gpt
from gpu_advisor.core.recommend import gpu_peaks
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.speed import training_speed

H100, A100 = "nvidia-h100-sxm", "nvidia-a100-sxm-80gb"
GPT_760M = _gpt("GPT 760M", 1536, 24, 12)  # MPT-760M's shape: head dim 128


def _speed(gpu: str, seq_len: int, attention: str = "sdpa", checkpointing: bool = False):
    catalog = load_catalog(user_file=None)
    req = PlanRequest(
        model=GPT_760M,
        task="pretrain",
        seq_len=seq_len,
        batch_size=1,
        attention=attention,
        grad_checkpointing=checkpointing,
        gpu=gpu,
    )
    peaks, _ = gpu_peaks(catalog.get(gpu), req)
    assert peaks is not None and peaks.efficiency is not None
    return training_speed(req, layout(1, 1, 1, 0), peaks), peaks


def _terms(speed) -> dict:
    return {t.name: t for t in speed.terms}


@pytest.mark.parametrize("checkpointing", [False, True], ids=["stored", "recomputed"])
def test_on_an_h100_the_score_flops_run_at_the_flash_kernels_utilisation_counted_by_hand(checkpointing):
    speed, peaks = _speed(H100, 32768, checkpointing=checkpointing)
    kernel = efficiencies().architectures["Hopper"]["attention"]["bf16"]
    scores = (16 if checkpointing else 12) * 24 * 32768 * 12 * 128 * 32768  # per sequence of 32k tokens
    term = _terms(speed)["fused attention kernel"]
    assert term.seconds == pytest.approx(scores / (peaks.flops_per_s * kernel), rel=1e-9)
    assert "FlashAttention-2" in term.formula and f"{kernel:.2f}" in term.formula


def test_at_32k_tokens_attention_is_most_of_an_h100_step_which_runs_slower_than_its_flops_at_the_gemms_mfu():
    """At 2,048 tokens the scores are a small share of the step; at 32,768 they are most of it, and the
    step takes over 1.4 x its FLOPs at the GEMMs' utilisation (the planner's figure before the kernel's
    own utilisation was used)."""
    short, _ = _speed(H100, 2048)
    long, peaks = _speed(H100, 32768)
    all_at_mfu_s = long.hardware_flops_per_token * 32768 / (peaks.flops_per_s * peaks.efficiency.mfu)
    assert long.step_time_s > 1.4 * all_at_mfu_s
    share = {
        s: _terms(v)["fused attention kernel"].seconds / v.step_time_s
        for s, v in ((2048, short), (32768, long))
    }
    assert share[2048] < 0.4 < 0.7 < share[32768]


def test_an_architecture_without_a_kernel_benchmark_runs_the_scores_at_its_mfu_and_says_so():
    speed, peaks = _speed(A100, 16384)
    term = _terms(speed)["fused attention kernel"]
    scores = 12 * 24 * 16384 * 12 * 128 * 16384
    assert term.seconds == pytest.approx(scores / (peaks.flops_per_s * peaks.efficiency.mfu), rel=1e-9)
    assert "no attention-kernel benchmark" in term.formula


def test_eager_attention_keeps_its_score_gemms_at_the_gemms_utilisation():
    """Eager attention computes QK^T and PV with cuBLAS batched GEMMs: its FLOPs all run at the MFU, and
    its softmax and score traffic stay a memory-bound term of their own."""
    speed, peaks = _speed(H100, 8192, attention="eager")
    terms = _terms(speed)
    assert "fused attention kernel" not in terms and "eager attention scores" in terms
    all_at_mfu_s = speed.hardware_flops_per_token * 8192 / (peaks.flops_per_s * peaks.efficiency.mfu)
    assert terms["compute"].seconds == pytest.approx(all_at_mfu_s, rel=1e-9)
