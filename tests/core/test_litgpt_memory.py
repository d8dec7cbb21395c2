"""LitGPT's LoRA/QLoRA memory (`--framework litgpt`, core/litgpt_memory.py): its LoRA block keeps what
its own modules were traced to keep, Fabric's fp32 logits, and for a 4-bit base what bitsandbytes before
PR #1270 and LitGPT's loop keep, with bnb.nf4's constants."""

from __future__ import annotations

import json

import pytest

from gpu_advisor.cli import run_cli
from gpu_advisor.core.layout import Parallelism
from gpu_advisor.core.litgpt_memory import litgpt_block_bytes, litgpt_loss_bytes_per_token
from gpu_advisor.core.memory import Device, OptimizerImpl, estimate_memory
from gpu_advisor.core.precision import W_NF4, W_NF4_NO_DQ_ALL_LINEAR
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.request import Assumptions, PlanRequest

LLAMA_2_7B = get_preset("llama-2-7b")
LLAMA_3_8B = get_preset("llama-3-8b")
KEPT_INPUTS = "bitsandbytes MatMul4Bit inputs kept for backward (before PR #1270)"
PREVIOUS_STEP = "the previous step's kept 4-bit inputs, alive through the next forward"
DEQUANTISED_HEAD = "4-bit output head dequantised for each chunk (fp16, then a bf16 copy)"


def _estimate(task: str, framework: str, model=LLAMA_2_7B, micro: int = 2, seq: int = 512):
    req = PlanRequest(
        model=model,
        task=task,
        precision="bf16",
        seq_len=seq,
        batch_size=micro,
        mixed_precision=False,
        framework=framework,
        assumptions=Assumptions(lora_rank=32),
    )
    return estimate_memory(req, Parallelism(), device=Device.CPU, optimizer_impl=OptimizerImpl.FOREACH)


def _part(estimate, name: str) -> int:
    (size,) = [p.bytes for p in estimate.stack_parts if p.name == name]
    return size


def test_litgpt_llama_lora_block_keeps_what_its_traced_modules_keep():
    # saved_tensors_hooks over LitGPT's own LoRA GPT (commit 5895df10, q and v adapted, bf16, CPU) keeps
    # 181,928 B per token per layer on Llama 2 7B and 178,984 on Llama 3 8B; CUDA's dropout mask is 1 B,
    # not the CPU kernel's 2 (h = 4,096 B less), and the per-layer index tensor, logsumexp, rsqrt and
    # rank-sized tensors (1,192 and 808 B per token at the traced 64 tokens) do not grow with h or f.
    assert litgpt_block_bytes(LLAMA_2_7B, 2, all_linear=False).total == 181_928 - 4_096 - 1_192
    assert litgpt_block_bytes(LLAMA_3_8B, 2, all_linear=False).total == 178_984 - 4_096 - 808


def test_full_multi_head_attention_keeps_the_fused_qkv_output_whole_grouped_query_attention_does_not():
    # Under MHA the value is a view of the fused QKV output, which SDPA keeps, so all of it stays; under
    # GQA LitGPT expands k and v into copies and the fused output is freed.
    mha, gqa = litgpt_block_bytes(LLAMA_2_7B, 2, False), litgpt_block_bytes(LLAMA_3_8B, 2, False)
    assert mha.attention == 6 * 4096 * 2  # q, k, output + q, k, v of the fused output
    assert gqa.attention == 4 * 4096 * 2  # q, k, the expanded v, output


def test_fabric_returns_fp32_logits_so_each_token_keeps_8_bytes_per_vocabulary_entry():
    # the fp32 logits (Fabric's convert_output) and the fp32 log-softmax of each chunk's cross-entropy
    assert litgpt_loss_bytes_per_token(LLAMA_2_7B) == 8 * 32000


def test_old_bitsandbytes_keeps_each_4bit_linear_input_once_per_distinct_input():
    qlora = _estimate("qlora", "litgpt")
    # attention input h + MLP input h (gate and up share it) + down projection input f, per layer;
    # the output projection's input is a view of the attention output SDPA keeps anyway
    assert _part(qlora, KEPT_INPUTS) == 2 * 512 * 32 * (2 * 4096 + 11008) * 2
    # LoRA over a 16-bit base runs torch's linear, which keeps no input of a frozen weight
    assert not _estimate("lora", "litgpt").stack_parts


def test_litgpt_loop_holds_the_previous_steps_graph_and_so_its_kept_inputs_through_the_next_forward():
    qlora = _estimate("qlora", "litgpt")
    assert _part(qlora, PREVIOUS_STEP) == _part(qlora, KEPT_INPUTS)
    assert qlora.phase == "backward"


def test_the_4bit_head_is_dequantised_to_fp16_then_copied_to_bf16_for_each_chunk():
    assert _part(_estimate("qlora", "litgpt"), DEQUANTISED_HEAD) == 32000 * 4096 * 4
    assert _part(_estimate("qlora", "litgpt", model=LLAMA_3_8B), DEQUANTISED_HEAD) == 128256 * 4096 * 4


def test_nf4_without_double_quantisation_costs_the_gap_between_litgpts_nf4_and_nf4_dq_rows():
    # An fp32 absmax per 64 weights is 0.5 bit; double quantisation makes it 0.127: on Llama 2 7B's 6.6B
    # 4-bit weights (every Linear, the head too) that is the 0.30 GB between the resource tables' bnb.nf4
    # (14.14 GB) and bnb.nf4-dq (13.84 GB) rows.
    assert W_NF4_NO_DQ_ALL_LINEAR.bytes_per_weight == 4.5 / 8
    four_bit = LLAMA_2_7B.total_params() - 32000 * 4096
    gap_gb = four_bit * (W_NF4_NO_DQ_ALL_LINEAR.bytes_per_weight - W_NF4.bytes_per_weight) / 1e9
    assert gap_gb == pytest.approx(14.14 - 13.84, rel=0.05)


def test_litgpt_quantises_the_head_and_keeps_only_the_token_embedding_in_16_bit():
    litgpt = _estimate("qlora", "litgpt")
    sixteen_bit = 32000 * 4096 + 4096  # token embedding and final norm
    adapters = litgpt.components.weights - round(
        (LLAMA_2_7B.total_params() - sixteen_bit) * 4.5 / 8 + sixteen_bit * 2
    )
    # what is left is LitGPT's bf16 adapters on q and v: r (in + out) x 2 B per adapted matrix
    assert adapters == pytest.approx(32 * 32 * (4096 + 4096) * 2 * 2, abs=2)


def test_the_default_stack_plans_qlora_as_before():
    default = _estimate("qlora", "default")
    assert not default.stack_parts
    assert "NF4 (bitsandbytes, embeddings and head 16-bit)" in default.formulas["weights"]


def test_the_cli_plans_litgpt_qlora_with_its_named_buffers(capsys):
    argv = ["plan", "--model", "llama-2-7b", "--task", "qlora", "--gpu", "nvidia-a10g", "--json"]
    assert run_cli([*argv, "--framework", "litgpt"]) == 0
    litgpt = json.loads(capsys.readouterr().out)
    names = [p["name"] for p in litgpt["options"][0]["stack_parts"]]
    assert names == [KEPT_INPUTS, PREVIOUS_STEP, DEQUANTISED_HEAD]
    assert run_cli(argv) == 0
    default = json.loads(capsys.readouterr().out)
    assert litgpt["options"][0]["per_gpu_bytes"] > default["options"][0]["per_gpu_bytes"]


def test_all_linear_lora_adds_a_dropout_mask_and_output_per_adapted_input_and_drops_zero_pad():
    # Traced with lora_key, lora_projection and lora_mlp on: 257,784 B per token per layer on CPU, whose
    # dropout masks are 2 B (five masks: 4h + f = 27,392 B more than CUDA's) and 248 B of logsumexp, rsqrt
    # and rank-sized tensors; with q, k and v all adapted zero_pad returns its input (no index_copy).
    assert litgpt_block_bytes(LLAMA_2_7B, 2, all_linear=True).total == 257_784 - 27_392 - 248
    # Llama 3 8B: 274,680 B traced, f = 14,336
    assert litgpt_block_bytes(LLAMA_3_8B, 2, all_linear=True).total == 274_680 - (4 * 4096 + 14336) - 248
