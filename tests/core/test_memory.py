"""Memory estimates against published figures (ESTIMATION.md) and invariants that must always hold."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_advisor.core.architecture import ModelSpec
from gpu_advisor.core.estimates import COMPONENTS
from gpu_advisor.core.layout import Parallelism
from gpu_advisor.core.memory import (
    Device,
    activation_bytes_per_token_layer,
    estimate_memory,
    kv_cache_bytes,
    model_state_bytes,
)
from gpu_advisor.core.precision import Precision
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.request import Attention, PlanRequest
from gpu_advisor.core.units import GB, GIB, KIB

# ---- ZeRO paper (Rajbhandari et al., arXiv 1910.02054), 7.5B params, mixed-precision Adam ----------


def test_zero_unsharded_model_states_are_120_gb():
    states = model_state_bytes(7.5e9, zero_stage=0, dp=64)
    assert sum(states.values()) / GB == pytest.approx(120, abs=0.05)


@pytest.mark.parametrize(("stage", "published_gb"), [(1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_per_stage_figures_on_64_gpus(stage, published_gb):
    states = model_state_bytes(7.5e9, zero_stage=stage, dp=64)
    assert sum(states.values()) / GB == pytest.approx(published_gb, abs=0.05)


def _zero_request(stage):
    model = ModelSpec(
        name="7.5B",
        family="gpt2",
        n_layers=48,
        hidden_size=3584,
        n_heads=28,
        ffn_size=4 * 3584,
        vocab_size=50257,
        max_positions=1024,
    )
    return PlanRequest(
        model=model,
        task="pretrain",
        precision="bf16",
        zero_stage=stage,
        seq_len=1024,
        grad_checkpointing=True,
    )


@pytest.mark.parametrize("stage", [0, 1, 2])
def test_planner_shards_optimizer_and_gradients_like_the_zero_paper(stage):
    req = _zero_request(stage)
    p = req.model.total_params()
    est = estimate_memory(req, Parallelism(data=64, zero_stage=stage), device=Device.CPU)
    expected = model_state_bytes(p, stage, 64)
    assert est.components.optimizer == pytest.approx(expected["optimizer"], rel=1e-6)
    if est.phase == "optimizer step":
        assert est.components.gradients == pytest.approx(expected["gradients"], rel=1e-6)


# ---- Llama 3.1 launch post (Hugging Face blog): weights and KV cache --------------------------------

WEIGHTS_GB = {  # model: (fp16, fp8, int4)
    "llama-3-8b": (16, 8, 4),
    "llama-3-70b": (140, 70, 35),
    "llama-3.1-405b": (810, 405, 203),
}


@pytest.mark.parametrize("preset", WEIGHTS_GB)
@pytest.mark.parametrize(("index", "precision"), [(0, "fp16"), (1, "fp8"), (2, "int4")])
def test_inference_weights_match_the_llama_3_1_post(preset, index, precision):
    req = PlanRequest(model=get_preset(preset), task="inference", precision=precision)
    weights_gb = estimate_memory(req, device=Device.CPU).components.weights / GB
    published = WEIGHTS_GB[preset][index]
    # The post quotes params x bytes; int4 here also carries group-128 scales (0.25 bit/weight, 6%).
    tolerance = 0.08 if precision == "int4" else 0.02
    assert weights_gb == pytest.approx(published, rel=tolerance)


KV_GIB = {"llama-3-8b": (0.125, 1.95, 15.62), "llama-3-70b": (0.313, 4.88, 39.06)}


@pytest.mark.parametrize("preset", KV_GIB)
@pytest.mark.parametrize(("index", "tokens"), [(0, 1024), (1, 16_000), (2, 128_000)])
def test_kv_cache_matches_the_llama_3_1_post(preset, index, tokens):
    kv = kv_cache_bytes(get_preset(preset), tokens, 2) / GIB
    assert kv == pytest.approx(KV_GIB[preset][index], abs=0.01)


def test_kv_cache_uses_kv_heads_not_query_heads():
    # Llama-3-8B (GQA, 8 KV heads): 128 KiB per token; Llama-2-7B (MHA): 512 KiB per token.
    assert kv_cache_bytes(get_preset("llama-3-8b"), 1, 2) == 128 * KIB
    assert kv_cache_bytes(get_preset("llama-2-7b"), 1, 2) == 512 * KIB


def test_planner_kv_component_counts_users_times_prompt_plus_output():
    req = PlanRequest(
        model=get_preset("llama-3-8b"),
        task="inference",
        precision="bf16",
        users=10,
        prompt_tokens=1000,
        output_tokens=24,
    )
    assert estimate_memory(req).components.kv_cache == 10 * 1024 * 128 * KIB


# ---- activations: Korthikanti et al. 2022, eq. (2) -----------------------------------------------------


def test_activations_reduce_to_korthikanti_for_gpt_with_dropout_and_eager_attention():
    model = get_preset("gpt2-medium")  # GELU MLP with f = 4h, MHA, dropout
    s = 1024
    per_token = activation_bytes_per_token_layer(model, elem=2, attention=Attention.EAGER, seq_len=s)
    h, a = model.hidden_size, model.n_heads
    assert per_token == pytest.approx(h * (34 + 5 * a * s / h))


def test_memory_efficient_attention_drops_the_s_squared_term():
    model = get_preset("gpt2-medium")
    sdpa = activation_bytes_per_token_layer(model, 2, Attention.SDPA, 1024)
    assert sdpa == pytest.approx(34 * model.hidden_size)


def test_checkpointing_cuts_training_activations():
    base = dict(model=get_preset("llama-2-7b"), task="finetune", precision="bf16", seq_len=4096)
    plain = estimate_memory(PlanRequest(**base))
    ckpt = estimate_memory(PlanRequest(**base, grad_checkpointing=True))
    assert ckpt.components.activations < plain.components.activations / 5 or ckpt.phase == "optimizer step"


def test_lora_has_no_gradients_or_optimizer_state_for_the_frozen_base():
    model = get_preset("llama-2-7b")
    full = estimate_memory(PlanRequest(model=model, task="finetune", precision="bf16"))
    lora = estimate_memory(PlanRequest(model=model, task="lora", precision="bf16"))
    qlora = estimate_memory(PlanRequest(model=model, task="qlora", precision="bf16"))
    assert lora.components.optimizer < full.components.optimizer / 100
    assert qlora.components.weights < lora.components.weights / 3
    assert qlora.total_bytes < lora.total_bytes < full.total_bytes


def test_full_finetune_of_7b_in_mixed_precision_needs_about_16_bytes_per_param():
    model = get_preset("llama-2-7b")
    est = estimate_memory(
        PlanRequest(model=model, task="finetune", precision="bf16", grad_checkpointing=True, seq_len=512),
        device=Device.CPU,
    )
    states = est.components.weights + est.components.gradients + est.components.optimizer
    assert states / model.total_params() == pytest.approx(16, rel=0.01)


def test_moe_stores_all_experts_but_activates_two():
    mixtral = get_preset("mixtral-8x7b")
    req = PlanRequest(model=mixtral, task="inference", precision="bf16")
    assert estimate_memory(req, device=Device.CPU).components.weights == pytest.approx(
        mixtral.total_params() * 2
    )


def test_cpu_has_no_cuda_overhead():
    req = PlanRequest(model=get_preset("gpt2-small"), task="inference", precision="fp32")
    assert estimate_memory(req, device=Device.CPU).components.overhead == 0
    assert estimate_memory(req, device=Device.CUDA).components.overhead >= 512 * 2**20


# ---- invariants (hypothesis) -----------------------------------------------------------------------

models = st.sampled_from(
    ["gpt2-small", "llama-2-7b", "llama-3-8b", "mistral-7b", "mixtral-8x7b", "llama-3-70b"]
).map(get_preset)
training_tasks = st.sampled_from(["pretrain", "finetune", "lora", "qlora"])


@settings(max_examples=60, deadline=None)
@given(
    model=models,
    task=st.sampled_from(["pretrain", "finetune", "lora", "qlora", "inference"]),
    seq=st.integers(1, 8192),
    batch=st.integers(1, 16),
    ckpt=st.booleans(),
    users=st.integers(1, 64),
    tp=st.sampled_from([1, 2, 4, 8]),
    dp=st.sampled_from([1, 2, 8, 64]),
    zero=st.integers(0, 3),
)
def test_components_sum_to_the_total(model, task, seq, batch, ckpt, users, tp, dp, zero):
    inference = task == "inference"
    req = PlanRequest(
        model=model,
        task=task,
        precision="bf16",
        seq_len=seq,
        batch_size=batch,
        grad_checkpointing=ckpt,
        users=users,
        zero_stage=None if inference else zero,
    )
    par = Parallelism(tensor=tp, data=dp, zero_stage=0 if inference else zero)
    est = estimate_memory(req, par)
    assert est.total_bytes == sum(getattr(est.components, c) for c in COMPONENTS)
    assert all(getattr(est.components, c) >= 0 for c in COMPONENTS)


@settings(max_examples=60, deadline=None)
@given(
    model=models,
    task=training_tasks,
    zero=st.integers(0, 3),
    seq=st.integers(128, 4096),
    ckpt=st.booleans(),
    dp_exp=st.integers(0, 9),
)
def test_more_data_parallel_gpus_never_raise_per_gpu_memory_under_sharding(
    model, task, zero, seq, ckpt, dp_exp
):
    req = PlanRequest(
        model=model, task=task, precision="bf16", seq_len=seq, grad_checkpointing=ckpt, zero_stage=zero
    )
    fewer = estimate_memory(req, Parallelism(data=2**dp_exp, zero_stage=zero)).total_bytes
    more = estimate_memory(req, Parallelism(data=2 ** (dp_exp + 1), zero_stage=zero)).total_bytes
    assert more <= fewer


@settings(max_examples=40, deadline=None)
@given(model=models, task=st.sampled_from(["finetune", "inference"]), tp_exp=st.integers(0, 2))
def test_more_tensor_parallel_gpus_never_raise_per_gpu_memory(model, task, tp_exp):
    req = PlanRequest(model=model, task=task, precision="bf16", seq_len=1024)
    a = estimate_memory(req, Parallelism(tensor=2**tp_exp)).total_bytes
    b = estimate_memory(req, Parallelism(tensor=2 ** (tp_exp + 1))).total_bytes
    assert b <= a


@settings(max_examples=30, deadline=None)
@given(model=models)
def test_weight_bytes_order_int4_int8_bf16_fp32(model):
    def weights(precision):
        req = PlanRequest(model=model, task="inference", precision=precision)
        return estimate_memory(req).components.weights

    assert weights("int4") < weights("int8") < weights("bf16") < weights("fp32")
    assert weights("bf16") == weights("fp16")


@settings(max_examples=50, deadline=None)
@given(model=models, tokens=st.integers(1, 100_000), k=st.integers(2, 16))
def test_kv_cache_grows_linearly_with_tokens(model, tokens, k):
    assert kv_cache_bytes(model, tokens * k, 2) == k * kv_cache_bytes(model, tokens, 2)


@pytest.mark.parametrize("precision", [p.value for p in Precision])
def test_every_precision_gives_a_positive_inference_footprint(precision):
    req = PlanRequest(model=get_preset("llama-3-8b"), task="inference", precision=precision)
    assert estimate_memory(req).total_bytes > 0
