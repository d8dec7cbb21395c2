"""One GPU's memory in the parts that allocate it (issue 21 item 6): the overhead split into non-PyTorch
memory, fragmentation and the serving engine's reserve, each with its own working, summing to the total."""

from __future__ import annotations

from gpu_advisor.core.presets import resolve_model
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.wording.memory_parts import kv_pool_text, memory_parts

LLAMA_8B = resolve_model(preset="llama-3-8b", config=None, params=None)


def _served_on_a_4090():
    return plan(
        PlanRequest(model=LLAMA_8B, users=32, tokens_per_s_per_user=20, gpu="nvidia-rtx-4090", gpus=1)
    ).best


def test_vllm_on_a_4090_shows_non_pytorch_memory_and_the_engine_reserve_apart_and_they_sum_to_the_total():
    """vLLM takes 90 % of the 23.6 GiB card: the 10 % it leaves is the engine's reserve (2.4 GiB), apart
    from the 1.8 GiB of CUDA context, cuBLAS and NCCL memory outside PyTorch."""
    option = _served_on_a_4090()
    memory = option.per_gpu
    parts = {p.label: p for p in memory_parts(memory)}
    assert {"Weights", "Activations", "KV cache", "Non-PyTorch memory", "Engine reserve"} <= set(parts)
    assert "CUDA context + fragmentation" not in parts
    assert sum(p.size_bytes for p in parts.values()) == memory.total_bytes
    assert abs(parts["Engine reserve"].size_bytes - 0.10 * option.gpu_memory_bytes) <= 1
    assert "leaves unused" in parts["Engine reserve"].formula
    assert "leaves unused" not in parts["Non-PyTorch memory"].formula  # each part its own working


def test_the_kv_pool_line_says_the_pool_holds_the_users_kv_and_how_full_it_is():
    memory = _served_on_a_4090().per_gpu
    assert memory.kv_pool_bytes is not None and memory.components.kv_cache <= memory.kv_pool_bytes
    text = kv_pool_text(memory)
    assert text.startswith("KV pool 3.6 GiB holds the users' 3.0 GiB of KV cache") and "% full)" in text


def test_training_keeps_fragmentation_as_its_own_part_and_has_no_engine_reserve_or_pool():
    trained = plan(PlanRequest(model=LLAMA_8B, task="lora", gpu="nvidia-h100-sxm", gpus=1)).best
    labels = [p.label for p in memory_parts(trained.per_gpu)]
    assert "Fragmentation" in labels and "Engine reserve" not in labels
    assert kv_pool_text(trained.per_gpu) == ""
