"""Colours that follow the system palette (light or dark), for text accents and pyqtgraph plots.

Nothing here hard-codes a light or a dark theme: each colour is picked for the palette in use, and
widgets call these helpers again when Qt reports a palette change.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from gpu_advisor.report import palette as chart_palette

# Distinct hues readable on white and on near-black backgrounds (Okabe-Ito, colour-blind safe): the
# same palette as the PDF's charts.
SERIES_COLORS = chart_palette.SERIES
# WCAG 2.1 AA contrast for normal text: secondary text is at least this far from the window colour.
MIN_TEXT_CONTRAST = 4.5


def palette() -> QPalette:
    """The application's current palette."""
    return QApplication.palette()


def is_dark(pal: QPalette | None = None) -> bool:
    """True when the window background is dark (a dark system theme)."""
    pal = pal or palette()
    return pal.color(QPalette.ColorRole.Window).lightnessF() < 0.5


def error_color(pal: QPalette | None = None) -> QColor:
    """Red that keeps its contrast on the current background."""
    return QColor("#ff7b72") if is_dark(pal) else QColor("#b3261e")


def ok_color(pal: QPalette | None = None) -> QColor:
    """Green for 'fits' and 'meets the target'."""
    return QColor("#56d364") if is_dark(pal) else QColor("#1a7f37")


def warn_color(pal: QPalette | None = None) -> QColor:
    """Amber for warnings and 'slower than the target'."""
    return QColor("#e3b341") if is_dark(pal) else QColor("#9a6700")


def relative_luminance(color: QColor) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour (0 black .. 1 white)."""

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(color.redF()) + 0.7152 * linear(color.greenF()) + 0.0722 * linear(color.blueF())


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG 2.1 contrast ratio of two colours (1 to 21)."""
    hi, lo = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def muted_color(pal: QPalette | None = None) -> QColor:
    """Secondary text: the palette's disabled text colour, moved towards the normal text colour just as
    far as it needs to read at MIN_TEXT_CONTRAST on the window (the light Fusion palette's disabled
    grey is 1.6:1 on its window, review 3 D11)."""
    pal = pal or palette()
    window = pal.color(QPalette.ColorRole.Window)
    start = pal.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText)
    end = pal.color(QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText)
    for step in range(21):
        t = step / 20
        color = QColor.fromRgbF(
            start.redF() + (end.redF() - start.redF()) * t,
            start.greenF() + (end.greenF() - start.greenF()) * t,
            start.blueF() + (end.blueF() - start.blueF()) * t,
        )
        if contrast_ratio(color, window) >= MIN_TEXT_CONTRAST:
            return color
    return end


class _MutedText(QObject):
    """Re-colours its widget's muted text when the palette changes (light to dark)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            _apply_muted(watched)  # type: ignore[arg-type]
        return False


def _apply_muted(widget: QWidget) -> None:
    sheet = f"color: {muted_color(QApplication.palette()).name()}"
    if widget.styleSheet() != sheet:  # setting it sends a PaletteChange of its own
        widget.setStyleSheet(sheet)


def mute(widget: QWidget) -> None:
    """Draw `widget`'s text as secondary text (muted_color), following palette changes; rather than
    setEnabled(False), whose disabled grey does not read in the light palette."""
    widget.installEventFilter(_MutedText(widget))
    _apply_muted(widget)


def plot_background(pal: QPalette | None = None) -> QColor:
    """Plot canvas colour: the palette's Base (the colour of text fields)."""
    pal = pal or palette()
    return pal.color(QPalette.ColorRole.Base)


def plot_foreground(pal: QPalette | None = None) -> QColor:
    """Axis and label colour."""
    pal = pal or palette()
    return pal.color(QPalette.ColorRole.Text)


def series_color(index: int) -> QColor:
    """The index-th series colour (cycled)."""
    return QColor(SERIES_COLORS[index % len(SERIES_COLORS)])


def component_color(name: str) -> QColor:
    """The colour of a memory component ("weights", "kv_cache", ...) or overhead part ("non_pytorch",
    "fragmentation", "engine_reserve"), as in the PDF's memory chart."""
    colors = chart_palette.COMPONENT_COLORS | chart_palette.OVERHEAD_PART_COLORS
    return QColor(colors[name])


def rent_color() -> QColor:
    """The rent curve of a cost chart."""
    return QColor(chart_palette.RENT)


def buy_color() -> QColor:
    """The buy curve of a cost chart."""
    return QColor(chart_palette.BUY)


def style_plot(plot_widget) -> None:
    """Apply the palette's colours to a pyqtgraph PlotWidget (background, axes, title)."""
    bg, fg = plot_background(), plot_foreground()
    plot_widget.setBackground(bg)
    item = plot_widget.getPlotItem()
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        axis.setPen(fg)
        axis.setTextPen(fg)
    item.titleLabel.setAttr("color", fg.name())
    title = item.titleLabel.text
    if title:
        item.setTitle(title, color=fg.name())


def dark_palette():
    """A dark palette like a desktop's dark theme, to check that nothing assumes a light one."""
    pal = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#2b2b2b",
        QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1e1e1e",
        QPalette.ColorRole.AlternateBase: "#262626",
        QPalette.ColorRole.Text: "#e6e6e6",
        QPalette.ColorRole.Button: "#353535",
        QPalette.ColorRole.ButtonText: "#e6e6e6",
        QPalette.ColorRole.Highlight: "#2f65ca",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#353535",
        QPalette.ColorRole.ToolTipText: "#e6e6e6",
        # Hints in empty fields, and links: left unset, Qt's light-theme defaults (near-black, pure
        # blue) are unreadable on the dark fields.
        QPalette.ColorRole.PlaceholderText: "#8a8a8a",
        QPalette.ColorRole.Link: "#6cb6ff",
        QPalette.ColorRole.LinkVisited: "#b083f0",
        # Bevels and frame lines (Fusion draws tab panes, group boxes and check boxes with these): the
        # light-theme defaults draw a white line under the tab bar and hide check boxes' edges.
        QPalette.ColorRole.Light: "#505050",
        QPalette.ColorRole.Midlight: "#424242",
        QPalette.ColorRole.Mid: "#2e2e2e",
        QPalette.ColorRole.Dark: "#1a1a1a",
        QPalette.ColorRole.Shadow: "#0a0a0a",
    }
    for role, color in roles.items():
        pal.setColor(role, QColor(color))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, QColor("#8a8a8a"))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#8a8a8a"))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#8a8a8a"))
    return pal
