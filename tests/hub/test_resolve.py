"""Hub ids resolve through the real huggingface_hub against a cache built in the test (offline)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gpu_advisor.hub import HubError, fetch_model, looks_like_hub_id, parse_hub_id, search_models
from tests.hub_configs import FORMULA_REPOS, HUB_CONFIGS, PUBLISHED_PARAMS, TRACE_ONLY_REPOS


@pytest.mark.parametrize("repo_id", FORMULA_REPOS)
def test_architectures_the_formulas_count_resolve_to_the_exact_parameter_count(hub_cache, repo_id):
    model = fetch_model(repo_id)
    assert model.exact
    assert model.spec.total_params() == PUBLISHED_PARAMS[repo_id]
    assert model.spec.name == repo_id and not model.spec.guessed
    assert model.config == HUB_CONFIGS[repo_id]
    assert model.warnings == ()


@pytest.mark.parametrize("repo_id", TRACE_ONLY_REPOS)
def test_other_architectures_get_an_approximation_and_one_warning(hub_cache, repo_id):
    model = fetch_model(repo_id)
    assert not model.exact and model.spec.guessed
    (warning,) = model.warnings
    assert HUB_CONFIGS[repo_id]["model_type"] in warning and "approximation" in warning
    assert "trace" in warning
    assert model.spec.notes == model.warnings  # the plan shows it among its warnings
    # Layers, width and vocabulary come from the config even though the block is not counted exactly.
    assert model.spec.n_layers == HUB_CONFIGS[repo_id]["num_hidden_layers"]
    assert model.spec.vocab_size == HUB_CONFIGS[repo_id]["vocab_size"]


def test_parameter_count_comes_from_cached_safetensors_headers(hub_cache):
    single = fetch_model("Qwen/Qwen2.5-7B-Instruct")
    assert single.safetensors_params == PUBLISHED_PARAMS["Qwen/Qwen2.5-7B-Instruct"]
    assert single.safetensors_dtypes == {"BF16": PUBLISHED_PARAMS["Qwen/Qwen2.5-7B-Instruct"]}
    sharded = fetch_model("tiiuae/falcon-7b")
    assert sharded.safetensors_params == PUBLISHED_PARAMS["tiiuae/falcon-7b"]
    assert f"{PUBLISHED_PARAMS['tiiuae/falcon-7b']:,}" in sharded.warnings[0]
    assert fetch_model("google/gemma-2-9b").safetensors_params is None  # no weights cached: unknown


def test_a_revision_resolves_to_its_own_snapshot(hub_cache):
    main = fetch_model("Qwen/Qwen2.5-7B-Instruct@main")
    branch = fetch_model("Qwen/Qwen2.5-7B-Instruct@half-depth")
    assert main.spec.n_layers == 28 and branch.spec.n_layers == 14
    assert branch.spec.name == "Qwen/Qwen2.5-7B-Instruct@half-depth"


def test_offline_and_not_cached_is_one_line_that_says_so(hub_cache):
    with pytest.raises(HubError) as err:
        fetch_model("meta-llama/Llama-3.1-8B")
    message = str(err.value)
    assert "\n" not in message
    assert "not in the Hugging Face cache" in message and "HF_HUB_OFFLINE=1" in message
    with pytest.raises(HubError, match="offline"):
        fetch_model("Qwen/Qwen2.5-7B-Instruct@no-such-branch")


@pytest.mark.parametrize("text", ["llama-3-8b", "a/b/c", "org/", "/name", "org/na me", "org/--x"])
def test_what_is_not_a_hub_id(text):
    assert not looks_like_hub_id(text)
    with pytest.raises(HubError, match="not a Hugging Face model id"):
        parse_hub_id(text)


def test_a_path_on_disk_is_a_file_not_a_hub_id(tmp_path, monkeypatch):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "config.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    assert not looks_like_hub_id("models/config.json")
    assert looks_like_hub_id("models/config2.json")
    assert parse_hub_id("Qwen/Qwen2.5-7B@v1.0") == ("Qwen/Qwen2.5-7B", "v1.0")


def test_search_offline_lists_cached_models_that_match(hub_cache):
    assert search_models("qwen") == ["Qwen/Qwen2.5-7B-Instruct"]
    assert search_models("7b") == sorted(search_models("7b"), key=search_models("").index)
    assert set(search_models("")) == set(HUB_CONFIGS)


# ---- online failures, against a local stand-in for the Hub (HF_ENDPOINT), in a fresh process -------
class _FakeHub(BaseHTTPRequestHandler):
    """Answers as the Hub does: X-Error-Code GatedRepo (403), RepoNotFound / EntryNotFound (404)."""

    def _answer(self) -> None:
        owner = self.path.strip("/").split("/")[0]
        code, error = {"gated": (403, "GatedRepo"), "missing": (404, "RepoNotFound")}.get(
            owner, (404, "EntryNotFound")
        )
        self.send_response(code)
        self.send_header("X-Error-Code", error)
        self.send_header("X-Error-Message", "answer of the test's stand-in Hub")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_HEAD = do_GET = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def fake_hub(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join()
    server.server_close()


def _plan(model: str, endpoint: str, tmp_path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HF_ENDPOINT": endpoint,
        "HF_HUB_CACHE": str(tmp_path / "empty-cache"),
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }
    env.pop("HF_HUB_OFFLINE", None)
    return subprocess.run(
        [sys.executable, "-m", "gpu_advisor", "plan", "--model", model],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gated/model", "is gated: accept its licence"),
        ("missing/model", "is not on the Hugging Face Hub"),
        ("someone/dataset-like", "has no config.json"),
    ],
)
def test_hub_refusals_are_one_line_each(fake_hub, tmp_path, model, expected):
    out = _plan(model, fake_hub, tmp_path)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and expected in out.stderr and "Traceback" not in out.stderr


def test_no_network_is_one_line_and_fast(tmp_path):
    out = _plan("org/model", "http://127.0.0.1:9", tmp_path)  # nothing listens on port 9 (discard)
    assert out.returncode == 2
    assert "cannot reach the Hugging Face Hub" in out.stderr and out.stderr.count("\n") == 1


def test_plan_json_for_a_hub_id_offline(hub_cache):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpu_advisor",
            "plan",
            "--model",
            "microsoft/Phi-3-mini-4k-instruct",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    plan = json.loads(out.stdout)
    assert plan["inputs"]["model"]["name"] == "microsoft/Phi-3-mini-4k-instruct"
    assert plan["inputs"]["model"]["model_type"] == "phi3"
    weights = plan["memory"]["components"]["weights"]
    assert weights == PUBLISHED_PARAMS["microsoft/Phi-3-mini-4k-instruct"] * 2  # bf16
    assert "trace" not in plan  # counted exactly: no automatic trace


def test_plan_traces_an_architecture_the_formulas_do_not_count(hub_cache, monkeypatch):
    """Falcon's parallel blocks are not in the formulas: the plan traces the real model by itself."""
    monkeypatch.setenv("GPU_ADVISOR_TRACE_TIMEOUT_S", "600")  # 45 s on two loaded cores; 60 s by default
    out = subprocess.run(
        [sys.executable, "-m", "gpu_advisor", "plan", "--model", "tiiuae/falcon-7b", "--task", "finetune",
         "--seq-len", "1024", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )  # fmt: skip
    plan = json.loads(out.stdout)
    trace = plan["trace"]["trace"]
    assert trace["parameters"] == PUBLISHED_PARAMS["tiiuae/falcon-7b"]  # the real module, not the guess
    assert trace["architecture"].startswith("FalconForCausalLM")
    assert any("model_type 'falcon'" in w for w in plan["warnings"])
    # The plan's memory is the trace's peak plus the planner's CUDA context and fragmentation.
    memory = plan["memory"]["components"]
    assert plan["memory"]["total_bytes"] - memory["overhead"] == trace["peak_bytes"]
    assert plan["memory"]["formulas"]["weights"].startswith("traced")
    # The recipe was left open: the trace measured the one the planner recommends, and the plan runs it.
    best = next(o for o in plan["options"] if o["gpu_id"] == plan["recommendation"]["gpu_id"])
    assert (trace["batch_size"], trace["grad_checkpointing"]) == (
        best["recipe"]["micro_batch"],
        best["recipe"]["grad_checkpointing"],
    )
    assert best["recipe_source"]["micro_batch"] == "planner"


def test_bench_takes_a_hub_id_and_refuses_one_its_zoo_cannot_build(hub_cache, tmp_path):
    results = tmp_path / "phi3.json"
    out = subprocess.run(
        [sys.executable, "-m", "gpu_advisor", "bench", "--device", "cpu", "--workloads", "train", "--quick",
         "--model", "microsoft/Phi-3-mini-4k-instruct", "--memory-cap", "1GiB", "--json", str(results)],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    (train,) = json.loads(results.read_text())["results"]
    assert train["name"] == "train microsoft/Phi-3-mini-4k-instruct"
    assert train["status"] == "oom"  # 3.8B parameters do not train in 1 GiB: a result, not a crash
    refused = subprocess.run(
        [sys.executable, "-m", "gpu_advisor", "bench", "--model", "Qwen/Qwen2.5-7B-Instruct"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 2
    assert refused.stderr.strip().startswith("gpu-advisor bench: error: --model:")
    assert "q/k/v biases" in refused.stderr and "gpu-advisor trace" in refused.stderr


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"num_hidden_layers": ' + b"9" * 5000 + b"}", "an integer of 5000 digits"),
        (b'{"broken"', "not valid JSON"),
    ],
)
def test_a_hostile_cached_config_is_one_line(hub_cache, content, fragment):
    from tests.hub_cache import write_snapshot

    write_snapshot(hub_cache, "evil/model", {"config.json": content})
    with pytest.raises(HubError) as err:
        fetch_model("evil/model")
    message = str(err.value)
    assert message.startswith("model: evil/model: config.json: ") and fragment in message
    assert "\n" not in message
