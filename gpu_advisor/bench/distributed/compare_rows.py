"""The Compare table's rows for cluster runs (typed, like bench.compare's): bus bandwidth and latency
per collective and scope, and data-parallel scaling. No torch.

Bus bandwidth is compared at one message size for every file, the largest that all of them measured
(the sweeps stop where each machine's time budget ran out), so that the columns measure the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpu_advisor.bench.compare import CompareRow
from gpu_advisor.bench.distributed.conventions import COLLECTIVES
from gpu_advisor.bench.distributed.section import DistributedSection
from gpu_advisor.bench.results import BenchReport
from gpu_advisor.core.units import format_bytes

OP_WORDS = {"all_reduce": "all-reduce", "all_gather": "all-gather", "reduce_scatter": "reduce-scatter"}


def common_size(sections: Sequence[DistributedSection | None], op: str, scope: str) -> int | None:
    """The largest message every section measured for `op` in `scope` (None if one has none)."""
    sizes = [{r.bytes for r in s.rows(op, scope)} for s in sections if s is not None]
    if not sizes or any(not s for s in sizes):
        return None
    shared = set.intersection(*sizes)
    return max(shared) if shared else None


def cluster_rows(reports: Sequence[BenchReport]) -> list[CompareRow]:
    """Rows for the files that hold a cluster run (none when no file does)."""
    sections = [r.distributed for r in reports]
    present = [s for s in sections if s is not None]
    if not present:
        return []
    rows = [
        CompareRow("cluster backend", "text", tuple(None if s is None else s.backend for s in sections)),
        CompareRow("cluster ranks", "count", tuple(None if s is None else s.world_size for s in sections)),
        CompareRow("cluster nodes", "count", tuple(None if s is None else len(s.hosts) for s in sections)),
    ]
    scopes = [sc for sc in ("intra-node", "inter-node") if any(sc in s.scopes() for s in present)]
    for scope in scopes:
        for op in COLLECTIVES:
            with_op = [s if s is not None and s.rows(op, scope) else None for s in sections]
            if not any(with_op):
                continue
            size = common_size(with_op, op, scope)
            if size is not None:
                rows.append(
                    CompareRow(
                        f"{OP_WORDS.get(op, op)} bus bandwidth, {scope}, {format_bytes(size)}",
                        "bandwidth",
                        tuple(_busbw_at(s, op, scope, size) for s in with_op),
                        lower_is_better=False,
                    )
                )
            rows.append(
                CompareRow(
                    f"{OP_WORDS.get(op, op)} latency, {scope}, smallest message",
                    "duration",
                    tuple(None if s is None else s.rows(op, scope)[0].time_s for s in with_op),
                    lower_is_better=True,
                )
            )
    scalings = [None if s is None else s.scaling for s in sections]
    if any(scalings):
        rows += [
            CompareRow(
                "data-parallel scaling efficiency",
                "fraction",
                tuple(None if x is None else x.efficiency[-1] for x in scalings),
                lower_is_better=False,
            ),
            CompareRow(
                "data-parallel throughput",
                "rate",
                tuple(None if x is None else x.tokens_per_s[-1] for x in scalings),
                lower_is_better=False,
                unit="tokens/s",
            ),
            CompareRow(
                "communication not hidden by backward",
                "fraction",
                tuple(None if x is None else x.exposed_comm_fraction[-1] for x in scalings),
                lower_is_better=True,
            ),
        ]
    return rows


def _busbw_at(section: DistributedSection | None, op: str, scope: str, size: int) -> float | None:
    if section is None:
        return None
    return next((r.busbw_bytes_per_s for r in section.rows(op, scope) if r.bytes == size), None)
