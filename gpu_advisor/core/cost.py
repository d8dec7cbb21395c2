"""Renting against buying: cloud cost, purchase, electricity and the break-even month."""

from __future__ import annotations

from .catalog import GpuSpec
from .estimates import CostEstimate
from .request import Assumptions
from .units import format_usd


def power_kw(gpu: GpuSpec, count: int, a: Assumptions) -> float | None:
    """Wall power of the GPUs and their share of the host, cooling included (PUE)."""
    if gpu.tdp_w is None:
        return None
    return count * gpu.tdp_w * a.utilisation_of_tdp * (1 + a.system_power_fraction) * a.pue / 1000


def estimate_cost(
    gpu: GpuSpec,
    count: int,
    hours_per_month: float,
    electricity_usd_per_kwh: float,
    a: Assumptions,
    job_gpu_hours: float | None = None,
) -> CostEstimate:
    """Rent: count x price per GPU-hour. Buy: GPUs x (1 + server overhead), plus electricity.

    Break-even: the month at which cumulative rent exceeds purchase + cumulative electricity.
    """
    hourly = None if gpu.cloud_usd_per_hour is None else gpu.cloud_usd_per_hour * count
    monthly = None if hourly is None else hourly * hours_per_month
    purchase = None if gpu.purchase_usd is None else gpu.purchase_usd * count * (1 + a.server_overhead)
    kw = power_kw(gpu, count, a)
    electricity = None if kw is None else kw * hours_per_month * electricity_usd_per_kwh
    breakeven = None
    if monthly is not None and purchase is not None:
        saving = monthly - (electricity or 0.0)
        breakeven = purchase / saving if saving > 0 else None
    job = None
    if job_gpu_hours is not None and gpu.cloud_usd_per_hour is not None:
        job = job_gpu_hours * gpu.cloud_usd_per_hour
    unknown = "price unknown"
    tdp = "TDP unknown" if gpu.tdp_w is None else f"{gpu.tdp_w:.0f} W"
    formula = (
        f"rent = {count} x {format_usd(gpu.cloud_usd_per_hour, unknown)}/GPU-h x {hours_per_month:g} h/month; "
        f"buy = {count} x {format_usd(gpu.purchase_usd, unknown)} x (1 + {a.server_overhead:.0%} server); "
        f"power = {count} x {tdp} x {a.utilisation_of_tdp:.0%} x "
        f"(1 + {a.system_power_fraction:.0%} host) x PUE {a.pue:g} x {format_usd(electricity_usd_per_kwh)}/kWh"
    )
    return CostEstimate(
        cloud_usd_per_hour=hourly,
        cloud_usd_per_month=monthly,
        purchase_usd=purchase,
        electricity_usd_per_month=electricity,
        breakeven_months=breakeven,
        job_cloud_usd=job,
        formula=formula,
    )
