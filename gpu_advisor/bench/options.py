"""What a benchmark run is asked to do (BenchOptions), what it reports while running (ProgressEvent),
and how big each workload is on each kind of device (Sizes). No torch here.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from gpu_advisor.core.architecture import Family, ModelSpec
from gpu_advisor.core.units import MIB
from gpu_advisor.telemetry.sampler import DEFAULT_INTERVAL_S, MAX_INTERVAL_S, MIN_INTERVAL_S

# Run order; also the valid names for BenchOptions.workloads and `--workloads`.
WORKLOADS: tuple[str, ...] = ("matmul", "bandwidth", "train", "inference", "dataloader", "transfer")


class UnsupportedModel(ValueError):
    """The benchmark's model zoo cannot build this spec (encoders, mixtures of experts)."""


def check_buildable(spec: ModelSpec) -> None:
    """Raise UnsupportedModel when the zoo has no module for `spec` (checked here, without torch, so
    that `--model` rejects such a preset before the run starts)."""
    if spec.family is Family.BERT:
        raise UnsupportedModel(f"model: {spec.name} is an encoder (bert); the benchmark runs decoders only")
    if spec.is_moe:
        raise UnsupportedModel(f"model: {spec.name} is a mixture of experts; the benchmark runs dense models")
    # The zoo's Llama block has no q/k/v biases, two RMSNorms and counts what the formulas count.
    unbuilt = [
        what
        for what, present in (
            ("an approximated architecture", spec.guessed and bool(spec.notes)),
            ("q/k/v biases", bool(spec.qkv_bias)),
            (f"{spec.layer_norms} norms per layer", spec.layer_norms != 2),
            (f"{spec.norm_kind.value} norms", spec.norm is not None and spec.norm.value != "rms"),
        )
        if present
    ]
    if unbuilt:
        raise UnsupportedModel(
            f"model: {spec.name} has {', '.join(unbuilt)}, which the benchmark's model zoo does not build; "
            "`gpu-advisor trace` measures its memory"
        )


class BenchOptions(BaseModel):
    """One benchmark run. Validation messages name the field (the CLI maps them to flags)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    device: str = Field(default="auto", description="auto, cpu, cuda or cuda:N")
    workloads: tuple[str, ...] = Field(default=WORKLOADS, description="subset of WORKLOADS, run in order")
    model: str | None = Field(
        default=None, description="preset id or Hub id for train/inference; None: sized to the device"
    )
    model_spec: ModelSpec | None = Field(
        default=None, description="the shape of a Hub id, resolved by the caller (no network here)"
    )
    quick: bool = Field(default=False, description="smaller sizes and fewer steps (CPU: under 2 minutes)")
    toy: bool = Field(
        default=False, description="tiny sizes, a few steps each: a whole run in ~2 s (GUI tests)"
    )
    duration_s: float | None = Field(
        default=None, gt=0, le=3600, description="timed seconds per workload variant"
    )
    interval_s: float = Field(default=DEFAULT_INTERVAL_S, ge=MIN_INTERVAL_S, le=MAX_INTERVAL_S)
    dataloader_workers: int | None = Field(
        default=None, ge=0, le=64, description="None: 0 on CPU, up to 4 on GPU"
    )
    memory_cap_bytes: int | None = Field(
        default=None, gt=0, description="treat a workload predicted or measured above this as out of memory"
    )
    precision: Literal["fp32", "bf16"] | None = Field(
        default=None, description="None: fp32 on CPU, bf16 on GPU"
    )

    @field_validator("device")
    @classmethod
    def _device(cls, value: str) -> str:
        value = value.strip().lower()
        if not re.fullmatch(r"auto|cpu|cuda(:\d+)?", value):
            raise ValueError(f"{value!r} is not one of auto, cpu, cuda, cuda:N")
        return value

    @field_validator("workloads", mode="before")
    @classmethod
    def _workloads(cls, value: object) -> object:
        if isinstance(value, str):
            value = [w.strip() for w in value.split(",") if w.strip()]
        if isinstance(value, list | tuple):
            unknown = [w for w in value if w not in WORKLOADS]
            if unknown:
                raise ValueError(f"unknown workload {unknown[0]!r}; choose from {', '.join(WORKLOADS)}")
            if not value:
                raise ValueError("give at least one workload")
            return tuple(w for w in WORKLOADS if w in value)  # run order is fixed
        return value

    @field_validator("model")
    @classmethod
    def _model(cls, value: str | None) -> str | None:
        if value is None or "/" in value:  # a Hub id: its resolved shape is checked below
            return value
        from gpu_advisor.core.presets import get_preset

        check_buildable(get_preset(value))  # ConfigError lists the valid ids
        return value

    @model_validator(mode="after")
    def _hub_model(self) -> BenchOptions:
        if self.model is not None and "/" in self.model:
            if self.model_spec is None:
                raise ValueError("model: a Hugging Face id needs its resolved shape (model_spec)")
            check_buildable(self.model_spec)
        return self

    def chosen_spec(self) -> ModelSpec | None:
        """The model to benchmark: the resolved Hub shape, or the preset's."""
        if self.model_spec is not None:
            return self.model_spec
        if self.model is None:
            return None
        from gpu_advisor.core.presets import get_preset

        return get_preset(self.model)

    @classmethod
    def toy_run(cls, **overrides: object) -> BenchOptions:
        """Options for a run of about two seconds on the CPU (GUI tests, smoke tests)."""
        fields: dict[str, object] = {"device": "cpu", "toy": True, "interval_s": 0.1}
        fields.update(overrides)
        return cls.model_validate(fields)


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """Progress of a run. `fraction` (0-1) and `eta_s` are for the whole run; `workload` is the current one."""

    workload: str
    fraction: float
    message: str
    eta_s: float | None = None


@dataclass(frozen=True, slots=True)
class Sizes:
    """How big and how long each workload is on one kind of device in one mode."""

    warmup_steps: int
    min_steps: int
    max_steps: int
    duration_s: float  # timed seconds per variant at most (min_steps always run)
    matmul_sizes: tuple[int, ...]  # square sizes tried, ascending: the largest under matmul_target_s is used
    matmul_target_s: float
    copy_bytes: int
    transfer_bytes: int
    train_model: ModelSpec
    train_batch: int
    train_seq: int
    infer_model: ModelSpec
    infer_batches: tuple[int, ...]
    prompt_tokens: int
    output_tokens: int
    loader_model: ModelSpec
    loader_batch: int
    loader_seq: int

    # Seconds each workload takes, in units of duration_s (the run's progress and time left weigh
    # the workloads by them). None: the structure's guess below.
    measured_weights: tuple[tuple[str, float], ...] | None = None

    @property
    def weight(self) -> dict[str, float]:
        """Relative duration of each workload, for the whole-run progress fraction and time left."""
        d = self.duration_s
        if self.measured_weights is not None:
            return {name: w * d for name, w in self.measured_weights}
        return {
            "matmul": 2 * d,  # two precisions
            "bandwidth": d,
            "train": 1.5 * d,
            "inference": len(self.infer_batches) * d,
            "dataloader": d,
            "transfer": 2 * d if self.transfer_bytes else 0.0,  # none on a CPU
        }


def benchmark_spec(
    name: str,
    family: Family,
    layers: int,
    hidden: int,
    heads: int,
    kv: int | None,
    ffn: int,
    vocab: int,
    positions: int = 1024,
) -> ModelSpec:
    return ModelSpec(
        name=name,
        family=family,
        n_layers=layers,
        hidden_size=hidden,
        n_heads=heads,
        n_kv_heads=kv,
        ffn_size=ffn,
        vocab_size=vocab,
        max_positions=positions,
        dropout=False,
        source="gpu-advisor benchmark model, sized to the device",
    )


# CPU models are small enough for a step well under the 1 s cancellation promise on 2 cores (about
# 80 GFLOP/s fp32); the GPU ones are real sizes: GPT-2 small (124M) for training and a TinyLlama-shaped
# 1.1B model (22 layers, 2048 wide, 4 KV heads) for inference.
_CPU_GPT2 = benchmark_spec("bench-gpt2-cpu", Family.GPT2, 4, 256, 4, None, 1024, 8192)
_CPU_LLAMA = benchmark_spec("bench-llama-cpu", Family.LLAMA, 4, 256, 8, 2, 704, 8192)
_CPU_GPT2_FULL = benchmark_spec("bench-gpt2-cpu-large", Family.GPT2, 6, 384, 6, None, 1536, 16384)
_CPU_LLAMA_FULL = benchmark_spec("bench-llama-cpu-large", Family.LLAMA, 6, 512, 8, 2, 1408, 16384)
# The data-loader stress model is tiny so that slow input dominates even when the CPU is shared.
_LOADER = benchmark_spec("bench-gpt2-loader", Family.GPT2, 2, 64, 2, None, 256, 1024, 256)
_TOY_GPT2 = benchmark_spec("bench-gpt2-toy", Family.GPT2, 1, 64, 2, None, 256, 512, 256)
_TOY_LLAMA = benchmark_spec("bench-llama-toy", Family.LLAMA, 1, 64, 4, 2, 176, 512, 256)
_GPU_GPT2 = benchmark_spec("bench-gpt2-small", Family.GPT2, 12, 768, 12, None, 3072, 50257)
_GPU_LLAMA = benchmark_spec("bench-llama-1.1b", Family.LLAMA, 22, 2048, 32, 4, 5632, 32000, 2048)

# A CPU's model steps are long (its min_steps, not duration_s, bound the timing) and building a model
# costs seconds: the structure's guess had train at 1.5 and inference at 2 units where they take 45
# and 49, so that the time left read "finishing" with half the run to go (ux-review-3 D15). Measured:
# `gpu-advisor bench --device cpu --quick`, all workloads, 2 shared cores, 187 s: matmul 4.2 s,
# bandwidth 2.4 s, train 67 s, inference 74 s (2 batches), dataloader 31 s, transfer skipped (0.7 s).
_CPU_WEIGHTS = (
    ("matmul", 2.8), ("bandwidth", 1.6), ("train", 45.0), ("inference", 49.0), ("dataloader", 21.0),
    ("transfer", 0.0),
)  # fmt: skip
_CPU_QUICK = Sizes(
    warmup_steps=2, min_steps=5, max_steps=40, duration_s=1.5, measured_weights=_CPU_WEIGHTS,
    matmul_sizes=(256, 512, 1024), matmul_target_s=0.05, copy_bytes=64 * MIB, transfer_bytes=0,
    train_model=_CPU_GPT2, train_batch=4, train_seq=128,
    infer_model=_CPU_LLAMA, infer_batches=(1, 4), prompt_tokens=128, output_tokens=16,
    loader_model=_LOADER, loader_batch=4, loader_seq=32,
)  # fmt: skip
_GPU_QUICK = Sizes(
    warmup_steps=3, min_steps=10, max_steps=100, duration_s=2.0,
    matmul_sizes=(2048, 4096, 8192), matmul_target_s=0.05, copy_bytes=1024 * MIB, transfer_bytes=256 * MIB,
    train_model=_GPU_GPT2, train_batch=8, train_seq=1024,
    infer_model=_GPU_LLAMA, infer_batches=(1, 8, 32), prompt_tokens=512, output_tokens=64,
    loader_model=_CPU_GPT2, loader_batch=8, loader_seq=256,
)  # fmt: skip
# Toy: a whole run in about two seconds (GUI tests, --self-test); the numbers mean little.
_TOY = dict(
    warmup_steps=1, min_steps=2, max_steps=3, duration_s=0.1, matmul_sizes=(256,), matmul_target_s=0.02,
    copy_bytes=4 * MIB, transfer_bytes=4 * MIB, train_model=_TOY_GPT2, train_batch=2, train_seq=32,
    infer_model=_TOY_LLAMA, infer_batches=(1, 2), prompt_tokens=16, output_tokens=4,
    loader_model=_TOY_GPT2, loader_batch=2, loader_seq=16,
)  # fmt: skip

_CPU_FULL = dataclasses.replace(
    _CPU_QUICK, warmup_steps=3, min_steps=10, max_steps=200, duration_s=8.0,
    matmul_sizes=(256, 512, 1024, 2048), matmul_target_s=0.3, copy_bytes=256 * MIB,
    train_model=_CPU_GPT2_FULL, train_batch=8, train_seq=256,
    infer_model=_CPU_LLAMA_FULL, infer_batches=(1, 4, 16), prompt_tokens=256, output_tokens=32,
)  # fmt: skip
_GPU_FULL = dataclasses.replace(
    _GPU_QUICK, warmup_steps=5, min_steps=20, max_steps=1000, duration_s=10.0,
    matmul_sizes=(2048, 4096, 8192, 16384), matmul_target_s=0.2, copy_bytes=4096 * MIB,
    transfer_bytes=1024 * MIB, train_batch=16, infer_batches=(1, 8, 32, 128), prompt_tokens=1024,
    output_tokens=128, loader_batch=16, loader_seq=512,
)  # fmt: skip

SIZES: dict[tuple[str, str], Sizes] = {
    ("cpu", "toy"): dataclasses.replace(_CPU_QUICK, **_TOY),
    ("cpu", "quick"): _CPU_QUICK,
    ("cpu", "full"): _CPU_FULL,
    ("cuda", "toy"): dataclasses.replace(_GPU_QUICK, **_TOY),
    ("cuda", "quick"): _GPU_QUICK,
    ("cuda", "full"): _GPU_FULL,
}


def sizes_for(device_kind: str, options: BenchOptions) -> Sizes:
    """The size table entry for the device kind and the options' mode."""
    mode = "toy" if options.toy else "quick" if options.quick else "full"
    return SIZES[(device_kind, mode)]
