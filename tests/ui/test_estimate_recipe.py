"""The live estimate names the planner's recipe choices as the headline does (issue 26): a user who
leaves checkpointing and the micro-batch on Auto sees what the planner picked before opening the result."""

from __future__ import annotations

from gpu_advisor.core.presets import get_preset


def _llama_3_8b_qlora(form, **fields):
    """Llama 3 8B QLoRA at 2,048 tokens, on an RTX 5090 unless `gpu` says otherwise."""
    form.set_model_source("preset", "llama-3-8b")
    form.set_field("task", "qlora")
    form.set_field("seq_len", 2048)
    fields = {"gpu": "nvidia-rtx-5090", **fields}
    for name, value in fields.items():
        form.set_field(name, value)
    return form.plan_now()


def test_checkpointing_left_on_auto_is_named_in_the_estimate_as_the_planners_choice(wizard):
    """QLoRA of Llama 3 8B on an RTX 5090 at micro-batch 4: the planner turns checkpointing on so one
    card fits; the estimate's recipe row says so in the headline's words, with the sequences per step."""
    result = _llama_3_8b_qlora(wizard.form, batch_size=4)
    text = wizard.estimate.value("recipe")
    assert result.recommendation.reason.startswith("With gradient checkpointing (the planner's choice)")
    assert text.startswith("With gradient checkpointing (the planner's choice); ")
    recipe = result.best.recipe
    assert f"{recipe['global_batch']} sequences per step" in text
    assert f"micro-batch {recipe['micro_batch']}" in text


def test_a_micro_batch_the_planner_raised_is_named(wizard):
    """A 1B pretrain on an H100 with the micro-batch on Auto: micro-batch 1 would be host-bound, the
    planner raises it, and the estimate names the micro-batch it picked."""
    form = wizard.form
    form.set_model_source("params", "1B")
    form.set_field("task", "pretrain")
    form.set_field("train_tokens", 20e9)
    form.set_field("max_hours", 168.0)
    form.set_field("gpu", "nvidia-h100-sxm")
    best = form.plan_now().best
    assert best.recipe_source["micro_batch"] == "planner" and best.recipe["micro_batch"] > 1
    assert f"micro-batch {best.recipe['micro_batch']} (the planner's choice)" in wizard.estimate.value(
        "recipe"
    )


def test_a_recipe_locked_by_hand_reads_as_given_and_one_left_open_as_the_planners_even_at_the_defaults(
    wizard,
):
    _llama_3_8b_qlora(wizard.form, batch_size=4, grad_checkpointing=False)
    assert wizard.estimate.value("recipe").startswith("As you gave it; ")
    form = wizard.form
    # Any GPU, both knobs on Auto again: one large card runs it as the defaults have it.
    _llama_3_8b_qlora(form, gpu=None, batch_size=None, grad_checkpointing=None)  # both on Auto again
    best = form.plan.best
    assert (best.recipe["grad_checkpointing"], best.recipe["micro_batch"]) == (False, 1)
    expected = "Without gradient checkpointing at micro-batch 1 (the planner's choice); "
    assert wizard.estimate.value("recipe").startswith(expected)


def test_inference_has_no_training_recipe_in_the_estimate(wizard):
    form = wizard.form
    form.set_model_source("preset", "llama-3-8b")
    form.set_field("task", "inference")
    form.plan_now()
    assert wizard.estimate.value("recipe") == "none (inference)"
    assert get_preset("llama-3-8b").name in wizard.estimate.value("model")
