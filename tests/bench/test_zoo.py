"""The model zoo builds every decoder preset at its exact parameter count, and its KV cache is right."""

from __future__ import annotations

import pytest
import torch

from gpu_advisor.bench.options import SIZES, UnsupportedModel
from gpu_advisor.bench.zoo import (
    KVCache,
    build_model,
    count_parameters,
    last_token_logits,
    training_loss,
)
from gpu_advisor.core.architecture import Family, ModelSpec
from gpu_advisor.core.presets import presets

DECODER_PRESETS = [k for k, p in presets().items() if p.spec.family is not Family.BERT and not p.spec.is_moe]


@pytest.mark.parametrize("preset", DECODER_PRESETS)
def test_parameter_count_equals_the_core_count_for_every_preset(preset):
    spec = presets()[preset].spec
    model = build_model(spec, device="meta")  # no memory: shapes only
    assert count_parameters(model) == spec.total_params()


@pytest.mark.parametrize(
    "sizes", sorted({id(s.train_model): s.train_model for s in SIZES.values()}.values(), key=str)
)
def test_parameter_count_of_the_benchmark_models(sizes):
    assert count_parameters(build_model(sizes, device="meta")) == sizes.total_params()


def test_untied_gpt2_and_tied_llama_count_right():
    gpt2 = ModelSpec(
        name="g",
        family="gpt2",
        n_layers=1,
        hidden_size=32,
        n_heads=2,
        ffn_size=64,
        vocab_size=50,
        max_positions=16,
        tied_embeddings=False,
        dropout=False,
    )
    llama = ModelSpec(
        name="l",
        family="llama",
        n_layers=1,
        hidden_size=32,
        n_heads=4,
        n_kv_heads=2,
        ffn_size=48,
        vocab_size=50,
        tied_embeddings=True,
    )
    for spec in (gpt2, llama):
        assert count_parameters(build_model(spec, device="meta")) == spec.total_params()


@pytest.mark.parametrize("family", ["moe", "bert"])
def test_encoders_and_mixtures_are_refused_with_a_reason(family):
    spec = presets()["mixtral-8x7b" if family == "moe" else "bert-base"].spec
    with pytest.raises(UnsupportedModel, match="model:"):
        build_model(spec, device="meta")


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_cached_decoding_matches_a_full_forward_pass(family):
    spec = ModelSpec(
        name="t",
        family=family,
        n_layers=2,
        hidden_size=32,
        n_heads=4,
        n_kv_heads=2 if family == "llama" else None,
        ffn_size=64,
        vocab_size=97,
        max_positions=64,
        dropout=False,
    )
    model = build_model(spec).eval()
    tokens = torch.randint(0, 97, (2, 12), generator=torch.Generator().manual_seed(1))
    with torch.inference_mode():
        full = model.lm_head(model.hidden(tokens)).float()
        cache = KVCache(spec, 2, 12, torch.float32, torch.device("cpu"))
        prompt = last_token_logits(model, model.hidden(tokens[:, :8], cache, 0))
        torch.testing.assert_close(prompt[:, 0], full[:, 7], rtol=1e-4, atol=1e-4)
        for pos in range(8, 12):
            step = last_token_logits(model, model.hidden(tokens[:, pos : pos + 1], cache, pos))
            torch.testing.assert_close(step[:, 0], full[:, pos], rtol=1e-4, atol=1e-4)


def test_training_loss_is_near_log_vocab_at_initialisation():
    spec = ModelSpec(
        name="t",
        family="llama",
        n_layers=1,
        hidden_size=32,
        n_heads=4,
        n_kv_heads=1,
        ffn_size=64,
        vocab_size=128,
    )
    model = build_model(spec)
    tokens = torch.randint(0, 128, (2, 16))
    loss = training_loss(model, tokens, tokens)
    loss.backward()
    assert abs(loss.item() - torch.log(torch.tensor(128.0)).item()) < 0.5
    assert all(p.grad is not None for p in model.parameters())
