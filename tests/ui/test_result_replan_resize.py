"""Re-planning on the result page, then switching result tabs and resizing, never crashes the window."""

from __future__ import annotations

from gpu_advisor.ui.plan.wizard import STEP_RESULT

SIZES = ((1024, 700), (1280, 800), (1920, 1080))


def _resize(window, qtbot, width: int, height: int) -> None:
    window.resize(width, height)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (width, height), timeout=2000)


def _grab_at_each_size(window, qtbot) -> None:
    for size in SIZES:
        _resize(window, qtbot, *size)
        assert not window.grab().isNull()


def test_replan_then_three_tiers_then_narrow_keeps_the_window(window, qtbot):
    form, wizard = window.form, window.wizard
    form.set_model_source("params", "1B")
    for name, value in (
        ("task", "pretrain"),
        ("gpu", "nvidia-h100-sxm"),
        ("batch_size", 1),
        ("train_tokens", 20e9),
        ("max_hours", 168),
    ):
        form.set_field(name, value)
    wizard.go_to(STEP_RESULT)
    view = wizard.result_view
    view.tabs.setCurrentIndex(1)
    _grab_at_each_size(window, qtbot)
    form.set_model_source("preset", "llama-3-70b")
    for name, value in (
        ("batch_size", None),
        ("seq_len", 8192),
        ("grad_checkpointing", True),
        ("train_tokens", 15e12),
        ("max_hours", None),
    ):
        form.set_field(name, value)
    form.plan_now()
    _grab_at_each_size(window, qtbot)
    view.tabs.setCurrentIndex(0)
    _resize(window, qtbot, 1024, 700)
    assert not window.grab().isNull()
