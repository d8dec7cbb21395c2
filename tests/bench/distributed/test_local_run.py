"""`gpu-advisor bench --nproc 2` on this CPU machine: real ranks over gloo, one results file whose
figures hold together, and a killed or frozen rank ending the run with one line naming it."""

from __future__ import annotations

import itertools
import math
import signal
import socket
import time

import pytest

from gpu_advisor.bench import load_report
from tests.bench.distributed.helpers import BUS_FACTOR, OPS, cli, find_rank, start, wait_until_measuring

pytestmark = pytest.mark.slow


def test_nproc_run_writes_one_file_with_every_collective(cluster_run):
    assert cluster_run.returncode == 0, cluster_run.stderr
    report = load_report(cluster_run.path)
    section = report.distributed
    assert section is not None
    assert section.backend == "gloo" and section.device_kind == "cpu"
    assert section.world_size == 2
    assert [h.ranks for h in section.hosts] == [[0, 1]]
    assert {c.op for c in section.collectives} == set(OPS)
    assert {c.scope for c in section.collectives} == {"intra-node"}
    assert any("gloo" in note for note in section.notes)
    assert report.telemetry.samples  # node 0's local rank 0 sampled the host
    assert "gloo on CPU, 2 ranks on 1 node" in cluster_run.stdout
    assert f"Results written to {cluster_run.path}" in cluster_run.stdout


def test_every_row_holds_algbw_equal_bytes_over_time_and_the_busbw_convention(cluster_run):
    section = load_report(cluster_run.path).distributed
    for row in section.collectives:
        assert row.algbw_bytes_per_s == pytest.approx(row.bytes / row.time_s, rel=1e-9)
        factor = BUS_FACTOR[row.ranks][row.op]
        assert row.busbw_bytes_per_s == pytest.approx(row.algbw_bytes_per_s * factor, rel=1e-9)
        assert row.time_p10_s <= row.time_s <= row.time_p90_s
        assert row.time_min_s <= row.time_p10_s and row.time_p90_s <= row.time_max_s


def test_message_sizes_start_at_8_bytes_and_double(cluster_run):
    section = load_report(cluster_run.path).distributed
    for op in OPS:
        sizes = [r.bytes for r in section.rows(op, "intra-node")]
        assert sizes[0] == 8
        assert all(b == 2 * a for a, b in itertools.pairwise(sizes))
        assert sizes[-1] <= 64 * 2**10  # the toy run's largest message


def test_link_summary_is_the_largest_message_bandwidth_and_the_smallest_message_time(cluster_run):
    section = load_report(cluster_run.path).distributed
    for op in OPS:
        rows = section.rows(op, "intra-node")
        link = section.link(op, "intra-node")
        assert link.busbw_bytes_per_s == rows[-1].busbw_bytes_per_s
        assert link.latency_s == rows[0].time_s


def test_scaling_efficiency_and_throughput_follow_from_the_step_times(cluster_run):
    section = load_report(cluster_run.path).distributed
    s = section.scaling
    assert s.world_sizes == [1, 2]
    tokens_per_step = s.batch_size_per_rank * s.seq_len
    for n, step_s, tps in zip(s.world_sizes, s.step_time_s, s.tokens_per_s, strict=True):
        assert tps == pytest.approx(n * tokens_per_step / step_s, rel=1e-9)
    assert s.efficiency[0] == 1.0
    assert s.efficiency[1] == pytest.approx(s.tokens_per_s[1] / (2 * s.tokens_per_s[0]), rel=1e-9)
    exposed = s.exposed_comm_fraction[1]
    assert 0.0 <= exposed < 1.0
    assert exposed == pytest.approx(max(0.0, 1 - s.no_sync_step_time_s[1] / s.step_time_s[1]), abs=1e-9)
    assert section.fsdp is not None
    # Sharded over 2 ranks, each holds about half the state (tied and odd-sized tensors round up).
    assert section.fsdp.state_bytes_per_rank < 0.6 * section.fsdp.unsharded_state_bytes


def test_point_to_point_rows_cover_both_directions(cluster_run):
    section = load_report(cluster_run.path).distributed
    pairs = {(p.src_rank, p.dst_rank) for p in section.p2p}
    assert pairs == {(0, 1), (1, 0)}
    for p in section.p2p:
        assert p.bytes_per_s == pytest.approx(p.bytes / p.time_s, rel=1e-9)
        assert math.isfinite(p.bytes_per_s)


TIMEOUT_S = 10


def _run_and_hurt(tmp_path, rank: int, hurt: signal.Signals, timeout_s: float = TIMEOUT_S):
    path = tmp_path / "never.json"
    # Budgets long enough that the signal lands mid-run.
    argv = ["bench", "--nproc", "2", "--device", "cpu", "--toy", "--duration", "30"]
    proc = start(cli([*argv, "--timeout", str(timeout_s), "--json", str(path)]))
    victim = find_rank([proc], rank)
    wait_until_measuring(victim)
    hurt_at = time.monotonic()
    victim.send_signal(hurt)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, time.monotonic() - hurt_at, err, path


def test_a_killed_rank_ends_the_run_with_one_line_naming_it(tmp_path):
    code, took_s, err, path = _run_and_hurt(tmp_path, rank=1, hurt=signal.SIGKILL)
    assert code == 1
    assert took_s < TIMEOUT_S
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1, err
    assert errors[0].startswith(f"gpu-advisor bench: error: rank 1 on host {socket.gethostname()} ")
    assert "SIGKILL" in errors[0]
    assert "Traceback" not in err
    assert not path.exists()


def test_a_frozen_rank_ends_the_run_after_the_collective_timeout(tmp_path):
    timeout_s = 4
    code, took_s, err, _ = _run_and_hurt(tmp_path, rank=1, hurt=signal.SIGSTOP, timeout_s=timeout_s)
    assert code == 1
    # The collective timeout (or the heartbeat limit), a look at the heartbeats, the launcher's grace.
    assert took_s < timeout_s + 10
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1, err
    assert f"rank 1 on host {socket.gethostname()} died or stopped responding" in errors[0]
    assert "Traceback" not in err
