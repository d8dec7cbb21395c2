"""Transformer architectures: the fields sizing needs, exact parameter counts, and Hugging Face configs.

Parameter counts follow the real module structure (README, "Method"): Llama-style blocks
have q/k/v/o projections with grouped KV heads, a gated (SwiGLU) MLP with three matrices and RMSNorm;
GPT-2 and BERT blocks have biases, a two-matrix GELU MLP, LayerNorm and learned positions.
"""

from __future__ import annotations

import math
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import UserInputError, field_problem
from .files import FileFormatError, read_json
from .units import format_count, parse_count


def refuse_bool(value: Any) -> Any:
    """A pydantic before-validator for counts: JSON true is an int to Python, but not a count."""
    if isinstance(value, bool):
        raise ValueError(f"expected a whole number, found {str(value).lower()}")
    return value


def counts_not_bools(*fields: str) -> Any:
    """A model's before-validator (assign it in the class body) applying refuse_bool to `fields`."""

    def check(cls: type, value: Any) -> Any:
        return refuse_bool(value)

    return field_validator(*fields, mode="before")(classmethod(check))


# Longer than any model id or folder name: a longer name comes from a broken or hostile file.
MAX_MODEL_NAME_CHARS = 300


class Family(StrEnum):
    LLAMA = "llama"  # Llama, Mistral, Mixtral, Qwen2-like: RMSNorm, SwiGLU, no biases, untied head
    GPT2 = "gpt2"  # LayerNorm, GELU MLP, biases, learned positions, tied head
    BERT = "bert"  # encoder: LayerNorm, GELU MLP, biases, positions, token types, pooler


class Norm(StrEnum):
    """What one normalisation layer stores."""

    RMS = "rms"  # RMSNorm: a weight of h
    LAYER = "layer"  # LayerNorm: a weight and a bias of h
    NONPARAMETRIC = "nonparametric"  # OLMo's LayerNorm without weight or bias: nothing


class ModelSpec(BaseModel):
    """One transformer's shape. Immutable; every size is a count of elements, not bytes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=MAX_MODEL_NAME_CHARS)
    family: Family
    n_layers: int = Field(ge=1, le=1000)
    hidden_size: int = Field(ge=8, le=131072)
    n_heads: int = Field(ge=1, le=1024)
    n_kv_heads: int | None = Field(default=None, ge=1, le=1024, description="None means n_heads (MHA)")
    head_dim: int | None = Field(default=None, ge=1, le=1024, description="None means hidden/heads")
    ffn_size: int = Field(ge=1, le=1_000_000)
    vocab_size: int = Field(ge=2, le=2_000_000)
    max_positions: int = Field(default=2048, ge=1, le=10_000_000)
    n_experts: int = Field(default=1, ge=1, le=1024)
    experts_per_token: int = Field(default=1, ge=1, le=1024)
    tied_embeddings: bool | None = None  # None: the family's default
    dropout: bool | None = None  # None: the family's default (GPT-2 and BERT train with dropout)
    # Llama-style variants (None: the family's default). Qwen2 has q/k/v biases; Gemma 2 normalises
    # before and after attention and the MLP (4 norms per layer); OLMo's LayerNorm stores nothing.
    qkv_bias: bool | None = None
    norm: Norm | None = None
    norms_per_layer: int | None = Field(default=None, ge=0, le=16)
    model_type: str | None = Field(default=None, description="Hugging Face model_type, where known")
    notes: tuple[str, ...] = Field(default=(), description="What the plan must warn about this shape")
    source: str = Field(default="", description="Where the shape came from (config, paper, a guess)")
    guessed: bool = False

    _count_not_a_bool = counts_not_bools(
        "n_layers",
        "hidden_size",
        "n_heads",
        "n_kv_heads",
        "head_dim",
        "ffn_size",
        "vocab_size",
        "max_positions",
        "n_experts",
        "experts_per_token",
        "norms_per_layer",
    )

    @model_validator(mode="after")
    def _check_shape(self) -> Self:
        if self.head_dim is None and self.hidden_size % self.n_heads:
            raise ValueError(f"n_heads: {self.n_heads} heads do not divide hidden_size {self.hidden_size}")
        if self.kv_heads > self.n_heads or self.n_heads % self.kv_heads:
            raise ValueError(f"n_kv_heads: {self.kv_heads} must divide n_heads {self.n_heads}")
        if self.experts_per_token > self.n_experts:
            raise ValueError(
                f"experts_per_token: {self.experts_per_token} exceeds n_experts {self.n_experts}"
            )
        return self

    # ---- derived shape -------------------------------------------------------------------------
    @property
    def kv_heads(self) -> int:
        return self.n_kv_heads or self.n_heads

    @property
    def d_head(self) -> int:
        return self.head_dim or self.hidden_size // self.n_heads

    @property
    def gated_mlp(self) -> bool:
        return self.family is Family.LLAMA

    @property
    def has_biases(self) -> bool:
        return self.family is not Family.LLAMA

    @property
    def ties_embeddings(self) -> bool:
        if self.tied_embeddings is not None:
            return self.tied_embeddings
        return self.family is not Family.LLAMA

    @property
    def uses_dropout(self) -> bool:
        if self.dropout is not None:
            return self.dropout
        return self.family is not Family.LLAMA

    @property
    def is_moe(self) -> bool:
        return self.n_experts > 1

    @property
    def is_decoder(self) -> bool:
        return self.family is not Family.BERT

    # ---- parameter counts ----------------------------------------------------------------------
    @property
    def norm_kind(self) -> Norm:
        if self.norm is not None:
            return self.norm
        return Norm.RMS if self.family is Family.LLAMA else Norm.LAYER

    @property
    def layer_norms(self) -> int:
        """Normalisation layers per block: 2 (before attention and MLP) unless the model says otherwise."""
        return 2 if self.norms_per_layer is None else self.norms_per_layer

    def attention_params(self) -> int:
        h, q_out, kv_out = self.hidden_size, self.n_heads * self.d_head, self.kv_heads * self.d_head
        weights = h * q_out + 2 * h * kv_out + q_out * h
        if self.has_biases:
            biases = q_out + 2 * kv_out + h
        elif self.qkv_bias:
            biases = q_out + 2 * kv_out  # Qwen2: q, k and v carry biases, the output projection none
        else:
            biases = 0
        return weights + biases

    def expert_params(self) -> int:
        """One MLP (one expert in an MoE layer)."""
        h, f = self.hidden_size, self.ffn_size
        if self.gated_mlp:
            return 3 * h * f + ((2 * f + h) if self.has_biases else 0)
        return 2 * h * f + ((f + h) if self.has_biases else 0)

    def norm_params(self) -> int:
        """One normalisation layer: RMSNorm has a weight, LayerNorm a weight and a bias, OLMo's none."""
        per_h = {Norm.RMS: 1, Norm.LAYER: 2, Norm.NONPARAMETRIC: 0}[self.norm_kind]
        return per_h * self.hidden_size

    def layer_params(self, active_only: bool = False) -> int:
        return self._layer_params[1 if active_only else 0]

    @cached_property
    def _layer_params(self) -> tuple[int, int]:
        return self._count_layer_params(False), self._count_layer_params(True)

    def _count_layer_params(self, active_only: bool) -> int:
        experts = self.experts_per_token if active_only else self.n_experts
        router = self.hidden_size * self.n_experts if self.is_moe else 0
        norms = self.layer_norms * self.norm_params()
        return self.attention_params() + experts * self.expert_params() + router + norms

    def embedding_params(self) -> int:
        """Token embeddings, positions, final norm, untied output head (and BERT's extras)."""
        return self._embedding_params

    @cached_property
    def _embedding_params(self) -> int:
        h = self.hidden_size
        n = self.vocab_size * h
        if self.family is Family.GPT2:
            n += self.max_positions * h + self.norm_params()
        elif self.family is Family.BERT:
            # positions, 2 token types, embedding LayerNorm, pooler (dense h x h with bias)
            n += self.max_positions * h + 2 * h + self.norm_params() + h * h + h
        else:
            n += self.norm_params()
        if not self.ties_embeddings:
            n += self.vocab_size * h
        return n

    def untied_head_params(self) -> int:
        """The output head's weights where it is a matrix of its own (V x h), else 0 (tied)."""
        return 0 if self.ties_embeddings else self.vocab_size * self.hidden_size

    @cached_property
    def _param_counts(self) -> tuple[int, int]:
        embeddings = self.embedding_params()
        return (
            self.n_layers * self.layer_params() + embeddings,
            self.n_layers * self.layer_params(active_only=True) + embeddings,
        )

    def total_params(self) -> int:
        """Every stored parameter (all experts)."""
        return self._param_counts[0]

    def active_params(self) -> int:
        """Parameters a token passes through (top-k experts only): what FLOPs scale with."""
        return self._param_counts[1]

    def largest_tensor_params(self) -> int:
        """The largest single weight tensor: usually the token embedding (V x h)."""
        h = self.hidden_size
        return max(self.vocab_size * h, h * self.ffn_size, h * self.n_heads * self.d_head)

    def linear_shapes(self) -> dict[str, tuple[int, int]]:
        """(in, out) of each adaptable projection in one block, for LoRA sizing."""
        h, q_out, kv_out, f = (
            self.hidden_size,
            self.n_heads * self.d_head,
            self.kv_heads * self.d_head,
            self.ffn_size,
        )
        shapes = {"q": (h, q_out), "k": (h, kv_out), "v": (h, kv_out), "o": (q_out, h)}
        if self.gated_mlp:
            shapes |= {"gate": (h, f), "up": (h, f), "down": (f, h)}
        else:
            shapes |= {"fc_in": (h, f), "fc_out": (f, h)}
        return shapes

    def describe(self) -> str:
        kv = f", {self.kv_heads} KV heads" if self.kv_heads != self.n_heads else ""
        moe = f", {self.n_experts} experts (top-{self.experts_per_token})" if self.is_moe else ""
        return (
            f"{self.model_type or self.family.value}: {self.n_layers} layers, hidden {self.hidden_size}, "
            f"{self.n_heads} heads{kv}, FFN {self.ffn_size}, vocab {self.vocab_size}{moe}"
        )


class ConfigError(UserInputError):
    """A model description that cannot be used; the message names the field."""


# ---- Hugging Face config.json -----------------------------------------------------------------------
# Llama-style families whose parameter layout this module counts exactly, with what differs from Llama
# and the config defaults that differ (transformers' configuration_<type>.py). Qwen2-MoE's shared experts,
# Falcon's parallel blocks and DeepSeek's latent attention are not modelled: such configs raise
# UnknownArchitecture, and callers fall back to an approximation plus the trace (README, "Any model").
_LLAMA_VARIANTS: dict[str, dict[str, Any]] = {
    "llama": {},
    "mistral": {},
    "mixtral": {},
    "phi3": {},  # fused qkv and gate_up projections hold the same weights as Llama's separate ones
    "qwen2": {"qkv_bias": True},
    "gemma": {"tied_embeddings": True, "head_dim": 256},
    "gemma2": {"tied_embeddings": True, "head_dim": 256, "norms_per_layer": 4},
    "olmo": {"norm": Norm.NONPARAMETRIC},
}
SUPPORTED_MODEL_TYPES = frozenset(_LLAMA_VARIANTS) | {"gpt2", "bert"}


class UnknownArchitecture(ConfigError):
    """A config.json whose model_type the formulas do not count exactly."""

    def __init__(self, message: str, model_type: str) -> None:
        super().__init__(message)
        self.model_type = model_type


_REQUIRED = object()


def _config_name(config: dict[str, Any], name: str) -> str:
    """The model's name: the config's `_name_or_path` (often a local path), cut to the longest allowed."""
    text = str(config.get("_name_or_path") or name)
    return text if len(text) <= MAX_MODEL_NAME_CHARS else text[: MAX_MODEL_NAME_CHARS - 1] + "…"


class _Counts:
    """Whole numbers read from a config.json, remembering which key fed which ModelSpec field, so a
    problem is blamed on the key the user wrote (GPT-2's `n_embd`, not `hidden_size`)."""

    def __init__(self, config: dict[str, Any], name: str) -> None:
        self.config, self.name = config, name
        self.keys: dict[str, str] = {}  # ModelSpec field -> config key

    def __call__(self, field: str, key: str, default: Any = _REQUIRED) -> Any:
        value = self.config.get(key)
        if value is None:
            if default is _REQUIRED:
                raise KeyError(key)
            return default
        self.keys[field] = key
        # JSON true is a Python int; a count given as true, "768" or 12.5 is a broken file.
        if isinstance(value, bool) or not isinstance(value, int):
            shown = repr(value) if len(repr(value)) <= 40 else f"{repr(value)[:37]}..."
            raise ConfigError(f"{self.name}: {key}: expected a whole number, found {shown}")
        return value


def _llama_fields(config: dict[str, Any], model_type: str, count: _Counts) -> dict[str, Any]:
    variant = _LLAMA_VARIANTS[model_type]
    if config.get("attention_bias") or config.get("mlp_bias"):
        raise UnknownArchitecture(
            f"model_type {model_type!r} with attention_bias/mlp_bias is not counted exactly", model_type
        )
    head_dim = count("head_dim", "head_dim", None) or variant.get("head_dim")
    tied = config.get("tie_word_embeddings", variant.get("tied_embeddings", False))
    fields: dict[str, Any] = {
        "family": Family.LLAMA,
        "model_type": model_type,
        "n_layers": count("n_layers", "num_hidden_layers"),
        "hidden_size": count("hidden_size", "hidden_size"),
        "n_heads": count("n_heads", "num_attention_heads"),
        "n_kv_heads": count("n_kv_heads", "num_key_value_heads", None),
        "head_dim": head_dim,
        "ffn_size": count("ffn_size", "intermediate_size"),
        "vocab_size": count("vocab_size", "vocab_size"),
        "max_positions": count("max_positions", "max_position_embeddings", 4096),
        "n_experts": count("n_experts", "num_local_experts", 1),
        "experts_per_token": count("experts_per_token", "num_experts_per_tok", 1),
        "tied_embeddings": bool(tied),
    }
    for key in ("qkv_bias", "norm", "norms_per_layer"):
        if key in variant:
            fields[key] = variant[key]
    return fields


def from_hf_config(config: dict[str, Any], name: str = "config.json") -> ModelSpec:
    """Build a ModelSpec from a Hugging Face `config.json` dictionary.

    Counted exactly: Llama, Mistral, Mixtral, Phi-3, Qwen2, Gemma, Gemma 2, OLMo, GPT-2 and BERT.
    Anything else raises UnknownArchitecture (a ConfigError); `approximate_hf_config` makes a guess.
    """
    if not isinstance(config, dict):
        raise ConfigError(f"{name}: expected a JSON object")
    raw_type = config.get("model_type", "")
    if not isinstance(raw_type, str):
        raise ConfigError(f"{name}: model_type: expected text, found {type(raw_type).__name__}")
    model_type = raw_type.lower()
    count = _Counts(config, name)
    try:
        if model_type in _LLAMA_VARIANTS:
            fields = _llama_fields(config, model_type, count)
        elif model_type == "gpt2":
            n_embd = count("hidden_size", "n_embd", 768)
            fields = {
                "family": Family.GPT2,
                "n_layers": count("n_layers", "n_layer", 12),
                "hidden_size": n_embd,
                "n_heads": count("n_heads", "n_head", 12),
                "ffn_size": count("ffn_size", "n_inner", None) or 4 * n_embd,
                "vocab_size": count("vocab_size", "vocab_size", 50257),
                "max_positions": count("max_positions", "n_positions", 1024),
            }
        elif model_type == "bert":
            fields = {
                "family": Family.BERT,
                "n_layers": count("n_layers", "num_hidden_layers"),
                "hidden_size": count("hidden_size", "hidden_size"),
                "n_heads": count("n_heads", "num_attention_heads"),
                "ffn_size": count("ffn_size", "intermediate_size"),
                "vocab_size": count("vocab_size", "vocab_size"),
                "max_positions": count("max_positions", "max_position_embeddings", 512),
            }
        else:
            supported = ", ".join(sorted(SUPPORTED_MODEL_TYPES))
            raise UnknownArchitecture(
                f"{name}: model_type {model_type or '(missing)'!r} is not one the formulas count "
                f"exactly ({supported})",
                model_type,
            )
    except UnknownArchitecture as exc:
        if str(exc).startswith(name):
            raise
        raise UnknownArchitecture(f"{name}: {exc}", model_type) from None
    except KeyError as exc:
        raise ConfigError(f"{name}: missing field {exc.args[0]!r}") from None
    try:
        return ModelSpec(name=_config_name(config, name), source=name, **fields)
    except ValidationError as exc:
        raise ConfigError(f"{name}: {_first_error(exc, count.keys)}") from None


# Field names of the shape in configs of other families (first found wins).
_APPROX_KEYS = {
    "n_layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "hidden_size": ("hidden_size", "n_embd", "d_model", "dim"),
    "n_heads": ("num_attention_heads", "n_head", "num_heads", "n_heads"),
    "ffn_size": ("intermediate_size", "n_inner", "ffn_dim", "d_ff", "ffn_hidden_size"),
    "vocab_size": ("vocab_size", "padded_vocab_size"),
}


def _count(config: dict[str, Any], *keys: str) -> int | None:
    """The first of `keys` whose value is a positive int (only `type(v) is int`: not a string, a bool
    or a float, which a hostile config may hold); None if none is."""
    return next((config[k] for k in keys if type(config.get(k)) is int and config[k] > 0), None)


def approximate_hf_config(config: dict[str, Any], name: str, param_count: int | None = None) -> ModelSpec:
    """A Llama-style stand-in for a config the formulas do not count: its layers, width, heads, FFN and
    vocabulary where the config names them (the parameter count's guessed shape otherwise). Marked
    `guessed`; the trace measures the real architecture."""
    found: dict[str, int] = {}
    for field, keys in _APPROX_KEYS.items():
        value = next((config[k] for k in keys if type(config.get(k)) is int and config[k] > 0), None)
        if value is not None:
            found[field] = value
    raw_type = config.get("model_type")
    model_type = raw_type[:100] if isinstance(raw_type, str) and raw_type else "unknown"
    how = f"Llama-style approximation of {model_type!r} from its config.json"
    if {"n_layers", "hidden_size", "n_heads", "vocab_size"} <= set(found):
        h = found["hidden_size"]
        kv = _count(config, "num_key_value_heads", "num_kv_heads")
        if config.get("multi_query") is True and config.get("new_decoder_architecture") is not True:
            kv = 1  # Falcon-7B style multi-query attention
        experts = _count(config, "num_local_experts", "n_routed_experts", "num_experts") or 1
        top_k = (_count(config, "num_experts_per_tok") or 1) if experts > 1 else 1
        ffn = _count(config, "moe_intermediate_size") if experts > 1 else None
        if not ffn and "ffn_size" not in found:
            ffn = round(8 * h / 3)  # a gated MLP with the weights of a 4h two-matrix (GELU) MLP
        fields: dict[str, Any] = {
            "family": Family.LLAMA,
            "model_type": model_type,
            "n_layers": found["n_layers"],
            "hidden_size": h,
            "n_heads": found["n_heads"],
            "n_kv_heads": kv if isinstance(kv, int) and found["n_heads"] % kv == 0 else None,
            "head_dim": None if h % found["n_heads"] == 0 else max(1, h // found["n_heads"]),
            "ffn_size": ffn or found.get("ffn_size") or 4 * h,
            "vocab_size": found["vocab_size"],
            "max_positions": config.get("max_position_embeddings") or 4096,
            "n_experts": experts,
            "experts_per_token": min(top_k, experts),
            "tied_embeddings": bool(config.get("tie_word_embeddings", False)),
        }
        try:
            spec = ModelSpec(name=_config_name(config, name), source=name, **fields)
        except ValidationError:
            spec = None
        if spec is not None:
            return spec.model_copy(update={"guessed": True, "source": f"{how} ({name})"})
    if param_count is None:
        raise ConfigError(
            f"{name}: model_type {model_type!r}: no layers/width/heads/vocabulary found to size it"
        )
    spec = guess_from_param_count(param_count)
    return spec.model_copy(
        update={
            "name": _config_name(config, name),
            "model_type": model_type,
            "source": f"shape guessed from the parameter count of {name} (model_type {model_type!r})",
        }
    )


def load_hf_config(path: str | Path) -> ModelSpec:
    """Read a `config.json` file; raises ConfigError naming the file and the field."""
    path = Path(path)
    try:
        data = read_json(path)
    except FileFormatError as exc:
        raise ConfigError(str(exc)) from None
    spec = from_hf_config(data, name=path.name)
    return spec.model_copy(
        update={
            "source": str(path),
            "name": spec.name if spec.name != path.name else path.parent.name or path.name,
        }
    )


def read_hf_config(path: str | Path) -> tuple[ModelSpec, dict[str, Any], bool]:
    """A config.json file -> (shape, the JSON, counted exactly?). Architectures the formulas do not count
    get `approximate_hf_config`'s stand-in with a note saying so; ConfigError for anything unusable."""
    path = Path(path)
    try:
        data = read_json(path)
    except FileFormatError as exc:
        raise ConfigError(str(exc)) from None
    try:
        return load_hf_config(path), data, True
    except UnknownArchitecture as exc:
        name = path.parent.name or path.name
        try:
            spec = approximate_hf_config(data, name)
        except ConfigError:  # named by the file, with what the user can do instead
            raise ConfigError(
                f"{path}: model_type {exc.model_type!r}: no layers, width, heads or vocabulary to size it; "
                "give its parameter count instead (e.g. 7B)"
            ) from None
        note = (
            f"{path.name}: model_type {exc.model_type!r} is not counted by the formulas; a Llama-style "
            f"approximation ({spec.total_params():,} parameters) is used; the trace measures the real one"
        )
        return spec.model_copy(update={"notes": (note,), "source": f"{path} (approximated)"}), data, False


def _first_error(exc: ValidationError, keys: dict[str, str] | None = None) -> str:
    """'field: message' for the first problem, the field named by its config key where known."""
    keys = keys or {}
    path, msg = field_problem(exc)
    loc = ".".join(path)
    if loc and not msg.startswith(loc):  # a whole-model check's message already names its field
        msg = f"{loc}: {msg}"
    field, sep, rest = msg.partition(": ")
    return f"{keys[field]}: {rest}" if sep and field in keys else msg


# ---- a bare parameter count -------------------------------------------------------------------------
def parse_param_count(text: str) -> int:
    """'7B', '350M', '7e9', '1.5b' -> a parameter count. Raises ConfigError for anything else."""
    try:
        value = parse_count(text)
    except ValueError:
        raise ConfigError(f"params: {text!r} is not a parameter count (examples: 7B, 350M, 7e9)") from None
    if not 5e7 <= value <= 1e13:
        raise ConfigError(
            f"params: {text!r} is outside 50M..10T parameters (for smaller models give a config.json)"
        )
    return value


# Standard (hidden size, heads) pairs of published decoder models, smallest first.
_STANDARD_WIDTHS = (
    (256, 4),
    (512, 8),
    (768, 12),
    (1024, 16),
    (1536, 12),
    (2048, 16),
    (2560, 20),
    (3072, 24),
    (4096, 32),
    (5120, 40),
    (6144, 48),
    (8192, 64),
    (12288, 96),
    (16384, 128),
)


def guess_from_param_count(n_params: int) -> ModelSpec:
    """A Llama-style shape of about `n_params` parameters, for when only a count is known.

    The guess (documented in the README): a standard width (hidden size and heads of a published model),
    chosen so that the layer count is closest to hidden/128 (Llama-2-7B: 32 layers at 4096, Llama-2-13B:
    40 at 5120); 8 KV heads from 4096 wide (GQA, as Llama 3 and Mistral); FFN = 3.5 x hidden rounded to
    256 (Llama-3's 14336/4096); vocabulary 32000. Layers are solved so the total matches the count.
    """
    best: tuple[float, ModelSpec] | None = None
    for h, n_heads in _STANDARD_WIDTHS:
        n_kv = 8 if h >= 4096 else n_heads
        probe = ModelSpec(
            name="probe",
            family=Family.LLAMA,
            n_layers=1,
            hidden_size=h,
            n_heads=n_heads,
            n_kv_heads=n_kv,
            ffn_size=round(3.5 * h / 256) * 256,
            vocab_size=32000,
        )
        layers = max(1, round((n_params - probe.embedding_params()) / probe.layer_params()))
        misfit = abs(math.log(layers * 128 / h))
        if best is None or misfit < best[0]:
            best = (misfit, probe.model_copy(update={"n_layers": layers}))
    assert best is not None
    try:  # model_copy does not validate: check the solved layer count against ModelSpec's bounds
        ModelSpec.model_validate(best[1].model_dump())
    except ValidationError:
        raise ConfigError(
            f"{format_count(n_params)} parameters: more than any shape GPU Advisor sizes holds "
            "(at most 1,000 layers)"
        ) from None
    return best[1].model_copy(
        update={
            "name": f"{format_count(n_params)} parameters (guessed shape)",
            "guessed": True,
            "source": "shape guessed from the parameter count (Llama-style; see README, 'Method')",
        }
    )
