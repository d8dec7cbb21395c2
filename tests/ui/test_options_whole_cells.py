"""D13 leftover (ux-review-3): at 1024 and 1280 px the Options table shows each cell whole ("NVIDIA
GeForce RTX 3060 12GB", "n/a (price unknown)"), never "NVIDIA GeFor…" or "price unkno…": where the
columns do not fit, whole columns go (least important first, the request's target kept) and the
caption names them."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStyle

from tests.ui.test_options_request_columns import QLORA, TTFT, _options, _shown

PLANS = {
    "J1 QLoRA, buy, consumer": ("llama-3-8b", QLORA),
    "fine-tune with a deadline": ("llama-3-8b", {"task": "finetune", "train_tokens": 2e9, "max_hours": 48.0}),
    "J8 5 requests/s, first token 0.5 s": ("llama-3-70b", TTFT),
    "J8, buy": ("llama-3-70b", TTFT | {"purchase": "buy"}),
}


def _cut_cells(table) -> list[str]:
    """The visible cells whose text is wider than their column (Qt elides those)."""
    model = table.model()
    # An item view draws its text inside a margin of the focus frame's, plus one pixel, each side.
    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    cut = []
    for c in range(model.columnCount()):
        if table.isColumnHidden(c):
            continue
        width = table.columnWidth(c)
        for r in range(model.rowCount()):
            index = model.index(r, c)
            text = index.data(Qt.ItemDataRole.DisplayRole) or ""
            font = index.data(Qt.ItemDataRole.FontRole) or table.font()  # the recommended row is bold
            if QFontMetrics(font).horizontalAdvance(text) + margin > width:
                cut.append(f"{text!r} in {width} px")
    return cut


@pytest.mark.parametrize("size", [(1024, 700), (1280, 800)], ids=["1024x700", "1280x800"])
@pytest.mark.parametrize("plan", PLANS)
def test_no_options_cell_is_cut_columns_go_whole_and_the_caption_names_them(window, qtbot, plan, size):
    model_id, fields = PLANS[plan]
    view, table = _options(window, qtbot, model_id, fields, size=size)
    assert _cut_cells(table) == []
    shown = _shown(table)
    assert {"GPU", "GPUs", "Fits"} <= set(shown)
    if "ttft_s" in fields:
        assert "First token" in shown  # the request's target stays
    if "max_hours" in fields:
        assert "Time to train" in shown
    hidden = table.hidden_headers
    caption = view.options_caption.text()
    if hidden:
        assert "Not shown at this width: " + ", ".join(hidden) in caption
    else:
        assert "Not shown" not in caption
