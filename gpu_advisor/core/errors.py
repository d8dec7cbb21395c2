"""Errors that mean "the user's input is wrong", shared by every layer that talks to a user."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError


class UserInputError(ValueError):
    """Bad input the user can fix. The message names the file or field; the CLI prints it as one line
    and exits with code 2, the GUI shows it next to the field or in one dialog."""


def field_problem(exc: ValidationError) -> tuple[tuple[str, ...], str]:
    """The first problem of a pydantic validation error as (field path, message), worded once for
    every face: pydantic's "Value error, " prefix dropped, a missing field said as "missing"."""
    return error_words(exc.errors()[0])


def error_words(err: Mapping[str, Any]) -> tuple[tuple[str, ...], str]:
    """One pydantic error (an item of ValidationError.errors()) as (field path, message)."""
    message = "missing" if err["type"] == "missing" else str(err["msg"]).removeprefix("Value error, ")
    value = err.get("input")
    if type(value) is float and not math.isfinite(value):  # NaN fails every bound: say what it is
        message = f"{value} is not a finite number"
    return tuple(str(p) for p in err["loc"]), message


def field_message(exc: ValidationError, whole: str = "(top level)") -> str:
    """'field.path: message' for the first problem; `whole` names the field of a whole-model check."""
    loc, message = field_problem(exc)
    return f"{'.'.join(loc) or whole}: {message}"
