"""How a collective sweep spends its time budget: which sizes it reaches and how many timed ops each
gets. No torch; collectives.sweep calls it with times measured on (and agreed by) the group.

An op of S bytes takes about latency + S / bandwidth, so the sweep times the smallest and the largest
size first and interpolates between them (`predicted_times`). From that prediction:

- `reachable`: the sweep goes up to the largest size whose ladder still fits the budget at the
  minimum iteration count (the largest messages are the ones the planner reads, so sizes are never
  given up for iterations at small sizes);
- `iterations`: every size gets the same count as nccl-tests does (its default is 20) as far as the
  budget allows, and what is left buys more at the cheap small sizes, whose medians need them most,
  as an equal share of time per size.

The sweep plans again before each size with what it has measured and what is left of the budget, so
a machine slower than predicted costs iterations, not sizes.
"""

from __future__ import annotations

MIN_ITERATIONS = 5
COMMON_ITERATIONS = 20  # nccl-tests' default -n
MAX_ITERATIONS = 100


def predicted_times(sizes: list[int], first: tuple[int, float], last: tuple[int, float]) -> list[float]:
    """Seconds per op at each size, on the line through the (bytes, seconds) points `first` and `last`,
    never below `first`'s time (the smaller size's: no message is faster than the latency, and a
    largest size timed faster than the smallest is noise)."""
    (s0, t0), (s1, t1) = first, last
    if s1 == s0:
        return [max(t0, t1)] * len(sizes)
    slope = (t1 - t0) / (s1 - s0)
    return [max(t0, t0 + slope * (s - s0)) for s in sizes]


def ladder_cost_s(times_s: list[float], iterations: int, warmup: int) -> float:
    return sum((warmup + iterations) * t for t in times_s)


def reachable(times_s: list[float], budget_s: float, warmup: int) -> int:
    """How many sizes of the ladder (smallest first) fit `budget_s` at the minimum count; at least 1."""
    spent = 0.0
    for i, t in enumerate(times_s):
        spent += (warmup + MIN_ITERATIONS) * t
        if spent > budget_s:
            return max(1, i)
    return len(times_s)


def iterations(times_s: list[float], budget_s: float) -> list[int]:
    """Timed ops per size so that sum(n_i x t_i) stays within `budget_s` (warm-ups already taken out),
    each between MIN_ITERATIONS and MAX_ITERATIONS (module docstring)."""
    if not times_s:
        return []
    times = [max(t, 1e-9) for t in times_s]
    total = sum(times)
    common = int(min(COMMON_ITERATIONS, max(MIN_ITERATIONS, budget_s / total)))

    def counts(share_s: float) -> list[int]:
        return [int(min(MAX_ITERATIONS, max(common, share_s / t))) for t in times]

    def cost(share_s: float) -> float:
        return sum(n * t for n, t in zip(counts(share_s), times, strict=True))

    low, high = 0.0, budget_s
    if cost(high) <= budget_s:
        return counts(high)
    for _ in range(50):  # bisection on the equal share of time per size
        mid = 0.5 * (low + high)
        if cost(mid) <= budget_s:
            low = mid
        else:
            high = mid
    return counts(low)
