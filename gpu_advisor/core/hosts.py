"""The machines a tier deploys its cards in: resources/hosts.json.

A consumer desktop holds 1-2 cards on PCIe, a workstation tower up to 4, a data-center server 8 on
NVLink/NVSwitch (or PCIe), several servers joined by InfiniBand or Ethernet. An option is `machines` x
`gpus_per_machine`; tensor parallelism stays inside one machine (the node size of core.systems), and a
tier may join at most `max_machines` machines. Each machine's host (everything but the GPUs) has a
price and a power draw with their source and date.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .catalog import GpuSpec
from .files import parse_json
from .paths import resource
from .support import gpus_bought_per_machine


class HostSpec(BaseModel):
    """One kind of machine, without its GPUs."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    label: str
    deployment: str
    max_machines: int | None = Field(default=None, ge=1, description="None: as many as the job needs")
    price_usd: float = Field(ge=0, description="0: a self-contained box whose GPU price covers it")
    power_w: float = Field(ge=0)
    noise: str
    support: str
    source: str
    date: str
    # The fixed part of the machine (chassis, CPUs, memory): a machine with fewer GPUs than slots is
    # sized to them, base + (full - base) x GPUs / slots. None: only ever bought full.
    base_price_usd: float | None = Field(default=None, gt=0)
    base_power_w: float | None = Field(default=None, ge=0)
    base_source: str | None = None

    @property
    def labels(self) -> str:
        """The label in the plural: 'desktops', 'desktop boxes'."""
        return self.label + ("es" if self.label.endswith(("x", "s", "ch", "sh")) else "s")


class HostsFile(BaseModel):
    model_config = ConfigDict(extra="allow")
    hosts: dict[str, HostSpec]


@cache
def hosts() -> dict[str, HostSpec]:
    """The packaged host table by GPU form ('consumer', 'workstation', 'datacenter-sxm', ...)."""
    text = resource("hosts.json").read_text(encoding="utf-8")
    data: Any = parse_json(text, "built-in hosts.json")
    return HostsFile.model_validate(data).hosts


def host_for(gpu: GpuSpec) -> HostSpec:
    return hosts()[gpu.form]


@dataclass(frozen=True, slots=True)
class Machines:
    """How an option's GPUs sit in machines."""

    machines: int
    gpus_per_machine: int
    host: HostSpec  # sized to gpus_per_machine of `slots`
    slots: int
    last_machine_gpus: int | None = None  # the last machine's GPUs when the count does not split evenly
    board_gpus: int | None = None  # SXM/OAM: the baseboard each machine is bought with (host sized to it)

    @property
    def host_gpus(self) -> int:
        """The GPUs each machine's host is sized to: its baseboard, else the cards it carries."""
        return self.board_gpus or self.gpus_per_machine

    @property
    def sized(self) -> bool:
        """Whether each machine holds fewer GPUs than its slots (and its host is sized to them)."""
        return self.host_gpus < self.slots and self.host.base_price_usd is not None

    @property
    def multi_node(self) -> bool:
        return self.machines > 1


@cache
def sized_host(form: str, gpus: int, slots: int) -> HostSpec:
    """The host of a machine carrying `gpus` of its `slots`: its fixed part plus the share of the rest
    that its GPUs use (a 2-GPU server is not priced, nor powered, as a full 8-GPU one)."""
    host = hosts()[form]
    if gpus >= slots or host.base_price_usd is None:
        return host
    share = gpus / slots
    base_w = host.power_w if host.base_power_w is None else host.base_power_w
    return host.model_copy(
        update={
            "price_usd": host.base_price_usd + (host.price_usd - host.base_price_usd) * share,
            "power_w": base_w + (host.power_w - base_w) * share,
        }
    )


def machines_for(gpu: GpuSpec, count: int) -> Machines:
    """`count` cards in as few machines as the GPU's node holds, spread evenly (the last machine holds
    the rest when the count does not split), each machine's host sized to the cards it carries (SXM/OAM:
    to its baseboard)."""
    node = gpu.node().node_gpus
    machines = -(-count // node)
    per = -(-count // machines)
    last = count - (machines - 1) * per
    if last <= 0:  # fill whole machines instead
        per, last = node, count - (machines - 1) * node
    board = gpus_bought_per_machine(gpu.baseboard_gpus, per)  # an SXM server is sized to its baseboard
    return Machines(
        machines,
        per,
        sized_host(gpu.form, board, node),
        node,
        None if last == per else last,
        board if gpu.baseboard_gpus else None,
    )


def max_gpus_in_tier(gpu: GpuSpec) -> int | None:
    """The most cards this GPU's tier deploys (node size x the tier's machine limit); None: no limit."""
    limit = host_for(gpu).max_machines
    return None if limit is None else limit * gpu.node().node_gpus
