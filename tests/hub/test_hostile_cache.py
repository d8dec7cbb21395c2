"""A hostile Hugging Face cache: every entry is one line or a plan, never a traceback (issue 27, defect 7)."""

from __future__ import annotations

import json
import struct

import pytest

from gpu_advisor.hub import HubError, fetch_model
from tests.hub_cache import write_snapshot

SHAPELESS = {"model_type": "mystery", "architectures": ["MysteryForCausalLM"]}
LLAMA = {
    "model_type": "llama",
    "num_hidden_layers": 2,
    "hidden_size": 64,
    "num_attention_heads": 2,
    "num_key_value_heads": 2,
    "intermediate_size": 128,
    "vocab_size": 1000,
}


def _header(payload: bytes, length: int | None = None) -> bytes:
    return struct.pack("<Q", len(payload) if length is None else length) + payload


BAD_HEADERS = {
    "a list": _header(b"[1,2,3]"),
    "a string": _header(b'"text"'),
    "100,000 deep": _header(b"[" * 100_000 + b"]" * 100_000),
    "shorter than 8 bytes": b"\x01\x02",
    "length past the file": _header(b"{}", length=4096),
    "entry an int": _header(b'{"a": 5}'),
    "shape a string": _header(b'{"a": {"dtype": "BF16", "shape": "big"}}'),
    "negative shape": _header(b'{"a": {"dtype": "BF16", "shape": [-7000000000]}}'),
    "lying shape": _header(b'{"a": {"dtype": "BF16", "shape": [1000000000000000, 1000000000000000]}}'),
    "NaN": _header(b'{"a": {"dtype": "BF16", "shape": [NaN]}}'),
}


@pytest.mark.parametrize("config", [LLAMA, SHAPELESS], ids=["counted", "shapeless"])
@pytest.mark.parametrize("case", list(BAD_HEADERS))
def test_a_hostile_safetensors_header_leaves_the_count_unknown(hub_cache, case, config):
    write_snapshot(
        hub_cache, "h/x", {"config.json": json.dumps(config).encode(), "model.safetensors": BAD_HEADERS[case]}
    )
    try:
        model = fetch_model("h/x")
    except HubError as exc:  # a shape-less config with no count: one line saying so
        assert config is SHAPELESS and "\n" not in str(exc)
        return
    assert model.safetensors_params is None
    assert model.spec.n_layers <= 1000


BAD_INDEXES = {
    "a list": b"[1, 2]",
    "weight_map a list": b'{"weight_map": ["a.safetensors"]}',
    "weight_map of numbers": b'{"weight_map": {"a": 5}}',
    "100,000 deep": b'{"weight_map": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
}


@pytest.mark.parametrize("case", list(BAD_INDEXES))
def test_a_hostile_index_leaves_the_count_unknown(hub_cache, case):
    files = {"config.json": json.dumps(LLAMA).encode(), "model.safetensors.index.json": BAD_INDEXES[case]}
    write_snapshot(hub_cache, "h/y", files)
    assert fetch_model("h/y").safetensors_params is None


@pytest.mark.parametrize(
    "extra",
    [{"model_type": ["llama"]}, {"num_experts": "8"}, {"num_experts": 8, "num_experts_per_tok": "2"}],
    ids=["model_type a list", "string experts", "string top-k"],
)
def test_hostile_config_fields_are_one_line_or_a_plan(hub_cache, extra):
    config = {**LLAMA, "model_type": "mystery", **extra}
    write_snapshot(hub_cache, "h/z", {"config.json": json.dumps(config).encode()})
    try:
        model = fetch_model("h/z")
    except HubError as exc:
        assert "\n" not in str(exc) and "model_type" in str(exc)
        return
    assert model.spec.n_experts in (None, 1) or isinstance(model.spec.n_experts, int)
