"""The model page's Hub id field and the Exact trace, driven like a user, with the real huggingface_hub
(an offline cache built in the test) and the real trace on fake tensors, both on worker threads."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from gpu_advisor.ui.plan.form import PlanForm
from gpu_advisor.ui.plan.wizard import STEP_MODEL, STEP_WORKLOAD, PlanWizard
from tests.hub_cache import build_hub_cache
from tests.hub_configs import HUB_CONFIGS, PUBLISHED_PARAMS

TINY_QWEN2 = {
    **HUB_CONFIGS["Qwen/Qwen2.5-7B-Instruct"],
    "hidden_size": 128,
    "intermediate_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 1024,
}


@pytest.fixture
def offline_hub(tmp_path, monkeypatch):
    from huggingface_hub import constants

    cache = build_hub_cache(tmp_path / "hf-cache")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    return cache


@pytest.fixture
def wizard(qtbot, dialogs):
    widget = PlanWizard(PlanForm())
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.shutdown()


def _fetch(qtbot, wizard, hub_id: str) -> None:
    page = wizard.model_page
    page.hub.edit.clear()
    qtbot.keyClicks(page.hub.edit, hub_id)
    qtbot.mouseClick(page.hub.fetch_button, Qt.MouseButton.LeftButton)


def test_fetching_a_hub_id_runs_in_the_background_and_fills_the_model(wizard, offline_hub, qtbot):
    page = wizard.model_page
    _fetch(qtbot, wizard, "google/gemma-2-9b")
    # Right after the click: the fetch is under way on the worker, the page is busy and Next waits.
    assert page.hub_radio.isChecked()
    assert wizard.form.model is None and not wizard.next_button.isEnabled()
    qtbot.waitUntil(lambda: wizard.form.model is not None, timeout=20_000)
    assert not page.hub.busy.isVisible()
    assert wizard.form.model.name == "google/gemma-2-9b"
    assert wizard.form.model.total_params() == PUBLISHED_PARAMS["google/gemma-2-9b"]
    assert "gemma2: 42 layers" in page.info_arch.text()
    assert wizard.next_button.isEnabled()
    wizard.next()
    assert wizard.step == STEP_WORKLOAD


def test_a_failed_fetch_is_one_line_next_to_the_field(wizard, offline_hub, qtbot):
    page = wizard.model_page
    _fetch(qtbot, wizard, "meta-llama/Llama-3.1-8B")
    qtbot.waitUntil(lambda: page.hub.error.isVisible(), timeout=20_000)
    message = page.hub.error.text()
    assert "not in the Hugging Face cache" in message and "\n" not in message
    assert page.error_text("model") == ""  # said once, beside the field
    assert not wizard.next_button.isEnabled() and wizard.step == STEP_MODEL
    _fetch(qtbot, wizard, "not an id")
    qtbot.waitUntil(lambda: "not a Hugging Face model id" in page.hub.error.text(), timeout=20_000)


def test_search_lists_cached_models_and_choosing_one_fetches_it(wizard, offline_hub, qtbot):
    page = wizard.model_page
    qtbot.keyClicks(page.hub.edit, "olmo")
    qtbot.mouseClick(page.hub.search_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.hub.results.count() > 0, timeout=20_000)
    assert [page.hub.results.item(i).text() for i in range(page.hub.results.count())] == [
        "allenai/OLMo-1B-hf"
    ]
    item = page.hub.results.item(0)
    qtbot.mouseClick(
        page.hub.results.viewport(),
        Qt.MouseButton.LeftButton,
        pos=page.hub.results.visualItemRect(item).center(),
    )
    qtbot.waitUntil(lambda: wizard.form.model is not None, timeout=20_000)
    assert wizard.form.model.name == "allenai/OLMo-1B-hf"


def test_exact_trace_runs_in_the_background_and_becomes_the_memory_basis(wizard, tmp_path, qtbot):
    config = tmp_path / "tiny-qwen2" / "config.json"
    config.parent.mkdir()
    config.write_text(json.dumps(TINY_QWEN2))
    wizard.model_page.choose_config(str(config))
    form = wizard.form
    form.set_field("task", "pretrain")
    form.set_field("seq_len", 64)
    form.set_field("batch_size", 2)
    panel = wizard.estimate.trace
    assert panel.button.isEnabled() and form.trace is None
    qtbot.mouseClick(panel.button, Qt.MouseButton.LeftButton)
    assert panel.busy.isVisible() and not panel.button.isEnabled()
    qtbot.waitUntil(lambda: form.trace is not None, timeout=120_000)
    qtbot.waitUntil(lambda: bool(panel.cells), timeout=10_000)
    assert not panel.busy.isVisible()
    assert form.request.trace is form.trace
    components = [row[0].removeprefix("! ") for row in panel.cells]
    assert {"weights", "optimizer", "activations"} <= set(components)
    assert "Peak" in panel.peak.text()
    plan = form.plan_now()
    memory = plan.memory.components
    assert plan.trace is not None and memory.total - memory.overhead == form.trace.peak_bytes
    assert "(traced)" in wizard.estimate.value("memory")
    # Changing an input the trace depends on drops it: the formulas are the basis again.
    form.set_field("seq_len", 128)
    assert form.trace is None and form.request.trace is None
    assert panel.cells == [] and "trace again" in panel.status.text()


def test_an_approximated_architecture_is_traced_as_soon_as_it_is_chosen(wizard, offline_hub, qtbot):
    _fetch(qtbot, wizard, "tiiuae/falcon-7b")
    qtbot.waitUntil(lambda: wizard.form.model is not None, timeout=20_000)
    assert not wizard.form.model_exact
    assert "model_type 'falcon'" in wizard.model_page.info_notes.text()
    qtbot.waitUntil(lambda: wizard.form.trace is not None, timeout=120_000)
    assert wizard.form.trace.parameters == PUBLISHED_PARAMS["tiiuae/falcon-7b"]
    assert wizard.form.trace.architecture.startswith("FalconForCausalLM")


TINY_FALCON = {
    **HUB_CONFIGS["tiiuae/falcon-7b"],
    "hidden_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "vocab_size": 1024,
}


def _write_config(tmp_path, name: str, config: dict) -> str:
    path = tmp_path / name / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(config))
    return str(path)


def test_an_approximated_model_is_traced_again_after_an_input_change_as_the_cli_does(wizard, tmp_path, qtbot):
    """D7: the trace is not simply dropped at the first input change: the estimate says it is pending,
    and the new inputs are traced (the CLI traces the final inputs)."""
    form, panel = wizard.form, wizard.estimate.trace
    form.set_field("task", "pretrain")
    form.set_field("seq_len", 64)
    form.set_field("batch_size", 2)
    wizard.model_page.choose_config(_write_config(tmp_path, "tiny-falcon", TINY_FALCON))
    assert not form.model_exact
    qtbot.waitUntil(lambda: form.trace is not None, timeout=120_000)
    assert form.trace.batch_size == 2
    form.set_field("batch_size", 4)
    assert form.trace is None and "pending" in panel.status.text()
    form.set_field("purchase", "buy")  # an input the trace does not depend on, while pending
    qtbot.waitUntil(lambda: form.trace is not None, timeout=120_000)
    assert form.trace.batch_size == 4 and form.request.trace is form.trace
    form.set_field("hours_per_month", 200)  # unrelated: the trace stays
    assert form.trace is not None and form.request.trace is form.trace


def test_a_second_model_chosen_while_a_trace_runs_is_traced(wizard, tmp_path, qtbot):
    form, panel = wizard.form, wizard.estimate.trace
    first = {**TINY_FALCON, "num_hidden_layers": 3}
    wizard.model_page.choose_config(_write_config(tmp_path, "falcon-a", first))
    qtbot.waitUntil(lambda: panel.running, timeout=10_000)
    wizard.model_page.choose_config(_write_config(tmp_path, "falcon-b", TINY_FALCON))
    second = form.model.name
    qtbot.waitUntil(lambda: form.trace is not None, timeout=180_000)
    assert form.trace.model == second and form.request.trace is form.trace
    assert "inputs changed" not in panel.status.text()
