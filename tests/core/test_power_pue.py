"""D25 (ux-review-3): the data centre's PUE (cooling overhead) is not added to a desktop under a desk
('Power at the wall' read 569 W for 2 x RTX 3060 with PUE 1.3); a data-centre server keeps it."""

from __future__ import annotations

import pytest

from gpu_advisor.core.presets import resolve_model
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import Assumptions, PlanRequest

LLAMA_8B = resolve_model(preset="llama-3-8b", config=None, params=None)


def _wall_kw(tier: str, pue: float) -> tuple[float, str]:
    request = PlanRequest(
        model=LLAMA_8B, users=4, tokens_per_s_per_user=20, tier=tier, assumptions=Assumptions(pue=pue)
    )
    best = plan(request).best
    assert best is not None and best.tier.value == tier and best.cost.power_kw is not None
    return best.cost.power_kw, best.cost.formula


def test_a_desktops_wall_power_has_no_data_centre_cooling_factor():
    low, formula = _wall_kw("consumer", 1.3)
    high, _ = _wall_kw("consumer", 2.0)
    assert low == high
    assert "PUE" not in formula.split("power = ")[1]


def test_a_data_centre_server_keeps_its_pue():
    low, formula = _wall_kw("datacenter", 1.3)
    high, _ = _wall_kw("datacenter", 2.0)
    assert high / low == pytest.approx(2.0 / 1.3)
    assert "PUE 1.3" in formula
