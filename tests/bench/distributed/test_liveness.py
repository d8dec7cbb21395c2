"""Heartbeats in a real TCPStore: a barrier names a rank that went silent instead of waiting forever."""

from __future__ import annotations

import datetime
import time

import pytest

from gpu_advisor.bench.distributed.errors import DistributedRunFailed
from gpu_advisor.bench.distributed.liveness import Liveness, Peer
from tests.bench.distributed.helpers import free_port

torch_dist = pytest.importorskip("torch.distributed")


@pytest.fixture
def store():
    server = torch_dist.TCPStore(
        "127.0.0.1",
        free_port(),
        is_master=True,
        timeout=datetime.timedelta(seconds=5),
        wait_for_workers=False,
    )
    return torch_dist.PrefixStore("test", server)


def _register(store, rank: int, host: str, node: int) -> Liveness:
    liveness = Liveness(store, rank, 2, Peer(rank, host, node, 1000 + rank), stale_s=1.0)
    liveness.nodes = 2
    return liveness


def test_a_barrier_names_the_rank_that_stopped_beating(store):
    me = _register(store, 0, "gpu-01", 0)
    other = _register(store, 1, "gpu-02", 1)
    other.start()
    other.stop()  # registered, beat once, then went silent (a killed process)
    me.start()
    began = time.monotonic()
    try:
        with pytest.raises(DistributedRunFailed) as caught:
            me.barrier("the end of the run", timeout_s=30)
    finally:
        me.stop()
    assert time.monotonic() - began < 5  # the stale limit (1 s) and a poll, not the 30 s timeout
    assert str(caught.value) == (
        "rank 1 on host gpu-02 (node 1) died or stopped responding (its heartbeat stopped); "
        "noticed by rank 0 on host gpu-01 (node 0) during the wait for the end of the run"
    )
    assert caught.value.culprits == (1,)


def test_a_rank_that_recorded_its_own_failure_is_quoted(store):
    me = _register(store, 0, "gpu-01", 0)
    other = _register(store, 1, "gpu-02", 1)
    other.start()
    other.record_failure("rank 1 on host gpu-02 (node 1): CUDA out of memory")
    other.stop()
    me.start()
    try:
        with pytest.raises(
            DistributedRunFailed, match=r"^rank 1 on host gpu-02 \(node 1\): CUDA out of memory; "
        ):
            me.barrier("point-to-point 0->1", timeout_s=30)
    finally:
        me.stop()


def test_a_barrier_passes_when_every_rank_arrives(store):
    import threading

    ranks = [_register(store, r, f"gpu-0{r}", r) for r in (0, 1)]
    for liveness in ranks:
        liveness.start()
    helper = threading.Thread(target=ranks[1].barrier, args=("phase", 10))
    helper.start()
    ranks[0].barrier("phase", 10)
    helper.join(10)
    for liveness in ranks:
        liveness.stop()
    assert not helper.is_alive()
