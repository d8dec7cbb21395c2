"""A plan whose memory basis is a trace: the trace's bytes, the planner's sharding and overhead on top,
and the formulas beside it (no torch: the trace arrives as plain data)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gpu_advisor.core.efficiency import process_overhead_bytes
from gpu_advisor.core.layout import Parallelism
from gpu_advisor.core.memory import Device, estimate_memory
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.trace import PhasePeak, TraceResult

GIB = 2**30
MODEL = get_preset("llama-3-8b")
P = MODEL.total_params()


def _training_trace(activations: float = 30 * GIB, **overrides) -> TraceResult:
    """What a bf16 AdamW step of 8B looks like: 2 + 2 + 12 bytes per parameter at the step, and
    at backward the weights, state and (30 GiB of) activations."""
    backward = {
        "parameters": 2 * P,
        "optimizer_state": 12 * P,
        "activations": int(activations),
        "gradients": GIB,
    }
    step = {"parameters": 2 * P, "optimizer_state": 12 * P, "gradients": 2 * P, "temporaries": GIB}
    fields = dict(
        model=MODEL.name,
        architecture="LlamaForCausalLM (test)",
        parameters=P,
        trainable_parameters=P,
        task="finetune",
        precision="bf16",
        optimizer="adamw",
        batch_size=1,
        seq_len=2048,
        step="training step 2",
        peak_bytes=sum(backward.values()),
        peak_moment="backward, in model.layers.0 (mm)",
        peak_phase="backward",
        by_category=backward,
        by_module={"model.layers": sum(backward.values())},
        phases=(
            PhasePeak(phase="backward", peak_bytes=sum(backward.values()), moment="b", by_category=backward),
            PhasePeak(phase="optimizer step", peak_bytes=sum(step.values()), moment="s", by_category=step),
        ),
    )
    return TraceResult(**(fields | overrides))


def _request(trace: TraceResult | None, **fields) -> PlanRequest:
    base = dict(model=MODEL, task="finetune", precision="bf16", seq_len=2048, batch_size=1, trace=trace)
    return PlanRequest(**(base | fields))


def test_one_unsharded_cpu_device_holds_exactly_the_traced_peak():
    trace = _training_trace()
    est = estimate_memory(_request(trace), device=Device.CPU)
    assert est.total_bytes == trace.peak_bytes
    assert est.phase == "backward"
    assert est.components.activations == 30 * GIB
    assert est.components.weights == 2 * P and est.components.optimizer == 12 * P


def test_sharding_divides_the_traced_bytes_as_it_divides_the_formulas():
    trace = _training_trace()
    zero3 = Parallelism(data=8, zero_stage=3)
    traced = estimate_memory(_request(trace), zero3, device=Device.CPU).components
    # ZeRO-3 over 8: optimizer state and weights / 8 (+ two gathered layers), activations whole.
    assert traced.optimizer == pytest.approx(12 * P / 8, abs=1)
    gathered = 2 * MODEL.layer_params() * 2
    assert traced.weights == pytest.approx(2 * P / 8 + gathered, abs=1)
    tp = estimate_memory(_request(trace), Parallelism(tensor=4), device=Device.CPU).components
    assert tp.activations == pytest.approx(30 * GIB / 4, abs=1)


def test_the_planner_adds_cuda_context_and_fragmentation_on_top_of_the_trace():
    trace = _training_trace()
    req = _request(trace)
    cuda = estimate_memory(req, device=Device.CUDA)
    a = req.assumptions
    # The process overhead of a PyTorch training process on one GPU (efficiencies.json, "training").
    context, _ = process_overhead_bytes(None, distributed=False)
    assert cuda.components.overhead == round(context + a.fragmentation * trace.peak_bytes)


def test_plan_shows_formulas_beside_the_trace_and_flags_big_differences():
    result = plan(_request(_training_trace()))
    comparison = result.trace
    assert comparison is not None
    rows = {r.component: r for r in comparison.rows}
    assert rows["weights"].trace_bytes == 2 * P and not rows["weights"].flagged  # same as 2 B x P
    # The trace peaks at backward: the formulas' backward moment is compared, whichever of theirs peaks.
    formula_activations = rows["activations"].formula_bytes
    assert formula_activations > 0
    assert rows["activations"].flagged == (abs(30 * GIB / formula_activations - 1) > 0.10)
    assert any("differ for activations" in w for w in result.warnings) == rows["activations"].flagged
    assert rows["optimizer"].formula_bytes == 12 * P and not rows["optimizer"].flagged
    assert result.memory.formulas["weights"].startswith("traced")
    assert result.to_json_dict()["trace"]["trace"]["schema"] == "gpu-advisor/trace@1"
    assert result.memory.total_bytes - result.memory.components.overhead == _training_trace().peak_bytes


def test_untraced_plans_are_unchanged():
    assert plan(_request(None)).trace is None
    assert "trace" not in plan(_request(None)).to_json_dict()


def test_a_trace_for_other_inputs_is_refused_with_the_field():
    with pytest.raises(ValidationError, match="trace: made for seq_len 2048, the request has 4096"):
        _request(_training_trace(), seq_len=4096)
    with pytest.raises(ValidationError, match="trace: made for task finetune"):
        _request(_training_trace(), task="pretrain")


def test_inference_trace_sets_weights_kv_cache_and_prefill():
    users = 4
    cat = {"parameters": 16 * GIB, "kv_cache": 2 * GIB, "activations": GIB // 2}
    trace = TraceResult(
        model=MODEL.name,
        architecture="test",
        parameters=P,
        trainable_parameters=0,
        task="inference",
        precision="bf16",
        batch_size=1,
        seq_len=1,
        users=users,
        prompt_tokens=512,
        output_tokens=256,
        step="inference",
        peak_bytes=sum(cat.values()),
        peak_moment="prefill",
        peak_phase="prefill",
        by_category=cat,
        by_module={},
        phases=(PhasePeak(phase="prefill", peak_bytes=sum(cat.values()), moment="p", by_category=cat),),
    )
    req = PlanRequest(model=MODEL, task="inference", users=users, trace=trace)
    one = estimate_memory(req, device=Device.CPU).components
    assert (one.weights, one.kv_cache, one.activations) == (16 * GIB, 2 * GIB, GIB // 2)
    two_replicas = estimate_memory(req, Parallelism(data=2), device=Device.CPU).components
    assert two_replicas.kv_cache == GIB  # half of the users per replica


def test_a_trace_that_ran_eager_attention_keeps_the_formulas_sdpa_attention_activations_and_says_why():
    """D6: the trace of an SDPA request ran eager attention (Gemma 2 in transformers): the s x s
    matrices eager keeps are not planned for; the other traced bytes are, and the plan says why."""
    from gpu_advisor.core.memory import memory_basis

    seq = 8192
    sdpa = memory_basis(_request(None, seq_len=seq), Device.CPU)
    eager = memory_basis(_request(None, seq_len=seq, attention="eager"), Device.CPU)
    assert eager.activations > 2 * sdpa.activations  # the formulas count eager's matrices
    # the trace found eager's activations and 1 GiB the formulas do not count
    trace = _training_trace(
        eager.activations + GIB, seq_len=seq, attention="eager", architecture="Gemma2ForCausalLM (test)"
    )
    traced = memory_basis(_request(trace, seq_len=seq), Device.CPU)
    assert traced.activations == pytest.approx(sdpa.activations + GIB)
    same_kernel = memory_basis(_request(trace, seq_len=seq, attention="eager"), Device.CPU)
    assert same_kernel.activations == int(
        eager.activations + GIB
    )  # no correction when the trace ran what is asked
    warnings = plan(_request(trace, seq_len=seq)).warnings
    assert any("ran eager attention" in w and "formulas' sdpa attention" in w for w in warnings)
    assert not any("ran eager" in w for w in plan(_request(trace, seq_len=seq, attention="eager")).warnings)


def test_a_trace_of_the_requested_kernel_or_of_an_unknown_one_is_used_as_it_is():
    for kernel in ("sdpa", None):
        trace = _training_trace(attention=kernel)
        assert estimate_memory(_request(trace), device=Device.CPU).total_bytes == trace.peak_bytes
