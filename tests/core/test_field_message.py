"""One wording of a pydantic validation error for every face (core.errors.field_message)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError, field_validator

from gpu_advisor.bench.results import describe_error
from gpu_advisor.core.errors import field_message, field_problem


class Box(BaseModel):
    width_m: float
    height_m: float = 1.0

    @field_validator("height_m")
    @classmethod
    def _positive(cls, value: float) -> float:
        if value <= 0:
            raise ValueError("must be above 0")
        return value


def _error(**data: object) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        Box.model_validate(data)
    return caught.value


def test_a_validator_message_reads_without_pydantics_prefix() -> None:
    exc = _error(width_m=1.0, height_m=-2.0)
    assert field_problem(exc) == (("height_m",), "must be above 0")
    assert field_message(exc) == "height_m: must be above 0"


def test_a_missing_field_is_said_missing_and_the_faces_say_it_alike() -> None:
    exc = _error()
    assert field_message(exc) == "width_m: missing"
    assert describe_error(exc) == field_message(exc)  # results files


@pytest.mark.parametrize("flag_value", ["nan", "inf", "-inf"])
def test_a_non_finite_number_is_said_as_such_not_as_a_bound_it_missed(capsys, flag_value) -> None:
    """Probe 3: `--tokens-per-s nan` was answered "at most 1000000"."""
    from gpu_advisor.cli import run_cli

    assert run_cli(["plan", "--model", "llama-3-8b", f"--tokens-per-s={flag_value}"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"--tokens-per-s: {float(flag_value)} is not a finite number") and "\n" not in err
