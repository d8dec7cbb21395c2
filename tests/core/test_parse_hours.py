"""D19 (ux-review-3): a deadline reads as people write it: '1 week' and '7d' are 168 hours, in the GUI's
Deadline field and the CLI's --max-hours alike."""

from __future__ import annotations

import pytest

from gpu_advisor.cli import run_cli
from gpu_advisor.core.units import parse_hours


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("168", 168),
        ("1 week", 168),
        ("7d", 168),
        ("2 weeks", 336),
        ("48h", 48),
        ("90 min", 1.5),
        ("1.5e2", 150),
    ],
)
def test_deadlines_in_words_and_units_read_as_hours(text, hours):
    assert parse_hours(text) == pytest.approx(hours)


def test_a_deadline_in_no_unit_known_says_which_units_are(capsys):
    with pytest.raises(ValueError, match="1 week"):
        parse_hours("3 fortnights")


def test_the_cli_takes_a_deadline_in_days(capsys):
    argv = ["plan", "--model", "llama-3-8b", "--task", "finetune", "--train-tokens", "2B", "--json"]
    assert run_cli([*argv, "--max-hours", "7d"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["inputs"]["max_hours"] == 168
