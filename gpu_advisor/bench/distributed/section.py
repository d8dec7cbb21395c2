"""The `distributed` section of a `gpu-advisor/bench@1` results file: what a cluster run measured.

Written once, atomically, by global rank 0 after it gathered every rank's measurements. Layout
(sizes in bytes, times in seconds, rates in bytes per second):

    backend       "gloo" (CPU) or "nccl" (CUDA)
    device_kind   "cpu" | "cuda"
    world_size    ranks in the run
    hosts         one per node: node_rank, hostname, ranks, devices, machine, telemetry summary
    ranks         one per rank: rank, local_rank, node_rank, device, device name, threads
    collectives   one row per (op, scope, node, size): op, bytes, time_s (median over iterations of the
                  slowest rank's time), algbw_bytes_per_s, busbw_bytes_per_s (nccl-tests conventions,
                  see conventions.py), scope "intra-node" | "inter-node", spread and iteration count
    links         per (op, scope, node): bus bandwidth at the largest message and its peak over the
                  sizes (with the size it was reached at), latency at the smallest
    p2p           point-to-point transfers: rank to rank (with the NVML link on GPUs), host <-> device
    scaling       data parallel: world_sizes, tokens_per_s, efficiency, step times, exposed communication
    fsdp          fully_shard at the full world size, when it ran
    timeout_s     the bound on every collective and wait in the run
    notes         what the reader must know (e.g. "no GPU: gloo on CPU")

Row validators check the arithmetic (algbw = bytes / time_s; busbw from the conventions), so a file whose
figures do not hold together is rejected naming the row.
"""

from __future__ import annotations

import math
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gpu_advisor.bench.distributed.conventions import COLLECTIVES, bus_factor
from gpu_advisor.core.calibration import Scope

Backend = Literal["gloo", "nccl"]
P2PKind = Literal["rank-to-rank", "host-to-device", "device-to-host"]
# Rounding in JSON and summing medians: figures agree to far better than this when written by us.
_REL_TOLERANCE = 1e-6


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=_REL_TOLERANCE, abs_tol=1e-12)


class CollectiveRecord(BaseModel):
    """One collective at one message size in one scope."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    op: str
    bytes: int = Field(ge=1, description="operation size S in nccl-tests' convention")
    time_s: float = Field(gt=0, description="median over iterations of the slowest rank's time")
    algbw_bytes_per_s: float = Field(gt=0)
    busbw_bytes_per_s: float = Field(gt=0)
    scope: Scope
    ranks: int = Field(ge=2, description="ranks in the group")
    node_rank: int | None = Field(default=None, description="intra-node: the node measured")
    time_p10_s: float = Field(gt=0)
    time_p90_s: float = Field(gt=0)
    time_min_s: float = Field(gt=0)
    time_max_s: float = Field(gt=0)
    iterations: int = Field(ge=1)
    dtype: str = "float32"

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.op not in COLLECTIVES:
            raise ValueError(f"op: {self.op!r} is not one of {', '.join(COLLECTIVES)}")
        if not _close(self.algbw_bytes_per_s, self.bytes / self.time_s):
            raise ValueError("algbw_bytes_per_s: is not bytes / time_s")
        if not _close(self.busbw_bytes_per_s, self.algbw_bytes_per_s * bus_factor(self.op, self.ranks)):
            raise ValueError(f"busbw_bytes_per_s: does not follow the nccl-tests factor for {self.op}")
        return self


class LinkSummary(BaseModel):
    """What the planner needs from one collective in one scope (see core.calibration.LinkMeasurement)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    op: str
    scope: Scope
    ranks: int = Field(ge=2)
    node_rank: int | None = None
    busbw_bytes_per_s: float = Field(gt=0, description="at the largest message measured")
    largest_bytes: int = Field(ge=1)
    latency_s: float = Field(gt=0, description="median time of the smallest message")
    smallest_bytes: int = Field(ge=1)
    # Files written before the peak was recorded hold neither; readers then take it from the rows.
    peak_busbw_bytes_per_s: float | None = Field(default=None, gt=0, description="highest over the sizes")
    peak_bytes: int | None = Field(default=None, ge=1, description="the size the peak was measured at")

    @model_validator(mode="after")
    def _peak(self) -> Self:
        if (self.peak_busbw_bytes_per_s is None) != (self.peak_bytes is None):
            raise ValueError("peak_bytes: give it with peak_busbw_bytes_per_s, or neither")
        if self.peak_busbw_bytes_per_s is not None and self.peak_bytes is not None:
            if self.peak_busbw_bytes_per_s < self.busbw_bytes_per_s * (1 - _REL_TOLERANCE):
                raise ValueError("peak_busbw_bytes_per_s: is below the largest message's bus bandwidth")
            if not self.smallest_bytes <= self.peak_bytes <= self.largest_bytes:
                raise ValueError("peak_bytes: is not one of the sizes measured")
        return self


class P2PRecord(BaseModel):
    """One point-to-point transfer: between two ranks of one node, or between a rank's host and device."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: P2PKind
    node_rank: int
    src: str  # "rank 0 (cuda:0)", "host"
    dst: str
    link: str | None = Field(default=None, description="NVML topology between the two GPUs, or the transport")
    bytes: int = Field(ge=1)
    time_s: float = Field(gt=0, description="median one-way time")
    bytes_per_s: float = Field(gt=0)
    src_rank: int | None = None
    dst_rank: int | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if not _close(self.bytes_per_s, self.bytes / self.time_s):
            raise ValueError("bytes_per_s: is not bytes / time_s")
        return self


class HostRecord(BaseModel):
    """One node of the run (two launchers on one machine are two nodes with the same hostname)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    node_rank: int = Field(ge=0)
    hostname: str
    ranks: list[int]
    devices: list[str] = Field(default_factory=list, description="device name per local rank")
    machine: dict[str, Any] = Field(default_factory=dict, description="telemetry.describe_machine()")
    telemetry: dict[str, Any] | None = Field(
        default=None, description="telemetry.summarize() of the node's samples over the run"
    )


class RankRecord(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    rank: int = Field(ge=0)
    local_rank: int = Field(ge=0)
    node_rank: int = Field(ge=0)
    hostname: str
    device: str  # "cpu", "cuda:0"
    device_name: str
    torch_threads: int = Field(ge=1)


class ScalingRecord(BaseModel):
    """Data-parallel training (DistributedDataParallel) at world size 1 and N.

    efficiency[i] = tokens_per_s[i] / (world_sizes[i] x tokens_per_s at world size 1). The world size 1
    point is the same model and step on rank 0 alone without DDP. exposed_comm_fraction[i] is the share
    of the step spent in gradient all-reduce not hidden behind backward: (t_ddp - t_no_sync) / t_ddp, with
    t_no_sync the same N ranks skipping the all-reduce (DDP's no_sync); None at world size 1.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    strategy: Literal["ddp"] = "ddp"
    world_sizes: list[int]
    tokens_per_s: list[float]
    efficiency: list[float]
    step_time_s: list[float]
    no_sync_step_time_s: list[float | None]
    exposed_comm_fraction: list[float | None]
    model: str
    params: int = Field(ge=1)
    batch_size_per_rank: int = Field(ge=1)
    seq_len: int = Field(ge=1)
    precision: str
    gradient_bytes: int = Field(ge=0, description="bytes all-reduced per step")
    steps: int = Field(ge=1)

    @model_validator(mode="after")
    def _aligned(self) -> Self:
        lists = (
            self.tokens_per_s,
            self.efficiency,
            self.step_time_s,
            self.no_sync_step_time_s,
            self.exposed_comm_fraction,
        )
        if any(len(x) != len(self.world_sizes) for x in lists):
            raise ValueError("world_sizes: every per-world-size list must have one value per world size")
        return self


class FsdpRecord(BaseModel):
    """fully_shard (FSDP2) at the full world size: per-rank state shrinks by the world size."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    world_size: int = Field(ge=2)
    step_time_s: float = Field(gt=0)
    tokens_per_s: float = Field(gt=0)
    state_bytes_per_rank: int = Field(ge=0, description="parameters + gradients + optimizer state held")
    unsharded_state_bytes: int = Field(ge=0, description="the same on one rank without sharding")
    peak_memory_bytes: int | None = Field(default=None, description="CUDA allocator peak, rank 0")
    model: str


class DistributedSection(BaseModel):
    """The cluster run (module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    backend: Backend
    device_kind: Literal["cpu", "cuda"]
    world_size: int = Field(ge=1)
    hosts: list[HostRecord]
    ranks: list[RankRecord] = Field(default_factory=list)
    collectives: list[CollectiveRecord] = Field(default_factory=list)
    links: list[LinkSummary] = Field(default_factory=list)
    p2p: list[P2PRecord] = Field(default_factory=list)
    scaling: ScalingRecord | None = None
    fsdp: FsdpRecord | None = None
    timeout_s: float = Field(gt=0)
    notes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _hosts_cover_ranks(self) -> Self:
        counted = sum(len(h.ranks) for h in self.hosts)
        if counted != self.world_size:
            raise ValueError(f"hosts: list {counted} ranks, world_size is {self.world_size}")
        return self

    def scopes(self) -> list[str]:
        """The scopes measured, intra-node first."""
        return [s for s in ("intra-node", "inter-node") if any(c.scope == s for c in self.collectives)]

    def rows(self, op: str, scope: str, node_rank: int | None = None) -> list[CollectiveRecord]:
        """One collective's rows in one scope (intra-node: one node; None: the lowest node measured),
        by size."""
        rows = [c for c in self.collectives if c.op == op and c.scope == scope]
        if scope == "intra-node" and rows:
            node = node_rank if node_rank is not None else min(c.node_rank or 0 for c in rows)
            rows = [c for c in rows if c.node_rank == node]
        return sorted(rows, key=lambda c: c.bytes)

    def link(self, op: str, scope: str) -> LinkSummary | None:
        """The summary of one collective in one scope (intra-node: the lowest node)."""
        found = sorted(
            (s for s in self.links if s.op == op and s.scope == scope), key=lambda s: s.node_rank or 0
        )
        return found[0] if found else None


def summarize_links(rows: list[CollectiveRecord]) -> list[LinkSummary]:
    """Per (op, scope, node): bus bandwidth at the largest message and the peak over sizes, latency at
    the smallest."""
    groups: dict[tuple[str, str, int | None], list[CollectiveRecord]] = {}
    for row in rows:
        groups.setdefault((row.op, row.scope, row.node_rank), []).append(row)
    out = []
    for found in groups.values():
        ordered = sorted(found, key=lambda r: r.bytes)
        small, large = ordered[0], ordered[-1]
        peak = max(ordered, key=lambda r: r.busbw_bytes_per_s)
        out.append(
            LinkSummary(
                op=large.op,
                scope=large.scope,
                ranks=large.ranks,
                node_rank=large.node_rank,
                busbw_bytes_per_s=large.busbw_bytes_per_s,
                largest_bytes=large.bytes,
                latency_s=small.time_s,
                smallest_bytes=small.bytes,
                peak_busbw_bytes_per_s=peak.busbw_bytes_per_s,
                peak_bytes=peak.bytes,
            )
        )
    return out
