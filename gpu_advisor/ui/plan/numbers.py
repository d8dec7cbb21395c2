"""Reading the numbers people type: '2048', '32,768', '4k', '1e9', '10B', '0.15'.

Range checks are not done here: the request model does them, so the GUI and the CLI say the same.
"""

from __future__ import annotations

import math
import re

_NUMBER_RE = re.compile(r"^([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*([kmbt]?)$", re.IGNORECASE)
_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


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


def parse_number(text: str, *, integer: bool, optional: bool = False) -> int | float | Invalid | None:
    """The value of `text`, None for an empty optional field, or Invalid with a message."""
    cleaned = text.strip().replace(",", "").replace("_", "").replace(" ", "")
    if not cleaned:
        return None if optional else Invalid(text, "enter a value")
    match = _NUMBER_RE.match(cleaned)
    if not match:
        example = "2048, 4k, 1e9" if integer else "0.15, 2.5, 1e3"
        return Invalid(text, f"{text.strip()!r} is not a number (examples: {example})")
    value = float(match.group(1)) * _SUFFIX[match.group(2).lower()]
    if not math.isfinite(value):
        return Invalid(text, "the number is too large")
    if integer:
        if value != round(value):
            return Invalid(text, "enter a whole number")
        return round(value)
    return value


def format_number(value: int | float | None) -> str:
    """The text to put back into a field for a value (inverse of parse_number, no suffixes)."""
    if value is None:
        return ""
    if isinstance(value, int) or (float(value).is_integer() and abs(value) < 1e15):
        number = int(value)
        short = f"{number:.6g}"  # 1000000000 -> '1e+09', easier to read and to edit
        return short if number >= 10**7 and float(short) == number else str(number)
    return f"{value:g}"
