"""What an estimate is: the numbers and how they were obtained (formula, phase, notes).

The estimators (`memory`, `speed`, `cost`) return these; a plan's options carry them; the faces read
them and never call the estimators themselves. Pure data with trivial derived values, no formulas.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

COMPONENTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
# Buying is compared with renting over three years of ownership: the usual depreciation life of servers.
OWNERSHIP_MONTHS = 36


class WordedLater(BaseModel):
    """An estimate whose words (formulas, terms, notes: the fields named in WORDS) may be worked out
    when first read, its numbers at once.

    A plan words one option per catalogue GPU, and most of that text is never read (the GUI shows
    one option's working; a plan compared or ranked reads numbers). `worded_later(wording, **numbers)`
    builds the estimate with its numbers validated as the ordinary constructor validates them, and
    keeps `wording` (a pure function of what the estimator had worked out, returning the words by
    field name) until an attribute, a dump, a comparison, a hash, a repr, a copy or a pickle needs
    the words; then they are filled in the fields' own order, and the estimate reads exactly as one
    built with its words. Built the ordinary way (a saved plan read back, a test) it holds them already.
    """

    # A slot, not a pydantic private attribute: those cost an initialisation per object, and a plan
    # builds hundreds of estimates. Unset on an estimate built the ordinary way.
    __slots__ = ("_wording",)
    model_config = ConfigDict(frozen=True)
    WORDS: ClassVar[dict[str, Any]] = {}  # each worded field with a placeholder its type validates

    @classmethod
    def worded_later(cls, wording: Callable[[], dict[str, Any]], **numbers: Any) -> Any:
        # The constructor's own validation, called without its Python frame and keyword re-packing.
        made = cls.__pydantic_validator__.validate_python(numbers | cls.WORDS)
        data = made.__dict__
        for name in cls.WORDS:
            del data[name]
        object.__setattr__(made, "_wording", wording)
        return made

    def _word(self) -> None:
        """Fill in the words, once (a no-op for an estimate that holds them)."""
        wording = getattr(self, "_wording", None)
        if wording is None:
            return
        data, words = self.__dict__, wording()
        # In the fields' order (dumps follow the dict's), swapped in whole: a reader on another thread
        # sees the numbers alone or everything, and at worst words them again (the same words).
        ordered = {name: data[name] if name in data else words[name] for name in type(self).model_fields}
        object.__setattr__(self, "__dict__", ordered)
        object.__setattr__(self, "_wording", None)

    if not TYPE_CHECKING:  # to a type checker the fields are plain attributes

        def __getattr__(self, name: str) -> Any:
            if name in self.WORDS:
                self._word()
                if name in self.__dict__:
                    return self.__dict__[name]
            return super().__getattr__(name)

    def __eq__(self, other: object) -> bool:
        self._word()
        if isinstance(other, WordedLater):
            other._word()
        return super().__eq__(other)

    def __hash__(self) -> int:
        self._word()
        return hash((type(self), *self.__dict__.values()))

    def __repr_args__(self) -> Any:
        self._word()
        return super().__repr_args__()

    def __iter__(self) -> Any:
        self._word()
        return super().__iter__()

    def __copy__(self) -> Any:
        self._word()  # the slot is not copied: the copy holds the words
        return super().__copy__()

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Any:
        self._word()
        return super().__deepcopy__(memo)

    def __getstate__(self) -> dict[Any, Any]:
        self._word()
        return super().__getstate__()

    @model_serializer(mode="wrap")
    def _worded_dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        self._word()
        return handler(self)


class MemoryComponents(BaseModel):
    """Bytes on one device by component; they sum to `total`."""

    model_config = ConfigDict(frozen=True)
    weights: int = 0
    gradients: int = 0
    optimizer: int = 0
    activations: int = 0
    kv_cache: int = 0
    overhead: int = 0

    @property
    def total(self) -> int:
        return sum(getattr(self, c) for c in COMPONENTS)


class StackPart(BaseModel):
    """A buffer the training stack keeps (core/stack_memory.py), counted inside `component`: its bytes
    on the device, the formula and the source that shows it."""

    model_config = ConfigDict(frozen=True)
    name: str
    component: str
    bytes: int
    formula: str
    source: str


class MemoryEstimate(WordedLater):
    """The footprint on one device, how each component was computed, and what was assumed."""

    WORDS: ClassVar[dict[str, Any]] = {"formulas": {}, "notes": (), "stack_parts": ()}
    components: MemoryComponents
    phase: str  # "backward" | "optimizer step" | "inference"
    formulas: dict[str, str]
    notes: tuple[str, ...] = ()
    kv_pool_bytes: int | None = None  # the serving engine's KV pool on this card (vLLM, TensorRT-LLM)
    # The `overhead` component in its parts (they sum to it): non-PyTorch memory (CUDA context,
    # workspaces, kernels, NCCL), the allocator's fragmentation, and the share of the card a serving
    # engine leaves unused (vLLM gpu_memory_utilization, TensorRT-LLM free fraction). None off CUDA.
    overhead_parts: dict[str, int] | None = None
    # The training stack's named buffers, each inside one of the components (empty for the default
    # stack, and then left out of the dump so that plans of the default stack read as before).
    stack_parts: tuple[StackPart, ...] = ()

    @model_serializer(mode="wrap")
    def _without_empty_stack_parts(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        self._word()  # this serializer replaces WordedLater's
        data = handler(self)
        if not self.stack_parts:
            data.pop("stack_parts", None)
        return data

    @property
    def total_bytes(self) -> int:
        return self.components.total


class SpeedTerm(BaseModel):
    """One part of a step's time: what it is, its seconds per step, and how it was computed.

    `exposed` is False for work hidden behind other work (communication overlapped with backward);
    such a term is shown but not added to the step.
    """

    model_config = ConfigDict(frozen=True)
    name: str
    seconds: float
    formula: str
    exposed: bool = True


class TrainingSpeed(WordedLater):
    """One training step of a layout, and the time to train a token budget.

    `mfu` counts model FLOPs (PaLM's definition: 6P + 12 L s h per token; recomputation not counted),
    `hfu` the hardware FLOPs including the recomputed forward pass, both at the predicted speed.
    """

    WORDS: ClassVar[dict[str, Any]] = {"formula": "", "terms": ()}
    kind: Literal["training"] = "training"
    flops_per_token: float  # model FLOPs
    hardware_flops_per_token: float = 0.0  # with recomputation
    tokens_per_step: int
    step_time_s: float
    tokens_per_s: float
    time_to_train_s: float | None
    gpu_hours: float | None
    bound: str
    formula: str
    time_per_epoch_s: float | None = None  # dataset tokens / tokens_per_s, with a dataset
    epochs: float | None = None
    mfu: float = 0.0
    hfu: float = 0.0
    terms: tuple[SpeedTerm, ...] = ()
    efficiency_source: str = ""


def time_to_first_token_s(prefill_s: float, tokens_per_s_per_user: float) -> float:
    """A new request's first token: its prompt's prefill, then one decode step of the running batch
    (continuous batching admits it between steps)."""
    return prefill_s + (1 / tokens_per_s_per_user if tokens_per_s_per_user > 0 else 0.0)


class InferenceSpeed(WordedLater):
    """Prefill of one user's prompt and decode at the layout's concurrency."""

    WORDS: ClassVar[dict[str, Any]] = {"formula": "", "prefill_formula": "", "terms": ()}
    kind: Literal["inference"] = "inference"
    flops_per_token: float
    prefill_s: float
    decode_s_per_token: float
    tokens_per_s_per_user: float
    tokens_per_s: float
    bound: str
    formula: str
    prefill_formula: str = ""
    terms: tuple[SpeedTerm, ...] = ()
    efficiency_source: str = ""

    @property
    def ttft_s(self) -> float:
        return time_to_first_token_s(self.prefill_s, self.tokens_per_s_per_user)


Speed = TrainingSpeed | InferenceSpeed


class SpeedSummary(NamedTuple):
    """The few numbers that rank layouts: what the speed functions return when asked for no detail
    (the recommender compares thousands of layouts and words only the one it keeps). A NamedTuple:
    as immutable as a frozen dataclass and built in about half the time (a frozen dataclass sets each
    field through object.__setattr__), and a plan builds one per layout it compares."""

    kind: Literal["training", "inference"]
    tokens_per_s: float
    tokens_per_s_per_user: float = 0.0
    prefill_s: float = 0.0
    time_to_train_s: float | None = None


class CostEstimate(WordedLater):
    """Costs of `count` GPUs used `hours_per_month` hours a month. None where a price is unknown."""

    WORDS: ClassVar[dict[str, Any]] = {"formula": ""}
    cloud_usd_per_hour: float | None
    cloud_usd_per_month: float | None
    purchase_usd: float | None
    electricity_usd_per_month: float | None
    breakeven_months: float | None
    job_cloud_usd: float | None = None
    power_kw: float | None = None  # at the wall, GPUs and hosts, PUE included
    formula: str

    def rent_total_usd(self, months: float) -> float | None:
        """Renting for `months` months at the plan's hours per month."""
        return None if self.cloud_usd_per_month is None else self.cloud_usd_per_month * months

    def buy_total_usd(self, months: float) -> float | None:
        """Buying, then paying the electricity for `months` months."""
        if self.purchase_usd is None:
            return None
        return self.purchase_usd + (self.electricity_usd_per_month or 0.0) * months

    def cumulative(self, months: int) -> tuple[list[float | None], list[float | None]]:
        """Cumulative rent and buy at the end of months 0..months, for charts and tables."""
        return (
            [self.rent_total_usd(m) for m in range(months + 1)],
            [self.buy_total_usd(m) for m in range(months + 1)],
        )
