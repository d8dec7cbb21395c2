"""A watched training run of the user's own script (monitor@1) as a calibration for the planner.

The probe reports the run's tokens per second; with the plan's model that is a measured model FLOPs
utilisation on the GPU the run used: MFU = tokens/s x model FLOPs per token / the GPU's dense peak
for the plan's precision (PaLM's definition, as the planner's own MFU). The plan then starts from it
on that GPU instead of the published default. The run is taken to have used one GPU (the first one
the telemetry saw); a run on the CPU gives no calibration, since a CPU's efficiency says nothing
about a GPU's.
"""

from __future__ import annotations

from pathlib import Path

from gpu_advisor.bench.distributed.calibrate import calibration_from_report
from gpu_advisor.bench.loading import load_report
from gpu_advisor.bench.results import BenchReport, ResultsFileError
from gpu_advisor.core.calibration import MIN_EFFICIENCY, Calibration
from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.core.recommend import gpu_peaks
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.speed import hardware_flops_per_token


def calibration_from_run(report: BenchReport, req: PlanRequest, source: str) -> Calibration:
    """The measured utilisation of a watched run for `req`'s model, on the FLOPs its recipe executes (model
    FLOPs, and the recomputed forward under checkpointing: the MFU without it); ResultsFileError naming
    what is missing."""
    found = report.result("command")
    if len(found) != 1:
        raise ResultsFileError(f"{source}: results: expected one watched command, found {len(found)}")
    (result,) = found
    if report.device.kind != "cuda":
        raise ResultsFileError(
            f"{source}: device: the run was on the CPU; a CPU's efficiency says nothing about a GPU's "
            "(watch the training on an NVIDIA GPU)"
        )
    tokens_per_s = result.number("tokens_per_s")
    if tokens_per_s is None:
        raise ResultsFileError(
            f"{source}: steps: the run reported no tokens; call probe.step(tokens=...) in the training loop"
        )
    gpu = default_catalog().match_device_name(report.device.name)
    if gpu is None:
        raise ResultsFileError(f"{source}: device: {report.device.name} is not in the catalogue")
    peaks, _ = gpu_peaks(gpu, req)
    if peaks is None or not req.task.is_training:
        raise ResultsFileError(f"{source}: a run calibrates a training plan on a GPU with a known peak")
    mfu = tokens_per_s * hardware_flops_per_token(req) / peaks.flops_per_s  # the FLOPs executed
    if not 0 < mfu <= 1:
        raise ResultsFileError(
            f"{source}: steps: {tokens_per_s:,.0f} tokens/s would be {mfu:.0%} of {gpu.name}'s peak for "
            f"{req.model.name}: the run trained another model than the plan's"
        )
    if mfu < MIN_EFFICIENCY:  # the planner's own bound: what a calibration gives, every plan takes
        raise ResultsFileError(
            f"{source}: steps: a measured MFU of {mfu:.2g} is below the {MIN_EFFICIENCY:.1%} a plan takes "
            f"({tokens_per_s:,.3g} tokens/s on {gpu.name}): the run was not training {req.model.name} at speed"
        )
    return Calibration(source=f"{source} ({result.name} on {gpu.name})", gpu_id=gpu.id, mfu=mfu)


def load_calibration(path: str | Path, req: PlanRequest) -> Calibration:
    """A calibration from a results file: a watched run (its MFU) or a cluster run (its fabric)."""
    report = load_report(path)
    name = Path(path).name
    if report.result("command"):
        return calibration_from_run(report, req, name)
    return calibration_from_report(report, name)
