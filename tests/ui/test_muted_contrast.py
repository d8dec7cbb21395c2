"""Secondary text (the tier card's captions) reads at WCAG AA contrast in the light and dark palettes
(review 3, D11: the disabled grey was 1.6:1 on the light window)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from gpu_advisor.ui import theme
from gpu_advisor.ui.plan.tier_card import TierCard


@pytest.fixture(params=["light", "dark"])
def palette_in_use(request, qapp):
    saved = QApplication.palette()
    QApplication.setPalette(
        theme.dark_palette() if request.param == "dark" else QApplication.style().standardPalette()
    )
    yield QApplication.palette()
    QApplication.setPalette(saved)


def test_the_tier_cards_captions_read_at_4_5_to_1(palette_in_use, qtbot):
    card = TierCard()
    qtbot.addWidget(card)
    card.show()
    window = palette_in_use.color(QPalette.ColorRole.Window)
    disabled = palette_in_use.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText)
    for title in card._titles.values():
        assert title.isEnabled()
        image = title.grab().toImage()
        darkest = min(
            (image.pixelColor(x, y) for x in range(image.width()) for y in range(image.height())),
            key=lambda c: abs(theme.relative_luminance(c) - theme.relative_luminance(window)) * -1,
        )
        assert theme.contrast_ratio(darkest, window) >= theme.MIN_TEXT_CONTRAST - 0.3, darkest.name()
    assert theme.contrast_ratio(theme.muted_color(palette_in_use), window) >= 4.5
    assert (
        theme.contrast_ratio(QColor(disabled), window)
        < theme.contrast_ratio(theme.muted_color(palette_in_use), window)
        or theme.contrast_ratio(QColor(disabled), window) >= 4.5
    )
