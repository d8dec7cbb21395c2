"""A plan words its options' working (speed terms, memory and cost formulas) only when someone reads
it, and then reads exactly as an estimate built with its words: same values, same key order in a dump,
equal, hashable, picklable (core/estimates.py, WordedLater)."""

from __future__ import annotations

import copy
import json
import pickle

from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.core.estimates import CostEstimate, InferenceSpeed, MemoryEstimate, TrainingSpeed
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest

WORDED = (TrainingSpeed, InferenceSpeed, MemoryEstimate, CostEstimate)


def _plan(**fields):
    return plan(PlanRequest(**{**fields, "model": get_preset(fields["model"])}), default_catalog())


def _estimates(option):
    return (option.speed, option.per_gpu, option.cost)


def _eager(estimate):
    """The same estimate built the ordinary way, its words given: what a test or a loader builds."""
    return type(estimate)(**dict(estimate))


def test_planning_leaves_the_options_working_unworded_until_read():
    result = _plan(model="llama-3-8b", task="inference", users=8)
    unworded = [e for o in result.options for e in _estimates(o) if not set(type(e).WORDS) <= set(e.__dict__)]
    # Every option's speed, memory and cost (the recommended one's included: nothing read them yet).
    assert len(unworded) == 3 * len(result.options)


def test_a_lazily_worded_option_reads_as_one_built_with_its_words():
    result = _plan(model="llama-2-7b", task="finetune", seq_len=2048, train_tokens=1e9, max_hours=48)
    option = result.options[0]
    for lazy in _estimates(option):
        eager = _eager(lazy)
        assert lazy == eager and eager == lazy
        assert repr(lazy) == repr(eager)
        # A dump keeps the fields' declared order (plan --json and saved files read as before).
        assert (
            list(lazy.model_dump())
            == list(eager.model_dump())
            == [name for name in type(lazy).model_fields if name in eager.model_dump()]
        )
    # Hashable as before (a memory estimate holds dicts: it never was).
    assert hash(option.speed) == hash(_eager(option.speed)) and hash(option.cost) == hash(_eager(option.cost))
    assert option.speed.formula.startswith("step = ")
    assert option.speed.terms[0].name == "compute"


def test_json_of_a_fresh_plan_names_every_formula():
    result = _plan(model="mixtral-8x7b", task="inference", users=64, precision="int4")
    options = json.loads(json.dumps(result.to_json_dict()))["options"]
    assert all(o["formulas"]["speed"].startswith("decode = ") for o in options)
    assert all(o["formulas"]["cost"].startswith("rent") for o in options)
    assert all("weights" in o["formulas"]["memory"] for o in options)


def test_a_copy_keeps_what_it_was_given_and_words_the_rest():
    option = _plan(model="llama-3-8b", task="inference").options[0]
    copied = option.speed.model_copy(update={"formula": "given"})
    assert copied.formula == "given"
    assert copied.prefill_formula == _eager(option.speed).prefill_formula
    assert list(copied.model_dump()) == list(InferenceSpeed.model_fields)


def test_a_plan_pickles_and_deep_copies_with_its_working():
    result = _plan(model="llama-3-8b", task="qlora", seq_len=2048, batch_size=4)
    assert copy.deepcopy(result).options[-1].speed.terms == _eager(result.options[-1].speed).terms
    again = pickle.loads(pickle.dumps(result))
    assert again == result
    assert again.options[0].per_gpu.formulas == result.options[0].per_gpu.formulas
    assert again.options[0].cost.formula.startswith("rent")
