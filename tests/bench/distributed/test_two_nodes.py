"""Two "nodes" on this machine: two torchrun launchers with --nnodes 2 meeting at a c10d rendezvous on
127.0.0.1, each starting its ranks with `gpu-advisor bench --distributed` (gloo)."""

from __future__ import annotations

import signal
import socket
import time

import pytest

from gpu_advisor.bench import load_report
from tests.bench.distributed.helpers import (
    BUS_FACTOR,
    OPS,
    find_rank,
    free_port,
    start_two_nodes,
    wait_until_measuring,
)

pytestmark = pytest.mark.slow
TIMEOUT_S = 10


def test_two_nodes_report_intra_and_inter_node_collectives_separately(tmp_path):
    path = tmp_path / "two-nodes.json"
    port = free_port()
    args = ["--toy", "--phases", "collectives", "--timeout", "30", "--json", str(path)]
    nodes = start_two_nodes(port, 2, args, log_dir=tmp_path)
    outputs = [node.communicate(timeout=240) for node in nodes]
    assert [n.returncode for n in nodes] == [0, 0], outputs[0][1][-3000:] + outputs[1][1][-3000:]
    section = load_report(path).distributed
    assert section.world_size == 4
    assert [(h.node_rank, h.ranks) for h in section.hosts] == [(0, [0, 1]), (1, [2, 3])]
    # No GPU here: the default device ran gloo on the CPU and the file says so.
    assert section.backend == "gloo"
    assert any("No CUDA GPU" in note for note in section.notes)
    assert any("share a host name" in note for note in section.notes)
    for op in OPS:
        for node in (0, 1):
            intra = section.rows(op, "intra-node", node)
            assert intra and all(r.ranks == 2 and r.node_rank == node for r in intra)
        inter = section.rows(op, "inter-node")
        assert inter and all(r.ranks == 4 and r.node_rank is None for r in inter)
    for row in section.collectives:
        assert row.algbw_bytes_per_s == pytest.approx(row.bytes / row.time_s, rel=1e-9)
        assert row.busbw_bytes_per_s == pytest.approx(
            row.algbw_bytes_per_s * BUS_FACTOR[row.ranks][row.op], rel=1e-9
        )
    # all_gather over 4 ranks: each 8 B request holds one float per rank at least (16 B).
    assert section.rows("all_gather", "inter-node")[0].bytes == 16
    # Only rank 0 prints the tables.
    assert "across 2 nodes (4 ranks)" in outputs[0][0]
    assert "within node 1" in outputs[0][0]
    assert outputs[1][0].strip() == ""


def test_a_rank_killed_on_the_other_node_is_named_by_rank_0(tmp_path):
    port = free_port()
    args = ["--toy", "--duration", "30", "--timeout", str(TIMEOUT_S), "--phases", "collectives"]
    nodes = start_two_nodes(port, 1, [*args, "--json", str(tmp_path / "x.json")], log_dir=tmp_path)
    victim = find_rank(nodes, 1)
    wait_until_measuring(victim)
    killed_at = time.monotonic()
    victim.send_signal(signal.SIGKILL)
    outputs = [node.communicate(timeout=120) for node in nodes]
    took_s = time.monotonic() - killed_at
    assert [n.returncode for n in nodes] == [1, 1]
    assert took_s < TIMEOUT_S
    ours = [line for line in outputs[0][1].splitlines() if line.startswith("gpu-advisor bench: error:")]
    assert len(ours) == 1, outputs[0][1][-3000:]
    host = socket.gethostname()
    assert ours[0].startswith(f"gpu-advisor bench: error: rank 1 on host {host} (node 1) died or stopped")
    assert f"noticed by rank 0 on host {host} (node 0)" in ours[0]
    assert not (tmp_path / "x.json").exists()
