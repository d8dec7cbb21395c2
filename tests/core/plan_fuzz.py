"""Random planning requests, valid and not, and the properties every plan must keep.

Shared by tests/core/test_plan_fuzz.py (a few hundred examples, fixed seed) and
benchmarks/fuzz_plans.py (10,000). Values are drawn across and beyond each field's bounds, with
the extremes (0, 1e-300, 1e308, infinity, NaN, booleans as counts) that hostile files carry.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import strategies as st
from pydantic import ValidationError

from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.core.errors import UserInputError
from gpu_advisor.core.files import json_text
from gpu_advisor.core.presets import get_preset, presets
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest

# Extremes a broken or hostile file can hold, mixed into every numeric field.
_EXTREME_FLOATS = [0.0, -1.0, 1e-300, 5e-324, 1e308, math.inf, -math.inf, math.nan, 0.5, 1.0, 1.5]
_EXTREME_INTS = [0, -1, 1, 2, 3, 7, 2**31, 10**12, True, False]


def _int(hostile: bool, lo: int, hi: int, optional: bool = False) -> st.SearchStrategy[Any]:
    """In bounds; a hostile request also draws extremes. None only where the field allows it."""
    values = st.integers(lo, hi)
    if hostile:
        values = st.one_of(values, st.sampled_from(_EXTREME_INTS))
    return st.one_of(values, st.none()) if optional else values


def _float(hostile: bool, lo: float, hi: float, optional: bool = False) -> st.SearchStrategy[Any]:
    values = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    if hostile:
        values = st.one_of(values, st.sampled_from(_EXTREME_FLOATS))
    return st.one_of(values, st.none()) if optional else values


@st.composite
def _shape(draw: st.DrawFn, hostile: bool) -> dict[str, Any]:
    """A model shape across ModelSpec's bounds: mostly consistent, sometimes not (a hostile file)."""
    n_heads = draw(st.sampled_from([1, 2, 4, 8, 12, 32, 64, 128]))
    head_dim = draw(st.sampled_from([8, 16, 64, 128, 256]))
    n_experts = draw(st.sampled_from([1, 1, 1, 8, 64]))
    return {
        "name": "fuzzed",
        "family": draw(st.sampled_from(["llama", "gpt2", "bert"])),
        "n_layers": draw(_int(hostile, 1, 200)),
        "hidden_size": draw(
            st.one_of(st.just(n_heads * head_dim), st.just(n_heads * head_dim), _int(hostile, 1, 140_000))
        ),
        "n_heads": n_heads,
        "n_kv_heads": draw(st.sampled_from([None, None, 1, n_heads, 8])),
        "ffn_size": draw(_int(hostile, 1, 1_000_000)),
        "vocab_size": draw(
            st.one_of(st.sampled_from([1000, 32000, 50257, 128256]), _int(hostile, 2, 2_000_000))
        ),
        "max_positions": draw(st.sampled_from([512, 2048, 8192, 131072])),
        "n_experts": n_experts,
        "experts_per_token": draw(
            st.integers(1, min(n_experts, 8)) if n_experts > 1 or not hostile else st.sampled_from([1, 2])
        ),
    }


def _model(hostile: bool) -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(sorted(presets())).map(get_preset), _shape(hostile))


def _assumptions(hostile: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "mfu": _float(hostile, 0.001, 1, optional=True),
            "prefill_efficiency": _float(hostile, 0.001, 1, optional=True),
            "bandwidth_efficiency": _float(hostile, 0.001, 1, optional=True),
            "step_overhead_s": _float(hostile, 0, 10, optional=True),
            "host_overhead_per_layer_s": _float(hostile, 0, 1, optional=True),
            "cuda_context_bytes": _int(hostile, 0, 2**40, optional=True),
            "fragmentation": _float(hostile, 0, 1),
            "dp_comm_overlap": _float(hostile, 0, 1),
            "pipeline_layers_per_virtual_stage": _int(hostile, 1, 1000),
            "loss_chunks": _int(hostile, 1, 4096),
            "server_overhead": _float(hostile, 0, 5),
            "pue": _float(hostile, 1, 3),
            "system_power_fraction": _float(hostile, 0, 3),
            "utilisation_of_tdp": _float(hostile, 0.01, 1.2),
            "lora_rank": _int(hostile, 1, 4096),
            "max_prefill_tokens": _int(hostile, 256, 1_000_000),
        },
    )


def requests() -> st.SearchStrategy[dict[str, Any]]:
    """The fields of a PlanRequest, as a saved plan or the GUI could hand them over: two in three
    within every field's bounds, one in three with extremes mixed in."""
    return st.one_of(_request(hostile=False), _request(hostile=False), _request(hostile=True))


def _request(hostile: bool) -> st.SearchStrategy[dict[str, Any]]:
    gpu_ids = [g.id for g in default_catalog().gpus]
    return st.fixed_dictionaries(
        {
            "model": _model(hostile),
            "task": st.sampled_from(["pretrain", "finetune", "lora", "qlora", "inference"]),
            "precision": st.sampled_from(["fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4"]),
        },
        optional={
            "optimizer": st.sampled_from(["adamw", "adamw-8bit", "sgd", "adafactor"]),
            "seq_len": _int(hostile, 1, 1_000_000),
            "batch_size": _int(hostile, 1, 4096),
            "grad_checkpointing": st.booleans(),
            "grad_accumulation_steps": _int(hostile, 1, 100_000),
            "loss": st.sampled_from(["full", "chunked"]),
            "mixed_precision": st.booleans(),
            "attention": st.sampled_from(["sdpa", "eager"]),
            "zero_stage": st.one_of(st.none(), st.integers(0, 3)),
            "gpus": _int(hostile, 1, 100_000, optional=True),
            "tensor_parallel": st.one_of(st.none(), st.sampled_from([1, 2, 4, 8, 16])),
            "pipeline_parallel": st.one_of(st.none(), st.sampled_from([1, 2, 4, 8, 16])),
            "engine": st.sampled_from(["vllm", "tensorrt-llm", "llama.cpp", "hf-generate"]),
            "users": _int(hostile, 1, 10_000_000),
            "prompt_tokens": _int(hostile, 1, 10_000_000),
            "output_tokens": _int(hostile, 1, 10_000_000),
            "tokens_per_s_per_user": _float(hostile, 0.01, 1_000_000, optional=True),
            "train_tokens": _float(hostile, 1e6, 1e16, optional=True),
            "max_hours": _float(hostile, 0.01, 1e6, optional=True),
            "gpu": st.one_of(st.none(), st.sampled_from(gpu_ids)),
            "tier": st.sampled_from([None, "datacenter", "workstation", "consumer"]),
            "purchase": st.sampled_from(["rent", "buy"]),
            "hours_per_month": _float(hostile, 1, 744),
            "electricity_usd_per_kwh": _float(hostile, 0, 10),
            "assumptions": _assumptions(hostile),
        },
    )


def _check_machines(option) -> None:
    """Machines x GPUs per machine is the GPU count (the last machine holds the rest when it does not
    split evenly), and buying takes at least the GPUs used (whole baseboards for SXM/OAM parts)."""
    per, last = option.gpus_per_machine, option.last_machine_gpus
    held = option.machines * per if last is None else (option.machines - 1) * per + last
    assert held == option.count, (
        f"{option.gpu}: {option.machines} machines x {per} GPUs (last {last}) hold {held}, not {option.count}"
    )
    assert last is None or 0 < last < per, f"{option.gpu}: last machine holds {last} of {per}"
    assert option.gpus_bought >= option.count, f"{option.gpu}: buys {option.gpus_bought} of {option.count}"


def check_request(fields: dict[str, Any]) -> str:
    """Plan `fields` and check the plan; returns 'refused' or 'planned'. Any other exception, a
    non-finite number in the plan's JSON or a fit beyond a GPU's memory fails (AssertionError)."""
    try:
        request = PlanRequest.model_validate(fields)
    except (ValidationError, UserInputError):
        return "refused"  # the one-line field error a user sees
    result = plan(request)
    data = result.to_json_dict()
    text = json_text(data)  # raises ValueError on NaN or infinity: JSON has neither
    json.loads(text)
    for option in result.options:
        _check_machines(option)
        if option.fits:
            assert option.per_gpu_bytes <= option.gpu_memory_bytes, (
                f"{option.gpu}: claims a fit with {option.per_gpu_bytes:,} of {option.gpu_memory_bytes:,} bytes"
            )
    best = result.best
    if best is not None:
        assert best.fits
    return "planned"
