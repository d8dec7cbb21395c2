"""Reading the numbers people type: '2048', '32,768', '4k', '1e9', '10B', '0.15'.

Range checks are not done here: the request model does them, so the GUI and the CLI say the same.
"""

from __future__ import annotations

from gpu_advisor.core import units


class Invalid:
    """A field whose text could not be read as a value; carries the message shown next to it."""

    __slots__ = ("message", "text")

    def __init__(self, text: str, message: str) -> None:
        self.text = text
        self.message = message

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Invalid) and (self.text, self.message) == (other.text, other.message)

    def __hash__(self) -> int:
        return hash((self.text, self.message))

    def __repr__(self) -> str:
        return f"Invalid({self.text!r}, {self.message!r})"


def parse_number(
    text: str, *, integer: bool, optional: bool = False, hours: bool = False
) -> int | float | Invalid | None:
    """The value of `text`, None for an empty optional field, or Invalid with a message. `hours`: a
    duration in hours ('48', '7d', '1 week')."""
    if optional and not text.strip():
        return None
    try:
        return units.parse_hours(text) if hours else units.parse_number(text, integer=integer)
    except ValueError as exc:
        return Invalid(text, str(exc))
