"""Strings from users' files are shown as text, never as rich text (which can load a local image)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from gpu_advisor.core import catalog as catalog_module
from gpu_advisor.core.catalog import load_catalog
from tests.ui.conftest import make_report

# Markup a label would render: an image from the disk and bold text.
MARKUP = '<img src="/tmp/leak.png"><b>bold</b>'


@pytest.fixture
def hostile_catalogue(_isolated_config):
    """A user catalogue whose GPU name is markup (the app reads it from the config folder)."""
    h100 = load_catalog(user_file=None).get("nvidia-h100-sxm").model_dump(mode="json")
    mine = {**h100, "id": "my-card", "name": f"{MARKUP} card", "memory_usable_gib": None, "sources": "test"}
    (_isolated_config / "gpus.json").write_text(json.dumps({"gpus": [mine]}))
    catalog_module.default_catalog.cache_clear()
    yield
    catalog_module.default_catalog.cache_clear()


def _rendered_markup(window: QWidget) -> list[str]:
    """Every label or tooltip that would render MARKUP as markup instead of showing its text."""
    found = []
    for widget in window.findChildren(QWidget):
        if (
            isinstance(widget, QLabel)
            and MARKUP in widget.text()
            and widget.textFormat() != Qt.TextFormat.PlainText
        ):
            found.append(
                f"label {widget.objectName() or type(widget.parent()).__name__}: {widget.text()[:60]}"
            )
        if MARKUP in widget.toolTip():
            found.append(f"tooltip of {type(widget).__name__}: {widget.toolTip()[:60]}")
    return found


def test_a_config_name_a_gpu_name_and_a_device_name_are_plain_text(
    hostile_catalogue, window, tmp_path, qtbot
):
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "model_type": "llama",
                "num_hidden_layers": 2,
                "hidden_size": 256,
                "num_attention_heads": 4,
                "intermediate_size": 512,
                "vocab_size": 1000,
                "_name_or_path": MARKUP,
            }
        )
    )
    window.form.set_field("gpu", "my-card")
    with qtbot.waitSignal(window.form.plan_ready, timeout=10000):
        window.wizard.model_page.choose_config(str(config))
    shown = [w for w in window.findChildren(QLabel) if MARKUP in w.text()]
    assert len(shown) >= 3  # the name is on screen (model page, tier card, live estimate) ...
    results = tmp_path / "results.json"
    make_report(f"{MARKUP} device", "cpu").save(results)
    window.import_results([results])
    found = _rendered_markup(window)
    assert found == [], "\n".join(found)  # ... as text


def test_an_error_dialog_quoting_a_path_with_markup_shows_the_path(window, tmp_path, dialogs):
    from html import unescape

    bad = tmp_path / "<b>bold.json"  # a file name may hold markup ("/" aside)
    bad.write_text("{broken")
    assert not window.open_plan(bad)
    ((title, text),) = dialogs
    assert title == "Cannot open plan"
    assert "<b>bold" not in text  # not rendered as bold ...
    assert str(bad) in unescape(text)  # ... but shown as the path it is
