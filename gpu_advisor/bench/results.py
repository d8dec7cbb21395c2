"""The benchmark results file, `gpu-advisor/bench@1`: pydantic models, atomic write, validated read.

Layout (DESIGN.md, "Data contracts"; sizes in bytes, times in seconds, rates per second):

    schema      "gpu-advisor/bench@1"
    created     ISO 8601 UTC time the run finished
    app_version the gpu-advisor version that wrote it
    machine     CPU, cores, RAM, OS, Python, GPUs with driver/NVML/CUDA versions
                (telemetry.describe_machine) + torch_version, torch_cuda_version, torch_threads
    device      the device benchmarked: kind (cpu|cuda), index (CUDA's), nvml_index and uuid (the
                same GPU in NVML's numbering, whose telemetry the diagnosis used), name, catalogue
                match, threads
    options     the options of the run (quick, duration_s, model, ...)
    duration_s  wall time of the whole run
    results     one entry per workload variant: workload (matmul|bandwidth|train|inference|dataloader|
                transfer), name, status (ok|oom|cancelled|error|unsupported), config, metrics,
                timings (median, p10, p90, min, max, n per timed quantity), diagnosis (verdicts with
                evidence and a fix), prediction (train and inference: peak_memory_bytes and
                step_time_s as {predicted, measured, error_pct}), notes, error
    telemetry   interval_s and samples (telemetry.Sample.to_dict() each)
    distributed optional, a cluster run: backend, world_size, hosts, collectives, scaling, ...
                (gpu_advisor.bench.distributed.section)

`load_report` raises ResultsFileError (a `FileFormatError`) whose message names the file and the field.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_serializer, field_validator

from gpu_advisor.bench.distributed.section import DistributedSection
from gpu_advisor.core.errors import field_message
from gpu_advisor.core.files import FileFormatError, write_bytes_atomic
from gpu_advisor.telemetry.samples import Sample

SCHEMA = "gpu-advisor/bench@1"

# "command": a watched command (gpu-advisor/monitor@1) read as a results file (bench.watched).
WorkloadKind = Literal["matmul", "bandwidth", "train", "inference", "dataloader", "transfer", "command"]
Status = Literal["ok", "oom", "cancelled", "error", "unsupported"]
Severity = Literal["ok", "info", "warning", "critical"]
MetricValue = float | int | str | bool | None


def as_number(value: object) -> float | None:
    """A metric or config value as a number; None for text, flags and missing values."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


# What a number is, which fixes its unit when worded: bytes (binary units), flops (FLOP/s), bandwidth
# (B/s), rate (per second, with its own unit), duration (s), fraction (0-1), error_pct (a signed
# percentage), count (a plain number), text (identity, not a measurement).
Quantity = Literal[
    "text", "count", "bytes", "flops", "bandwidth", "rate", "duration", "fraction", "error_pct"
]


class ResultsFileError(FileFormatError):
    """A results file that cannot be used; the message names the file and the field."""


class Spread(BaseModel):
    """Median and spread of one timed quantity over the measured steps (unit: the key's suffix)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    median: float
    p10: float
    p90: float
    min: float
    max: float
    n: int = Field(ge=1)


class PredictionCheck(BaseModel):
    """The sizing engine's number against the measurement. error_pct = (predicted - measured) / measured."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    predicted: float | None = None
    measured: float | None = None
    error_pct: float | None = None

    @classmethod
    def of(cls, predicted: float | None, measured: float | None) -> PredictionCheck:
        error = None
        if predicted is not None and measured:
            error = round((predicted - measured) / measured * 100.0, 2)
        return cls(predicted=predicted, measured=measured, error_pct=error)


class Prediction(BaseModel):
    """What `gpu_advisor.core.predict` says for the same workload on the same device."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    peak_memory_bytes: PredictionCheck
    step_time_s: PredictionCheck
    prefill_s: PredictionCheck | None = None
    phase: str | None = None  # where the predicted peak is ("backward", "optimizer step", "inference")
    components: dict[str, int] = Field(default_factory=dict)  # predicted bytes by component
    basis: str = ""  # which peaks the time prediction used


class VerdictRecord(BaseModel):
    """One diagnosis (telemetry.diagnosis.Verdict as data)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: str
    severity: Severity
    title: str
    evidence: dict[str, float | str] = Field(default_factory=dict)
    fix: str = ""


# The timing that describes each workload's step best (a key of WorkloadResult.timings).
MAIN_TIMING: dict[str, str] = {
    "matmul": "step_time_s",
    "bandwidth": "copy_time_s",
    "train": "step_time_s",
    "inference": "decode_step_s",  # one decode step for the whole batch
    "dataloader": "step_time_s",
    "transfer": "copy_time_s",
    "command": "step_time_s",  # the probe's steps
}


class WorkloadResult(BaseModel):
    """One workload variant (e.g. matmul in bf16, inference at batch 8)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    workload: WorkloadKind
    name: str
    status: Status
    config: dict[str, MetricValue] = Field(default_factory=dict)
    metrics: dict[str, MetricValue] = Field(default_factory=dict)
    timings: dict[str, Spread] = Field(default_factory=dict)
    diagnosis: list[VerdictRecord] = Field(default_factory=list)
    prediction: Prediction | None = None
    notes: list[str] = Field(default_factory=list)
    error: str | None = None
    started_at: float | None = None  # Unix time; lines the result up with telemetry samples
    elapsed_s: float | None = None

    def number(self, key: str) -> float | None:
        """Metric `key` as a number, or None (missing, text, a flag)."""
        return as_number(self.metrics.get(key))

    @property
    def step(self) -> Spread | None:
        """The median and spread of the workload's step (MAIN_TIMING), if it was timed."""
        return self.timings.get(MAIN_TIMING[self.workload])


class DeviceInfo(BaseModel):
    """The device the workloads ran on, named in each numbering (telemetry.identity says why they differ)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: Literal["cpu", "cuda"]
    index: int | None = None  # the CUDA index in the benchmarking process (torch's "cuda:N")
    nvml_index: int | None = None  # NVML's index of the same GPU (nvidia-smi's, the telemetry's)
    uuid: str | None = None  # the GPU's UUID as NVML writes it ("GPU-..."), the same in every numbering
    name: str
    torch_threads: int = Field(ge=1)
    memory_total_bytes: int | None = None
    catalogue_id: str | None = None  # the catalogue's entry for this GPU, when one matches
    compute_capability: str | None = None


class TelemetryRecord(BaseModel):
    """The run's telemetry: typed samples, parsed once on load and written with `Sample.to_dict`."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)
    interval_s: float = Field(gt=0)
    samples: tuple[Sample, ...] = ()

    @field_validator("samples", mode="before")
    @classmethod
    def _samples_parse(cls, samples: Any) -> tuple[Sample, ...]:
        if not isinstance(samples, list | tuple):
            raise ValueError("expected a list of telemetry samples")
        parsed = []
        for i, raw in enumerate(samples):
            if isinstance(raw, Sample):
                parsed.append(raw)
                continue
            try:
                parsed.append(Sample.from_dict(raw))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise ValueError(
                    f"sample {i} is not a telemetry sample ({type(exc).__name__}: {exc})"
                ) from None
        return tuple(parsed)

    @field_serializer("samples")
    def _samples_dump(self, samples: tuple[Sample, ...]) -> list[dict[str, Any]]:
        return [s.to_dict() for s in samples]


class Machine(BaseModel):
    """describe_machine()'s keys plus torch's; unknown keys are kept (newer writers)."""

    model_config = ConfigDict(frozen=True, extra="allow")
    cpu_model: str | None = None
    physical_cores: int | None = None
    logical_cores: int | None = None
    ram_total_bytes: int | None = None
    os: str | None = None
    python_version: str | None = None
    gpus: list[dict[str, Any]] = Field(default_factory=list)
    gpu_status: str | None = None
    torch_version: str | None = None
    torch_cuda_version: str | None = None
    torch_hip_version: str | None = None  # ROCm builds of torch, whose torch.cuda drives AMD GPUs
    torch_threads: int | None = None


class BenchReport(BaseModel):
    """A whole benchmark run: what `gpu-advisor bench --json FILE` writes."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)
    schema_id: Literal["gpu-advisor/bench@1"] = Field(default=SCHEMA, alias="schema")
    created: str
    app_version: str
    machine: Machine
    device: DeviceInfo
    options: dict[str, Any] = Field(default_factory=dict)
    duration_s: float = Field(ge=0)
    results: list[WorkloadResult]
    telemetry: TelemetryRecord
    # True when the run was stopped (Ctrl-C, SIGTERM, the app's Stop) before every workload ran:
    # `results` holds the finished ones and the one stopped, marked "cancelled".
    partial: bool = False
    # A cluster run (`bench --distributed` / `--nproc N`): see bench/distributed/section.py.
    distributed: DistributedSection | None = None

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def save(self, path: str | Path) -> None:
        """Write atomically (temporary file beside `path`, then rename); `path` is untouched on failure."""
        save_report(self, path)

    def result(self, workload: str) -> list[WorkloadResult]:
        """The results of one workload kind, in run order."""
        return [r for r in self.results if r.workload == workload]


@dataclass(frozen=True, slots=True)
class NamedReport:
    """A loaded, validated results file and the name it is shown by (its file name)."""

    name: str
    report: BenchReport


def _finite(obj: Any) -> Any:
    """JSON has no NaN/inf: unknown numbers are null."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    return obj


def save_report(report: BenchReport, path: str | Path) -> None:
    """Serialise first, then write atomically, so a failure never leaves a partial or clobbered file."""
    text = json.dumps(_finite(report.to_json_dict()), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    write_bytes_atomic(path, text.encode("utf-8"))


def describe_error(exc: ValidationError) -> str:
    """The first validation problem as 'field.path: message' (core.errors.field_message)."""
    return field_message(exc)
