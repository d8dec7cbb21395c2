"""A small cache compared by identity, in front of an lru_cache keyed by pydantic models.

Hashing a frozen pydantic model walks every field (a request: the model shape, the assumptions, the
calibration), and the recommender asks about the same request object hundreds of times per plan.
`same_args_as_recent_call` answers a repeat call with the same objects without hashing them; any
other call goes to the wrapped function (and its own cache).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

Result = TypeVar("Result")
# Calls remembered: the planner's callers pass a few different argument lists for one request.
RECENT_CALLS = 4


def same_args_as_recent_call(fn: Callable[..., Result]) -> Callable[..., Result]:
    """Return a recent result when the positional arguments equal those of that call (the very same
    objects, in the planner's use, which tuple comparison finds without hashing).

    Only for functions of immutable arguments (frozen models, enums, numbers). Thread-safe enough:
    the list of (arguments, result) pairs is replaced as one object, so a race only costs a miss.
    """
    recent: list[tuple[tuple[Any, ...], Result]] = []

    @functools.wraps(fn)
    def wrapper(*args: Any) -> Result:
        entries = recent
        for seen, result in entries:
            # Tuple equality tries identity first, item by item, in C: cheap for the very same objects.
            if seen == args:
                return result
        result = fn(*args)
        recent[:] = [(args, result), *entries[: RECENT_CALLS - 1]]
        return result

    return wrapper
