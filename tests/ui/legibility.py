"""What a user sees of each text: labels and buttons whose text is cut (at an edge, or by a height too
small for its wrapped lines), and widgets drawn over each other (for the window-size tests)."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QAbstractScrollArea, QLabel, QLineEdit, QPushButton, QWidget


def window_rect(widget: QWidget, window: QWidget) -> QRect:
    """The widget's rectangle in window coordinates."""
    return QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())


def _clip(widget: QWidget, window: QWidget) -> QRect:
    """What of the window the widget can draw on: its scroll areas' viewports and the window."""
    clip = window.rect()
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        if (
            isinstance(parent.parentWidget(), QAbstractScrollArea)
            and parent is parent.parentWidget().viewport()
        ):
            clip = clip.intersected(window_rect(parent, window))
        parent = parent.parentWidget()
    return clip


def cut_texts(root: QWidget, window: QWidget | None = None) -> list[str]:
    """Each visible label, button or field under `root` whose text (a field's: or placeholder) is not
    fully shown, with why.

    A text is fully shown when its widget is as wide (and, wrapped, as tall) as the text needs, and
    sideways within the scroll area that shows it (a scroll area scrolls up and down; nobody scrolls
    sideways to read a line). An elided text counts as shown when its tooltip holds the full text.
    """
    window = window or root.window()
    cut = []
    widgets = [w for w in root.findChildren(QWidget) if isinstance(w, QLabel | QPushButton | QLineEdit)]
    for widget in widgets:
        text = widget.text() or (widget.placeholderText() if isinstance(widget, QLineEdit) else "")
        if not widget.isVisible() or not text.strip():
            continue
        rect, clip = window_rect(widget, window), _clip(widget, window)
        if rect.left() < clip.left() or rect.right() > clip.right():
            cut.append(
                f"{text[:50]!r}: x {rect.left()}..{rect.right()} outside {clip.left()}..{clip.right()}"
            )
            continue
        if isinstance(widget, QLineEdit):
            # The text area: the field less its frame and Qt's margins (about 4 px a side).
            wide = widget.fontMetrics().horizontalAdvance(text) > widget.width() - 8
            if wide and text not in widget.toolTip():
                cut.append(f"{text[:50]!r}: a field {widget.width()} px wide")
        elif isinstance(widget, QLabel) and widget.wordWrap():
            needed = widget.heightForWidth(widget.width())
            if needed > widget.height() + 1:
                cut.append(f"{text[:50]!r}: {needed} px of lines in {widget.height()} px")
        elif widget.sizeHint().width() > widget.width() + 1 and text not in widget.toolTip():
            cut.append(f"{text[:50]!r}: needs {widget.sizeHint().width()} px, has {widget.width()}")
    return cut


def overlaps(widgets: list[QWidget], window: QWidget) -> list[str]:
    """Pairs of the given visible widgets whose rectangles overlap."""
    shown = [(w, window_rect(w, window)) for w in widgets if w.isVisible()]
    return [
        f"{a.objectName() or type(a).__name__} over {b.objectName() or type(b).__name__}"
        for i, (a, ra) in enumerate(shown)
        for b, rb in shown[i + 1 :]
        if ra.intersects(rb)
    ]
