"""The dark palette (the screenshots' and tests' stand-in for a desktop's dark theme) draws what a dark
theme draws: hints in empty fields readable on the dark field, frame lines that are not white."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from gpu_advisor.ui.theme import dark_palette

Role = QPalette.ColorRole


def _luminance(color: QColor) -> float:
    """WCAG relative luminance."""

    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio, 1 (none) to 21 (black on white)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_placeholder_text_and_links_read_on_the_dark_fields():
    pal = dark_palette()
    base = pal.color(Role.Base)
    # 'per GPU', 'Search presets (e.g. llama, 7b, bert)': Qt's default hint colour is near-black.
    assert contrast(pal.color(Role.PlaceholderText), base) >= 4.5
    assert contrast(pal.color(Role.Link), base) >= 4.5
    assert contrast(pal.color(Role.Text), base) > contrast(pal.color(Role.PlaceholderText), base)


def test_frame_lines_are_not_white_on_the_dark_window():
    pal = dark_palette()
    window = pal.color(Role.Window)
    # Fusion draws the line under the tab bar and bevels with Light and Midlight: white by default.
    for role in (Role.Light, Role.Midlight, Role.Mid, Role.Dark, Role.Shadow):
        assert contrast(pal.color(role), window) < 3, role
    assert _luminance(pal.color(Role.Light)) > _luminance(pal.color(Role.Dark))  # still a bevel
