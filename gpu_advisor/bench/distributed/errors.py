"""How a cluster run fails: one message naming the host and the rank. No torch."""

from __future__ import annotations

from gpu_advisor.core.errors import UserInputError


class DistributedRunFailed(Exception):
    """The run ended early: a rank died or hung, the process group did not form, the launcher timed
    out. The message is one line naming the rank and host where it is known; `culprits` holds the
    ranks it blames (empty: the rank that raised it failed itself, or no other rank is to blame; None:
    the other ranks could not be asked, e.g. the store went with its node)."""

    def __init__(self, message: str, culprits: tuple[int, ...] | None = ()) -> None:
        super().__init__(message)
        self.culprits = culprits


class NotUnderLauncher(UserInputError):
    """`bench --distributed` was started without the environment torchrun gives each rank."""


def rank_label(rank: int, hostname: str, node_rank: int | None = None, nodes: int = 1) -> str:
    """'rank 1 on host gpu-07' (with the node when several launchers share one host name)."""
    text = f"rank {rank} on host {hostname}"
    return f"{text} (node {node_rank})" if node_rank is not None and nodes > 1 else text
