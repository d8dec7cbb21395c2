"""D20 (ux-review-3): 'Memory by precision…' of a serving plan describes the serving shape (users,
prompt and output tokens; the users Little's law gives for requests per second), not a training
batch and sequence, and shows the KV cache that makes fp8's whole job smaller than int8's."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gpu_advisor.core.units import format_bytes


def _open(window, qtbot):
    window.form.plan_now()
    qtbot.mouseClick(window.wizard.estimate.precision_button, Qt.MouseButton.LeftButton)
    dialog = window.precision_dialog
    assert dialog.isVisible()
    return dialog


def _headers(table) -> list[str]:
    return [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]


def test_a_serving_plan_is_described_by_its_users_and_tokens_with_a_kv_cache_column(window, qtbot):
    form = window.form
    form.set_model_source("preset", "llama-3-70b")
    form.set_field("task", "inference")
    form.set_field("users", 200)
    form.set_field("prompt_tokens", 512)
    form.set_field("output_tokens", 256)
    form.set_field("tokens_per_s_per_user", 30.0)
    dialog = _open(window, qtbot)
    title = dialog.title.text()
    assert "200 users" in title and "512 + 256 tokens" in title
    assert "batch" not in title and "sequence" not in title
    headers = _headers(dialog.table)
    assert "KV cache" in headers
    kv = headers.index("KV cache")
    assert dialog.cell("bf16", kv) == format_bytes(form.plan.memory.components.kv_cache)
    assert dialog.cell("fp32", kv) != dialog.cell("fp8", kv)  # the cache's own precision, shown


def test_requests_per_second_are_sized_at_the_users_the_plan_derives(window, qtbot):
    form = window.form
    form.set_model_source("preset", "llama-3-70b")
    form.set_field("task", "inference")
    form.set_field("requests_per_s", 5.0)
    form.set_field("prompt_tokens", 1024)
    form.set_field("output_tokens", 256)
    form.set_field("ttft_s", 0.5)
    form.set_field("tokens_per_s_per_user", 20.0)
    dialog = _open(window, qtbot)
    # The answer's own users (5 requests/s x its own time per request), not the 67 at the targets.
    users = form.plan.best.users_in_flight
    assert users is not None and users < 67
    qtbot.waitUntil(lambda: f"{users} users" in dialog.title.text(), timeout=3000)
    assert "5 requests/s" in dialog.title.text()
    assert dialog.cell("bf16", 4) == format_bytes(form.plan.memory.total_bytes)  # the plan's own job


def test_a_training_plan_keeps_its_batch_and_sequence_and_has_no_kv_column(window, qtbot):
    form = window.form
    form.set_model_source("preset", "llama-3-8b")
    form.set_field("task", "finetune")
    form.set_field("batch_size", 4)
    form.set_field("seq_len", 4096)
    dialog = _open(window, qtbot)
    assert "batch 4, sequence 4,096 tokens" in dialog.title.text()
    assert "KV cache" not in _headers(dialog.table)
