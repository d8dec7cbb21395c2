"""How close real stacks come to a GPU's peaks: resources/efficiencies.json resolved for one request.

Training MFU, prefill efficiency and decode bandwidth efficiency depend on the GPU's architecture and
the compute dtype (and, for serving, on the engine and the weight format); each value carries the
published measurement it comes from. A request's assumptions override them; a calibration (a measured
MFU) replaces the MFU for the GPU it was measured on.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .files import parse_json
from .paths import resource
from .precision import Engine, PrecisionProfile
from .units import GIB


class EngineSpec(BaseModel):
    """A serving stack's kernels, overheads and KV-cache rules, with their sources."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    label: str
    prefill_factor: float = Field(gt=0)
    prefill_absolute: bool = False  # prefill_factor is a fraction of the peak, not of the reference
    prefill_source: str
    bandwidth: dict[str, float]
    bandwidth_source: str
    # Architectures (keys of the architectures table) with a published measurement of this engine that
    # sets or checks its bandwidth efficiency; elsewhere the option says the figure is assumed.
    bandwidth_measured_on: tuple[str, ...] = ()
    # Architecture -> compute dtype -> fraction of that dtype's peak this engine's GEMMs reach there
    # (prefill and decode), where a published sweep measures it; it replaces the architecture's prefill.
    compute_by_architecture: dict[str, dict[str, float]] = {}
    compute_by_architecture_source: str = ""
    host_overhead_per_layer_s: float = Field(ge=0)
    step_overhead_s: float = Field(ge=0)
    overhead_source: str
    fp16_accumulate: bool = False  # multiplies with fp16 accumulation (2x the rate on GeForce cards)
    kv_cache: dict[str, Any]
    process_overhead_gib: float = Field(ge=0)
    process_overhead_source: str

    @property
    def memory_fraction(self) -> float:
        return float(self.kv_cache.get("memory_fraction", 1.0))

    @property
    def kv_block_tokens(self) -> int:
        return int(self.kv_cache.get("block_tokens", 1))

    @property
    def paged(self) -> bool:
        return bool(self.kv_cache.get("paged", False))


class TrainingStack(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    host_overhead_per_layer_s: float = Field(ge=0)
    host_overhead_source: str
    process_overhead_gib: float = Field(ge=0)
    process_overhead_source: str
    process_overhead_distributed_gib: float = Field(ge=0)
    process_overhead_distributed_source: str


class TrainingFramework(BaseModel):
    """A training stack's compute efficiency relative to the stack the architectures' MFU was measured
    on, with the measurement that sets it."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    label: str
    mfu_factor: float = Field(gt=0, le=2)
    source: str


class CpuStack(BaseModel):
    """Eager PyTorch on a CPU (the benchmark's own check): dispatch time per layer, serial with compute."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    host_overhead_per_layer_s: float = Field(ge=0)
    training_host_overhead_per_layer_s: float = Field(ge=0)
    source: str


class EfficienciesFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")
    sources: dict[str, str]
    architectures: dict[str, dict[str, dict[str, float | str]]]
    engines: dict[str, EngineSpec]
    training: TrainingStack
    training_stacks: dict[str, TrainingFramework] = {}
    cpu: CpuStack


@cache
def efficiencies() -> EfficienciesFile:
    """The packaged efficiency tables, loaded once."""
    text = resource("efficiencies.json").read_text(encoding="utf-8")
    return EfficienciesFile.model_validate(parse_json(text, "built-in efficiencies.json"))


def engine_spec(engine: Engine) -> EngineSpec:
    return efficiencies().engines[engine.value]


def architecture_key(arch: str) -> str:
    """'Ampere (GA102)' -> 'Ampere'; unknown architectures use 'default'."""
    return next(
        (key for key in efficiencies().architectures if key != "default" and arch.startswith(key)), "default"
    )


def _lookup(arch: str, table: str, dtype: str) -> tuple[float, str]:
    """A value for (architecture, table, dtype) with its source; fp16 and bf16 stand in for each other;
    the 'default' architecture fills the gaps."""
    archs = efficiencies().architectures
    candidates = [dtype] + [d for d in ("bf16", "fp16") if d != dtype and dtype in ("bf16", "fp16")]
    for key in (architecture_key(arch), "default"):
        entry = archs.get(key, {}).get(table)
        if not entry:
            continue
        for name in candidates:
            value = entry.get(name)
            if isinstance(value, float | int):
                where = f"{key} {name}" if key != "default" else "no measurement for this architecture"
                return float(value), f"{where}: {entry.get('source', '')}"
    return 0.40 if table == "training_mfu" else 0.50, "DEFAULT"


@dataclass(frozen=True, slots=True)
class Efficiency:
    """One GPU's efficiencies for one request, each with where it came from."""

    mfu: float
    mfu_source: str
    prefill: float
    prefill_source: str
    bandwidth: float
    bandwidth_source: str
    host_overhead_per_layer_s: float  # host time per layer per step; overlaps the GPU's work
    step_overhead_s: float  # serial per decode step (scheduling, sampling)
    overhead_source: str
    peak_multiplier: float  # 2 where an engine multiplies with fp16 accumulation on a GeForce card
    calibrated: bool = False
    # Training under SDPA/flash attention: the fraction of the peak the fused attention kernel reaches
    # on the score FLOPs (12 L s a d per token), measured on its own; None where no kernel benchmark
    # covers the architecture: the scores then run at `mfu` like the parameter GEMMs.
    attention: float | None = None
    attention_source: str = ""

    @property
    def attention_utilisation(self) -> float:
        """The utilisation the score FLOPs of fused attention run at (the GEMMs' where unmeasured)."""
        return self.mfu if self.attention is None else self.attention


@lru_cache(maxsize=512)
def resolve_efficiency(
    arch: str,
    consumer_card: bool,
    dtype: str,
    bandwidth_key: str,
    engine: Engine | None,
    mfu_override: float | None,
    prefill_override: float | None,
    bandwidth_override: float | None,
    calibrated_mfu: float | None = None,
    calibration_source: str = "",
    framework: str = "default",
) -> Efficiency:
    """Resolve the efficiencies of one GPU (architecture, consumer or not) for a compute dtype, a weight
    format (its bandwidth key) and a serving engine (None: training). Overrides win over the tables;
    a calibrated MFU wins over both. `framework` (training only) scales the table's MFU by that stack's
    published efficiency relative to the measured one."""
    mfu, mfu_source = _lookup(arch, "training_mfu", dtype)
    stack_spec = efficiencies().training_stacks.get(framework) if engine is None else None
    if stack_spec is not None:
        mfu *= stack_spec.mfu_factor
        mfu_source += f"; x {stack_spec.mfu_factor:g} for {stack_spec.label} ({stack_spec.source})"
    prefill, prefill_source = _lookup(arch, "prefill", dtype)
    multiplier = 1.0
    if engine is None:
        stack = efficiencies().training
        host, step = stack.host_overhead_per_layer_s, 0.0
        overhead_source = stack.host_overhead_source
        bandwidth, bandwidth_source = 0.79, "decode bandwidth of the reference stacks (TensorRT-LLM, vLLM)"
    else:
        spec = engine_spec(engine)
        if spec.prefill_absolute:
            prefill, prefill_source = spec.prefill_factor, f"{spec.label}: {spec.prefill_source}"
            multiplier = 2.0 if spec.fp16_accumulate and consumer_card else 1.0
        elif spec.prefill_factor != 1.0:
            prefill *= spec.prefill_factor
            prefill_source = (
                f"{prefill_source}; x {spec.prefill_factor:g} for {spec.label} ({spec.prefill_source})"
            )
        measured = spec.compute_by_architecture.get(architecture_key(arch), {}).get(dtype) if arch else None
        if measured is not None:
            prefill = measured
            prefill_source = f"{spec.label} on {arch} {dtype}: {spec.compute_by_architecture_source}"
        bandwidth = spec.bandwidth.get(bandwidth_key, spec.bandwidth.get("16-bit", 0.79))
        bandwidth_source = f"{spec.label}, {bandwidth_key} weights: {spec.bandwidth_source}"
        if arch and spec.bandwidth_measured_on and architecture_key(arch) not in spec.bandwidth_measured_on:
            bandwidth_source += (
                f"; no measurement for {spec.label} on {arch}: the figure measured on "
                f"{', '.join(spec.bandwidth_measured_on)} is assumed"
            )
        host, step, overhead_source = (
            spec.host_overhead_per_layer_s,
            spec.step_overhead_s,
            spec.overhead_source,
        )
    attention: float | None = None
    attention_source = ""
    if engine is None:
        attention, attention_source = _attention_lookup(arch, dtype)
    calibrated = False
    if mfu_override is not None:
        mfu, mfu_source = mfu_override, "set in the assumptions"
    if calibrated_mfu is not None:
        mfu, mfu_source, calibrated = calibrated_mfu, f"measured ({calibration_source})", True
    if prefill_override is not None:
        prefill, prefill_source = prefill_override, "set in the assumptions"
    if bandwidth_override is not None:
        bandwidth, bandwidth_source = bandwidth_override, "set in the assumptions"
    return Efficiency(
        mfu=mfu,
        mfu_source=mfu_source,
        prefill=prefill,
        prefill_source=prefill_source,
        bandwidth=bandwidth,
        bandwidth_source=bandwidth_source,
        host_overhead_per_layer_s=host,
        step_overhead_s=step,
        overhead_source=overhead_source,
        peak_multiplier=multiplier,
        calibrated=calibrated,
        attention=attention,
        attention_source=attention_source,
    )


def _attention_lookup(arch: str, dtype: str) -> tuple[float | None, str]:
    """The fused attention kernel's utilisation for (architecture, dtype) with its source, where a kernel
    benchmark gives it (fp16 and bf16 stand in for each other); else None: the scores run at the MFU."""
    entry = efficiencies().architectures.get(architecture_key(arch), {}).get("attention") if arch else None
    if entry:
        for name in [dtype] + [d for d in ("bf16", "fp16") if d != dtype and dtype in ("bf16", "fp16")]:
            value = entry.get(name)
            if isinstance(value, float | int):
                return float(value), f"{architecture_key(arch)} {name}: {entry.get('source', '')}"
    return None, ""


def process_overhead_bytes(engine: Engine | None, distributed: bool) -> tuple[float, str]:
    """CUDA context, library workspaces and kernels of the process, per stack, with the source."""
    if engine is None:
        stack = efficiencies().training
        gib, source = stack.process_overhead_gib, stack.process_overhead_source
        if distributed:
            gib += stack.process_overhead_distributed_gib
            source += f"; + NCCL {stack.process_overhead_distributed_gib:g} GiB"
        return gib * GIB, source
    spec = engine_spec(engine)
    return spec.process_overhead_gib * GIB, spec.process_overhead_source


def profile_keys(profile: PrecisionProfile) -> tuple[str, str]:
    """(compute dtype column, weight format bandwidth key) of a resolved precision."""
    return profile.peak_column, profile.weights.bandwidth_key
