"""What the user asks the planner: the validated request shared by the CLI, the GUI and saved plans."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .architecture import ModelSpec, counts_not_bools
from .calibration import MIN_EFFICIENCY, Calibration
from .errors import error_words
from .precision import (
    LLAMA_CPP_PRECISIONS,
    LORA_BASE_PRECISIONS,
    TRAINABLE_PRECISIONS,
    Engine,
    Framework,
    LossImpl,
    Optimizer,
    Precision,
    Task,
    Tier,
)
from .trace import TraceMismatch, TraceResult
from .units import HOURS_PER_MONTH


class Attention(StrEnum):
    SDPA = "sdpa"  # memory-efficient / flash kernels: no s^2 attention matrix kept
    EAGER = "eager"  # attention matrix materialised (and kept for backward)


class Vendor(StrEnum):
    NVIDIA = "nvidia"
    AMD = "amd"


class Purchase(StrEnum):
    RENT = "rent"
    BUY = "buy"


# How far past its context (max_position_embeddings) a request may go before it is refused (see
# PlanRequest._check_combination).
INFERENCE_CONTEXT_STRETCH = 2

# Assumptions that earlier versions had and the planner no longer uses: dropped when an old plan is read.
RETIRED_ASSUMPTIONS = ("tp_efficiency", "server_overhead", "system_power_fraction")


def _unset(ge: float, le: float, description: str) -> Any:
    """An optional number in [ge, le], unset by default (the planner then uses its own figure)."""
    return Field(default=None, ge=ge, le=le, description=description)


class Assumptions(BaseModel):
    """Every constant the estimates use, with its default's source. Editable in the GUI.

    The efficiencies default to None: each GPU then gets its architecture's and precision's published
    figures (resources/efficiencies.json); a number here applies to every GPU instead.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    mfu: float | None = _unset(
        MIN_EFFICIENCY,
        1,
        "Training utilisation: the fraction of the peak the GEMMs and attention reach on the FLOPs "
        "a step executes (PaLM's 6P + 12 L s h per token, plus the recomputed forward under "
        "checkpointing; without it this is the MFU). Empty: per GPU architecture and precision, from "
        "published runs (A100 bf16 0.67, H100 bf16 0.48, H100 fp8 0.31 of the fp8 peak).",
    )
    prefill_efficiency: float | None = _unset(
        MIN_EFFICIENCY,
        1,
        "Fraction of peak FLOP/s reached in the prompt pass. Empty: per architecture, "
        "precision and serving engine (TensorRT-LLM on A100 fp16: 0.69).",
    )
    bandwidth_efficiency: float | None = _unset(
        MIN_EFFICIENCY,
        1,
        "Fraction of peak memory bandwidth reached by decode (weights + KV read per step). "
        "Empty: per serving engine and weight format (TensorRT-LLM/vLLM 16-bit 0.79, llama.cpp Q4_0 0.50).",
    )
    step_overhead_s: float | None = _unset(
        0,
        10,
        "Fixed time per decode step (scheduling, sampling), seconds. Empty: per engine "
        "(vLLM 2.3 ms, compiled engines 0).",
    )
    host_overhead_per_layer_s: float | None = _unset(
        0,
        1,
        "Host (Python and kernel-launch) time per layer per step, seconds; the GPU works "
        "meanwhile, so a step takes the longer of the two. Empty: per stack (eager PyTorch 1.2 ms "
        "per layer for a forward pass, CUDA-graph engines 0).",
    )
    cuda_context_bytes: int | None = Field(
        default=None,
        ge=0,
        description="CUDA context, library workspaces and loaded kernels per GPU process. Empty: per "
        "stack (PyTorch training 1 GiB + 0.5 GiB NCCL when distributed; vLLM 1.8 GiB).",
    )
    fragmentation: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="Caching-allocator fragmentation as a fraction of the rest of the footprint "
        "(paged KV caches excluded).",
    )
    dp_comm_overlap: float = Field(
        default=0.9,
        ge=0,
        le=1,
        description="Share of the last micro-batch's backward pass that the data-parallel gradient "
        "reduction hides behind (bucketed all-reduce in PyTorch DDP/FSDP and Megatron).",
    )
    pipeline_layers_per_virtual_stage: int = Field(
        default=2,
        ge=1,
        le=1000,
        description="Interleaved 1F1B pipeline schedule: layers per virtual stage (Megatron "
        "--num-layers-per-virtual-pipeline-stage; NeMo's Llama recipes use 2-4). The bubble is "
        "(pp - 1) / (v m + pp - 1) with v virtual stages per GPU and m micro-batches.",
    )
    pipeline_interleaved: bool = Field(
        default=True,
        description="Pipeline schedule: interleaved 1F1B (Megatron-LM/Megatron-Core with virtual stages; "
        "Narayanan et al. 2021), bubble (pp - 1) / v micro-batch times; or plain 1F1B (PipeDream-Flush, "
        "DeepSpeed's TrainSchedule, Megatron without virtual stages; False), bubble pp - 1 micro-batch times.",
    )
    loss_chunks: int = Field(
        default=8,
        ge=1,
        le=4096,
        description="Chunks of a chunked cross-entropy (torchtune CEWithChunkedOutputLoss: 8).",
    )
    host_usd_per_machine: float | None = _unset(
        0,
        10_000_000,
        "Purchase: one machine without its GPUs (CPU, RAM, chassis, network), USD. Empty: "
        "per tier (resources/hosts.json: desktop $2,000, workstation tower $9,000, 8-GPU server "
        "$75,000, 8-GPU PCIe server $25,000).",
    )
    pue: float = Field(
        default=1.3,
        ge=1,
        le=3,
        description="Power usage effectiveness (a data centre's cooling overhead), applied to "
        "data-centre servers; a desktop or workstation draws only its own power.",
    )
    host_power_w_per_machine: float | None = _unset(
        0,
        100_000,
        "Power of one machine besides its GPUs (CPUs, RAM, fans, NICs), W under load. "
        "Empty: per tier (resources/hosts.json: desktop 200 W to 8-GPU server 3 kW).",
    )
    utilisation_of_tdp: float = Field(
        default=0.70, gt=0, le=1.2, description="Average GPU draw as a fraction of TDP under load."
    )
    lora_rank: int = Field(default=16, ge=1, le=4096, description="LoRA adapter rank r.")
    lora_all_linear: bool = Field(
        default=False, description="Adapt every linear layer (True) or only q, k, v, o (False)."
    )
    max_prefill_tokens: int = Field(
        default=8192,
        ge=256,
        le=1_000_000,
        description="Tokens per prefill step in a serving engine (vLLM chunked prefill budget): "
        "bounds prefill activations.",
    )

    @model_validator(mode="before")
    @classmethod
    def _drop_retired(cls, data: Any) -> Any:
        if isinstance(data, dict) and any(k in data for k in RETIRED_ASSUMPTIONS):
            return {k: v for k, v in data.items() if k not in RETIRED_ASSUMPTIONS}
        return data


# Recipe knobs with a value even when the user leaves them to the planner (core/recipe.py): a saved
# plan's inputs list the ones left open under "recipe_open", and reading them back drops their values.
OPEN_RECIPE_FIELDS = ("batch_size", "grad_accumulation_steps", "loss")


class PlanRequest(BaseModel):
    """One planning question. Validation messages name the field; the CLI and the GUI show them."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    model: ModelSpec
    task: Task = Task.INFERENCE
    precision: Precision = Precision.BF16
    optimizer: Optimizer = Optimizer.ADAMW
    seq_len: int = Field(default=2048, ge=1, le=10_000_000, description="Tokens per sequence")
    batch_size: int = Field(default=1, ge=1, le=1_000_000, description="Micro-batch per GPU")
    grad_checkpointing: bool | None = Field(
        default=None,
        description="Recompute activations in backward: True or False is the user's lock, None lets the "
        "planner choose",
    )
    global_batch: int | None = _unset(
        1,
        10_000_000,
        "Sequences per optimizer step over all replicas (data-parallel replicas x micro-batch "
        "x accumulation); None: the published-practice default for the task (core/recipe.py)",
    )
    grad_accumulation_steps: int = Field(
        default=1,
        ge=1,
        le=100_000,
        description="Micro-batches per optimizer step (also the pipeline's micro-batches); above 1 "
        "the gradients stay allocated through every backward pass",
    )
    loss: LossImpl = Field(default=LossImpl.FULL, description="Cross-entropy over the vocabulary")
    mixed_precision: bool = Field(
        default=True,
        description="fp32 master weights and optimizer state (Megatron, DeepSpeed, HF Trainer); off: "
        "pure 16-bit weights and AdamW state (torchtune's full fine-tune)",
    )
    attention: Attention = Attention.SDPA
    zero_stage: int | None = Field(default=None, ge=0, le=3, description="None: the planner chooses")
    gpus: int | None = Field(default=None, ge=1, le=100_000, description="Fix the GPU count")
    tensor_parallel: int | None = Field(
        default=None, ge=1, le=1024, description="Fix the tensor-parallel degree (None: the planner chooses)"
    )
    pipeline_parallel: int | None = _unset(
        1,
        1024,
        "Fix the pipeline-parallel degree (None: the planner chooses)",
    )
    engine: Engine = Field(default=Engine.VLLM, description="Serving stack (inference)")
    framework: Framework = Field(default=Framework.DEFAULT, description="Training stack (training)")
    # inference traffic
    users: int = Field(default=1, ge=1, le=10_000_000, description="Concurrent users (sequences)")
    prompt_tokens: int = Field(default=512, ge=1, le=10_000_000)
    output_tokens: int = Field(default=256, ge=1, le=10_000_000)
    tokens_per_s_per_user: float | None = Field(default=None, gt=0, le=1_000_000)
    # training target
    train_tokens: float | None = Field(default=None, gt=0, le=1e16)
    max_hours: float | None = Field(default=None, gt=0, le=1e6)
    # training data, instead of a token budget: a dataset of tokens (or of samples of seq_len tokens)
    # read `epochs` times
    dataset_tokens: float | None = Field(default=None, gt=0, le=1e16, description="Tokens in the dataset")
    dataset_samples: int | None = Field(
        default=None, ge=1, le=10**13, description="Samples (sequences of seq_len tokens) in the dataset"
    )
    epochs: float | None = Field(default=None, gt=0, le=1e6, description="Passes over the dataset (1)")
    # restrictions
    gpu: str | None = Field(default=None, description="Consider only this GPU (id or name)")
    tier: Tier | None = None
    # budget
    purchase: Purchase = Purchase.RENT
    # At least an hour: a vanishing use makes the break-even infinitely far.
    hours_per_month: float = Field(
        default=HOURS_PER_MONTH, ge=1, le=744, description="Hours of use per month"
    )
    electricity_usd_per_kwh: float = Field(default=0.15, ge=0, le=10)
    # deployment, serving targets and filters
    own_machines: bool = Field(
        default=False, description="I already own the machines: buying prices the GPUs only"
    )
    requests_per_s: float | None = Field(
        default=None,
        gt=0,
        le=1_000_000,
        description="Serving traffic as requests per second; the concurrent users follow by Little's "
        "law from the time each request takes (replaces users)",
    )
    ttft_s: float | None = Field(
        default=None, gt=0, le=3600, description="Target time to first token, seconds (inference)"
    )
    vendor: Vendor | None = Field(default=None, description="Consider only this vendor's GPUs")
    require_nvlink: bool = Field(default=False, description="Consider only GPUs joined by NVLink")
    assumptions: Assumptions = Field(default_factory=Assumptions)
    calibration: Calibration | None = Field(
        default=None, description="Measured figures (a results file) that replace defaults"
    )
    trace: TraceResult | None = Field(
        default=None, description="A memory trace of the real architecture; replaces the memory formulas"
    )

    @model_validator(mode="before")
    @classmethod
    def _open_recipe(cls, data: Any) -> Any:
        """Saved inputs: the recipe knobs listed under recipe_open stay the planner's."""
        if isinstance(data, dict) and "recipe_open" in data:
            open_ = data["recipe_open"]
            names = set(open_) & set(OPEN_RECIPE_FIELDS) if isinstance(open_, list) else set()
            return {k: v for k, v in data.items() if k != "recipe_open" and k not in names}
        return data

    def inputs_json(self) -> dict[str, Any]:
        """The request as saved (plan@1 `inputs`): every field, and for training the recipe knobs
        left to the planner under recipe_open."""
        out = self.model_dump(mode="json")
        if self.task.is_training:
            out["recipe_open"] = [k for k in OPEN_RECIPE_FIELDS if k not in self.model_fields_set]
        return out

    _count_not_a_bool = counts_not_bools(
        "seq_len",
        "batch_size",
        "grad_accumulation_steps",
        "global_batch",
        "zero_stage",
        "gpus",
        "tensor_parallel",
        "pipeline_parallel",
        "users",
        "prompt_tokens",
        "output_tokens",
    )

    @model_validator(mode="after")
    def _check_combination(self) -> Self:
        if self.task.is_training and self.task.is_adapter:
            if self.task is Task.QLORA and self.precision not in (
                Precision.BF16,
                Precision.FP16,
                Precision.FP32,
                Precision.INT4,
                Precision.NF4,
            ):
                raise ValueError(
                    "precision: QLoRA computes in bf16/fp16 over a 4-bit base; choose bf16, fp16 or int4"
                )
            if self.task is Task.LORA and self.precision not in LORA_BASE_PRECISIONS:
                raise ValueError(
                    f"precision: LoRA needs a base in {', '.join(sorted(LORA_BASE_PRECISIONS))}; "
                    "for a 4-bit base choose task qlora"
                )
        elif self.task.is_training and self.precision not in TRAINABLE_PRECISIONS:
            raise ValueError(
                f"precision: {self.precision} cannot be trained ({self.task}); use bf16, fp16, fp8 or "
                "fp32, or task lora/qlora"
            )
        if self.precision is Precision.NF4 and self.task not in (Task.INFERENCE, Task.QLORA):
            raise ValueError("precision: NF4 is a frozen 4-bit format: use it for inference or QLoRA")
        if (
            self.task is Task.INFERENCE
            and self.engine is Engine.LLAMA_CPP
            and self.precision not in LLAMA_CPP_PRECISIONS
        ):
            raise ValueError("precision: llama.cpp runs GGUF weights: 16-bit, int8 (Q8_0) or int4 (Q4_0)")
        tp, pp = self.tensor_parallel or 1, self.pipeline_parallel or 1
        if self.tensor_parallel is not None and self.model.n_heads % tp:
            raise ValueError(
                f"tensor_parallel: {tp} does not divide the model's {self.model.n_heads} attention heads"
            )
        if self.pipeline_parallel is not None and pp > self.model.n_layers:
            raise ValueError(f"pipeline_parallel: {pp} stages for {self.model.n_layers} layers")
        if self.gpus is not None and self.gpus % (tp * pp):
            raise ValueError(f"gpus: {self.gpus} GPUs are not a multiple of tp x pp = {tp * pp}")
        if self.task is Task.INFERENCE and not self.model.is_decoder and self.output_tokens > 1:
            raise ValueError(
                f"model: {self.model.name} is an encoder; it does not generate tokens (set output tokens to 1)"
            )
        if self.task.is_training and (self.requests_per_s is not None or self.ttft_s is not None):
            field = "requests_per_s" if self.requests_per_s is not None else "ttft_s"
            raise ValueError(f"{field}: serving targets apply to inference, not {self.task}")
        if self.global_batch is not None and not self.task.is_training:
            raise ValueError("global_batch: a global batch applies to training, not inference")
        if self.global_batch is not None and self.global_batch % self.batch_size:
            raise ValueError(
                f"global_batch: {self.global_batch} sequences are not a multiple of the micro-batch "
                f"{self.batch_size}"
            )
        if self.global_batch is not None and "grad_accumulation_steps" in self.model_fields_set:
            # A locked accumulation (with a locked micro-batch) leaves the replicas to share the rest.
            per_replica = self.grad_accumulation_steps * (
                self.batch_size if "batch_size" in self.model_fields_set else 1
            )
            if self.global_batch % per_replica:
                what = (
                    "micro-batch x accumulation"
                    if per_replica != self.grad_accumulation_steps
                    else "accumulation"
                )
                raise ValueError(
                    f"global_batch: {self.global_batch} sequences are not a multiple of the {what} "
                    f"({per_replica}), so no number of replicas keeps it"
                )
        if self.zero_stage and not self.task.is_training:
            raise ValueError("zero_stage: ZeRO shards training state; it does not apply to inference")
        context = self.model.max_positions
        # vLLM refuses a request longer than max_model_len (the model's context); published TensorRT-LLM
        # runs go a little past it (GPT-J and LLaMA 1, context 2,048, at 128 + 2,048 tokens), so only
        # requests beyond INFERENCE_CONTEXT_STRETCH x the context are refused. The last output token is
        # never fed back: prompt + output - 1 positions.
        positions = self.prompt_tokens + self.output_tokens - 1
        if self.task is Task.INFERENCE and positions > INFERENCE_CONTEXT_STRETCH * context:
            raise ValueError(
                f"prompt_tokens: {self.prompt_tokens:,} + {self.output_tokens:,} output tokens exceed "
                f"the model's context of {context:,} tokens"
            )
        if self.task.is_training and self.seq_len > self.model.max_positions * 64:
            raise ValueError(f"seq_len: {self.seq_len} is far beyond the model's context")
        _check_dataset(self)
        try:
            check_trace_matches(self)
        except TraceMismatch as exc:
            raise ValueError(str(exc)) from None
        return self

    @property
    def epoch_tokens(self) -> float | None:
        """Tokens in one pass over the dataset, if the request gives a dataset."""
        if self.dataset_tokens is not None:
            return self.dataset_tokens
        return None if self.dataset_samples is None else float(self.dataset_samples * self.seq_len)

    @property
    def total_train_tokens(self) -> float | None:
        """The token budget, or the dataset's tokens times the epochs (one epoch if not given)."""
        epoch = self.epoch_tokens
        if epoch is None:
            return self.train_tokens
        return epoch * (self.epochs or 1.0)

    @property
    def kv_tokens(self) -> int:
        """Tokens whose keys and values are cached at once: every user at full context."""
        return self.users * (self.prompt_tokens + self.output_tokens)


_PLAIN_BOUNDS = (
    (re.compile(r"^Input should be greater than or equal to (\S+)$"), "at least {}"),
    (re.compile(r"^Input should be greater than (\S+)$"), "more than {}"),
    (re.compile(r"^Input should be less than or equal to (\S+)$"), "at most {}"),
    (re.compile(r"^Input should be less than (\S+)$"), "less than {}"),
)
# What a bound counts, for the fields a person reads as a number of things ("at least 1 user").
_FIELD_UNITS = {
    "users": "user",
    "gpus": "GPU",
    "batch_size": "sequence",
    "prompt_tokens": "token",
    "dataset_samples": "sample",
}


def _plain(field: str, message: str) -> str:
    """pydantic's 'Input should be greater than or equal to 1' as 'at least 1 user'."""
    for pattern, words in _PLAIN_BOUNDS:
        match = pattern.match(message)
        if match:
            bound = match.group(1)
            unit = _FIELD_UNITS.get(field)
            text = words.format(bound)
            return f"{text} {unit}{'' if bound == '1' else 's'}" if unit else text
    return message


def _check_dataset(req: PlanRequest) -> None:
    """A dataset or a token budget, not both; epochs only with a dataset; training only."""
    has_dataset = req.dataset_tokens is not None or req.dataset_samples is not None
    if req.dataset_tokens is not None and req.dataset_samples is not None:
        raise ValueError("dataset_samples: give the dataset as tokens or as samples, not both")
    if has_dataset and req.train_tokens is not None:
        raise ValueError("train_tokens: give a token budget or a dataset with epochs, not both")
    if req.epochs is not None and not has_dataset:
        raise ValueError("epochs: give the dataset's size (dataset_tokens, or dataset_samples with seq_len)")
    if has_dataset and not req.task.is_training:
        raise ValueError("dataset_tokens: a dataset applies to training tasks, not inference")


def describe_validation_error(exc: Exception) -> tuple[str, str]:
    """(field, message) from a pydantic ValidationError or a ValueError 'field: message'."""
    if isinstance(exc, ValidationError):
        return describe_error_detail(exc.errors()[0])
    text = str(exc)
    field, sep, rest = text.partition(": ")
    return (field, rest) if sep and " " not in field.strip() else ("request", text)


def describe_error_detail(err: Mapping[str, Any]) -> tuple[str, str]:
    """(field, message) of one pydantic error (an item of ValidationError.errors()), in the
    planner's words ('at least 1 user'); a whole-model check's 'field: message' names its field."""
    loc, msg = error_words(err)
    if ": " in msg and not loc:
        field, _, rest = msg.partition(": ")
        return field, rest
    if ": " in msg and msg.split(": ", 1)[0].replace("_", "").isalpha():
        field, _, rest = msg.partition(": ")
        return field, rest
    field = ".".join(loc) or "request"
    return field, _plain(field, msg)


def check_trace_matches(req: PlanRequest) -> None:
    """Raise TraceMismatch naming the first input where the request and its trace differ."""
    trace = req.trace
    if trace is None:
        return
    pairs: list[tuple[str, Any, Any]] = [
        ("task", trace.task, req.task),
        ("precision", trace.precision, req.precision),
    ]
    if req.task.is_training:
        pairs += [
            ("seq_len", trace.seq_len, req.seq_len),
            ("optimizer", trace.optimizer, req.optimizer.value),
        ]
        # A knob the user left to the planner takes the traced recipe's value (core.recipe.variants).
        if "batch_size" in req.model_fields_set:
            pairs.append(("batch_size", trace.batch_size, req.batch_size))
        if req.grad_checkpointing is not None:
            pairs.append(("grad_checkpointing", trace.grad_checkpointing, req.grad_checkpointing))
    else:
        pairs += [
            ("users", trace.users, req.users),
            ("prompt_tokens", trace.prompt_tokens, req.prompt_tokens),
            ("output_tokens", trace.output_tokens, req.output_tokens),
        ]
    for field, traced, asked in pairs:
        if traced != asked:
            raise TraceMismatch(f"trace: made for {field} {traced}, the request has {asked}; trace again")
