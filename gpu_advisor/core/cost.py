"""Renting against buying: cloud cost, purchase, electricity and the break-even month.

Buying prices what is deployed: the cards, and each machine's host (desktop, workstation tower or
8-GPU server, resources/hosts.json) unless the user already owns the machines.
"""

from __future__ import annotations

from .catalog import GpuSpec
from .estimates import CostEstimate
from .hosts import Machines
from .precision import Tier
from .request import Assumptions
from .units import format_usd


def host_price_usd(machines: Machines, a: Assumptions) -> float:
    return machines.host.price_usd if a.host_usd_per_machine is None else a.host_usd_per_machine


def host_power_w(machines: Machines, a: Assumptions) -> float:
    return machines.host.power_w if a.host_power_w_per_machine is None else a.host_power_w_per_machine


def cooled(gpu: GpuSpec) -> bool:
    """Whether the data centre's cooling overhead (PUE) is paid on top: for servers, not for a desktop
    under a desk or a workstation in an office (review 3 read 569 W for 2 x RTX 3060 with PUE 1.3)."""
    return gpu.tier is Tier.DATACENTER


def power_kw(gpu: GpuSpec, count: int, machines: Machines, a: Assumptions) -> float | None:
    """Wall power of the GPUs and their machines' hosts, a data centre's cooling included (PUE)."""
    if gpu.tdp_w is None:
        return None
    watts = count * gpu.tdp_w * a.utilisation_of_tdp + machines.machines * host_power_w(machines, a)
    return watts * (a.pue if cooled(gpu) else 1.0) / 1000


def estimate_cost(
    gpu: GpuSpec,
    count: int,
    machines: Machines,
    hours_per_month: float,
    electricity_usd_per_kwh: float,
    a: Assumptions,
    job_gpu_hours: float | None = None,
    own_machines: bool = False,
    gpus_bought: int | None = None,
) -> CostEstimate:
    """Rent: count x price per GPU-hour. Buy: the cards plus each machine's host, then electricity.

    SXM/OAM parts are bought on whole baseboards: `gpus_bought` cards are priced, `count` powered.

    Break-even: the month at which cumulative rent exceeds purchase + cumulative electricity.
    """
    # Clouds rent single desktops/workstations and clusters of servers, not desktops joined by Ethernet.
    rentable = gpu.tier is Tier.DATACENTER or machines.machines == 1
    hourly = None if gpu.cloud_usd_per_hour is None or not rentable else gpu.cloud_usd_per_hour * count
    monthly = None if hourly is None else hourly * hours_per_month
    hosts_usd = 0.0 if own_machines else machines.machines * host_price_usd(machines, a)
    bought = max(count, gpus_bought or count)
    purchase = None if gpu.purchase_usd is None else gpu.purchase_usd * bought + hosts_usd
    kw = power_kw(gpu, count, machines, a)
    electricity = None if kw is None else kw * hours_per_month * electricity_usd_per_kwh
    breakeven = None
    if monthly is not None and purchase is not None:
        saving = monthly - (electricity or 0.0)
        breakeven = purchase / saving if saving > 0 else None
    job = None
    if job_gpu_hours is not None and gpu.cloud_usd_per_hour is not None and rentable:
        job = job_gpu_hours * gpu.cloud_usd_per_hour

    def wording() -> dict[str, str]:
        unknown = "price unknown"
        n, host = machines.machines, machines.host.label
        h = machines.host
        sizing = (
            f" (sized to {machines.host_gpus} of {machines.slots} GPUs: {format_usd(h.base_price_usd)} "
            f"+ the rest x {machines.host_gpus}/{machines.slots})"
            if machines.sized and a.host_usd_per_machine is None
            else ""
        )
        host_text = (
            "machines already owned"
            if own_machines
            else f"{n} x {format_usd(host_price_usd(machines, a))} {host}{sizing}"
        )
        spare = f" ({bought - count} spare on the baseboards, not powered)" if bought > count else ""
        tdp = "TDP unknown" if gpu.tdp_w is None else f"{gpu.tdp_w:.0f} W"
        if not rentable:
            rent = f"rent: not offered (clouds do not rent {n} {host}s joined as one cluster)"
        elif gpu.cloud_usd_per_hour is None:  # said once, not multiplied ('2 x price unknown/GPU-h')
            rent = f"rent: {unknown} (no cloud price for this GPU in the catalogue)"
        elif job_gpu_hours is not None:  # a one-off training job: its GPU-hours, not a month's
            rent = f"rent = {job_gpu_hours:,.0f} GPU-hours of the job x {format_usd(gpu.cloud_usd_per_hour)}/GPU-h"
        else:
            rent = (
                f"rent = {count} x {format_usd(gpu.cloud_usd_per_hour)}/GPU-h x {hours_per_month:g} h/month"
            )
        buy = (
            f"buy: {unknown} (no purchase price for this GPU in the catalogue)"
            if gpu.purchase_usd is None
            else f"buy = {bought} x {format_usd(gpu.purchase_usd)}{spare} + {host_text}"
        )
        formula = (
            f"{rent}; "
            f"{buy}; "
            f"power = ({count} x {tdp} x {a.utilisation_of_tdp:.0%} + {n} x "
            f"{host_power_w(machines, a):.0f} W {host})"
            + (f" x PUE {a.pue:g}" if cooled(gpu) else "")
            + " x "
            f"{format_usd(electricity_usd_per_kwh)}/kWh"
        )
        return {"formula": formula}

    return CostEstimate.worded_later(
        wording,
        cloud_usd_per_hour=hourly,
        cloud_usd_per_month=monthly,
        purchase_usd=purchase,
        electricity_usd_per_month=electricity,
        breakeven_months=breakeven,
        job_cloud_usd=job,
        power_kw=kw,
    )
