"""Where a rank stands: torchrun's variables, the device and backend it picks, and the NCCL branch
(checked here with CUDA faked at the hardware boundary: these machines have no GPU)."""

from __future__ import annotations

import pytest

from gpu_advisor.bench.distributed.environment import RankEnv, choose_device, init_process_group
from gpu_advisor.bench.distributed.errors import DistributedRunFailed, NotUnderLauncher

torch = pytest.importorskip("torch")

TORCHRUN = {
    "RANK": "3",
    "WORLD_SIZE": "8",
    "LOCAL_RANK": "1",
    "LOCAL_WORLD_SIZE": "2",
    "GROUP_RANK": "1",
    "MASTER_ADDR": "node0",
    "MASTER_PORT": "29500",
    "TORCHELASTIC_USE_AGENT_STORE": "True",
    "TORCHELASTIC_RUN_ID": "job-7",
}


def test_torchruns_variables_place_the_rank():
    env = RankEnv.from_environ(TORCHRUN)
    assert (env.rank, env.world_size, env.local_rank, env.local_world_size, env.node_rank) == (3, 8, 1, 2, 1)
    assert (env.master_addr, env.master_port, env.agent_store, env.run_id) == ("node0", 29500, True, "job-7")
    # 8 ranks, 2 per node: 4 nodes, known before the ranks meet, so a failure at start-up names the node.
    assert env.nodes == 4
    assert env.label() == f"rank 3 on host {env.hostname} (node 1)"
    assert RankEnv.from_environ({**TORCHRUN, "GROUP_WORLD_SIZE": "5"}).nodes == 5


def test_one_node_needs_no_node_in_the_label():
    env = RankEnv.from_environ({**TORCHRUN, "LOCAL_WORLD_SIZE": "8", "GROUP_RANK": "0"})
    assert env.label() == f"rank 3 on host {env.hostname}"


def test_a_bad_variable_is_named():
    with pytest.raises(NotUnderLauncher, match="a launcher variable is not a number"):
        RankEnv.from_environ({**TORCHRUN, "WORLD_SIZE": "eight"})


def test_no_gpu_means_gloo_on_the_cpu_and_the_run_says_so():
    device, backend, notes = choose_device("auto", RankEnv.from_environ(TORCHRUN))
    assert (device.type, backend) == ("cpu", "gloo")
    assert notes == ["No CUDA GPU on this machine: every rank ran on the CPU with the gloo backend."]


def test_asking_for_cuda_without_one_names_the_rank_and_the_fix():
    env = RankEnv.from_environ(TORCHRUN)
    with pytest.raises(
        DistributedRunFailed, match=r"^rank 3 on host .*: --device cuda: .*; use --device cpu$"
    ):
        choose_device("cuda", env)


def test_each_rank_takes_the_gpu_of_its_local_rank(monkeypatch):
    chosen = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "set_device", chosen.append)
    device, backend, notes = choose_device("auto", RankEnv.from_environ(TORCHRUN))
    assert (str(device), backend, notes) == ("cuda:1", "nccl", [])
    assert chosen == [1]


def test_more_ranks_than_gpus_on_a_node_is_refused_with_the_count(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(DistributedRunFailed, match="local rank 1 has no GPU of its own \\(1 visible\\)"):
        choose_device("cuda", RankEnv.from_environ(TORCHRUN))


def test_nccl_binds_the_communicator_to_the_ranks_gpu_and_bounds_it(monkeypatch):
    seen = {}
    monkeypatch.setattr(torch.distributed, "init_process_group", lambda **kwargs: seen.update(kwargs))
    init_process_group(RankEnv.from_environ(TORCHRUN), "nccl", torch.device("cuda", 1), 45)
    assert seen["backend"] == "nccl" and seen["device_id"] == torch.device("cuda", 1)
    assert seen["timeout"].total_seconds() == 45
