"""A collective sweep's plan: it reaches the largest message it was asked for, fits its budget, and a
machine slower than its first timings predicted costs it iterations, not sizes (the quick sweep
stopped at 128 KiB of its 16 MiB on a loaded 2-core machine, issue 25). Timed on a stand-in fabric
whose op takes latency + bytes / bandwidth on a stand-in clock, so nothing here depends on the load."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

from gpu_advisor.bench.distributed import collectives as coll
from gpu_advisor.bench.distributed import sweep_plan as plan

MIB = 2**20
LATENCY_S = 200e-6
BYTES_PER_S = 1e9
GROUP = coll.Group(None, (0, 1), "intra-node", 0)


class Fabric:
    """Ops of `latency + size / bandwidth`, times `slowdown(clock)`; every op moves the clock on."""

    def __init__(self, slowdown: Callable[[float], float] = lambda now_s: 1.0) -> None:
        self.now_s = 0.0
        self.slowdown = slowdown
        self.timed: dict[int, int] = {}  # size -> ops run

    def op_s(self, size: int) -> float:
        return (LATENCY_S + size / BYTES_PER_S) * self.slowdown(self.now_s)

    def times(self, run: Callable[[], int], n: int) -> list[float]:
        size = run()
        out = []
        for _ in range(n):
            t = self.op_s(size)
            self.now_s += t
            out.append(t)
        self.timed[size] = self.timed.get(size, 0) + n
        return out


@pytest.fixture
def fabric(monkeypatch):
    def install(slowdown: Callable[[float], float] = lambda now_s: 1.0) -> Fabric:
        f = Fabric(slowdown)
        monkeypatch.setattr(coll.time, "monotonic", lambda: f.now_s)
        monkeypatch.setattr(coll.Timer, "times", lambda self, run, n: f.times(run, n))
        monkeypatch.setattr(coll, "make_op", lambda op, size, group, device: lambda: size)
        monkeypatch.setattr(coll, "reduce_max", lambda values, group, device: list(values))
        return f

    return install


def _sweep(max_bytes: int = 16 * MIB, budget_s: float = 1.5) -> list:
    return coll.sweep("all_reduce", GROUP, torch.device("cpu"), max_bytes=max_bytes, budget_s=budget_s)


def test_the_sweep_measures_every_size_up_to_the_largest_and_reports_the_fabrics_figure(fabric):
    fabric()
    rows = _sweep()
    assert [r.bytes for r in rows] == [8 * 2**k for k in range(22)]
    largest = rows[-1]
    assert largest.bytes == 16 * MIB
    # busbw = S / t x 2(n-1)/n with n = 2: the fabric's own rate at the largest message
    expected = 16 * MIB / (LATENCY_S + 16 * MIB / BYTES_PER_S)
    assert largest.busbw_bytes_per_s == pytest.approx(expected, rel=1e-9)


def test_the_sweep_fits_its_budget_and_times_each_size_as_often_as_nccl_tests(fabric):
    f = fabric()
    rows = _sweep(budget_s=1.5)
    assert f.now_s <= 1.5
    # 20 timed ops at every size (nccl-tests' default), more at the cheap small ones
    assert all(r.iterations >= plan.COMMON_ITERATIONS for r in rows)
    assert rows[0].iterations > rows[-1].iterations


def test_a_machine_slower_than_the_first_timings_still_reaches_the_largest_message(fabric):
    # Four times slower as soon as the plan is made, as when other jobs start on a 2-core machine.
    f = fabric(lambda now_s: 1.0 if now_s < 0.04 else 4.0)
    rows = _sweep(budget_s=1.5)
    assert rows[-1].bytes == 16 * MIB
    assert all(r.iterations >= plan.MIN_ITERATIONS for r in rows)
    # what the slowdown cost: iterations. At the minimum count the ladder's 4x-slower ops take
    # about 7 x 4 x 2 x 17 ms = 0.94 s beyond the 1.5 s budget at most.
    assert f.now_s < 1.5 + 7 * 4 * 2 * (16 * MIB / BYTES_PER_S)


def test_a_budget_too_short_for_the_whole_ladder_gives_up_the_largest_sizes(fabric):
    f = fabric()
    rows = _sweep(budget_s=0.3)
    sizes = [r.bytes for r in rows]
    assert sizes[0] == 8 and sizes[-1] < 16 * MIB
    assert sizes == [8 * 2**k for k in range(len(sizes))]  # no gaps: the largest sizes go first
    assert f.now_s <= 0.3 * (1 + 1e-6)  # the largest size's probe included


def test_iterations_share_the_budget_and_never_fall_below_the_minimum():
    times = plan.predicted_times([8 * 2**k for k in range(22)], (8, LATENCY_S), (16 * MIB, 0.017))
    counts = plan.iterations(times, budget_s=0.2)
    assert all(plan.MIN_ITERATIONS <= n <= plan.MAX_ITERATIONS for n in counts)
    assert sum(n * t for n, t in zip(counts, times, strict=True)) <= 0.2
    # a budget already spent: the minimum everywhere, not fewer
    assert plan.iterations(times, budget_s=-1.0) == [plan.MIN_ITERATIONS] * len(times)


def test_the_prediction_runs_on_the_line_between_the_two_ends_and_never_below_the_latency():
    times = plan.predicted_times([8, 1024, 2**20], (8, 1e-4), (2**20, 1e-3))
    assert times[0] == pytest.approx(1e-4) and times[-1] == pytest.approx(1e-3)
    assert 1e-4 <= times[1] < 1e-3
    # a largest size timed faster than the smallest (noise): every size is given the smallest's time
    assert plan.predicted_times([8, 64], (8, 1e-3), (64, 5e-4)) == [1e-3, 1e-3]


def test_reachable_keeps_at_least_one_size():
    assert plan.reachable([10.0, 20.0], budget_s=1.0, warmup=2) == 1
    assert plan.reachable([0.01, 0.02], budget_s=1.0, warmup=2) == 2
