"""The "How it was computed" memory table (issue 21 item 6): the answer's GPU as the serving engine
fills it, with the overhead in its parts and the KV pool, through the wizard."""

from __future__ import annotations

from gpu_advisor.ui.plan.wizard import STEP_RESULT


def _table(view) -> list[tuple[str, str, str]]:
    table = view.memory_table
    return [tuple(table.item(r, c).text() for c in range(3)) for r in range(table.rowCount())]


def test_the_memory_table_shows_the_answers_gpu_with_the_engine_reserve_and_kv_pool_apart(wizard):
    form = wizard.form
    form.set_model_source("preset", "llama-3-8b")
    form.set_field("task", "inference")
    form.set_field("users", 32)
    form.set_field("tokens_per_s_per_user", 20.0)
    form.set_field("gpu", "nvidia-rtx-4090")
    form.set_field("gpus", 1)
    wizard.go_to(STEP_RESULT)
    view = wizard.result_view
    header = view.memory_table.horizontalHeaderItem(1).text()
    assert header == "Bytes (per GPU, 1 × NVIDIA GeForce RTX 4090)"
    rows = {name: (size, how) for name, size, how in _table(view)}
    assert {"Non-PyTorch memory", "Engine reserve", "Total", "KV pool (engine)"} <= set(rows)
    assert "CUDA context + fragmentation" not in rows
    assert rows["Total"][0].startswith("23.1 GiB")  # the card's figure: "23.1 of 23.6 GiB"
    assert rows["Engine reserve"][1] == "the 10% of the card the engine leaves unused"
    assert "holds the users' 3.0 GiB of KV cache" in rows["KV pool (engine)"][1]
    assert rows["Unsharded, one device"][0].startswith("20.7 GiB")
