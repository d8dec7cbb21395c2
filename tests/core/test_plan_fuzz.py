"""Fuzzed requests: each is planned soundly or refused with a field error, never anything else.

A fixed seed (derandomize) keeps the suite repeatable; benchmarks/fuzz_plans.py runs 10,000.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.core.plan_fuzz import check_request, requests


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(fields=requests())
def test_every_request_is_planned_soundly_or_refused_with_a_field_error(fields):
    check_request(fields)
