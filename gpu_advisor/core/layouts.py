"""Which ways of splitting a job over GPUs to consider, and which one serves the request best.

A layout is data: (tensor, pipeline, data, ZeRO stage) on one catalogue GPU. `LayoutSearch.candidates`
lists, for a GPU count, the least-sharded layout that fits for each tensor-parallel degree (more
pipeline stages or a higher ZeRO stage only cost time once a layout fits), one search per request
shared by every GPU of a plan; `score` orders them by what the request is for:
training by tokens per second, serving by the speed each user sees, then the first token, then the
simpler layout. A fixed tp or pp from the request restricts the candidates.
"""

from __future__ import annotations

import math
from functools import lru_cache, partial
from typing import NamedTuple

from .catalog import GpuSpec
from .estimates import InferenceSpeed, MemoryEstimate, SpeedSummary, TrainingSpeed, time_to_first_token_s
from .layout import Parallelism
from .memory import Device, MemoryBasis, estimate_memory, memory_basis
from .precision import Task
from .request import PlanRequest
from .speed import LayoutSpeeds

Speed = TrainingSpeed | InferenceSpeed | SpeedSummary
# Two serving layouts whose per-user speeds differ by less than this serve users alike; the first
# token, then the simpler layout, decide.
SAME_SPEED = 0.01


class Candidate(NamedTuple):
    """One layout on one GPU with its speed (a summary while layouts are compared; None for a layout
    that does not fit, until someone asks), and whether it fits in memory. A NamedTuple, as
    SpeedSummary: immutable and cheap to build, one per layout compared."""

    layout: Parallelism
    speed: Speed | None
    fits: bool


class LayoutSpace(NamedTuple):
    """What of a request decides which layouts exist (the fields tp_options, pp_options and
    zero_options read): requests alike in these have the same layouts for every GPU count and node
    size, so the layouts are worked out once for all their plans (`_layout_order`, `_most_sharded`)."""

    tensor_parallel: int | None
    pipeline_parallel: int | None
    zero_stage: int | None
    inference: bool
    n_heads: int
    n_layers: int
    # With a global batch, the sequences per step over the micro-batch: the data-parallel degree must
    # divide it (replicas x micro-batch x accumulation = global batch). None: any degree.
    replica_batches: int | None = None
    # With the accumulation locked as well, the only data-parallel degree that keeps the global batch:
    # global batch / (micro-batch x accumulation). None: the degree is free (within replica_batches).
    replicas: int | None = None

    @classmethod
    def of(cls, req: PlanRequest) -> LayoutSpace:
        return cls(
            req.tensor_parallel,
            req.pipeline_parallel,
            req.zero_stage,
            req.task is Task.INFERENCE,
            req.model.n_heads,
            req.model.n_layers,
            None
            if req.global_batch is None or not req.task.is_training
            else req.global_batch // req.batch_size,
        )


def tp_options(req: PlanRequest | LayoutSpace, count: int, node_gpus: int) -> list[int]:
    """Tensor-parallel degrees: the request's, else powers of two that stay inside a node and divide
    the count and the attention heads."""
    space = req if isinstance(req, LayoutSpace) else LayoutSpace.of(req)
    if space.tensor_parallel is not None:
        return [space.tensor_parallel] if count % space.tensor_parallel == 0 else []
    return list(_tp_powers(count, node_gpus, space.n_heads))


@lru_cache(maxsize=1024)
def _tp_powers(count: int, node_gpus: int, heads: int) -> tuple[int, ...]:
    options = tuple(
        t
        for t in (1, 2, 4, 8, 16, 32, 64)
        if t <= min(count, node_gpus) and count % t == 0 and heads % t == 0
    )
    return options or (1,)


@lru_cache(maxsize=4096)
def layout(tp: int, pp: int, dp: int, zero: int) -> Parallelism:
    """One Parallelism per degree combination, built once (the recommender asks for the same ones for
    every GPU and every plan)."""
    return Parallelism(tensor=tp, pipeline=pp, data=dp, zero_stage=zero)


def pp_options(req: PlanRequest | LayoutSpace, count: int, tp: int, node_gpus: int) -> list[int]:
    """Pipeline depths: the request's, else powers of two once tensor parallelism fills a node (or
    when all GPUs are one replica), up to one layer per stage."""
    space = req if isinstance(req, LayoutSpace) else LayoutSpace.of(req)
    if space.pipeline_parallel is not None:
        depths = [space.pipeline_parallel] if count % (tp * space.pipeline_parallel) == 0 else []
    elif not (tp >= node_gpus or count == tp):
        depths = [1]
    else:
        limit = min(count // tp, space.n_layers)
        depths = [
            p for p in (2**i for i in range(limit.bit_length())) if p <= limit and count % (tp * p) == 0
        ]
    if space.replicas is not None:
        return [p for p in depths if count // (tp * p) == space.replicas]
    batches = space.replica_batches
    if batches is None:
        return depths
    return [p for p in depths if batches % (count // (tp * p)) == 0]


def zero_options(req: PlanRequest | LayoutSpace, dp: int) -> list[int]:
    space = req if isinstance(req, LayoutSpace) else LayoutSpace.of(req)
    if space.inference:
        return [0]
    if space.zero_stage is not None:
        return [space.zero_stage]
    return [0, 1, 2, 3] if dp > 1 else [0]


Order = tuple[tuple[int, tuple[tuple[int, int, tuple[int, ...]], ...]], ...]


@lru_cache(maxsize=4096)
def _layout_order(space: LayoutSpace, count: int, node: int) -> Order:
    """For each tensor-parallel degree, its (pipeline, data, ZeRO stages) in the order tried."""
    return tuple(
        (
            tp,
            tuple(
                (pp, count // (tp * pp), tuple(zero_options(space, count // (tp * pp))))
                for pp in pp_options(space, count, tp, node)
            ),
        )
        for tp in tp_options(space, count, node)
    )


@lru_cache(maxsize=4096)
def _most_sharded(space: LayoutSpace, count: int, node: int) -> tuple[tuple[int, int, int, int], ...]:
    """The widest tensor parallelism with the shallowest and the deepest pipeline, at the highest
    ZeRO stage: the layouts of `count` GPUs that need the least memory per GPU."""
    layouts = []
    tps = tp_options(space, count, node)
    if tps:
        tp = max(tps)
        pps = pp_options(space, count, tp, node) or [1]
        for pp in {min(pps), max(pps)}:
            dp = count // (tp * pp)
            zero = max(zero_options(space, dp))
            layouts.append((tp, pp, dp, zero if dp > 1 else 0))
    return tuple(layouts)


class _Thresholds:
    """One tensor-parallel degree's layouts of a GPU count in the order tried, each with the smallest
    card it fits as `LayoutSearch._picks_reserving` tries them (its total, or, if larger, the smaller
    total of the two most sharded ZeRO stages of its pipeline depth: below that the depth is skipped).
    Worked out one pipeline depth at a time, as far as the cards asked about need."""

    __slots__ = ("_basis", "_entries", "_last", "_next", "_pps", "_tp")

    def __init__(
        self, basis: MemoryBasis, tp: int, pps: tuple[tuple[int, int, tuple[int, ...]], ...]
    ) -> None:
        self._basis, self._tp, self._pps = basis, tp, pps
        self._entries: list[tuple[float, Parallelism]] = []
        self._next = 0
        pp, dp, zeros = pps[-1]
        self._last = layout(tp, pp, dp, zeros[-1])  # the layout reported when none fits: the last tried

    def pick(self, capacity: int) -> tuple[Parallelism, bool]:
        entries = self._entries
        for threshold, par in entries:
            if threshold <= capacity:
                return par, True
        total = self._basis.total_of
        tp = self._tp
        while self._next < len(self._pps):
            pp, dp, zeros = self._pps[self._next]
            self._next += 1
            gate = -math.inf
            if len(zeros) > 2:  # min() of the two most sharded stages' totals, as a comparison
                second, last = total(tp, pp, dp, zeros[-2]), total(tp, pp, dp, zeros[-1])
                gate = last if last < second else second
            found = None
            for z in zeros:
                threshold = total(tp, pp, dp, z)
                entry = (gate if gate > threshold else threshold, layout(tp, pp, dp, z))  # max(total, gate)
                entries.append(entry)
                if found is None and entry[0] <= capacity:
                    found = entry[1]
            if found is not None:
                return found, True
        return self._last, False


class LayoutSearch:
    """One request's search over layouts, shared by every GPU of a plan.

    Which layouts to try depends on the GPU count and the node size (and the request's LayoutSpace:
    kept for every plan); which of them fit, on the card's memory too. Many catalogue GPUs share a
    node size and a memory size, so both are kept by those keys (plain integers), and the layouts'
    totals by the memory basis.
    """

    def __init__(self, req: PlanRequest, replicas: int | None = None) -> None:
        """`replicas`: the data-parallel degree every layout must have (a locked accumulation under a
        global batch, core/recipe.py's fixed_replicas); None leaves it to the search."""
        self.req = req
        self.basis = memory_basis(req, Device.CUDA)
        self.space = LayoutSpace.of(req)._replace(replicas=replicas)
        self._picks: dict[tuple[int, int, int], tuple[tuple[Parallelism, bool], ...]] = {}
        self._threshold_cache: dict[tuple[int, int], tuple[_Thresholds, ...]] = {}
        self._least: dict[tuple[int, int], float] = {}
        self._memory: dict[tuple[int, int, int, int, int | None], MemoryEstimate] = {}
        self._smallest: dict[tuple[int, int, int], int] = {}

    def picks(self, count: int, node: int, capacity: int) -> tuple[tuple[Parallelism, bool], ...]:
        """For each tensor-parallel degree, the least-sharded layout of `count` GPUs that fits a card
        of `capacity` bytes (True), or, when none fits, the most sharded one tried (False)."""
        key = (count, node, capacity)
        known = self._picks.get(key)
        if known is None:
            known = self._picks[key] = (
                self._picks_reserving(count, node, capacity)
                if self.basis.reserves
                else self._picks_by_threshold(count, node, capacity)
            )
        return known

    def _picks_reserving(self, count: int, node: int, capacity: int) -> tuple[tuple[Parallelism, bool], ...]:
        """picks for an engine that leaves part of the card unused: totals depend on the card."""
        total = self.basis.total_of
        out = []
        for tp, pps in _layout_order(self.space, count, node):
            attempt = None
            found = False
            for pp, dp, zeros in pps:
                # Memory falls from ZeRO 0 to 2; ZeRO 3 adds two gathered layers. If neither of the two
                # most sharded stages fits, none does.
                if (
                    len(zeros) > 2
                    and total(tp, pp, dp, zeros[-2], capacity) > capacity
                    and total(tp, pp, dp, zeros[-1], capacity) > capacity
                ):
                    attempt = (tp, pp, dp, zeros[-1])
                    continue
                for zero in zeros:
                    attempt = (tp, pp, dp, zero)
                    if total(tp, pp, dp, zero, capacity) <= capacity:
                        found = True
                        break
                if found:
                    break
            if attempt is not None:
                out.append((layout(*attempt), found))
        return tuple(out)

    def _picks_by_threshold(
        self, count: int, node: int, capacity: int
    ) -> tuple[tuple[Parallelism, bool], ...]:
        """picks where a layout's total does not depend on the card: for each tensor-parallel degree,
        the first layout in the order tried whose threshold the card's size reaches."""
        key = (count, node)
        orders = self._threshold_cache.get(key)
        if orders is None:
            basis = self.basis
            orders = self._threshold_cache[key] = tuple(
                _Thresholds(basis, tp, pps) for tp, pps in _layout_order(self.space, count, node) if pps
            )
        return tuple([order.pick(capacity) for order in orders])  # a list first: no generator to resume

    def fits_at(self, count: int, node: int, capacity: int) -> bool:
        """Whether some layout of `count` GPUs fits in memory. The most sharded layouts need the least
        memory per GPU: the widest tensor parallelism, the deepest pipeline, the highest ZeRO stage."""
        total = self.basis.total_of
        if self.basis.reserves:
            for tp, pp, dp, zero in _most_sharded(self.space, count, node):
                if total(tp, pp, dp, zero, capacity) <= capacity:
                    return True
            return False
        key = (count, node)
        least = self._least.get(key)
        if least is None:
            least = self._least[key] = min(
                (total(*layout) for layout in _most_sharded(self.space, count, node)), default=math.inf
            )
        return least <= capacity

    def smallest_fitting_count(self, node: int, capacity: int, step: int, max_gpus: int) -> int:
        """Binary search over powers of two (times a fixed tp x pp): per-GPU memory never grows with
        the GPU count."""
        key = (node, capacity, step)
        known = self._smallest.get(key)
        if known is None:
            known = self._smallest[key] = self._smallest_fitting_count(node, capacity, step, max_gpus)
        return known

    def _smallest_fitting_count(self, node: int, capacity: int, step: int, max_gpus: int) -> int:
        def fits(count: int) -> bool:
            return self.fits_at(count, node, capacity)

        top = (max_gpus // step).bit_length() - 1
        if fits(step):
            return step
        if not fits(step * 2**top):
            return step * 2**top
        lo, hi = 0, top
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if fits(step * 2**mid):
                hi = mid
            else:
                lo = mid
        return step * 2**hi

    def memory(self, par: Parallelism, capacity: int) -> MemoryEstimate:
        """estimate_memory of a layout on a card of `capacity` bytes, kept for the other GPUs of the
        plan: without an engine reserve the card's size does not enter it."""
        key = (par.tensor, par.pipeline, par.data, par.zero_stage, capacity if self.basis.reserves else None)
        known = self._memory.get(key)
        if known is None:
            known = self._memory[key] = estimate_memory(
                self.req, par, device=Device.CUDA, capacity=capacity, basis=self.basis
            )
        return known

    def candidates(self, count: int, gpu: GpuSpec, speeds: LayoutSpeeds) -> list[Candidate]:
        """For each tensor-parallel degree, the least-sharded layout of `count` GPUs that fits (or,
        when none fits, the most sharded one tried, marked as not fitting), with its speed."""
        picks = self.picks(count, gpu.node().node_gpus, gpu.memory_bytes)
        summary = speeds.summary
        return [Candidate(par, summary(par) if found else None, found) for par, found in picks]


def score(req: PlanRequest, cand: Candidate) -> tuple:
    """Larger is better: fitting first; then tokens/s (training) or per-user speed (serving, within
    1% counted equal), a faster first token, and fewer GPUs per replica."""
    speed = cand.speed
    assert speed is not None  # only fitting layouts are scored
    if speed.kind == "training":
        return (cand.fits, speed.tokens_per_s, -cand.layout.model_parallel)
    per_user = speed.tokens_per_s_per_user
    bucket = round(math.log(per_user) / math.log(1 + SAME_SPEED)) if per_user > 0 else 0
    return (cand.fits, bucket, -speed.prefill_s, -cand.layout.model_parallel)


def best(req: PlanRequest, found: list[Candidate]) -> Candidate | None:
    return max(found, key=partial(score, req)) if found else None  # partial: no Python frame per key


def meets(req: PlanRequest, speed: Speed) -> bool:
    """Whether a speed meets the request's deadline, or its tokens/s per user and time-to-first-token
    targets (no target: always)."""
    if speed.kind == "training":
        if req.max_hours is None or speed.time_to_train_s is None:
            return True
        return speed.time_to_train_s <= req.max_hours * 3600
    if (
        req.ttft_s is not None
        and time_to_first_token_s(speed.prefill_s, speed.tokens_per_s_per_user) > req.ttft_s
    ):
        return False
    if req.tokens_per_s_per_user is None:
        return True
    return speed.tokens_per_s_per_user >= req.tokens_per_s_per_user
