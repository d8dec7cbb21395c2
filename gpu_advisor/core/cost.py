"""Renting against buying: cloud cost, purchase, electricity and the break-even month."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from .catalog import GpuSpec
from .request import Assumptions


class CostEstimate(BaseModel):
    """Costs for `count` GPUs used `hours_per_month` hours a month. None where a price is unknown."""

    model_config = ConfigDict(frozen=True)
    cloud_usd_per_hour: float | None
    cloud_usd_per_month: float | None
    purchase_usd: float | None
    electricity_usd_per_month: float | None
    breakeven_months: float | None
    job_cloud_usd: float | None = None
    formula: str


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
    formula = (
        f"rent = {count} x ${gpu.cloud_usd_per_hour or 0:.2f}/GPU-h x {hours_per_month:.0f} h/month; "
        f"buy = {count} x ${gpu.purchase_usd or 0:,.0f} x (1 + {a.server_overhead:.0%} server); "
        f"power = {count} x {gpu.tdp_w or 0:.0f} W x {a.utilisation_of_tdp:.0%} x "
        f"(1 + {a.system_power_fraction:.0%} host) x PUE {a.pue:g} x ${electricity_usd_per_kwh:.2f}/kWh"
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


def cumulative_costs(cost: CostEstimate, months: int) -> tuple[list[float | None], list[float | None]]:
    """Cumulative rent and buy (purchase + electricity) at the end of months 0..months, for charts."""
    rent = [
        None if cost.cloud_usd_per_month is None else cost.cloud_usd_per_month * m for m in range(months + 1)
    ]
    buy: list[float | None] = [
        None if cost.purchase_usd is None else cost.purchase_usd + (cost.electricity_usd_per_month or 0.0) * m
        for m in range(months + 1)
    ]
    return rent, buy
