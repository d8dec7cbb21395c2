"""D19 (ux-review-3): a speed target nothing reaches is headed as such, not "No GPU in the catalogue
fits" (every GPU fits 8B for one user), in the card and the live estimate; the suggestion under it
says how close the fastest option comes."""

from __future__ import annotations

from gpu_advisor.ui.plan.wizard import STEP_RESULT


def test_an_unreachable_speed_target_is_headed_nothing_meets_it(window, qtbot):
    form = window.form
    form.set_model_source("preset", "llama-3-8b")
    form.set_field("task", "inference")
    form.set_field("users", 1)
    form.set_field("tokens_per_s_per_user", 1e6)
    window.wizard.go_to(STEP_RESULT)
    view = window.wizard.result_view
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.best is None, timeout=3000)
    heading = view.card.tier_label.text()
    assert "Nothing meets the speed target" in heading and "fits" not in heading
    assert window.wizard.estimate._values["recommended"].text() == "nothing meets the speed target"
    assert "Lower the speed target: the fastest option" in view.warnings.text()
