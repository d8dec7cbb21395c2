"""The planner's layout search takes shortcuts (layouts kept per count and card size, thresholds worked
out once per count, the speed constants of a GPU resolved once); these tests hold them to the plain
search they replace: every layout tried in order, every speed computed from the request."""

from __future__ import annotations

import pytest

from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.layouts import LayoutSearch, layout, pp_options, tp_options, zero_options
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import gpu_peaks, plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.speed import LayoutSpeeds, inference_speed, training_speed

REQUESTS = {
    "405b pretraining": dict(
        model="llama-3.1-405b", task="pretrain", seq_len=8192, grad_checkpointing=True, train_tokens=15e12
    ),
    "7b full fine-tune": dict(model="llama-2-7b", task="finetune", seq_len=4096, grad_checkpointing=True),
    "8b QLoRA": dict(model="llama-3-8b", task="qlora", seq_len=2048, batch_size=4),
    # vLLM leaves part of each card unused: which layouts fit depends on the card's size.
    "70b serving, vLLM": dict(model="llama-3-70b", task="inference", users=32, engine="vllm"),
    "mixtral serving, TensorRT-LLM": dict(
        model="mixtral-8x7b", task="inference", users=64, precision="int4", engine="tensorrt-llm"
    ),
}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(user_file=None)


def _request(name: str) -> PlanRequest:
    kw = REQUESTS[name]
    return PlanRequest(**{**kw, "model": get_preset(kw["model"])})


def _tried_in_order(req: PlanRequest, count: int, node: int, capacity: int) -> list:
    """For each tensor-parallel degree: pipeline depths and ZeRO stages tried in order, a depth skipped
    when neither of its two most sharded stages fits; the first fit, else the last layout tried."""
    basis = LayoutSearch(req).basis
    out = []
    for tp in tp_options(req, count, node):
        attempt, found = None, False
        for pp in pp_options(req, count, tp, node):
            dp = count // (tp * pp)
            zeros = zero_options(req, dp)
            if len(zeros) > 2 and not any(basis.fits(layout(tp, pp, dp, z), capacity) for z in zeros[-2:]):
                attempt = layout(tp, pp, dp, zeros[-1])
                continue
            for zero in zeros:
                attempt = layout(tp, pp, dp, zero)
                if basis.fits(attempt, capacity):
                    found = True
                    break
            if found:
                break
        if attempt is not None:
            out.append((attempt, found))
    return out


@pytest.mark.parametrize("name", REQUESTS)
def test_the_layouts_picked_for_every_card_and_count_are_those_tried_one_by_one(catalog, name):
    req = _request(name)
    search = LayoutSearch(req)  # one search for the whole catalogue, as in a plan
    checked = fitted = 0
    for gpu in catalog.gpus:
        node, capacity = gpu.node().node_gpus, gpu.memory_bytes
        for count in (1, 2, 4, 8, 16, 64, 256, 2048):
            picks = search.picks(count, node, capacity)
            assert list(picks) == _tried_in_order(req, count, node, capacity), (gpu.id, count)
            checked += 1
            fitted += any(found for _, found in picks)
    assert fitted and fitted < checked  # the grid has cards that fit and cards that do not


@pytest.mark.parametrize("name", REQUESTS)
def test_a_count_fits_when_its_most_sharded_layout_fits(catalog, name):
    req = _request(name)
    search = LayoutSearch(req)
    basis = search.basis
    for gpu in catalog.gpus:
        node, capacity = gpu.node().node_gpus, gpu.memory_bytes
        for count in (1, 2, 8, 64, 1024):
            tp = max(tp_options(req, count, node))
            pps = pp_options(req, count, tp, node) or [1]
            expected = False
            for pp in (min(pps), max(pps)):
                dp = count // (tp * pp)
                zero = max(zero_options(req, dp)) if dp > 1 else 0
                expected = expected or basis.fits(layout(tp, pp, dp, zero), capacity)
            assert search.fits_at(count, node, capacity) is expected, (gpu.id, count)


@pytest.mark.parametrize("name", REQUESTS)
def test_the_numbers_that_rank_layouts_are_the_numbers_the_plan_shows(catalog, name):
    req = _request(name)
    result = plan(req, catalog)
    for option in result.options:
        if option.recipe is not None:  # the recipe the planner ran this option with
            req = _request(name).model_copy(
                update={
                    "batch_size": option.recipe["micro_batch"],
                    "grad_accumulation_steps": option.recipe["grad_accum"],
                    "grad_checkpointing": option.recipe["grad_checkpointing"],
                }
            )
        peaks, _ = gpu_peaks(catalog.get(option.gpu_id), req)
        speeds = LayoutSpeeds(req, peaks)
        par = option.layout
        summary, shown = speeds.summary(par), option.speed
        assert summary.tokens_per_s == shown.tokens_per_s
        if req.task.is_training:
            assert summary.time_to_train_s == shown.time_to_train_s
            assert shown == training_speed(req, par, peaks)
        else:
            assert summary.tokens_per_s_per_user == shown.tokens_per_s_per_user
            assert summary.prefill_s == shown.prefill_s
            assert shown == inference_speed(req, par, peaks)
