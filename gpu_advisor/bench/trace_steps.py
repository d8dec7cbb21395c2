"""The steps a trace runs, the same code with fake tensors (traced) and real ones (measured).

Training: forward, fp32 cross-entropy, backward and the optimizer step, as from the second step on
(`warm_up` runs step 1, which creates the optimizer state, then drops the gradients). 16-bit training
keeps 16-bit weights and gradients and an fp32 master copy inside the optimizer (mixed precision as
DeepSpeed and Megatron do it, the planner's 2 + 2 + 12 bytes per parameter for AdamW), updated one
tensor at a time with PyTorch's fused AdamW kernel (or SGD with momentum, or factored Adafactor), so
the step's only scratch is one fp32 gradient. Inference: a prefill of the prompt into a preallocated
KV cache (transformers' StaticCache, as serving engines allocate it) and one decode step.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import torch
import torch.nn.functional as F
import torch.optim.adamw as adamw_impl
import torch.optim.sgd as sgd_impl
from torch import nn

from gpu_advisor.bench.trace_model import BuiltModel, CacheOffset, TraceUnavailable, require
from gpu_advisor.core.precision import Optimizer
from gpu_advisor.core.trace import PHASE_DECODE, PHASE_PREFILL

LEARNING_RATE = 1e-4
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
SGD_MOMENTUM = 0.9


class MasterWeightOptimizer(torch.optim.Optimizer):
    """AdamW, SGD with momentum or Adafactor over fp32 master weights (16-bit models) or the weights
    themselves (fp32 models), one tensor at a time. All state lives in `self.state` (so memory trackers
    file it as optimizer state)."""

    def __init__(self, params: list[nn.Parameter], kind: Optimizer) -> None:
        if kind is Optimizer.ADAMW_8BIT:
            raise TraceUnavailable("--optimizer adamw-8bit needs bitsandbytes on a GPU; trace adamw instead")
        super().__init__(params, {"lr": LEARNING_RATE})
        self.kind = kind
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p: torch.Tensor) -> None:
        state = self.state[p]
        master = p.detach().float() if p.dtype != torch.float32 else None
        target = master if master is not None else p.detach()
        state["master"] = master
        state["step"] = torch.tensor(0.0)  # AdamW's fused kernel takes its step count as a tensor
        state["steps"] = 0
        if self.kind is Optimizer.ADAMW:
            state["exp_avg"] = torch.zeros_like(target)
            state["exp_avg_sq"] = torch.zeros_like(target)
        elif self.kind is Optimizer.SGD:
            state["momentum_buffer"] = torch.zeros_like(target)
        elif target.dim() > 1:  # Adafactor: a row and a column vector per matrix (Shazeer & Stern 2018)
            state["row_var"] = target.new_zeros((*target.shape[:-1], 1))
            state["col_var"] = target.new_zeros((*target.shape[:-2], 1, target.shape[-1]))
        else:
            state["variance"] = torch.zeros_like(target)

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, group["lr"])
        return None

    def _update(self, p: torch.Tensor, lr: float) -> None:
        state = self.state[p]
        master = state["master"]
        weights = master if master is not None else p
        grad = p.grad.float() if master is not None else p.grad
        if self.kind is Optimizer.ADAMW:
            state["step"] += 1
            adamw_impl.adamw(
                [weights], [grad], [state["exp_avg"]], [state["exp_avg_sq"]], [], [state["step"]],
                foreach=False, fused=True, amsgrad=False, beta1=ADAM_BETAS[0], beta2=ADAM_BETAS[1],
                lr=lr, weight_decay=0.01, eps=ADAM_EPS, maximize=False,
            )  # fmt: skip
        elif self.kind is Optimizer.SGD:
            sgd_impl.sgd(
                [weights], [grad], [state["momentum_buffer"]], foreach=False, weight_decay=0.0,
                momentum=SGD_MOMENTUM, lr=lr, dampening=0.0, nesterov=False, maximize=False,
            )  # fmt: skip
        else:
            state["steps"] += 1
            _adafactor(weights, grad, state, state["steps"], lr)
        del grad
        if master is not None:
            p.copy_(master)


def _adafactor(weights: torch.Tensor, grad: torch.Tensor, state: dict, step: int, lr: float) -> None:
    """torch.optim.Adafactor's update (torch/optim/_adafactor.py, `_single_tensor_adafactor`), with the
    same allocations, its scalars kept as tensors: fake tensors cannot be read with `.item()`."""
    eps1, eps2, beta2_decay, d = torch.finfo(weights.dtype).eps, 1e-3, -0.8, 1.0
    one_minus_beta2_t = step**beta2_decay
    rho_t = min(lr, 1 / step**0.5)
    alpha = weights.norm(2).div(weights.numel() ** 0.5).clamp(min=eps2).mul(rho_t)
    if grad.dim() > 1:
        row_var, col_var = state["row_var"], state["col_var"]
        row_var.lerp_(torch.norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1)), one_minus_beta2_t)
        col_var.lerp_(torch.norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2)), one_minus_beta2_t)
        var_estimate = row_var @ col_var
        var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
    else:
        state["variance"].lerp_(grad * grad, one_minus_beta2_t)
        var_estimate = state["variance"].clone()
    update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
    update.mul_(grad)
    denom = update.norm(2).div((update.numel() ** 0.5) * d).clamp(min=1.0)
    update.mul_(alpha / denom)
    weights.sub_(update)


def _loss(built: BuiltModel, ids: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy in fp32 (transformers upcasts the logits itself when given labels)."""
    if built.hf:
        return built.model(input_ids=ids, labels=ids).loss
    out = built.model(ids)
    logits = out if isinstance(out, torch.Tensor) else getattr(out, "logits", None)
    if logits is None and isinstance(out, tuple | list):
        logits = out[0]
    if not isinstance(logits, torch.Tensor) or logits.dim() != 3:
        raise TraceUnavailable("--module: the module must return logits of shape (batch, seq, vocab)")
    shifted = logits[:, :-1].float()
    return F.cross_entropy(shifted.reshape(-1, shifted.shape[-1]), ids[:, 1:].reshape(-1))


class TrainingStep:
    """One steady-state training step of `built` on a (batch, seq) batch of token ids."""

    def __init__(self, built: BuiltModel, optimizer: Optimizer, batch_size: int, seq_len: int) -> None:
        self.built = built
        trainable = [p for p in built.model.parameters() if p.requires_grad]
        if not trainable:
            raise TraceUnavailable("the model has no trainable parameters")
        self.optimizer = MasterWeightOptimizer(trainable, optimizer)
        self.ids = torch.randint(0, built.vocab_size, (batch_size, seq_len))

    def run(self) -> None:
        loss = _loss(self.built, self.ids)
        loss.backward()
        del loss
        self.optimizer.step()

    def warm_up(self) -> None:
        """Step 1 (creates nothing new here: the state exists; it fills the step counters), then the
        gradients are dropped as `zero_grad(set_to_none=True)` does before every step."""
        self.run()
        self.optimizer.zero_grad(set_to_none=True)

    def live_tensors(self) -> Iterator[torch.Tensor]:
        yield from self.built.model.parameters()
        yield from self.built.model.buffers()
        for state in self.optimizer.state.values():
            yield from (v for v in state.values() if isinstance(v, torch.Tensor))
        yield self.ids


class InferenceStep:
    """A prefill of `sequences` prompts into a preallocated KV cache, then one decode step."""

    def __init__(self, built: BuiltModel, sequences: int, prompt_tokens: int, output_tokens: int) -> None:
        self.built = built
        self.prompt = torch.randint(0, built.vocab_size, (sequences, prompt_tokens))
        self.cache = None
        # transformers 5.x renames `past_key_values` to `cache` (the old name warns until 5.40).
        forward = inspect.signature(built.model.forward).parameters
        self._cache_arg = "cache" if "cache" in forward else "past_key_values"
        if built.hf:
            transformers = require("transformers")
            self.cache = transformers.StaticCache(
                config=built.model.config, max_cache_len=prompt_tokens + output_tokens
            )
        self.phase_hook = lambda phase: None  # a tracker's phase switch
        self.offset = CacheOffset()  # tokens in the cache, for transformers' mask choice on fake tensors

    def _forward(self, ids: torch.Tensor) -> torch.Tensor:
        if self.cache is None:
            out = self.built.model(ids)
            logits = out if isinstance(out, torch.Tensor) else out[0]
            return logits[:, -1:]
        out = self.built.model(
            input_ids=ids, use_cache=True, logits_to_keep=1, **{self._cache_arg: self.cache}
        )
        return out.logits

    @torch.no_grad()
    def run(self) -> None:
        self.phase_hook(PHASE_PREFILL)
        self.offset.tokens = 0
        logits = self._forward(self.prompt)
        if self.cache is None:
            return  # a user's module without a KV cache: the prompt pass only
        token = logits[:, -1:].argmax(-1)
        del logits
        self.phase_hook(PHASE_DECODE)
        self.offset.tokens = self.prompt.shape[1]
        self._forward(token)

    @torch.no_grad()
    def warm_up(self) -> None:
        """Allocate the cache's full tensors with a one-token pass, then empty it (as a server does)."""
        self.built.model.eval()
        if self.cache is not None:
            self.offset.tokens = 0
            self._forward(self.prompt[:, :1])
            self.cache.reset()

    def cache_tensors(self) -> list[torch.Tensor]:
        if self.cache is None:
            return []
        out = []
        for layer in self.cache.layers:
            out += [
                t for t in (getattr(layer, "keys", None), getattr(layer, "values", None)) if t is not None
            ]
        return [t for t in out if isinstance(t, torch.Tensor) and t.numel()]

    def live_tensors(self) -> Iterator[torch.Tensor]:
        yield from self.built.model.parameters()
        yield from self.built.model.buffers()
        yield from self.cache_tensors()
        for layer in self.cache.layers if self.cache is not None else ():
            length = getattr(layer, "cumulative_length", None)
            if isinstance(length, torch.Tensor):
                yield length
        yield self.prompt


def prefill_sequences(users: int, prompt_tokens: int, max_prefill_tokens: int) -> int:
    """Sequences in one prefill pass: every user, or as many whole prompts as the chunked-prefill budget
    holds (core.memory's `min(users x prompt, max(prompt, budget))` tokens)."""
    return max(1, min(users, max(prompt_tokens, max_prefill_tokens) // prompt_tokens))
