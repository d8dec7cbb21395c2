"""Which ranks are alive: heartbeats in the run's store, barriers that notice a dead rank, and the
explanation of a failure that names the rank and host that caused it.

Every rank increments its counter in the store every HEARTBEAT_INTERVAL_S from a daemon thread. A
rank whose counter has not moved for `stale_s` is gone (killed, crashed, its machine lost) or frozen
(stopped, swapping). Waits between phases go through `barrier`, which polls the store and ends with
the name of a silent rank instead of blocking until a collective timeout; collectives themselves are
bounded by the process group's timeout.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from gpu_advisor.bench.distributed.errors import DistributedRunFailed, rank_label
from gpu_advisor.core.files import parse_json

HEARTBEAT_INTERVAL_S = 0.5
# A counter that has not moved for this long is a dead or frozen rank. Several intervals, because a
# loaded machine can delay a thread by a second or more.
DEFAULT_STALE_S = 5.0
_POLL_S = 0.02


@dataclass(frozen=True, slots=True)
class Peer:
    rank: int
    hostname: str
    node_rank: int
    pid: int


class Liveness:
    """Heartbeats and failure records of every rank in one run's store."""

    def __init__(
        self, store: Any, rank: int, world_size: int, me: Peer, *, stale_s: float = DEFAULT_STALE_S
    ) -> None:
        self.store = store
        self.rank = rank
        self.world_size = world_size
        self.me = me
        self.stale_s = stale_s
        self.nodes = 1
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # the store client is shared with the heartbeat thread
        self._peers: dict[int, Peer] = {}
        self._barriers = 0  # every rank passes the same barriers in the same order: keys match

    # ---- heartbeats ----------------------------------------------------------------------------
    def start(self) -> None:
        """Register this rank (host, pid) and start beating."""
        with self._lock:
            self.store.set(f"who/{self.rank}", json.dumps(_peer_dict(self.me)))
            self.store.add(f"hb/{self.rank}", 1)
        self._thread = threading.Thread(target=self._beat, name="gpu-advisor-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2 * HEARTBEAT_INTERVAL_S)

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_INTERVAL_S):
            try:
                with self._lock:
                    self.store.add(f"hb/{self.rank}", 1)
            except Exception:  # the store is gone: the main thread finds out and explains
                return

    def _counters(self) -> dict[int, int]:
        with self._lock:
            return {r: int(self.store.add(f"hb/{r}", 0)) for r in range(self.world_size)}

    def peer(self, rank: int) -> Peer:
        """Host and pid of a rank (from its registration; 'unknown host' if it never registered)."""
        if rank not in self._peers:
            try:
                with self._lock:
                    raw = self.store.get(f"who/{rank}") if self.store.check([f"who/{rank}"]) else None
                who = (
                    parse_json(bytes(raw).decode("utf-8", errors="replace"), f"rank {rank}") if raw else None
                )
                self._peers[rank] = Peer(**who) if who else Peer(rank, "unknown host", -1, -1)
            except Exception:
                return Peer(rank, "unknown host", -1, -1)
        return self._peers[rank]

    def label(self, rank: int) -> str:
        p = self.peer(rank)
        return rank_label(rank, p.hostname, p.node_rank if p.node_rank >= 0 else None, self.nodes)

    # ---- failure records -----------------------------------------------------------------------
    def record_failure(self, message: str) -> None:
        """Leave this rank's own explanation where the others (and the launcher) can read it."""
        try:
            with self._lock:
                self.store.set(f"failed/{self.rank}", message)
        except Exception:
            pass

    def failures(self) -> dict[int, str]:
        """Messages other ranks recorded about their own failure."""
        found: dict[int, str] = {}
        try:
            with self._lock:
                for r in range(self.world_size):
                    if r != self.rank and self.store.check([f"failed/{r}"]):
                        found[r] = self.store.get(f"failed/{r}").decode(errors="replace")
        except Exception:
            pass
        return found

    def silent_ranks(self, watch_s: float | None = None) -> list[int]:
        """Ranks whose heartbeat does not move over `watch_s` (default: the stale limit)."""
        watch_s = self.stale_s if watch_s is None else watch_s
        first = self._counters()
        time.sleep(watch_s)
        second = self._counters()
        return [r for r in range(self.world_size) if r != self.rank and second[r] == first[r]]

    # ---- barriers -------------------------------------------------------------------------------
    def barrier(self, name: str, timeout_s: float) -> None:
        """Wait until every rank reached this barrier (`name` says where, for messages).

        Raises DistributedRunFailed naming a rank that stopped beating, or after `timeout_s` saying how
        many arrived (the others are alive but stuck).
        """
        ranks = list(range(self.world_size))
        self._barriers += 1
        key = f"barrier/{self._barriers}"
        with self._lock:
            self.store.add(key, 1)
        deadline = time.monotonic() + timeout_s
        last_counts = self._counters()
        last_move = {r: time.monotonic() for r in ranks}
        while True:
            with self._lock:
                arrived = int(self.store.add(key, 0))
            if arrived >= len(ranks):
                return
            now = time.monotonic()
            counts = self._counters()
            for r in ranks:
                if counts[r] != last_counts[r]:
                    last_move[r] = now
            last_counts = counts
            dead = [r for r in ranks if r != self.rank and now - last_move[r] > self.stale_s]
            if dead:
                raise DistributedRunFailed(self.describe_lost(dead, f"the wait for {name}"), tuple(dead))
            if now > deadline:
                raise DistributedRunFailed(
                    f"{self.label(self.rank)}: waited {timeout_s:g} s at {name} for the other ranks "
                    f"({arrived} of {len(ranks)} arrived); a rank is alive but stuck"
                )
            time.sleep(max(_POLL_S, min(0.25, timeout_s / 100)))

    def describe_lost(self, ranks: list[int], during: str) -> str:
        """'rank 1 on host h stopped responding (no heartbeat for 5 s) while rank 0 on host h was ...'"""
        failures = self.failures()
        parts = []
        for r in ranks:
            if r in failures:
                parts.append(failures[r])
            else:
                parts.append(f"{self.label(r)} died or stopped responding (its heartbeat stopped)")
        return f"{'; '.join(parts)}; noticed by {self.label(self.rank)} during {during}"


def _peer_dict(peer: Peer) -> dict[str, Any]:
    return {"rank": peer.rank, "hostname": peer.hostname, "node_rank": peer.node_rank, "pid": peer.pid}
