"""One strict JSON reader (core.files.parse_json: finite numbers, bounded integers, depth and size)
for every file and stream the product reads (issue 27): results, plans, events, safetensors headers,
Hub index files, settings, the built-in resources. The probe's event tail has its own hooks (a bad
number there is dropped, not refused) and is checked below."""

from __future__ import annotations

import re
from pathlib import Path

import gpu_advisor

PACKAGE = Path(gpu_advisor.__file__).parent
# The reader itself, and the probe tail's line parser (its parse_int/parse_float/parse_constant hooks
# turn non-finite and over-long numbers into None; RecursionError is caught).
ALLOWED = {"core/files.py", "bench/probe_tail.py"}
PLAIN = re.compile(r"\bjson\.loads?\(")


def test_no_module_parses_json_without_the_strict_reader():
    offenders = [
        f"{path.relative_to(PACKAGE)}:{n}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if str(path.relative_to(PACKAGE)) not in ALLOWED
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if PLAIN.search(line)
    ]
    assert offenders == []


def test_the_probe_tail_drops_numbers_json_does_not_allow():
    from gpu_advisor.bench.probe_tail import parse_event

    event = parse_event(
        b'{"event": "step", "step_s": NaN, "samples": ' + b"9" * 60 + b', "data_wait_s": 1e400}'
    )
    assert event == {"event": "step", "step_s": None, "samples": None, "data_wait_s": None}
    assert parse_event(b"[" * 100_000) is None
