"""An exact memory trace of the real architecture on fake tensors (imports torch; transformers and
peft optional).

The model is built from its config.json (`AutoModelForCausalLM.from_config`) or the user's own
factory under `torch._subclasses.fake_tensor.FakeTensorMode`: tensors carry shapes and dtypes but no
storage, so a 70B model traces on a laptop. One step runs (trace_steps) under a MemTracker subclass
(trace_tracker) that records the live tensor bytes at every operator; the result is the peak, when it
happened, and what was live then, by category and by top-level module (DESIGN.md, "Measuring
honestly"). `measure_real_peak` runs the same step with real tensors under the profiler
(bench.peak_memory), which is how tests check the trace against reality on models small enough to run.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import torch
from pydantic import BaseModel, ConfigDict, Field
from torch._subclasses.fake_tensor import FakeTensorMode

from gpu_advisor.bench.peak_memory import measure_peak
from gpu_advisor.bench.trace_model import (
    DTYPES,
    BuiltModel,
    CacheOffset,
    TraceUnavailable,
    add_lora,
    attention_kernel,
    build_hf_model,
    config_from_spec,
    describe_architecture,
    enable_checkpointing,
    load_factory,
    materialize_fake,
    module_groups,
    quiet_library_warnings,
    real_control_flow,
)
from gpu_advisor.bench.trace_steps import InferenceStep, TrainingStep, prefill_sequences
from gpu_advisor.bench.trace_tracker import CategoryTracker, display_name
from gpu_advisor.core.architecture import ModelSpec
from gpu_advisor.core.precision import Optimizer, Precision, Task
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.trace import PhasePeak, TraceResult

TRACEABLE = (Precision.FP32, Precision.BF16, Precision.FP16)
# More parameters than the planner sizes (core.architecture.parse_param_count's 10T): a config whose
# built model holds more is refused before its step runs.
MAX_TRACE_PARAMETERS = 10**13


class TraceSetup(BaseModel):
    """What to trace: the model (a config.json or a factory) and the same workload fields as `plan`."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    config: dict[str, Any] | None = Field(default=None, description="Hugging Face config.json")
    module: str | None = Field(default=None, description="package.module:function returning an nn.Module")
    vocab_size: int | None = Field(default=None, description="token ids for a factory module")
    task: Task = Task.PRETRAIN
    precision: Precision = Precision.BF16
    optimizer: Optimizer = Optimizer.ADAMW
    seq_len: int = Field(default=2048, ge=2)
    batch_size: int = Field(default=1, ge=1)
    grad_checkpointing: bool = False
    users: int = Field(default=1, ge=1)
    prompt_tokens: int = Field(default=512, ge=1)
    output_tokens: int = Field(default=256, ge=1)
    lora_rank: int = Field(default=16, ge=1)
    lora_all_linear: bool = False
    max_prefill_tokens: int = Field(default=8192, ge=1)
    attention: str = Field(
        default="sdpa", description="The attention kernel to run (sdpa, eager), as the request asks"
    )

    @classmethod
    def from_request(
        cls, req: PlanRequest, config: dict[str, Any] | None = None, module: str | None = None
    ) -> TraceSetup:
        """The trace of a plan request (its model's config.json, or one made from a preset's shape)."""
        a = req.assumptions
        if config is None and module is None:
            config = config_from_spec(req.model)
        return cls(
            name=req.model.name,
            config=config,
            module=module,
            vocab_size=req.model.vocab_size,
            task=req.task,
            precision=req.precision,
            optimizer=req.optimizer,
            seq_len=req.seq_len,
            batch_size=req.batch_size,
            grad_checkpointing=bool(req.grad_checkpointing),  # None: the planner's choice, off here
            users=req.users,
            prompt_tokens=req.prompt_tokens,
            output_tokens=req.output_tokens,
            lora_rank=a.lora_rank,
            lora_all_linear=a.lora_all_linear,
            max_prefill_tokens=a.max_prefill_tokens,
            attention=req.attention.value,
        )

    @classmethod
    def from_spec(cls, spec: ModelSpec, **fields: Any) -> TraceSetup:
        return cls(name=spec.name, config=config_from_spec(spec), vocab_size=spec.vocab_size, **fields)


def _check(setup: TraceSetup) -> None:
    if (setup.config is None) == (setup.module is None):
        raise TraceUnavailable("trace: give either a config.json or --module, not both")
    if setup.precision not in TRACEABLE:
        raise TraceUnavailable(
            f"--precision: the trace runs fp32, bf16 and fp16 ({setup.precision} weights need their own "
            "kernels); plan without --trace for the formulas"
        )
    if setup.task is Task.QLORA:
        raise TraceUnavailable("--task qlora: 4-bit bases need bitsandbytes on a GPU; trace lora instead")


def build(setup: TraceSetup) -> BuiltModel:
    """The model in the setup's dtype (inside FakeTensorMode when tracing), adapters and checkpointing."""
    training = setup.task.is_training
    dtype = DTYPES[setup.precision]
    if setup.config is not None:
        model = build_hf_model(setup.config, dtype, training=training, attention=setup.attention)
        vocab = int(getattr(model.config, "vocab_size", None) or setup.vocab_size or 0)
        hf = True
    else:
        model = load_factory(str(setup.module)).to(dtype=dtype).train(training)
        vocab = setup.vocab_size or 0
        hf = False
    if vocab < 2:
        raise TraceUnavailable("trace: the vocabulary size is unknown (give --vocab-size)")
    if setup.task.is_adapter:
        model = add_lora(model, setup.lora_rank, setup.lora_all_linear)
    if training and setup.grad_checkpointing:
        enable_checkpointing(model)
    return BuiltModel(
        model=model,
        architecture=describe_architecture(model),
        vocab_size=vocab,
        hf=hf,
        attention=attention_kernel(model),
    )


def _step(setup: TraceSetup, built: BuiltModel) -> TrainingStep | InferenceStep:
    if setup.task.is_training:
        return TrainingStep(built, setup.optimizer, setup.batch_size, setup.seq_len)
    sequences = prefill_sequences(setup.users, setup.prompt_tokens, setup.max_prefill_tokens)
    return InferenceStep(built, sequences, setup.prompt_tokens, setup.output_tokens)


def _describe_step(setup: TraceSetup, step: TrainingStep | InferenceStep) -> tuple[str, list[str]]:
    notes: list[str] = []
    if isinstance(step, TrainingStep):
        mixed = any(p.dtype != torch.float32 for p in step.optimizer.state if isinstance(p, torch.Tensor))
        what = (
            f"training step 2 (optimizer state exists): forward, fp32 loss, backward, {setup.optimizer} "
            f"step; batch {setup.batch_size} x {setup.seq_len} tokens, {setup.precision}"
        )
        if setup.grad_checkpointing:
            what += ", gradient checkpointing"
        if setup.task.is_adapter:
            what += f", LoRA r={setup.lora_rank}"
        if setup.task.is_adapter:
            notes.append(
                f"frozen {setup.precision} base; fp32 LoRA adapters, their gradients and optimizer state "
                "(peft), updated one tensor at a time"
            )
        elif mixed:
            notes.append(
                f"{setup.precision} weights and gradients; fp32 master weights and optimizer state, updated "
                "one tensor at a time (one fp32 gradient copy of scratch)"
            )
        return what, notes
    sequences = step.prompt.shape[0]
    what = (
        f"inference: prefill of {sequences} x {setup.prompt_tokens} prompt tokens, then one decode step, "
        f"KV cache preallocated for {setup.prompt_tokens + setup.output_tokens} tokens; {setup.precision}"
    )
    if sequences < setup.users:
        notes.append(
            f"{setup.users} users: one prefill chunk of {sequences} sequences is traced; the other "
            f"{setup.users - sequences} users' KV cache is counted as preallocated"
        )
    if step.cache is None:
        what = f"inference: one prompt pass of {sequences} x {setup.prompt_tokens} tokens (no KV cache)"
    return what, notes


def _versions() -> dict[str, str]:
    out = {"torch": torch.__version__}
    for name in ("transformers", "peft"):
        with contextlib.suppress(ImportError):
            out[name] = __import__(name).__version__
    return out


def trace_memory(setup: TraceSetup, on_progress: Callable[[str], None] | None = None) -> TraceResult:
    """Trace one step of the real model on fake tensors; no real weight memory is allocated."""
    _check(setup)
    with quiet_library_warnings():
        return _trace(setup, on_progress)


def _trace(setup: TraceSetup, on_progress: Callable[[str], None] | None) -> TraceResult:
    progress = on_progress or (lambda _m: None)
    started = time.perf_counter()
    fake_mode = FakeTensorMode(allow_non_fake_inputs=False)
    progress("building the model on fake tensors")
    if setup.task.is_adapter and setup.config is not None:
        # peft cannot move adapters of a model made of fake tensors: build on the meta device, then
        # give every parameter a fake CPU tensor.
        with torch.device("meta"):
            built = build(setup)
        with fake_mode:
            materialize_fake(built.model)
    else:
        with fake_mode:
            built = build(setup)
    _check_size(built)
    offset = CacheOffset()
    with fake_mode, real_control_flow(offset):
        step = _step(setup, built)
        if isinstance(step, InferenceStep):
            step.offset = offset
        progress("warm-up step")
        step.warm_up()
        tracker = CategoryTracker(module_groups(built.model))
        optimizer = step.optimizer if isinstance(step, TrainingStep) else None
        tracker.track_external(built.model, *(x for x in (optimizer,) if x is not None))
        if isinstance(step, InferenceStep):
            tracker.tag(step.cache_tensors(), "kv_cache", "(KV cache)")
            tracker.tag([step.prompt], "inputs")
            step.phase_hook = _phase_switch(tracker)
        else:
            tracker.tag([step.ids], "inputs")
        tracker.tag_module_groups(built.model, optimizer)
        held: list[torch.Tensor] = []  # the other users' cache, alive until the step ends
        if isinstance(step, InferenceStep) and setup.users > step.prompt.shape[0]:
            others = setup.users - step.prompt.shape[0]
            per_sequence = sum(t.nbytes for t in step.cache_tensors()) // max(1, step.prompt.shape[0])
            held.append(torch.empty(others * per_sequence, dtype=torch.uint8))
            tracker.tag(held, "kv_cache", "(KV cache)")
        progress("tracing the step")
        with tracker:
            step.run()
        del held
        what, notes = _describe_step(setup, step)
        parameters, trainable = built.parameters, built.trainable
    phases = tuple(
        PhasePeak(phase=name, peak_bytes=snap.total, moment=snap.moment, by_category=dict(snap.by_category))
        for name, snap in tracker.phases.items()
        if snap.total >= 0
    )
    peak_name, peak = max(tracker.phases.items(), key=lambda kv: kv[1].total)
    return TraceResult(
        model=setup.name,
        architecture=built.architecture,
        attention=built.attention,
        parameters=parameters,
        trainable_parameters=trainable if setup.task.is_training else 0,
        task=setup.task,
        precision=setup.precision,
        optimizer=setup.optimizer.value if setup.task.is_training else None,
        batch_size=setup.batch_size,
        seq_len=setup.seq_len,
        grad_checkpointing=setup.grad_checkpointing,
        users=setup.users,
        prompt_tokens=setup.prompt_tokens,
        output_tokens=setup.output_tokens,
        lora_rank=setup.lora_rank if setup.task.is_adapter else None,
        step=what,
        peak_bytes=peak.total,
        peak_moment=peak.moment,
        peak_phase=peak_name,
        by_category={k: v for k, v in peak.by_category.items() if v},
        by_module=_by_module(peak.by_group),
        phases=phases,
        notes=tuple(notes),
        elapsed_s=time.perf_counter() - started,
        versions=_versions(),
    )


def _check_size(built: BuiltModel) -> None:
    """TraceUnavailable (one line) for a model beyond the planner's sizes; counted on the meta or
    fake tensors the model was built with, before any step runs."""
    if built.parameters > MAX_TRACE_PARAMETERS:
        raise TraceUnavailable(
            f"model: its config builds {built.parameters:,} parameters, beyond the "
            f"{MAX_TRACE_PARAMETERS:,} the planner sizes"
        )


def _by_module(by_group: dict[str, int]) -> dict[str, int]:
    """Largest first; peft's wrapper prefix dropped so names read as in the base model."""
    out: dict[str, int] = {}
    for name, size in sorted(by_group.items(), key=lambda kv: -kv[1]):
        if size:
            key = display_name(name)
            out[key] = out.get(key, 0) + size
    return out


def _phase_switch(tracker: CategoryTracker) -> Callable[[str], None]:
    def switch(phase: str) -> None:
        if tracker.phase_name is not None:
            tracker.next_iteration()  # MemTracker: one root-module call per iteration
        tracker.phase_name = phase

    return switch


def measure_real_peak(setup: TraceSetup, seed: int = 0) -> int:
    """The same step with real tensors on the CPU: the peak live tensor bytes (bench.peak_memory)."""
    _check(setup)
    torch.manual_seed(seed)
    with quiet_library_warnings():
        built = build(setup)
        step = _step(setup, built)
        step.warm_up()
        with measure_peak(torch.device("cpu"), list(step.live_tensors())) as peak:
            step.run()
    assert peak.peak_bytes is not None
    return peak.peak_bytes
