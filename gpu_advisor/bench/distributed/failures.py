"""Turning what went wrong into one line: a backend's exception text, torchrun's failure summary. No torch."""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass

# gloo prefixes its messages with the C++ source location and ends them with advice and an emoji.
_SOURCE_PREFIX = re.compile(r"^\s*\[[^\]]*\.(?:cc|cpp|h|hpp):\d+\]\s*")
_ADVICE = re.compile(r"\s*(This is typically caused by|Check the logs of the remote worker).*$", re.S)


def backend_text(exc: BaseException) -> str:
    """The useful first line of a torch.distributed / gloo / NCCL error."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = _SOURCE_PREFIX.sub("", text)
    return _ADVICE.sub("", text).rstrip(". ") or type(exc).__name__


def what_happened(exc: BaseException, timeout_s: float) -> str:
    """A short cause in words: lost connection, timeout, or the backend's own text."""
    text = backend_text(exc)
    lower = text.lower()
    if "timed out" in lower or "timeout" in lower:
        return f"a collective did not complete within the {timeout_s:g} s timeout ({text})"
    if any(
        k in lower
        for k in ("connection reset", "connection closed", "broken pipe", "read error", "connection refused")
    ):
        return f"the connection to another rank broke ({text})"
    return text


@dataclass(frozen=True, slots=True)
class LauncherFailure:
    """torchrun's root cause: which rank ended, where, and how."""

    rank: int
    local_rank: int | None
    host: str | None
    exitcode: int | None
    signal_name: str | None

    def describe(self, hostname: str | None = None) -> str:
        host = hostname or self.host or "unknown host"
        if self.signal_name:
            how = f"was killed by {self.signal_name}"
        elif self.exitcode is not None:
            how = f"exited with code {self.exitcode}"
        else:
            how = "ended"
        return f"rank {self.rank} on host {host} {how}"


_ROOT_CAUSE = re.compile(r"Root Cause \(first observed failure\):(?P<body>.*?)(?:={10,}|\Z)", re.S)
_FIELD = {
    "host": re.compile(r"^\s*host\s*:\s*(\S+)", re.M),
    "rank": re.compile(r"^\s*rank\s*:\s*(\d+)(?:\s*\(local_rank:\s*(\d+)\))?", re.M),
    "exitcode": re.compile(r"^\s*exitcode\s*:\s*(-?\d+)", re.M),
}


def parse_torchrun_root_cause(log: str) -> LauncherFailure | None:
    """The 'Root Cause (first observed failure)' block torchrun prints when a worker fails."""
    match = _ROOT_CAUSE.search(log)
    if not match:
        return None
    body = match.group("body")
    rank = _FIELD["rank"].search(body)
    if not rank:
        return None
    host = _FIELD["host"].search(body)
    code = _FIELD["exitcode"].search(body)
    exitcode = int(code.group(1)) if code else None
    signal_name = None
    if exitcode is not None and exitcode < 0:
        try:
            signal_name = signal.Signals(-exitcode).name
        except ValueError:
            signal_name = f"signal {-exitcode}"
    return LauncherFailure(
        rank=int(rank.group(1)),
        local_rank=int(rank.group(2)) if rank.group(2) else None,
        host=host.group(1) if host else None,
        exitcode=exitcode,
        signal_name=signal_name,
    )


def rendezvous_failure(log: str) -> str | None:
    """torchrun's words when the nodes never met."""
    if "RendezvousTimeoutError" in log or "RendezvousClosedError" in log:
        return "the nodes did not all join the rendezvous in time (torchrun's --rdzv-conf join_timeout)"
    match = re.search(r"DistStoreError: (Timed out after .*? clients joined\.)", log)
    return f"the nodes did not all join the rendezvous: {match.group(1)}" if match else None
