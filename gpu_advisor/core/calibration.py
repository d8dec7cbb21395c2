"""Measurements of the user's own hardware that replace catalogue figures and default efficiencies.

A calibration is built from a results file (a benchmark, a watched training run, a cluster benchmark)
by the layer that reads those files, and travels with the request (`PlanRequest.calibration`), so a
plan says which of its numbers come from a measurement and from which file.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Scope = Literal["intra-node", "inter-node"]

# The lowest efficiency (fraction of a peak) a plan takes, measured or assumed: below 0.1% nothing real
# runs, and a saved or typed 1e-300 would make every time infinite.
MIN_EFFICIENCY = 0.001


class LinkMeasurement(BaseModel):
    """One collective measured on the user's fabric, with nccl-tests conventions (busbw)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    op: str = Field(description="all_reduce, all_gather, reduce_scatter, broadcast")
    scope: Scope
    # At least a byte per second and at most an hour: beyond either, a time divided by it overflows.
    busbw_bytes_per_s: float = Field(ge=1, description="bus bandwidth of the largest messages measured")
    latency_s: float | None = Field(default=None, ge=0, le=3600, description="time of the smallest message")


class FabricCalibration(BaseModel):
    """What a cluster benchmark measured: bus bandwidth and latency within and across nodes."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    backend: str
    world_size: int = Field(ge=1)
    hosts: int = Field(ge=1)
    links: tuple[LinkMeasurement, ...] = ()
    device_kind: str = "cuda"  # "cpu": gloo over TCP, which says nothing of a GPU's links
    device_name: str | None = None  # what rank 0 ran on, as the driver named it

    def measured(self) -> str:
        """'gloo on cpu, 4 ranks on 1 node' / 'nccl on NVIDIA H100 80GB HBM3, 16 ranks on 2 nodes'."""
        on = self.device_name or self.device_kind
        return f"{self.backend} on {on}, {self.world_size} ranks on {self.hosts} node{'s' if self.hosts > 1 else ''}"

    def link(self, scope: Scope, op: str = "all_reduce") -> LinkMeasurement | None:
        """The measurement for a scope and collective (falling back to any collective in that scope)."""
        exact = next((m for m in self.links if m.scope == scope and m.op == op), None)
        return exact or next((m for m in self.links if m.scope == scope), None)


class Calibration(BaseModel):
    """Measured figures a plan starts from instead of its defaults. None: not measured."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    source: str = Field(min_length=1, description="the results file (or run) it came from")
    gpu_id: str | None = Field(default=None, description="catalogue GPU the measurement ran on")
    mfu: float | None = Field(
        default=None, ge=MIN_EFFICIENCY, le=1, description="measured model FLOPs utilisation"
    )
    fabric: FabricCalibration | None = None


def assumption_entries(calibration: Calibration | None) -> dict[str, float | int | str]:
    """What a plan lists among its assumptions for a calibration: the file, and every measured figure
    (keys carry units: `_bytes_per_s`, `_s`), so the plan says which numbers come from the user's own
    hardware."""
    if calibration is None:
        return {}
    entries: dict[str, float | int | str] = {"calibration_source": calibration.source}
    if calibration.mfu is not None:
        entries["measured_mfu"] = calibration.mfu
    fabric = calibration.fabric
    if fabric is not None:
        entries["measured_fabric"] = (
            f"{fabric.backend}, {fabric.world_size} ranks on {fabric.hosts} node{'s' if fabric.hosts > 1 else ''}"
        )
        for m in fabric.links:
            scope = m.scope.replace("-", "_")
            entries[f"measured_busbw_{scope}_{m.op}_bytes_per_s"] = m.busbw_bytes_per_s
            if m.latency_s is not None:
                entries[f"measured_latency_{scope}_{m.op}_s"] = m.latency_s
    return entries


def fabric_applies(calibration: Calibration | None, gpu_id: str) -> bool:
    """A cluster file's links stand in for a GPU's only where it measured that GPU kind: GPU ranks
    (not CPU/gloo) on the same catalogue GPU."""
    if calibration is None or calibration.fabric is None:
        return False
    return calibration.fabric.device_kind != "cpu" and calibration.gpu_id == gpu_id


def fabric_scope_warning(calibration: Calibration | None, refused: list[str]) -> str | None:
    """One warning naming what the cluster file measured and the GPUs it was not applied to."""
    if calibration is None or calibration.fabric is None or not refused:
        return None
    names = ", ".join(refused[:3]) + (f" and {len(refused) - 3} more" if len(refused) > 3 else "")
    return (
        f"calibration: {calibration.source} measured {calibration.fabric.measured()}; its links are not "
        f"applied to {names} (a different device or fabric): catalogue links used"
    )
