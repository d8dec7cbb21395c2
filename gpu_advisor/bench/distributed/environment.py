"""Where this rank stands: the environment torchrun gives it, its device, and the process group.

torchrun (torch.distributed.run) sets, for every worker: RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE, GROUP_RANK (the node's rank), MASTER_ADDR/MASTER_PORT (the rendezvous store; with
TORCHELASTIC_USE_AGENT_STORE=True it is hosted by the launcher of node 0, not by rank 0) and
TORCHELASTIC_RUN_ID. The same variables set by hand (or by a scheduler) work too: then rank 0 hosts
the store. No torch at import time; `init_process_group` imports it.
"""

from __future__ import annotations

import datetime
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_advisor.bench.distributed.errors import DistributedRunFailed, NotUnderLauncher, rank_label

_REQUIRED = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


@dataclass(frozen=True, slots=True)
class RankEnv:
    """This process's place in the run."""

    rank: int
    world_size: int
    local_rank: int
    local_world_size: int
    node_rank: int
    nodes: int  # launchers (torchrun's GROUP_WORLD_SIZE), known before the ranks have met
    master_addr: str
    master_port: int
    agent_store: bool  # the launcher hosts the store (torchrun), rather than rank 0
    run_id: str
    hostname: str

    @classmethod
    def from_environ(cls, env: Mapping[str, str] | None = None) -> RankEnv:
        """Read the launcher's variables; NotUnderLauncher says how to start the run otherwise."""
        env = os.environ if env is None else env
        missing = [k for k in _REQUIRED if not env.get(k)]
        if missing:
            raise NotUnderLauncher(
                f"--distributed: {', '.join(missing)} not set: start it under torchrun, e.g. "
                "torchrun --nproc-per-node=2 -m gpu_advisor bench --distributed, or use --nproc N"
            )
        try:
            rank, world = int(env["RANK"]), int(env["WORLD_SIZE"])
            local_rank = int(env.get("LOCAL_RANK", rank))
            local_world = int(env.get("LOCAL_WORLD_SIZE", world))
            node_rank = int(env.get("GROUP_RANK", env.get("NODE_RANK", 0)))
            # Without GROUP_WORLD_SIZE, equal ranks per node (torchrun's --nproc-per-node) give the count.
            nodes = int(env.get("GROUP_WORLD_SIZE", -(-world // max(1, local_world))))
            port = int(env["MASTER_PORT"])
        except ValueError as exc:
            raise NotUnderLauncher(f"--distributed: a launcher variable is not a number ({exc})") from None
        return cls(
            rank=rank,
            world_size=world,
            local_rank=local_rank,
            local_world_size=local_world,
            node_rank=node_rank,
            nodes=nodes,
            master_addr=env["MASTER_ADDR"],
            master_port=port,
            agent_store=env.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true",
            run_id=env.get("TORCHELASTIC_RUN_ID", "none"),
            hostname=socket.gethostname(),
        )

    def label(self) -> str:
        return rank_label(self.rank, self.hostname, self.node_rank, self.nodes)


def choose_device(device: str, env: RankEnv) -> tuple[Any, str, list[str]]:
    """(torch.device, backend, notes): one GPU per local rank with NCCL, or the CPU with gloo."""
    import torch

    notes: list[str] = []
    cuda = torch.cuda.is_available()
    if device == "cuda" and not cuda:
        why = "this PyTorch has no CUDA support" if torch.version.cuda is None else "no CUDA device"
        raise DistributedRunFailed(f"{env.label()}: --device cuda: {why}; use --device cpu")
    if device == "cpu" or not cuda:
        if device == "auto":
            notes.append("No CUDA GPU on this machine: every rank ran on the CPU with the gloo backend.")
        else:
            notes.append("CPU ranks with the gloo backend (asked with --device cpu).")
        return torch.device("cpu"), "gloo", notes
    count = torch.cuda.device_count()
    if env.local_rank >= count:
        raise DistributedRunFailed(
            f"{env.label()}: local rank {env.local_rank} has no GPU of its own ({count} visible); "
            f"start at most {count} processes per node"
        )
    torch.cuda.set_device(env.local_rank)
    return torch.device("cuda", env.local_rank), "nccl", notes


def init_process_group(env: RankEnv, backend: str, device: Any, timeout_s: float) -> None:
    """Form the process group over the launcher's store, every collective bounded by `timeout_s`."""
    import torch.distributed as dist

    timeout = datetime.timedelta(seconds=timeout_s)
    kwargs: dict[str, Any] = {"backend": backend, "timeout": timeout}
    if backend == "nccl":
        kwargs["device_id"] = device  # binds the communicator to this rank's GPU at once
    try:
        dist.init_process_group(**kwargs)
    except Exception as exc:
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DistributedRunFailed(
            f"{env.label()}: the process group did not form within {timeout_s:g} s ({text}); "
            f"check that every node was started with the same rendezvous endpoint "
            f"{env.master_addr}:{env.master_port} and can reach it",
            culprits=None,  # no other rank to ask: every rank says it for itself
        ) from None


def store_client(env: RankEnv, timeout_s: float) -> Any:
    """A second connection to the run's store, for heartbeats and barriers that must not queue behind
    a collective (the store itself is the launcher's, or rank 0's)."""
    import torch.distributed as dist

    store = dist.TCPStore(
        env.master_addr,
        env.master_port,
        is_master=False,
        timeout=datetime.timedelta(seconds=timeout_s),
        wait_for_workers=False,
    )
    return dist.PrefixStore(f"gpu-advisor/{env.run_id}", store)
