"""The Monitor's time left never goes up (no Qt)."""

from __future__ import annotations

from gpu_advisor.ui.monitor.run_status import Countdown


def test_time_left_counts_down_even_when_the_estimate_rises():
    now = [0.0]
    countdown = Countdown(clock=lambda: now[0])
    assert countdown.update(None) is None  # no estimate yet: nothing shown
    assert countdown.update(60.0) == 60.0
    now[0] = 10.0
    assert countdown.update(90.0) == 50.0  # a slower workload: the estimate rose, the countdown did not
    now[0] = 20.0
    assert countdown.update(20.0) == 20.0  # a lower estimate is taken at once
    now[0] = 50.0
    assert countdown.left() == 0.0  # overdue: the panel says "finishing", never a negative time
    countdown.reset()
    assert countdown.left() is None
