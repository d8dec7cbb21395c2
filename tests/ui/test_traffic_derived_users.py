"""D23 (ux-review-3): with requests per second, the disabled users field shows the most users Little's
law allows at the targets (not the 1 it held), the working is said beside it, and the Assumptions tab
gives the answer's own users (its first token and speed, not the targets)."""

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
    # 5 requests/s x (0.5 s + 256 tokens / 20 tokens/s) = 5 x 13.3 s: at most 67 users in flight
    qtbot.waitUntil(lambda: page.users.text() == "≤ 67", timeout=3000)
    assert not page.users.isEnabled()
    note = page.derived_users
    assert note.isVisible()
    assert "At most 67 users" in note.text() and "5 requests/s" in note.text() and "Little" in note.text()
    assert "its own first token" in note.text()
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
    best = window.form.plan.best
    assert best.users_in_flight is not None and best.users_in_flight < 67
    text = note.text()
    assert f"{best.users_in_flight} users in flight on" in text and "Little's law" in text
    assert "5 requests/s ×" in text and "first token" in text


def test_the_answer_card_gives_the_users_it_holds(window, qtbot):
    from PySide6.QtWidgets import QLabel

    _j8(window.form)
    window.wizard.go_to(STEP_RESULT)
    view = window.wizard.result_view
    qtbot.waitUntil(lambda: window.form.plan is not None and window.form.plan.best is not None, timeout=30000)
    held = f"{window.form.plan.best.users_in_flight} users in flight"
    qtbot.waitUntil(lambda: any(held in label.text() for label in view.findChildren(QLabel)), timeout=3000)
