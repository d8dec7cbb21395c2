"""The module a trace runs: a transformers model built from its config.json (or from a preset's shape),
or the user's own `nn.Module` factory; LoRA adapters through peft. transformers and peft are optional:
a missing one raises TraceUnavailable with the command that installs it.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch._subclasses.fake_tensor import FakeTensor

from gpu_advisor.core.architecture import Family, ModelSpec
from gpu_advisor.core.errors import UserInputError
from gpu_advisor.core.precision import Precision

INSTALL_HINT = "pip install 'transformers>=5.24,<6' 'peft>=0.21,<1' (or ./install.sh --dev)"
DTYPES = {Precision.FP32: torch.float32, Precision.BF16: torch.bfloat16, Precision.FP16: torch.float16}
# q/k/v/o under the names the supported families use (peft matches module-name suffixes).
LORA_ATTENTION = ("q_proj", "k_proj", "v_proj", "o_proj", "query_key_value", "qkv_proj", "dense", "c_attn")
_FACTORY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class TraceUnavailable(UserInputError):
    """The trace cannot run here (a package is missing, or the model cannot be built): one line."""


def require(package: str) -> Any:
    """Import an optional package, or say how to install it."""
    try:
        return importlib.import_module(package)
    except ImportError:
        raise TraceUnavailable(f"the trace needs {package}; install it with: {INSTALL_HINT}") from None


def config_from_spec(spec: ModelSpec) -> dict[str, Any]:
    """A transformers config.json for a preset's shape (Llama-style or GPT-2 decoders)."""
    if spec.family is Family.GPT2:
        return {
            "model_type": "gpt2",
            "n_layer": spec.n_layers,
            "n_embd": spec.hidden_size,
            "n_head": spec.n_heads,
            "n_inner": spec.ffn_size,
            "vocab_size": spec.vocab_size,
            "n_positions": spec.max_positions,
            # GPT2Config's dropout is 0.1: a preset without dropout is traced without it
            **({} if spec.uses_dropout else {"resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0}),
        }
    if spec.family is Family.BERT:
        raise TraceUnavailable(f"model: {spec.name} is an encoder; the trace runs decoder language models")
    model_type = spec.model_type or ("mixtral" if spec.is_moe else "llama")
    config: dict[str, Any] = {
        "model_type": model_type,
        "num_hidden_layers": spec.n_layers,
        "hidden_size": spec.hidden_size,
        "num_attention_heads": spec.n_heads,
        "num_key_value_heads": spec.kv_heads,
        "head_dim": spec.d_head,
        "intermediate_size": spec.ffn_size,
        "vocab_size": spec.vocab_size,
        "max_position_embeddings": spec.max_positions,
        "tie_word_embeddings": spec.ties_embeddings,
    }
    if spec.is_moe:
        config |= {"num_local_experts": spec.n_experts, "num_experts_per_tok": spec.experts_per_token}
    return config


def hf_config(config: dict[str, Any], *, training: bool) -> Any:
    """A transformers PretrainedConfig from a config.json dictionary, its dropout as the model trains
    with it (GPT-2's 0.1 keeps a mask per dropout layer for backward: 10% of its activations)."""
    transformers = require("transformers")
    fields = {k: v for k, v in config.items() if k not in ("model_type", "auto_map", "architectures")}
    model_type = config.get("model_type")
    try:
        cfg = transformers.AutoConfig.for_model(model_type, **fields)
    except (ValueError, KeyError) as exc:
        raise TraceUnavailable(
            f"model: transformers {transformers.__version__} has no model_type {model_type!r} ({exc})"
        ) from None
    check_config_bounds(cfg.to_dict())
    cfg.use_cache = not training
    return cfg


# The ModelSpec field each config key sizes: the trace builds what the planner could size, no more (a
# nested text_config of 20,000 layers would otherwise run for minutes and take gigabytes).
_BOUNDED_KEYS = {
    "n_layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "hidden_size": ("hidden_size", "n_embd", "d_model"),
    "n_heads": ("num_attention_heads", "n_head", "num_heads"),
    "ffn_size": ("intermediate_size", "n_inner", "ffn_dim", "d_ff", "moe_intermediate_size"),
    "vocab_size": ("vocab_size",),
    "n_experts": ("num_local_experts", "num_experts", "n_routed_experts"),
}


def _upper_bound(field: str) -> int:
    from gpu_advisor.core.architecture import ModelSpec

    return next(m.le for m in ModelSpec.model_fields[field].metadata if hasattr(m, "le"))


def check_config_bounds(config: dict[str, Any]) -> None:
    """TraceUnavailable naming the key when the built config, or any config nested in it (text_config,
    vision_config, ...), sizes a layer count, width, vocabulary or expert count beyond ModelSpec's."""
    limits = {key: (field, _upper_bound(field)) for field, keys in _BOUNDED_KEYS.items() for key in keys}
    stack: list[tuple[str, Any]] = [("", config)]
    while stack:
        where, item = stack.pop()
        if not isinstance(item, dict):
            continue
        for key, value in item.items():
            at = f"{where}{key}"
            if isinstance(value, dict) and at.count(".") < 8:
                stack.append((f"{at}.", value))
            elif key in limits and type(value) is int and value > limits[key][1]:
                raise TraceUnavailable(
                    f"model: {at}: {value:,} is beyond the {limits[key][1]:,} the planner sizes"
                )


def build_hf_model(
    config: dict[str, Any], dtype: torch.dtype, *, training: bool, attention: str = "sdpa"
) -> nn.Module:
    """`AutoModelForCausalLM.from_config` (AutoModel for other heads) in `dtype` with the `attention`
    kernel asked for; for SDPA, the model's eager attention where it has no SDPA path (Gemma 2's logit
    soft-capping): `attention_kernel(model)` then says "eager" and the planner knows it."""
    transformers = require("transformers")
    cfg = hf_config(config, training=training)
    for kernel in dict.fromkeys((attention, "eager")):
        try:
            try:
                model = transformers.AutoModelForCausalLM.from_config(
                    cfg, dtype=dtype, attn_implementation=kernel
                )
            except ValueError as exc:
                if "Unrecognized configuration class" not in str(exc):
                    raise
                model = transformers.AutoModel.from_config(cfg, dtype=dtype, attn_implementation=kernel)
        except ValueError as exc:
            if kernel != "eager" and "attention implementation" in str(exc):
                continue
            raise TraceUnavailable(
                f"model: transformers cannot build it ({str(exc).splitlines()[0]})"
            ) from None
        return model.train(training)
    raise AssertionError("unreachable")


def load_factory(path: str) -> nn.Module:
    """The module returned by the user's `package.module:function` (called with no arguments)."""
    if not _FACTORY.match(path):
        raise TraceUnavailable(f"--module: {path!r} is not package.module:function")
    module_name, _, function = path.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), function)
    except (ImportError, AttributeError) as exc:
        raise TraceUnavailable(f"--module: cannot load {path} ({exc})") from None
    try:
        model = factory()
    except Exception as exc:  # the user's code: one that needs arguments (os:system) or raises
        first = str(exc).splitlines()[0][:200] if str(exc) else ""
        raise TraceUnavailable(f"--module: {path}() failed ({type(exc).__name__}: {first})") from None
    if not isinstance(model, nn.Module):
        raise TraceUnavailable(f"--module: {path} returned {type(model).__name__}, not a torch.nn.Module")
    return model


def add_lora(model: nn.Module, rank: int, all_linear: bool) -> nn.Module:
    """LoRA adapters of rank r on q, k, v, o (or every linear layer), frozen base, fp32 adapters."""
    peft = require("peft")
    names = {n.rpartition(".")[2] for n, m in model.named_modules() if isinstance(m, nn.Linear)}
    targets = "all-linear" if all_linear else sorted(names & set(LORA_ATTENTION))
    if not targets:
        raise TraceUnavailable("LoRA: no q/k/v/o projections found; use all linear layers")
    config = peft.LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules=targets)
    return peft.get_peft_model(model, config)


def enable_checkpointing(model: nn.Module) -> None:
    """Recompute each decoder layer in backward (non-reentrant torch.utils.checkpoint)."""
    target = model.get_base_model() if hasattr(model, "get_base_model") else model
    enable = getattr(target, "activation_checkpointing_enable", None)
    if enable is not None:
        enable(activation_checkpointing_kwargs={"use_reentrant": False})
    elif hasattr(target, "gradient_checkpointing_enable"):
        target.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    else:
        raise TraceUnavailable("--grad-checkpointing: this module has no checkpointing switch")


def module_groups(model: nn.Module) -> list[str]:
    """The top-level modules the trace reports: descend through containers that hold no parameters of
    their own (a causal-LM wrapper's `model`, peft's wrappers); a ModuleList of layers is one group."""
    groups: list[str] = []

    def visit(prefix: str, module: nn.Module, depth: int) -> None:
        own = any(True for _ in module.parameters(recurse=False))
        children = list(module.named_children())
        if depth < 4 and not own and children and not isinstance(module, nn.ModuleList):
            for name, child in children:
                visit(f"{prefix}.{name}" if prefix else name, child, depth + 1)
        elif prefix:
            groups.append(prefix)

    visit("", model, 0)
    return groups


@dataclass
class BuiltModel:
    """The module to trace and what it is."""

    model: nn.Module
    architecture: str
    vocab_size: int
    hf: bool  # a transformers model (labels, KV cache, logits_to_keep)
    attention: str | None = None  # the attention kernel it runs (attention_kernel), None if unknown

    @property
    def parameters(self) -> int:
        return sum(p.numel() for p in self.model.parameters())

    @property
    def trainable(self) -> int:
        return sum(p.numel() for p in self.model.parameters() if p.requires_grad)


def attention_kernel(model: nn.Module) -> str | None:
    """The attention kernel a transformers model runs ('sdpa', 'eager'); None for other modules."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    if not type(base).__module__.startswith("transformers"):
        return None
    return getattr(getattr(base, "config", None), "_attn_implementation", None) or "sdpa"


def describe_architecture(model: nn.Module) -> str:
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    name = type(base).__name__
    attention = attention_kernel(model)
    if attention is not None:
        return f"{name} (transformers {require('transformers').__version__}, {attention} attention)"
    return f"{name} ({type(base).__module__})"


@contextlib.contextmanager
def quiet_library_warnings() -> Iterator[None]:
    """transformers and peft announce their own internal renames (FutureWarning) while a model is built
    and run; they say nothing about the user's job."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


class CacheOffset:
    """Tokens already in the KV cache, as the step knows them (fake tensors cannot be read)."""

    def __init__(self) -> None:
        self.tokens = 0


@contextlib.contextmanager
def real_control_flow(offset: CacheOffset) -> Iterator[None]:
    """Make transformers take the branches it takes on real tensors while tensors are fake.

    transformers reads a few values to choose a code path: whether a batch holds packed sequences
    (never, here) and whether SDPA's `is_causal` can replace an explicit mask (it reads the static
    cache's offset). On fake tensors it cannot read them and builds explicit (batch, 1, q, kv) masks
    that the real step never allocates. The answers are known here, so they are given.
    """
    try:
        masking = importlib.import_module("transformers.masking_utils")
    except ImportError:
        yield
        return
    original_ignore = masking._ignore_causal_mask_sdpa
    original_packed = masking.find_packed_sequence_indices

    def ignore_causal_mask(padding_mask, q_length, kv_length, q_offset, kv_offset, *args, **kwargs):
        if isinstance(q_offset, FakeTensor):
            q_offset = offset.tokens
        return original_ignore(padding_mask, q_length, kv_length, q_offset, kv_offset, *args, **kwargs)

    def packed_indices(position_ids):
        return None if isinstance(position_ids, FakeTensor) else original_packed(position_ids)

    masking._ignore_causal_mask_sdpa = ignore_causal_mask
    masking.find_packed_sequence_indices = packed_indices
    try:
        yield
    finally:
        masking._ignore_causal_mask_sdpa = original_ignore
        masking.find_packed_sequence_indices = original_packed


def materialize_fake(model: nn.Module) -> nn.Module:
    """Replace a meta-device model's parameters and buffers by fake CPU tensors (inside FakeTensorMode),
    keeping tied weights tied. peft cannot move adapters of a model built directly on fake tensors."""
    memo: dict[int, torch.Tensor] = {}
    for module in model.modules():
        for name, param in list(module._parameters.items()):
            if param is not None:
                if id(param) not in memo:
                    fresh = torch.empty(param.shape, dtype=param.dtype, device="cpu")
                    memo[id(param)] = nn.Parameter(fresh, requires_grad=param.requires_grad)
                module._parameters[name] = memo[id(param)]  # type: ignore[assignment]
        for name, buffer in list(module._buffers.items()):
            if buffer is not None:
                if id(buffer) not in memo:
                    memo[id(buffer)] = torch.empty(buffer.shape, dtype=buffer.dtype, device="cpu")
                module._buffers[name] = memo[id(buffer)]
    return model
