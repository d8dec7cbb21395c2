"""A small PyTorch model zoo built from the core's ModelSpec, with random weights (imports torch).

Two families, shaped exactly as `ModelSpec.total_params()` counts them (tests check the counts match):
- GPT-2 style: learned positions, LayerNorm, fused qkv projection with biases, GELU (tanh) MLP, output
  head tied to the token embedding.
- Llama style: RMSNorm, rotary positions (RoPE), grouped KV heads (GQA), SwiGLU MLP, no biases, an
  untied output head.

The modules follow what `gpu_advisor.core.memory` assumes is saved for backward: attention through
`F.scaled_dot_product_attention` (memory-efficient kernels, no s x s matrix kept), no dropout, grouped
K/V passed to SDPA without repeating them to every query head. A preallocated KV cache (`KVCache`)
serves inference.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from gpu_advisor.bench.options import check_buildable
from gpu_advisor.core.architecture import Family, ModelSpec

LAYER_NORM_EPS = 1e-5  # GPT-2's layer_norm_epsilon
RMS_NORM_EPS = 1e-5  # Llama-2's rms_norm_eps
ROPE_THETA = 10000.0  # Llama-2's rope_theta


class KVCache:
    """Keys and values for every layer, preallocated for `batch` x `max_tokens` positions.

    Shape per layer: (batch, kv_heads, max_tokens, head_dim) in the model's dtype, as serving engines
    allocate it up front. `length` is the number of positions already filled.
    """

    def __init__(
        self, spec: ModelSpec, batch: int, max_tokens: int, dtype: torch.dtype, device: torch.device
    ) -> None:
        shape = (batch, spec.kv_heads, max_tokens, spec.d_head)
        self.keys = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(spec.n_layers)]
        self.values = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(spec.n_layers)]
        self.max_tokens = max_tokens
        self.length = 0

    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in (*self.keys, *self.values))


def _attend(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layer: int, cache: KVCache | None, start: int
) -> torch.Tensor:
    """SDPA over (b, heads, s, d) tensors; with a cache, k/v are written at `start` and read back."""
    if cache is not None:
        end = start + q.shape[2]
        cache.keys[layer][:, :, start:end] = k
        cache.values[layer][:, :, start:end] = v
        k = cache.keys[layer][:, :, :end]
        v = cache.values[layer][:, :, :end]
    # Causal within the new tokens; one new token (decode) attends to every cached position.
    causal = q.shape[2] > 1
    gqa = k.shape[1] != q.shape[1]
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)


# ---- GPT-2 ------------------------------------------------------------------------------------------
class Gpt2Block(nn.Module):
    def __init__(self, spec: ModelSpec) -> None:
        super().__init__()
        h, d = spec.hidden_size, spec.d_head
        self.n_heads, self.kv_heads, self.d_head = spec.n_heads, spec.kv_heads, d
        self.q_out, self.kv_out = spec.n_heads * d, spec.kv_heads * d
        self.ln_1 = nn.LayerNorm(h, eps=LAYER_NORM_EPS)
        self.c_attn = nn.Linear(h, self.q_out + 2 * self.kv_out)
        self.c_proj = nn.Linear(self.q_out, h)
        self.ln_2 = nn.LayerNorm(h, eps=LAYER_NORM_EPS)
        self.c_fc = nn.Linear(h, spec.ffn_size)
        self.act = nn.GELU(approximate="tanh")
        self.mlp_proj = nn.Linear(spec.ffn_size, h)

    def forward(self, x: torch.Tensor, layer: int, cache: KVCache | None, start: int) -> torch.Tensor:
        b, s, _ = x.shape
        qkv = self.c_attn(self.ln_1(x))
        q, k, v = qkv.split((self.q_out, self.kv_out, self.kv_out), dim=-1)
        q = q.view(b, s, self.n_heads, self.d_head).transpose(1, 2)
        k = k.view(b, s, self.kv_heads, self.d_head).transpose(1, 2)
        v = v.view(b, s, self.kv_heads, self.d_head).transpose(1, 2)
        y = _attend(q, k, v, layer, cache, start)
        x = x + self.c_proj(y.transpose(1, 2).reshape(b, s, self.q_out))
        return x + self.mlp_proj(self.act(self.c_fc(self.ln_2(x))))


class Gpt2Model(nn.Module):
    def __init__(self, spec: ModelSpec) -> None:
        super().__init__()
        self.spec = spec
        self.wte = nn.Embedding(spec.vocab_size, spec.hidden_size)
        self.wpe = nn.Embedding(spec.max_positions, spec.hidden_size)
        self.blocks = nn.ModuleList(Gpt2Block(spec) for _ in range(spec.n_layers))
        self.ln_f = nn.LayerNorm(spec.hidden_size, eps=LAYER_NORM_EPS)
        self.lm_head = nn.Linear(spec.hidden_size, spec.vocab_size, bias=False)
        if spec.ties_embeddings:
            self.lm_head.weight = self.wte.weight

    def hidden(self, tokens: torch.Tensor, cache: KVCache | None = None, start: int = 0) -> torch.Tensor:
        positions = torch.arange(start, start + tokens.shape[1], device=tokens.device)
        x = self.wte(tokens) + self.wpe(positions)
        for i, block in enumerate(self.blocks):
            x = block(x, i, cache, start)
        return self.ln_f(x)


# ---- Llama ------------------------------------------------------------------------------------------
class RMSNorm(nn.Module):
    def __init__(self, size: int, eps: float = RMS_NORM_EPS) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaBlock(nn.Module):
    def __init__(self, spec: ModelSpec) -> None:
        super().__init__()
        h, d = spec.hidden_size, spec.d_head
        self.n_heads, self.kv_heads, self.d_head = spec.n_heads, spec.kv_heads, d
        self.input_layernorm = RMSNorm(h)
        self.q_proj = nn.Linear(h, spec.n_heads * d, bias=False)
        self.k_proj = nn.Linear(h, spec.kv_heads * d, bias=False)
        self.v_proj = nn.Linear(h, spec.kv_heads * d, bias=False)
        self.o_proj = nn.Linear(spec.n_heads * d, h, bias=False)
        self.post_attention_layernorm = RMSNorm(h)
        self.gate_proj = nn.Linear(h, spec.ffn_size, bias=False)
        self.up_proj = nn.Linear(h, spec.ffn_size, bias=False)
        self.down_proj = nn.Linear(spec.ffn_size, h, bias=False)

    def forward(
        self,
        x: torch.Tensor,
        rope: tuple[torch.Tensor, torch.Tensor],
        layer: int,
        cache: KVCache | None,
        start: int,
    ) -> torch.Tensor:
        b, s, _ = x.shape
        cos, sin = rope
        normed = self.input_layernorm(x)
        q = self.q_proj(normed).view(b, s, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(normed).view(b, s, self.kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(normed).view(b, s, self.kv_heads, self.d_head).transpose(1, 2)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        y = _attend(q, k, v, layer, cache, start)
        x = x + self.o_proj(y.transpose(1, 2).reshape(b, s, self.n_heads * self.d_head))
        normed = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(normed)) * self.up_proj(normed))


class LlamaModel(nn.Module):
    def __init__(self, spec: ModelSpec) -> None:
        super().__init__()
        self.spec = spec
        self.embed_tokens = nn.Embedding(spec.vocab_size, spec.hidden_size)
        self.blocks = nn.ModuleList(LlamaBlock(spec) for _ in range(spec.n_layers))
        self.norm = RMSNorm(spec.hidden_size)
        self.lm_head = nn.Linear(spec.hidden_size, spec.vocab_size, bias=False)
        if spec.ties_embeddings:
            self.lm_head.weight = self.embed_tokens.weight
        inv_freq = 1.0 / ROPE_THETA ** (torch.arange(0, spec.d_head, 2, dtype=torch.float32) / spec.d_head)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def _rope(self, start: int, length: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
        positions = torch.arange(start, start + length, device=self.inv_freq.device, dtype=torch.float32)
        angles = torch.outer(positions, self.inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        return angles.cos().to(dtype), angles.sin().to(dtype)

    def hidden(self, tokens: torch.Tensor, cache: KVCache | None = None, start: int = 0) -> torch.Tensor:
        x = self.embed_tokens(tokens)
        rope = self._rope(start, tokens.shape[1], x.dtype)
        for i, block in enumerate(self.blocks):
            x = block(x, rope, i, cache, start)
        return self.norm(x)


def build_model(
    spec: ModelSpec, *, dtype: torch.dtype = torch.float32, device: torch.device | str = "cpu", seed: int = 0
) -> nn.Module:
    """A randomly initialised model of `spec`'s exact shape on `device`, in `dtype`, in train mode."""
    check_buildable(spec)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        with torch.device(device):
            model = Gpt2Model(spec) if spec.family is Family.GPT2 else LlamaModel(spec)
        for param in model.parameters():
            if param.dim() >= 2:  # GPT-2's and Llama's initialiser_range for matrices and embeddings
                nn.init.normal_(param, std=0.02)
    return model.to(dtype=dtype)


def count_parameters(model: nn.Module) -> int:
    """Distinct parameters (a tied head counts once)."""
    return sum(p.numel() for p in model.parameters())


def training_loss(model: nn.Module, tokens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy computed from fp32 logits inside the step (no logits kept by the caller)."""
    hidden = model.hidden(tokens)
    logits = model.lm_head(hidden).float()
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.reshape(-1))


def last_token_logits(model: nn.Module, hidden: torch.Tensor) -> torch.Tensor:
    """Logits of the last position only, in fp32, as `generate()` computes them after a prompt."""
    return model.lm_head(hidden[:, -1:, :]).float()
