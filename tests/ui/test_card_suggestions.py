"""What else the user could change, with its cost and time, is on the recommendation card that every
result tab shows (issue 26: it used to sit on the Overview tab, where the user does not land)."""

from __future__ import annotations

from gpu_advisor.ui.plan.wizard import STEP_RESULT


def test_a_locked_micro_batch_1_shows_the_larger_micro_batch_and_its_cost_on_the_card(wizard):
    """A 1B pretrain at micro-batch 1 on an H100 is host-bound: the card names a larger micro-batch
    and CUDA graphs with their job cost and time, on the tab the result opens on."""
    form = wizard.form
    form.set_model_source("params", "1B")
    form.set_field("task", "pretrain")
    form.set_field("batch_size", 1)
    form.set_field("train_tokens", 20e9)
    form.set_field("max_hours", 168.0)
    form.set_field("gpu", "nvidia-h100-sxm")
    wizard.go_to(STEP_RESULT)
    result = form.plan_now()
    view = wizard.result_view
    assert view.tabs.currentIndex() == 0
    card = view.card
    assert card.suggestions_label.isVisibleTo(card)
    text = card.suggestions_label.text()
    raise_micro = next(s for s in result.suggestions if s.startswith("Raise the micro-batch"))
    assert "instead of $" in raise_micro and " days" in raise_micro
    assert raise_micro in text and "CUDA graphs" in text


def test_an_open_recipe_with_nothing_left_to_change_shows_no_suggestion_line(wizard):
    form = wizard.form
    form.set_model_source("preset", "llama-3-8b")
    form.set_field("task", "inference")
    wizard.go_to(STEP_RESULT)
    result = form.plan_now()
    card = wizard.result_view.card
    assert not result.suggestions
    assert not card.suggestions_label.isVisibleTo(card)
