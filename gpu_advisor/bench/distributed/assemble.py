"""Rank 0 puts every rank's measurements together into one `gpu-advisor/bench@1` report. No torch.

Each rank hands over a RankOutput (through torch.distributed.gather_object, so it must pickle); the
collective rows come from the first rank of each group only (every rank of a group holds the same
rows), the point-to-point rows from the sender of each pair.
"""

from __future__ import annotations

import platform
import socket
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from gpu_advisor.bench.distributed.options import DistributedOptions
from gpu_advisor.bench.distributed.section import (
    CollectiveRecord,
    DistributedSection,
    FsdpRecord,
    HostRecord,
    P2PRecord,
    RankRecord,
    ScalingRecord,
    summarize_links,
)
from gpu_advisor.bench.results import BenchReport, DeviceInfo, Machine, TelemetryRecord


@dataclass
class RankOutput:
    """What one rank measured."""

    record: dict[str, Any]  # RankRecord.model_dump()
    machine: dict[str, Any] | None = None  # local rank 0: describe_machine() + torch versions
    collectives: list[CollectiveRecord] = field(default_factory=list)
    p2p: list[P2PRecord] = field(default_factory=list)
    scaling: ScalingRecord | None = None
    fsdp: FsdpRecord | None = None
    host_telemetry: dict[str, Any] | None = None  # local rank 0: telemetry.summarize() as a dict
    samples: list[dict[str, Any]] = field(default_factory=list)  # rank 0: its node's samples


def _app_version() -> str:
    try:
        from importlib.metadata import version

        return version("gpu-advisor")
    except Exception:  # running from a checkout that is not installed
        return "0+unknown"


def build_report(
    options: DistributedOptions,
    outputs: list[RankOutput],
    *,
    backend: str,
    device_kind: str,
    notes: list[str],
    started_wall: float,
    duration_s: float,
) -> BenchReport:
    """The report rank 0 writes; `outputs` is indexed by rank."""
    ranks = [RankRecord.model_validate(o.record) for o in outputs]
    by_node: dict[int, list[RankOutput]] = {}
    for o, r in zip(outputs, ranks, strict=True):
        by_node.setdefault(r.node_rank, []).append(o)
    hosts = []
    for node, members in sorted(by_node.items()):
        records = [RankRecord.model_validate(m.record) for m in members]
        first = next((m for m in members if m.machine is not None), members[0])
        hosts.append(
            HostRecord(
                node_rank=node,
                hostname=records[0].hostname,
                ranks=[r.rank for r in records],
                devices=[r.device_name for r in sorted(records, key=lambda r: r.local_rank)],
                machine=first.machine or {},
                telemetry=first.host_telemetry,
            )
        )
    rows = [row for o in outputs for row in o.collectives]
    scaling = outputs[0].scaling
    section = DistributedSection(
        backend=backend,
        device_kind=device_kind,
        world_size=len(outputs),
        hosts=hosts,
        ranks=ranks,
        collectives=rows,
        links=summarize_links(rows),
        p2p=[row for o in outputs for row in o.p2p],
        scaling=scaling,
        fsdp=outputs[0].fsdp,
        timeout_s=options.timeout_s,
        notes=[*notes, *_notes(hosts, ranks)],
    )
    rank0 = ranks[0]
    machine = dict(outputs[0].machine or {"os": platform.platform()})
    machine.setdefault("hostname", socket.gethostname())
    device = DeviceInfo(
        kind=device_kind,
        index=int(rank0.device.partition(":")[2]) if ":" in rank0.device else None,
        name=rank0.device_name,
        torch_threads=rank0.torch_threads,
    )
    return BenchReport(
        created=datetime.fromtimestamp(started_wall + duration_s, UTC).isoformat(timespec="seconds"),
        app_version=_app_version(),
        machine=Machine.model_validate(machine),
        device=device,
        options=options.model_dump(mode="json") | {"world_size": len(outputs), "nodes": len(hosts)},
        duration_s=duration_s,
        results=[],
        telemetry=TelemetryRecord(interval_s=options.interval_s, samples=outputs[0].samples),
        distributed=section,
    )


def _notes(hosts: list[HostRecord], ranks: list[RankRecord]) -> list[str]:
    notes = []
    if len(hosts) == 1:
        notes.append("One node: every collective is intra-node; run on several nodes to measure the network.")
    names = [h.hostname for h in hosts]
    if len(set(names)) < len(names):
        notes.append(
            "Several nodes share a host name (launchers on one machine): their inter-node traffic never "
            "left the machine."
        )
    threads = sorted({r.torch_threads for r in ranks})
    if ranks and ranks[0].device == "cpu":
        notes.append(f"CPU ranks used {'/'.join(str(t) for t in threads)} PyTorch thread(s) each.")
    return notes
