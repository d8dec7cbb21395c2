"""The `gpu-advisor/plan@1` JSON contract (DESIGN.md, "Data contracts"): keys and units that scripts and
saved plans rely on. The plan object nests its working (cost, speed, layout); only the JSON is flat."""

import json
import math

import pytest

from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest

TOP_KEYS = {"schema", "inputs", "memory", "compute", "recommendation", "options", "assumptions", "warnings"}
OPTION_KEYS = {
    "gpu",
    "gpu_id",
    "tier",
    "count",
    "fits",
    "meets_target",
    "gpu_memory_bytes",
    "per_gpu_bytes",
    "per_gpu_components",
    "parallelism",
    "parallelism_text",
    "bound",
    "cloud_usd_per_hour",
    "cloud_usd_per_month",
    "purchase_usd",
    "electricity_usd_per_month",
    "breakeven_months",
    "job_cloud_usd",
    "rank_usd",
    "note",
}
TRAINING_KEYS = {"step_time_s", "tokens_per_s", "time_to_train_s", "gpu_hours"}
INFERENCE_KEYS = {"prefill_s", "decode_s_per_token", "tokens_per_s_per_user", "tokens_per_s"}
COMPONENTS = {"weights", "gradients", "optimizer", "activations", "kv_cache", "overhead"}


@pytest.fixture(scope="module")
def training():
    req = PlanRequest(model=get_preset("llama-2-7b"), task="finetune", train_tokens=1e9, max_hours=48)
    return plan(req).to_json_dict()


@pytest.fixture(scope="module")
def inference():
    return plan(PlanRequest(model=get_preset("llama-3-8b"), users=8)).to_json_dict()


def test_top_level_keys_and_schema(training, inference):
    for data in (training, inference):
        assert data["schema"] == "gpu-advisor/plan@1"
        assert set(data) >= TOP_KEYS
        assert set(data["memory"]["components"]) == COMPONENTS
        assert sum(data["memory"]["components"].values()) == data["memory"]["total_bytes"]
        assert {"tier", "gpu", "gpu_id", "count", "parallelism", "reason"} <= set(data["recommendation"])


def test_training_options_are_flat_with_training_speed_only(training):
    for option in training["options"]:
        assert set(option) >= OPTION_KEYS | TRAINING_KEYS
        assert not (INFERENCE_KEYS - {"tokens_per_s"}) & set(option)
        assert set(option["parallelism"]) == {"tensor", "pipeline", "data", "zero_stage"}
        assert option["count"] == math.prod(option["parallelism"][k] for k in ("tensor", "pipeline", "data"))
        assert isinstance(option["per_gpu_bytes"], int) and isinstance(option["gpu_memory_bytes"], int)
        assert sum(option["per_gpu_components"].values()) == option["per_gpu_bytes"]
    best = training["options"][0]
    assert best["time_to_train_s"] == pytest.approx(1e9 / best["tokens_per_s"])
    assert best["gpu_hours"] == pytest.approx(best["time_to_train_s"] * best["count"] / 3600)


def test_inference_options_are_flat_with_inference_speed_only(inference):
    for option in inference["options"]:
        assert set(option) >= OPTION_KEYS | INFERENCE_KEYS
        assert not (TRAINING_KEYS - {"tokens_per_s"}) & set(option)
    best = inference["options"][0]
    assert best["tokens_per_s_per_user"] == pytest.approx(1 / best["decode_s_per_token"])


def test_json_has_no_python_only_values(training, inference):
    json.dumps([training, inference], allow_nan=False)  # raises on NaN or infinity
