"""One rank of a cluster run (imports torch): form the group, measure, gather to rank 0, write one file.

    report = run_rank(DistributedOptions(...), json_path="cluster.json")   # under torchrun
    # rank 0: the BenchReport (already saved atomically when json_path is given); other ranks: None

Phases, in order, every rank taking part: collectives within each node (every node at once), then
across nodes (when there are several), point-to-point pairs and host <-> device, data-parallel
scaling. Between phases the ranks meet at a store barrier that notices a dead rank within seconds.
Any failure raises DistributedRunFailed with one line naming the rank and host that caused it; the
same line is left in the store and in the launcher's run folder.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from gpu_advisor.bench.distributed import collectives as coll
from gpu_advisor.bench.distributed import p2p
from gpu_advisor.bench.distributed.assemble import RankOutput, build_report
from gpu_advisor.bench.distributed.environment import (
    RankEnv,
    choose_device,
    init_process_group,
    store_client,
)
from gpu_advisor.bench.distributed.errors import DistributedRunFailed
from gpu_advisor.bench.distributed.events import EventWriter, run_dir_from_env, write_failure
from gpu_advisor.bench.distributed.failures import what_happened
from gpu_advisor.bench.distributed.lifeline import launcher_alive, watch_launcher
from gpu_advisor.bench.distributed.liveness import Liveness, Peer
from gpu_advisor.bench.distributed.options import DistributedOptions
from gpu_advisor.bench.distributed.section import CollectiveRecord, RankRecord
from gpu_advisor.bench.options import SIZES, ProgressEvent
from gpu_advisor.core.units import format_bytes

P2P_BYTES = {("cpu", "toy"): 64 * 2**10, ("cpu", "quick"): 4 * 2**20, ("cpu", "full"): 16 * 2**20}
P2P_BYTES_CUDA = {"toy": 2**20, "quick": 64 * 2**20, "full": 256 * 2**20}


@dataclass
class Progress:
    """Where the run is (for failure messages) and how far (rank 0 reports it)."""

    env: RankEnv
    total_weight: float
    report: Callable[[ProgressEvent], None] | None
    started: float = field(default_factory=time.monotonic)
    done_weight: float = 0.0
    where: str = "starting"
    # rank 0's measured collective sizes, as they finish (the launcher's events carry them)
    measured: Callable[[CollectiveRecord], None] | None = None

    def at(self, where: str, phase: str, weight_done: float = 0.0) -> None:
        self.where = where
        if self.report is None or self.env.rank != 0:
            return
        fraction = min(1.0, (self.done_weight + weight_done) / self.total_weight)
        elapsed = time.monotonic() - self.started
        eta = elapsed * (1 - fraction) / fraction if fraction > 0.02 else None
        self.report(ProgressEvent(workload=phase, fraction=fraction, message=where, eta_s=eta))


def run_rank(
    options: DistributedOptions,
    *,
    json_path: str | Path | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    env: RankEnv | None = None,
) -> Any:
    """Run this rank's share (module docstring). Rank 0 returns the BenchReport, others None."""
    env = env or RankEnv.from_environ()
    run_dir = run_dir_from_env()
    watch_launcher()  # a launcher killed outright: this rank ends too (lifeline module)
    try:
        return _run(options, env, json_path, on_progress, run_dir)
    except DistributedRunFailed as exc:
        if run_dir is not None:
            write_failure(run_dir, env.rank, env.hostname, str(exc))
        raise


def _run(
    options: DistributedOptions,
    env: RankEnv,
    json_path: str | Path | None,
    on_progress: Callable[[ProgressEvent], None] | None,
    run_dir: Path | None,
) -> Any:
    started_wall = time.time()
    device, backend, notes = choose_device(options.device, env)
    if device.type == "cpu" and not os.environ.get("OMP_NUM_THREADS"):
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // max(1, env.local_world_size)))
    init_process_group(env, backend, device, options.timeout_s)
    if env.world_size < 2:
        raise DistributedRunFailed(f"{env.label()}: a cluster run needs at least 2 ranks (world size 1)")
    liveness = Liveness(
        store_client(env, options.timeout_s),
        env.rank,
        env.world_size,
        Peer(env.rank, env.hostname, env.node_rank, os.getpid()),
    )
    # Name nodes in failure messages from the start, not only once the ranks have described themselves.
    liveness.nodes = env.nodes
    liveness.start()
    events = EventWriter(run_dir) if run_dir is not None and env.rank == 0 else None
    report_progress = on_progress
    if events is not None:
        user = on_progress

        def report_progress(e: ProgressEvent) -> None:
            events.emit("progress", phase=e.workload, fraction=e.fraction, message=e.message, eta_s=e.eta_s)
            if user is not None:
                user(e)

    progress = Progress(env, 1.0, report_progress)
    if events is not None:
        progress.measured = lambda r: events.emit(
            "collective", op=r.op, scope=r.scope, bytes=r.bytes, busbw_bytes_per_s=r.busbw_bytes_per_s
        )
    telemetry = _NodeTelemetry(env, options.interval_s) if env.local_rank == 0 else None
    try:
        output = _measure(options, env, device, liveness, progress, telemetry, events)
        if telemetry is not None:
            telemetry.stop()
            output.host_telemetry = telemetry.summary()
            output.samples = telemetry.samples() if env.rank == 0 else []
        gathered: list[Any] | None = [None] * env.world_size if env.rank == 0 else None
        dist.gather_object(output, gathered, dst=0)
        report = None
        if env.rank == 0:
            assert gathered is not None
            report = build_report(
                options,
                gathered,
                backend=backend,
                device_kind=device.type,
                notes=notes,
                started_wall=started_wall,
                duration_s=time.monotonic() - progress.started,
            )
            if json_path is not None:
                if not launcher_alive():  # the user's kept file is not replaced by an orphaned run
                    raise DistributedRunFailed("the launcher is gone: results not written")
                report.save(json_path)
        liveness.barrier("the end of the run", options.timeout_s)
    except DistributedRunFailed as exc:
        liveness.record_failure(str(exc))
        raise
    except Exception as exc:
        failure = _explain(exc, options, env, liveness, progress.where)
        liveness.record_failure(str(failure))
        raise failure from None
    finally:
        if telemetry is not None:
            telemetry.stop()
    liveness.stop()
    dist.destroy_process_group()
    return report


def _explain(
    exc: BaseException, options: DistributedOptions, env: RankEnv, liveness: Liveness, where: str
) -> DistributedRunFailed:
    """Name the rank that caused `exc`: one that stopped beating, or one that recorded its own failure."""
    cause = what_happened(exc, options.timeout_s)
    try:
        silent = liveness.silent_ranks(watch_s=min(liveness.stale_s, 2.0))
        failed = liveness.failures()
    except Exception:  # the store went with the node that hosted it
        return DistributedRunFailed(
            f"{env.label()}: {where} failed: {cause}; the rendezvous store at "
            f"{env.master_addr}:{env.master_port} is gone too: the node hosting it ended, so the "
            "failure began there",
            culprits=None,
        )
    culprits = tuple(sorted(set(silent) | set(failed)))
    if culprits:
        return DistributedRunFailed(f"{liveness.describe_lost(list(culprits), where)}: {cause}", culprits)
    return DistributedRunFailed(f"{env.label()}: {where} failed: {cause}")


class _NodeTelemetry:
    """The node's GPUs and host, sampled by its local rank 0 for the whole run."""

    def __init__(self, env: RankEnv, interval_s: float) -> None:
        from gpu_advisor.telemetry import AutoGpuSource, HostSource, Sampler, describe_machine

        self.nvml = AutoGpuSource()
        ok = self.nvml.open()
        self.machine = describe_machine(self.nvml)
        self.machine.update(
            torch_version=torch.__version__,
            torch_cuda_version=torch.version.cuda,
            torch_hip_version=getattr(torch.version, "hip", None),
        )
        # The launcher's process tree holds every rank of this node.
        self.sampler = Sampler(
            interval_s, nvml=self.nvml if ok else None, host=HostSource(watch_pid=os.getppid())
        )
        self.sampler.start()
        self.interval_s = interval_s

    def stop(self) -> None:
        if self.sampler.running:
            self.sampler.stop()
            if self.sampler.latest() is None:
                self.sampler.sample_once()
            self.nvml.close()

    def summary(self) -> dict[str, Any]:
        from gpu_advisor.telemetry import summarize

        return summarize(self.sampler.snapshot()).to_dict()

    def samples(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.sampler.snapshot()]


def _measure(
    options: DistributedOptions,
    env: RankEnv,
    device: torch.device,
    liveness: Liveness,
    progress: Progress,
    telemetry: _NodeTelemetry | None,
    events: EventWriter | None,
) -> RankOutput:
    kind = device.type
    me = _describe_self(env, device)
    infos: list[Any] = [None] * env.world_size
    dist.all_gather_object(infos, me)
    nodes: dict[int, list[int]] = {}
    for info in infos:
        nodes.setdefault(info["record"]["node_rank"], []).append(info["record"]["rank"])
    liveness.nodes = len(nodes)
    if events is not None:
        events.emit("ranks", ranks=[{**i["record"], "pid": i["pid"]} for i in infos])
    budget = options.budget_s()
    scopes = _groups(nodes, env)
    phase_timeout = options.timeout_s + 10 * budget * max(1, len(options.ops))
    weights = {
        "collectives": len({g.scope for g in scopes}) * len(options.ops) * budget,
        "p2p": budget,
        # Three timed runs and an FSDP run, plus building each model: measured at about 8 budgets.
        "scaling": 8 * budget,
    }
    progress.total_weight = sum(weights[p] for p in options.phases) or 1.0
    output = RankOutput(record=me["record"], machine=telemetry.machine if telemetry else None)
    if "collectives" in options.phases:
        output.collectives = _collectives(options, env, device, scopes, liveness, progress, phase_timeout)
        progress.done_weight += weights["collectives"]
    if "p2p" in options.phases:
        progress.at("point-to-point transfers", "p2p")
        output.p2p = _point_to_point(options, env, device, infos, nodes, liveness, phase_timeout)
        progress.done_weight += weights["p2p"]
    if "scaling" in options.phases:
        from gpu_advisor.bench.distributed.scaling import Setup, run_scaling

        progress.at("data-parallel training at world size 1 and N", "scaling")
        world = coll.Group(None, tuple(range(env.world_size)), "inter-node", None)
        setup = Setup(
            sizes=SIZES[(kind, options.mode)],
            device=device,
            rank=env.rank,
            world_size=env.world_size,
            budget_s=3 * budget,
            barrier=lambda name: liveness.barrier(name, phase_timeout),
        )
        output.scaling, output.fsdp = run_scaling(setup, lambda v: coll.reduce_max(v, world, device))
        progress.done_weight += weights["scaling"]
    progress.at("gathering the results on rank 0", "gather")
    return output


def _describe_self(env: RankEnv, device: torch.device) -> dict[str, Any]:
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        name, uuid = props.name, str(getattr(props, "uuid", "")) or None
    else:
        from gpu_advisor.telemetry.machine import cpu_model

        name, uuid = cpu_model() or "CPU", None
    record = RankRecord(
        rank=env.rank,
        local_rank=env.local_rank,
        node_rank=env.node_rank,
        hostname=env.hostname,
        device=str(device),
        device_name=name,
        torch_threads=torch.get_num_threads(),
    )
    return {"record": record.model_dump(), "uuid": uuid, "pid": os.getpid()}


def _groups(nodes: dict[int, list[int]], env: RankEnv) -> list[coll.Group]:
    """The groups this rank measures in: its node (when it has 2+ ranks), then the world across nodes.
    Every rank creates every subgroup, in the same order (torch.distributed requires it)."""
    if len(nodes) == 1:
        return [coll.Group(None, tuple(range(env.world_size)), "intra-node", env.node_rank)]
    mine: list[coll.Group] = []
    for node, ranks in sorted(nodes.items()):
        if len(ranks) < 2:
            continue
        handle = dist.new_group(ranks)
        if node == env.node_rank:
            mine.append(coll.Group(handle, tuple(ranks), "intra-node", node))
    mine.append(coll.Group(None, tuple(range(env.world_size)), "inter-node", None))
    return mine


def _collectives(
    options: DistributedOptions,
    env: RankEnv,
    device: torch.device,
    groups: list[coll.Group],
    liveness: Liveness,
    progress: Progress,
    phase_timeout: float,
) -> list[Any]:
    kind = device.type
    bound = coll.memory_bound_bytes(device, env.local_world_size)
    max_bytes = coll.reduce_min(min(options.max_bytes(kind), bound), device)
    budget = options.budget_s()
    rows: list[Any] = []
    done = 0.0
    several_nodes = any(g.scope == "inter-node" for g in groups)
    for scope in ("intra-node", "inter-node") if several_nodes else ("intra-node",):
        group = next((g for g in groups if g.scope == scope), None)
        for op in options.ops if group is not None else ():

            def at(size: int, op: str = op, scope: str = scope, done: float = done) -> None:
                progress.at(f"{op} ({scope}, {format_bytes(size)})", "collectives", done)

            on_row = progress.measured if env.rank == 0 else None
            found = coll.sweep(
                op, group, device, max_bytes=max_bytes, budget_s=budget, on_size=at, on_row=on_row
            )
            if env.rank == group.leader:
                rows += found
            done += budget
        if several_nodes and scope == "intra-node":
            # Nodes finish their own sweeps at different times (a node of one rank has none): start
            # the measurements across nodes together.
            liveness.barrier("the end of the intra-node collectives", phase_timeout)
    return rows


def _point_to_point(
    options: DistributedOptions,
    env: RankEnv,
    device: torch.device,
    infos: list[Any],
    nodes: dict[int, list[int]],
    liveness: Liveness,
    phase_timeout: float,
) -> list[Any]:
    from gpu_advisor.telemetry.topology import close_nvml, link_label, nvml_uuid, open_nvml

    cuda = device.type == "cuda"
    size = P2P_BYTES_CUDA[options.mode] if cuda else P2P_BYTES[("cpu", options.mode)]
    nvml = open_nvml() if cuda else None

    def describe(rank: int) -> str:
        return f"rank {rank} ({infos[rank]['record']['device']})"

    def link(src: int, dst: int) -> str | None:
        if not cuda:
            return f"{dist.get_backend()} over TCP, same host"
        a, b = infos[src]["uuid"], infos[dst]["uuid"]
        return link_label(nvml, nvml_uuid(a), nvml_uuid(b)) if nvml and a and b else None

    try:
        rows = p2p.rank_to_rank(
            p2p.rank_pairs(nodes),
            env.rank,
            device,
            size,
            describe=describe,
            link=link,
            between_pairs=lambda name: liveness.barrier(name, phase_timeout),
        )
        if cuda:
            for r in range(env.world_size):
                if r == env.rank:
                    rows += p2p.host_device(device, size, env.node_rank, describe(r), r)
                liveness.barrier(f"host <-> device copies of rank {r}", phase_timeout)
    finally:
        close_nvml(nvml)
    return rows
