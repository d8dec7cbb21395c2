"""D23 (ux-review-3): with requests per second, the disabled users field shows the users Little's law
gives (not the 1 it held), the working is said beside it and in the Assumptions tab."""

from __future__ import annotations

from gpu_advisor.ui.plan.wizard import STEP_RESULT, STEP_WORKLOAD


def _j8(form) -> None:
    form.set_model_source("preset", "llama-3-70b")
    form.set_field("task", "inference")
    form.set_field("prompt_tokens", 1024)
    form.set_field("output_tokens", 256)
    form.set_field("ttft_s", 0.5)
    form.set_field("tokens_per_s_per_user", 20.0)
    form.set_field("requests_per_s", 5.0)


def test_requests_per_second_show_the_derived_users_in_the_form(window, qtbot):
    _j8(window.form)
    window.wizard.go_to(STEP_WORKLOAD + 1)
    page = window.wizard.traffic_page
    # 5 requests/s x (0.5 s + 256 tokens / 20 tokens/s) = 5 x 13.3 s: 67 users in flight
    qtbot.waitUntil(lambda: page.users.text() == "67", timeout=3000)
    assert not page.users.isEnabled()
    note = page.derived_users
    assert note.isVisible()
    assert "67 users" in note.text() and "5 requests/s" in note.text() and "Little" in note.text()
    window.form.set_field("requests_per_s", None)  # back to users: the field is the user's again
    qtbot.waitUntil(lambda: page.users.isEnabled(), timeout=3000)
    assert page.users.text() in ("", "1") and not note.isVisible()


def test_the_assumptions_tab_gives_the_little_law_working(window, qtbot):
    _j8(window.form)
    window.wizard.go_to(STEP_RESULT)
    view = window.wizard.result_view
    view.tabs.setCurrentIndex(view.tabs.count() - 1)  # Assumptions
    note = view.assumptions.derived_note
    qtbot.waitUntil(note.isVisible, timeout=3000)
    assert "Little's law" in note.text() and "= 67" in note.text()
