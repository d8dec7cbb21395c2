"""Fuzz the planner: 10,000 random requests (tests/core/plan_fuzz.py), each planned or refused.

Fails on any exception other than a field error, a non-finite number in a plan's JSON, or a fit
claimed beyond a GPU's memory; prints how many were planned and refused.
Run: .venv/bin/python benchmarks/fuzz_plans.py [EXAMPLES]
"""

from __future__ import annotations

import collections
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for tests/
from tests.core.plan_fuzz import check_request, requests


def main(examples: int) -> int:
    outcomes: collections.Counter[str] = collections.Counter()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(fields=requests())
    def fuzz(fields):
        outcomes[check_request(fields)] += 1

    started = time.perf_counter()
    fuzz()
    elapsed = time.perf_counter() - started
    total = sum(outcomes.values())
    print(
        f"{total:,} requests in {elapsed:.0f} s: {outcomes['planned']:,} planned, "
        f"{outcomes['refused']:,} refused with a field error; no other exception, no non-finite "
        "number, no fit beyond memory"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000))
