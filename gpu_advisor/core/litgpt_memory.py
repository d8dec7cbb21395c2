"""What LitGPT's LoRA and QLoRA fine-tuning keep (`--framework litgpt`): its LoRA block's saved tensors
operation by operation, its loss tensors, and what bitsandbytes before PR #1270 and LitGPT's loop keep
on top for a 4-bit base (README, "Method").

The stack: LitGPT's finetune/lora.py on Lightning Fabric, precision bf16-true, as in its 2023-24
releases (lit-gpt 8641822 of the resource tables, litgpt 5895df10 of the config hub's table; they pin
bitsandbytes 0.41.1 and 0.42.0). The per-operation bytes were traced on CPU with
torch.autograd.graph.saved_tensors_hooks over LitGPT's own modules at both commits (distinct storages,
Llama 2 7B / Llama 3 8B / phi-1.5 / StableLM Alpha 3B shapes): Llama 2 7B keeps 181,928 B per token per
layer on CPU, 176,640 B on CUDA, whose dropout mask is 1 byte (the CPU kernel's is 2) and whose
flash/memory-efficient attention returns a view of a (b, s, heads, d) output. That an input kept as a
ctx attribute outlives backward while the function's output is referenced, where one given to
ctx.save_for_backward is released, was checked with two autograd Functions (torch 2.13, CPU).
"""

from __future__ import annotations

from dataclasses import dataclass

from .architecture import ModelSpec, Norm
from .stack_memory import StackBuffer

LITGPT_LORA_SOURCE = (
    "Lightning-AI/litgpt litgpt/lora.py and litgpt/model.py (commit 5895df10; lit_gpt/ at 8641822 is the "
    "same): LoRAQKVLinear, RMSNorm (x.float()), CausalSelfAttention, LLaMAMLP / GptNeoxMLP; saved "
    "tensors traced with torch.autograd.graph.saved_tensors_hooks"
)
FABRIC_LOGITS_SOURCE = (
    "Lightning-AI/pytorch-lightning src/lightning/fabric/plugins/precision/half.py and bitsandbytes.py, "
    "convert_output: outputs are cast to torch.get_default_dtype() (fp32); litgpt/finetune/lora.py: "
    "model(input_ids, lm_head_chunk_size=128), chunked_cross_entropy per 128-token chunk"
)
BNB_SAVED_INPUT_SOURCE = (
    "bitsandbytes/autograd/_functions.py (0.41.1, 0.42.0), MatMul4Bit.forward: ctx.tensors = (A, B), the "
    "input kept as a ctx attribute, which backward does not release; removed by bitsandbytes PR #1270 "
    "('delete useless buffered activation', merged 2024-07-16, first in 0.43.2)"
)
LITGPT_LOOP_SOURCE = (
    "Lightning-AI/litgpt litgpt/finetune/lora.py, fit(): `logits = model(input_ids, ...)` is rebound only "
    "when the next forward returns, so the previous step's graph, and the inputs bitsandbytes kept on its "
    "nodes, live through the next forward"
)
BNB_DEQUANT_SOURCE = (
    "bitsandbytes MatMul4Bit: F.dequantize_4bit(B, quant_state).to(A.dtype) per call; Lightning Fabric's "
    "_Linear4bit._quantize_weight quantises from weight.half(), so the dequantised copy is fp16 and the "
    "bf16 cast is a second one; the head runs once per 128-token chunk"
)

# CUDA's fused dropout keeps a 1-byte bool mask.
MASK_BYTES = 1
# LitGPT's RMSNorm computes in fp32 (x = x.float()); the multiplications keep that copy.
FP32_BYTES = 4
# LayerNorm keeps fp32 mean and rstd per token besides its input.
LAYER_NORM_STATS_BYTES = 8


@dataclass(frozen=True, slots=True)
class LitgptBlock:
    """Saved bytes per token of one LitGPT LoRA block, by part, and the formula in words."""

    norms: float
    lora: float
    attention: float
    mlp: float

    @property
    def total(self) -> float:
        return self.norms + self.lora + self.attention + self.mlp


def litgpt_lora_targets(model: ModelSpec, all_linear: bool) -> tuple[str, ...]:
    """The projections LitGPT adapts: query and value (its finetune/lora.py defaults, and every
    config-hub recipe of Llama 2/3, Mistral, phi and StableLM), or every linear layer but the head."""
    return tuple(model.linear_shapes()) if all_linear else ("q", "v")


def litgpt_lora_params(model: ModelSpec, rank: int, all_linear: bool) -> int:
    """Adapter parameters of LitGPT's targets: r (in + out) per adapted matrix."""
    shapes = model.linear_shapes()
    per_layer = sum(rank * (shapes[n][0] + shapes[n][1]) for n in litgpt_lora_targets(model, all_linear))
    return model.n_layers * per_layer


def litgpt_block_bytes(model: ModelSpec, elem: int, all_linear: bool) -> LitgptBlock:
    """Bytes per token one LitGPT LoRA block keeps for backward (frozen base weights, bf16-true):

    - norms: RMSNorm keeps its fp32 input (4h B), LayerNorm its input and fp32 mean/rstd (h e + 8);
    - LoRA on the fused QKV: the dropout mask (h x 1 B) and the dropout output (h e) for lora_A's
      gradient; with only some of q, k, v adapted, zero_pad's index_copy keeps its source, the adapted
      outputs (q_out + v_out) e; all-linear adds mask + dropout output on the output projection's input
      (h) and on each MLP matrix's input (h, h and f gated, h and f GELU);
    - attention (SDPA): q and k after RoPE (h e each), the output (h e; the output projection's input is
      a view of it), and v: with as many KV heads as query heads a view of the fused QKV output, which so
      stays whole ((h + 2 kd) e), else the expanded copy (h e);
    - MLP: SwiGLU keeps SiLU's input, its output and the up projection (3 f e), GELU its input (f e);
      frozen linear layers keep no input.
    """
    h, f, kd = model.hidden_size, model.ffn_size, model.kv_heads * model.d_head
    if model.norm_kind is Norm.RMS:
        norm = FP32_BYTES * h
    elif model.norm_kind is Norm.LAYER:
        norm = h * elem + LAYER_NORM_STATS_BYTES
    else:
        norm = h * elem
    adapted = litgpt_lora_targets(model, all_linear)
    dropout = h * (MASK_BYTES + elem)  # one LoRA input: mask + dropout output
    lora = dropout
    if not {"q", "k", "v"} <= set(adapted):
        shapes = model.linear_shapes()
        lora += sum(shapes[n][1] for n in ("q", "k", "v") if n in adapted) * elem
    mlp_lora = 0.0
    if all_linear:
        lora += dropout  # output projection
        if model.gated_mlp:
            mlp_lora = 2 * dropout + f * (MASK_BYTES + elem)
        else:
            mlp_lora = dropout + f * (MASK_BYTES + elem)
    value = (h + 2 * kd) * elem if model.kv_heads == model.n_heads else h * elem
    attention = 3 * h * elem + value
    mlp = (3 * f * elem if model.gated_mlp else f * elem) + mlp_lora
    return LitgptBlock(
        norms=model.layer_norms * norm,
        lora=lora,
        attention=attention,
        mlp=mlp * model.experts_per_token,
    )


def litgpt_loss_bytes_per_token(model: ModelSpec) -> float:
    """Fabric returns the logits in fp32 (4 V B per token) and each chunk's cross-entropy keeps its fp32
    log-softmax (4 V B): 8 V B per token at the start of backward."""
    return 2 * FP32_BYTES * model.vocab_size


def litgpt_activations(model: ModelSpec, elem: int, tokens: int, all_linear: bool) -> tuple[float, str]:
    """Saved activations and loss tensors of a LitGPT LoRA step, and the formula in words."""
    block = litgpt_block_bytes(model, elem, all_linear)
    loss = litgpt_loss_bytes_per_token(model)
    targets = "every linear layer" if all_linear else "q, v"
    formula = (
        f"LitGPT LoRA block ({targets}), per token per layer: norms {block.norms:,.0f} + LoRA inputs "
        f"{block.lora:,.0f} + attention {block.attention:,.0f} + MLP {block.mlp:,.0f} = "
        f"{block.total:,.0f} B; x L {model.n_layers} x {tokens:,} tokens; loss: {loss:,.0f} B per token "
        "(fp32 logits from Fabric + fp32 log-softmax per chunk)"
    )
    return tokens * (model.n_layers * block.total + loss), formula


def bnb_kept_input_elements(model: ModelSpec) -> int:
    """Elements per token per layer that bitsandbytes' MatMul4Bit (before PR #1270) keeps: the distinct
    inputs of a block's 4-bit linear layers. The attention input (h); the MLP input (h) unless attention
    and MLP share one norm (parallel blocks with one norm: phi); the down projection's input (f; the
    gate and up projections share the MLP input). The output projection's input is a view of the
    attention output SDPA keeps anyway. The first layer's attention input needs no gradient and is not
    kept; the head's input (h) is: the two cancel."""
    h, f = model.hidden_size, model.ffn_size
    mlp_input = 0 if model.layer_norms == 1 else h
    return h + mlp_input + f * model.experts_per_token


def litgpt_qlora_buffers(model: ModelSpec, elem: int, tokens: int) -> tuple[StackBuffer, ...]:
    """What LitGPT's QLoRA (bnb.nf4 with bitsandbytes 0.41-0.42) keeps besides its LoRA block."""
    per_token = model.n_layers * bnb_kept_input_elements(model) * elem
    kept = tokens * per_token
    words = (
        f"b x s {tokens:,} x L {model.n_layers} x {bnb_kept_input_elements(model):,} input elements "
        f"x {elem} B"
    )
    head = model.vocab_size * model.hidden_size
    return (
        StackBuffer(
            "bitsandbytes MatMul4Bit inputs kept for backward (before PR #1270)",
            "activations",
            kept,
            words + " (attention input, MLP input, down projection input per layer)",
            BNB_SAVED_INPUT_SOURCE,
        ),
        StackBuffer(
            "the previous step's kept 4-bit inputs, alive through the next forward",
            "activations",
            kept,
            words + ", once more: LitGPT's loop holds the last step's logits, and so its graph, until "
            "the next forward returns (then the new logits, 6 V B per token, stand where the loss's 8 V B "
            "are counted)",
            LITGPT_LOOP_SOURCE,
        ),
        StackBuffer(
            "4-bit output head dequantised for each chunk (fp16, then a bf16 copy)",
            "activations",
            head * (2.0 + 2.0),
            f"V {model.vocab_size:,} x h {model.hidden_size:,} x (2 + 2) B, while a chunk's head runs",
            BNB_DEQUANT_SOURCE,
        ),
    )
