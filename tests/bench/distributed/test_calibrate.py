"""A real gloo cluster file calibrates a plan: the request carries the measured fabric, the plan lists
the measured bus bandwidth and latency and the file among its assumptions, and the planner's
communication model (core.comms) times its collectives with them."""

from __future__ import annotations

import json
import subprocess

import pytest

from gpu_advisor.bench import ResultsFileError, load_report, save_report
from gpu_advisor.bench.distributed.calibrate import fabric_from_section, load_fabric_calibration
from tests.bench.distributed.helpers import cli, env

pytestmark = pytest.mark.slow


def _largest(section, op):
    return section.rows(op, "intra-node")[-1]


def test_the_calibration_holds_the_files_bus_bandwidth_and_latency(cluster_run):
    section = load_report(cluster_run.path).distributed
    calibration = load_fabric_calibration(cluster_run.path)
    assert calibration.source == cluster_run.path.name
    fabric = calibration.fabric
    assert (fabric.backend, fabric.world_size, fabric.hosts) == ("gloo", 2, 1)
    link = fabric.link("intra-node", "all_reduce")
    assert link.busbw_bytes_per_s == _largest(section, "all_reduce").busbw_bytes_per_s
    assert link.latency_s == section.rows("all_reduce", "intra-node")[0].time_s
    assert {m.op for m in fabric.links} == {"all_reduce", "all_gather", "reduce_scatter", "broadcast"}


def test_a_plan_calibrated_with_a_cluster_file_lists_its_measured_bus_bandwidth(cluster_run):
    section = load_report(cluster_run.path).distributed
    done = subprocess.run(
        cli(
            [
                "plan",
                "--model",
                "gpt2-small",
                "--task",
                "pretrain",
                "--calibrate",
                str(cluster_run.path),
                "--json",
            ]
        ),
        capture_output=True,
        text=True,
        env=env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assumptions = plan["assumptions"]
    assert assumptions["calibration_source"] == cluster_run.path.name
    assert assumptions["measured_fabric"] == "gloo, 2 ranks on 1 node"
    expected = _largest(section, "all_reduce").busbw_bytes_per_s
    assert assumptions["measured_busbw_intra_node_all_reduce_bytes_per_s"] == pytest.approx(
        expected, rel=1e-12
    )
    carried = plan["inputs"]["calibration"]["fabric"]["links"]
    assert any(m["op"] == "all_reduce" and m["busbw_bytes_per_s"] == pytest.approx(expected) for m in carried)


def test_the_plan_text_says_it_is_calibrated(cluster_run):
    done = subprocess.run(
        cli(["plan", "--model", "gpt2-small", "--task", "pretrain", "--calibrate", str(cluster_run.path)]),
        capture_output=True,
        text=True,
        env=env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert f"Calibrated with {cluster_run.path.name}: gloo, 2 ranks on 1 node." in done.stdout
    assert "measured all-reduce intra-node: bus bandwidth" in done.stdout


def test_a_single_device_file_cannot_calibrate_the_fabric(toy_report, tmp_path):
    path = tmp_path / "single.json"
    save_report(toy_report, path)
    with pytest.raises(ResultsFileError, match=r"single\.json: distributed: no collectives measured"):
        load_fabric_calibration(path)


def test_the_slowest_node_speaks_for_a_scope(cluster_run):
    section = load_report(cluster_run.path).distributed
    slow = section.links[0].model_copy(update={"node_rank": 1, "busbw_bytes_per_s": 1.0})
    two_nodes = section.model_copy(update={"links": [*section.links, slow]})
    fabric = fabric_from_section(two_nodes)
    assert fabric.link("intra-node", slow.op).busbw_bytes_per_s == 1.0


def test_the_plans_gradient_all_reduce_takes_the_measured_bus_bandwidth(cluster_run):
    """Two data-parallel GPUs in one machine: the planner's gradient all-reduce is the ring formula
    2 (n - 1) / n x gradient bytes / busbw + one latency step, with the file's measured figures, once
    the measurement is of that GPU (here the CPU run's links stand in for an H100 run's)."""
    from gpu_advisor.core.presets import get_preset
    from gpu_advisor.core.recommend import plan
    from gpu_advisor.core.request import PlanRequest

    cpu_run = load_fabric_calibration(cluster_run.path)
    on_h100 = cpu_run.fabric.model_copy(update={"device_kind": "cuda", "backend": "nccl"})
    calibration = cpu_run.model_copy(update={"gpu_id": "nvidia-h100-sxm", "fabric": on_h100})
    measured = calibration.fabric.link("intra-node", "all_reduce")
    model = get_preset("gpt2-small")
    request = PlanRequest(
        model=model,
        task="pretrain",
        gpus=2,
        tensor_parallel=1,
        zero_stage=0,
        gpu="nvidia-h100-sxm",
        calibration=calibration,
    )
    (option,) = plan(request).options
    assert option.layout.data == 2
    term = next(t for t in option.speed.terms if t.name == "data-parallel gradient reduction")
    gradient_bytes = model.total_params() * 2  # bf16 gradients of every parameter
    expected = 2 * (2 - 1) / 2 * gradient_bytes / measured.busbw_bytes_per_s + measured.latency_s
    assert term.seconds == pytest.approx(expected, rel=1e-9)
    assert "measured intra-node all_reduce busbw" in term.formula and cluster_run.path.name in term.formula
    uncalibrated = plan(request.model_copy(update={"calibration": None})).options[0]
    catalogue = next(t for t in uncalibrated.speed.terms if t.name == "data-parallel gradient reduction")
    assert catalogue.seconds < term.seconds  # NVLink is faster than gloo on loopback


def test_a_cpu_gloo_cluster_file_is_refused_for_gpu_links_with_a_warning(cluster_run):
    """TCP loopback bandwidth is no GPU's NVLink: the CPU run's file leaves the H100's catalogue links
    and the plan warns, naming what was measured."""
    from gpu_advisor.core.presets import get_preset
    from gpu_advisor.core.recommend import plan
    from gpu_advisor.core.request import PlanRequest

    calibration = load_fabric_calibration(cluster_run.path)
    assert calibration.fabric.device_kind == "cpu" and calibration.gpu_id is None
    kw = dict(model=get_preset("gpt2-small"), task="pretrain", gpus=2, tensor_parallel=1, zero_stage=0)
    kw["gpu"] = "nvidia-h100-sxm"
    with_file = plan(PlanRequest(**kw, calibration=calibration))
    without = plan(PlanRequest(**kw))
    assert with_file.options[0].speed.step_time_s == without.options[0].speed.step_time_s
    assert any("gloo on" in w and "not applied to NVIDIA H100 SXM" in w for w in with_file.warnings)
