"""Reading a saved plan (`gpu-advisor/plan@1`, the CLI's `plan --save` and the app's Save): one loader
for every face, so that a bad file reads the same in a CLI error line and in the app's dialog.

Only the file's `inputs` are trusted: they are validated here and planned again by the caller, so an
answer always matches today's catalogue.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .architecture import ConfigError
from .files import FileFormatError, read_json
from .request import PlanRequest, describe_validation_error
from .result import PLAN_SCHEMA


def read_saved_request(path: str | Path) -> tuple[PlanRequest, dict[str, Any]]:
    """(the validated request, the file's whole data) of a saved plan.

    Raises FileFormatError with one line naming the file and the field ("plan.json: inputs.seq_len: ...").
    """
    data = read_json(path, PLAN_SCHEMA)
    inputs = data.get("inputs")
    if not isinstance(inputs, dict):
        raise FileFormatError(f"{path}: inputs: missing or not an object")
    try:
        return PlanRequest.model_validate(inputs), data
    except ValidationError as exc:
        field, message = describe_validation_error(exc)
        raise FileFormatError(f"{path}: inputs.{field}: {message}") from None
    except ConfigError as exc:
        raise FileFormatError(f"{path}: inputs.model: {exc}") from None
