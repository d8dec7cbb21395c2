"""A small cache compared by identity, in front of an lru_cache keyed by pydantic models.

Hashing a frozen pydantic model walks every field (a request: the model shape, the assumptions, the
calibration), and the recommender asks about the same request object hundreds of times per plan.
`same_args_as_recent_call` answers a repeat call with the same objects without hashing them; any
other call goes to the wrapped function (and its own cache). Arguments are compared by identity only:
two different but equal requests would be compared field by field by pydantic's `__eq__` (about 20 us
each), and the recipe search alternates between requests that differ in one field (the micro-batch).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any, TypeVar

Result = TypeVar("Result")
# Calls remembered: the planner's callers pass a few different argument lists for one request.
RECENT_CALLS = 4


def same_args_as_recent_call(fn: Callable[..., Result]) -> Callable[..., Result]:
    """Return a recent result when the positional arguments are the very objects of that call (found
    without hashing and without comparing fields; equal copies go to the wrapped function's cache).

    Only for functions of immutable arguments (frozen models, enums, numbers). Thread-safe enough:
    the list of (arguments, result) pairs is replaced as one object, so a race only costs a miss.
    """
    recent: list[tuple[tuple[Any, ...], Result]] = []

    @functools.wraps(fn)
    def wrapper(*args: Any) -> Result:
        entries = recent
        for seen, result in entries:
            # Identity item by item, in C (map over operator.is_): no field-by-field __eq__ of models.
            if len(seen) == len(args) and all(map(operator.is_, seen, args)):
                return result
        result = fn(*args)
        recent[:] = [(args, result), *entries[: RECENT_CALLS - 1]]
        return result

    return wrapper
