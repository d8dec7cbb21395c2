"""Flags to a validated model's fields and back: what every command that builds one from flags shares."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gpu_advisor.core.errors import UserInputError, field_message

if TYPE_CHECKING:
    from pydantic import ValidationError


def given(**fields: object) -> dict[str, object]:
    """The flags the user gave, by the model's field names. A flag not given (None) is left out, so the
    model (PlanRequest, BenchOptions, TraceSetup, ...) supplies its own default."""
    return {name: value for name, value in fields.items() if value is not None}


def flag_error(exc: ValidationError, flags: Mapping[str, str]) -> UserInputError:
    """'--flag: message' for the first problem (core.errors' words); a field without a flag keeps its path."""
    where, _, message = field_message(exc).partition(": ")
    flag = flags.get(where.split(".")[0], where)
    return UserInputError(f"{flag}: {message.removeprefix(f'{where}: ')}")


def given_flags(args: object, flags: Mapping[str, str]) -> dict[str, object]:
    """`given` for the fields of `flags` (model field -> the flag that sets it): '--memory-cap' sets
    memory_cap_bytes, read from args.memory_cap. The same table words a bad field (flag_error)."""
    return given(
        **{field: getattr(args, flag.removeprefix("--").replace("-", "_")) for field, flag in flags.items()}
    )
