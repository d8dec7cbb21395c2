"""The Alt+letter mnemonics a user can reach in the window as it is shown (for the keyboard tests)."""

from __future__ import annotations

import re
from collections import Counter

from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QTabWidget, QWidget

_MNEMONIC = re.compile(r"(?<!&)&([^&\s])")


def _letter(text: str) -> str | None:
    match = _MNEMONIC.search(text.replace("&&", ""))
    return match.group(1).lower() if match else None


def reachable(window: QWidget) -> list[tuple[str, str]]:
    """(letter, text) of every visible mnemonic: menus, tabs, buttons, labels with a buddy, boxes."""
    found = [(letter, a.text()) for a in window.menuBar().actions() if (letter := _letter(a.text()))]
    for tabs in window.findChildren(QTabWidget):
        if tabs.isVisible():
            for i in range(tabs.count()):
                if (letter := _letter(tabs.tabText(i))) and tabs.isTabEnabled(i):
                    found.append((letter, tabs.tabText(i)))
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or (not widget.isEnabled() and not isinstance(widget, QLabel)):
            continue
        if isinstance(widget, QAbstractButton) or (isinstance(widget, QLabel) and widget.buddy() is not None):
            text = widget.text()
        elif isinstance(widget, QGroupBox):
            text = widget.title()
        else:
            continue
        if letter := _letter(text):
            found.append((letter, text))
    return found


def clashes(window: QWidget) -> dict[str, list[str]]:
    """Letters used more than once among the reachable mnemonics, with the texts that use them."""
    found = reachable(window)
    counts = Counter(letter for letter, _ in found)
    return {letter: [text for key, text in found if key == letter] for letter, n in counts.items() if n > 1}
