"""Parameter counts, Hugging Face configs and parameter-count guesses."""

import json

import pytest

from gpu_advisor.core.architecture import (
    ConfigError,
    ModelSpec,
    from_hf_config,
    guess_from_param_count,
    load_hf_config,
    parse_param_count,
)
from gpu_advisor.core.presets import get_preset, presets, resolve_model

# Published counts as ESTIMATION.md rounds them (from the model cards and papers).
PUBLISHED_ROUNDED = {
    "llama-2-7b": (6.738e9, 1e6),
    "llama-2-70b": (68.98e9, 1e7),
    "llama-3-8b": (8.03e9, 1e7),
    "llama-3-70b": (70.55e9, 1e7),
    "mistral-7b": (7.24e9, 1e7),
    "mixtral-8x7b": (46.7e9, 1e8),
    "gpt2-small": (124e6, 1e6),
    "gpt2-medium": (355e6, 1e6),
    "gpt2-large": (774e6, 1e6),
    "gpt2-xl": (1.56e9, 1e7),
    "bert-base": (110e6, 1e7),  # "110M" is two significant figures (109.48M with the pooler)
    "bert-large": (335e6, 1e6),
}


@pytest.mark.parametrize("preset_id", list(presets()))
def test_parameter_count_equals_the_published_count_exactly(preset_id):
    preset = presets()[preset_id]
    assert preset.spec.total_params() == preset.published_params


@pytest.mark.parametrize(("preset_id", "published"), PUBLISHED_ROUNDED.items())
def test_parameter_count_rounds_to_the_figure_in_estimation_md(preset_id, published):
    value, unit = published
    assert round(get_preset(preset_id).total_params() / unit) == round(value / unit)


def test_mixtral_active_parameters_count_two_experts():
    preset = presets()["mixtral-8x7b"]
    assert preset.spec.active_params() == preset.published_active_params
    assert round(preset.spec.active_params() / 1e8) == 129  # 12.9B active


def test_required_presets_exist():
    required = {
        "gpt2-small",
        "gpt2-medium",
        "gpt2-large",
        "gpt2-xl",
        "bert-base",
        "bert-large",
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
        "llama-3-8b",
        "llama-3-70b",
        "mistral-7b",
        "mixtral-8x7b",
    }
    assert required <= set(presets())


LLAMA3_8B_CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-05,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
MIXTRAL_CONFIG = {
    "model_type": "mixtral",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "vocab_size": 32000,
    "num_local_experts": 8,
    "num_experts_per_tok": 2,
    "max_position_embeddings": 32768,
}
GPT2_CONFIG = {
    "model_type": "gpt2",
    "n_embd": 768,
    "n_head": 12,
    "n_layer": 12,
    "n_positions": 1024,
    "vocab_size": 50257,
    "n_inner": None,
}
BERT_CONFIG = {
    "model_type": "bert",
    "hidden_size": 1024,
    "num_attention_heads": 16,
    "num_hidden_layers": 24,
    "intermediate_size": 4096,
    "vocab_size": 30522,
    "max_position_embeddings": 512,
    "type_vocab_size": 2,
}
MISTRAL_CONFIG = {
    **LLAMA3_8B_CONFIG,
    "model_type": "mistral",
    "vocab_size": 32000,
    "max_position_embeddings": 32768,
}


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (LLAMA3_8B_CONFIG, 8030261248),
        (MIXTRAL_CONFIG, 46702792704),
        (GPT2_CONFIG, 124439808),
        (BERT_CONFIG, 335141888),
        (MISTRAL_CONFIG, 7241732096),
    ],
)
def test_hugging_face_configs_give_the_published_counts(config, expected):
    assert from_hf_config(config).total_params() == expected


def test_config_file_round_trip(tmp_path):
    path = tmp_path / "Meta-Llama-3-8B" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(LLAMA3_8B_CONFIG))
    spec = load_hf_config(path)
    assert spec.kv_heads == 8 and spec.total_params() == 8030261248
    assert spec.name == "Meta-Llama-3-8B"


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"model_type": "llama", "hidden_size": 4096}), "missing field 'num_hidden_layers'"),
        (json.dumps({"model_type": "t5"}), "model_type 't5'"),
        (json.dumps([1, 2]), "expected a JSON object"),
        (json.dumps({**LLAMA3_8B_CONFIG, "num_attention_heads": 30}), "n_heads"),
        (json.dumps({**LLAMA3_8B_CONFIG, "hidden_size": -5}), "hidden_size"),
    ],
)
def test_bad_config_files_name_the_file_and_the_problem(tmp_path, content, fragment):
    path = tmp_path / "config.json"
    path.write_text(content)
    with pytest.raises(ConfigError) as info:
        load_hf_config(path)
    assert "config.json" in str(info.value) and fragment in str(info.value)


def test_missing_config_file_is_reported(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        load_hf_config(tmp_path / "nope.json")


def test_heads_must_divide_hidden_size():
    with pytest.raises(ValueError, match="n_heads"):
        ModelSpec(
            name="x", family="llama", n_layers=2, hidden_size=100, n_heads=3, ffn_size=10, vocab_size=10
        )


@pytest.mark.parametrize(
    ("text", "value"), [("7B", 7e9), ("350M", 350e6), ("7e9", 7e9), ("1.5b", 1.5e9), ("70 B", 70e9)]
)
def test_parse_param_count(text, value):
    assert parse_param_count(text) == value


@pytest.mark.parametrize("text", ["", "seven", "-7B", "7Q", "0", "100T", "1K"])
def test_bad_param_counts_are_rejected_with_the_field(text):
    with pytest.raises(ConfigError, match="params"):
        parse_param_count(text)


@pytest.mark.parametrize("count", [125e6, 1.3e9, 7e9, 13e9, 70e9, 405e9])
def test_guessed_shape_lands_within_5_percent_and_is_labelled(count):
    spec = guess_from_param_count(int(count))
    assert abs(spec.total_params() / count - 1) < 0.05
    assert spec.guessed and "guess" in spec.source


def test_guess_for_7b_looks_like_a_7b_model():
    spec = guess_from_param_count(7_000_000_000)
    assert spec.hidden_size == 4096 and 28 <= spec.n_layers <= 34 and spec.kv_heads == 8


def test_resolve_model_needs_exactly_one_source():
    with pytest.raises(ConfigError, match="exactly one"):
        resolve_model(preset="gpt2-small", params="7B")
    with pytest.raises(ConfigError, match="unknown preset"):
        resolve_model(preset="gpt-5")


def test_unsupported_families_are_rejected_not_miscounted():
    with pytest.raises(
        ConfigError, match="model_type 'qwen2_moe' is not one the formulas count exactly \\(bert, gemma"
    ):
        from_hf_config({**LLAMA3_8B_CONFIG, "model_type": "qwen2_moe"})


@pytest.mark.parametrize(
    ("config", "message"),
    [
        # JSON true is an int to Python: it must not count as one layer.
        (
            {"model_type": "llama", "num_hidden_layers": True, "hidden_size": 256},
            "num_hidden_layers: expected a whole number, found True",
        ),
        # GPT-2's width as a string: blamed on n_embd, not on the FFN width derived from it.
        ({"model_type": "gpt2", "n_embd": "768"}, "n_embd: expected a whole number, found '768'"),
        ({"model_type": "gpt2", "n_layer": 12.5}, "n_layer: expected a whole number, found 12.5"),
        # A range problem is named by the config's key too.
        ({"model_type": "gpt2", "n_embd": 10**9}, "n_embd: Input should be less than or equal to 131072"),
    ],
)
def test_a_config_count_of_the_wrong_kind_is_blamed_on_its_key(config, message):
    with pytest.raises(ConfigError) as info:
        from_hf_config(config, name="config.json")
    assert str(info.value) == f"config.json: {message}"


def test_a_configs_huge_name_is_cut_to_the_longest_name_allowed():
    config = {"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 2, "_name_or_path": "A" * 10**6}
    spec = from_hf_config(config)
    assert len(spec.name) == 300 and spec.name.startswith("AAAA") and spec.name.endswith("…")
