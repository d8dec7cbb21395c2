"""A cluster results file as a calibration for the planner: the bus bandwidth and latency measured on
the user's own fabric, per scope (within a node, across nodes) and collective. No torch.

    calibration = load_fabric_calibration("cluster.json")   # -> core.calibration.Calibration
    PlanRequest(..., calibration=calibration)

Per (scope, collective) the planner gets the bus bandwidth of the largest message measured (what large
gradient buckets and weight shards see) and the median time of the smallest one (the latency term).
Where several nodes measured their intra-node links, the slowest node is taken: a data-parallel step
waits for it.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from gpu_advisor.bench.distributed.section import DistributedSection
from gpu_advisor.bench.loading import load_report
from gpu_advisor.bench.results import BenchReport, ResultsFileError
from gpu_advisor.core.calibration import Calibration, FabricCalibration, LinkMeasurement
from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.core.errors import field_message


def fabric_from_section(section: DistributedSection) -> FabricCalibration:
    """The planner's view of a cluster run (module docstring)."""
    chosen: dict[tuple[str, str], LinkMeasurement] = {}
    for link in section.links:
        key = (link.scope, link.op)
        try:  # the planner's bounds (core.calibration): a link it cannot take is refused here, in one line
            found = LinkMeasurement(
                op=link.op,
                scope=link.scope,
                busbw_bytes_per_s=link.busbw_bytes_per_s,
                latency_s=link.latency_s,
            )
        except ValidationError as exc:
            raise ResultsFileError(
                f"distributed.links: {link.scope} {link.op}: {field_message(exc)}"
            ) from None
        if key not in chosen or found.busbw_bytes_per_s < chosen[key].busbw_bytes_per_s:
            chosen[key] = found
    return FabricCalibration(
        backend=section.backend,
        device_kind=section.device_kind,
        device_name=section.ranks[0].device_name if section.ranks else None,
        world_size=section.world_size,
        hosts=len(section.hosts),
        links=tuple(sorted(chosen.values(), key=lambda m: (m.scope != "intra-node", m.op))),
    )


def calibration_from_report(report: BenchReport, source: str) -> Calibration:
    """ResultsFileError naming `source` when the report holds no cluster measurements."""
    section = report.distributed
    if section is None or not section.links:
        raise ResultsFileError(
            f"{source}: distributed: no collectives measured here; make a cluster results file with "
            "gpu-advisor bench --nproc N --json FILE (or --distributed under torchrun)"
        )
    try:
        fabric = fabric_from_section(section)
    except ResultsFileError as exc:
        raise ResultsFileError(f"{source}: {exc}") from None
    gpu = None
    if fabric.device_kind != "cpu" and fabric.device_name:
        gpu = default_catalog().match_device_name(fabric.device_name)
    return Calibration(source=source, gpu_id=None if gpu is None else gpu.id, fabric=fabric)


def load_fabric_calibration(path: str | Path) -> Calibration:
    """Read, validate and convert a cluster results file (ResultsFileError names the file and field)."""
    return calibration_from_report(load_report(path), Path(path).name)
