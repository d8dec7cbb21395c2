"""Rent or buy across every option: the cheapest rental against the cheapest purchase.

For use every month (serving, or training without a token budget) the cheapest rental at the user's
hours per month meets the cheapest purchase over the ownership life (purchase + electricity); buying
wins when it breaks even within that life. For a one-off training job the job's rent meets the
purchase plus the electricity the job uses. The two sides may be different GPUs; the recommended
option is the side the plan ranks by, so the verdict weighs the answer shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from .estimates import OWNERSHIP_MONTHS
from .result import Option, Verdict, VerdictSide
from .units import format_months, format_usd


def _rented(option: Option) -> str:
    """'2 × AMD Instinct MI300X' (one cloud instance), or '16 × NVIDIA H100 SXM in 2 cloud 8-GPU servers'."""
    cards = f"{option.count} × {option.gpu}"
    return cards if option.machines == 1 else f"{cards} in {option.machines} cloud {option.host.labels}"


def _bought(option: Option) -> str:
    """What buying takes: '4 × NVIDIA H200 SXM on one 4-GPU baseboard (2 used)' for SXM/OAM parts,
    '2 × NVIDIA GeForce RTX 5090 in one desktop' for cards."""
    bought = option.gpus_bought or option.count
    machines = "one" if option.machines == 1 else str(option.machines)
    if option.board_gpus or bought > option.count:
        board = option.board_gpus or bought // option.machines
        boards = "baseboard" if option.machines == 1 else "baseboards"
        used = f" ({option.count} used)" if bought > option.count else ""
        return f"{bought} × {option.gpu} on {machines} {board}-GPU {boards}{used}"
    cards = f"{option.count} × {option.gpu}"
    if option.machines == 1 and option.gpus_per_machine == 1:
        return cards
    plural = "" if option.machines == 1 else "s"
    return f"{cards} in {machines} {option.host.label}{plural}"


def _job_hours(option: Option) -> float | None:
    speed = option.training
    return None if speed is None or speed.time_to_train_s is None else speed.time_to_train_s / 3600


def verdict(
    options: Sequence[Option],
    hours_per_month: float,
    answer: Option | None = None,
    buying: bool = False,
) -> Verdict:
    """The rent-or-buy headline over the options that fit and meet the target. The recommended
    `answer` is the side the plan ranks by (its purchase when `buying`, else its rental) where it has
    that price, so the verdict always weighs the answer shown against the best of the other side."""
    usable = [o for o in options if o.fits and o.meets_target]
    job = bool(usable) and all(_job_hours(o) is not None for o in usable)
    basis = "job" if job else "monthly"

    def rent_cost(o: Option) -> float | None:
        return o.cost.job_cloud_usd if job else o.cost.cloud_usd_per_month

    def job_power_usd(o: Option) -> float:
        hours = _job_hours(o) or 0.0
        return (o.cost.electricity_usd_per_month or 0.0) / hours_per_month * hours

    def buy_cost(o: Option) -> float | None:
        if o.cost.purchase_usd is None:
            return None
        running = job_power_usd(o) if job else (o.cost.electricity_usd_per_month or 0.0) * OWNERSHIP_MONTHS
        return o.cost.purchase_usd + running

    renting = [o for o in usable if rent_cost(o) is not None]
    bought = [o for o in usable if buy_cost(o) is not None]
    rent = min(renting, key=lambda o: (rent_cost(o), o.count), default=None)
    buy = min(bought, key=lambda o: (buy_cost(o), o.count), default=None)
    if answer is not None and buying and any(o is answer for o in bought):
        buy = answer
    elif answer is not None and not buying and any(o is answer for o in renting):
        rent = answer
    rent_side = None if rent is None else _side(rent, rent_cost(rent), rent.cost.cloud_usd_per_month, job)
    buy_side = None
    if buy is not None:
        assert buy.cost.purchase_usd is not None
        buy_side = _side(
            buy,
            buy.cost.purchase_usd,
            buy.cost.electricity_usd_per_month,
            job,
            job_power_usd(buy) if job else None,
        )
    breakeven = None
    if rent is not None and buy is not None and not job:
        saving = (rent.cost.cloud_usd_per_month or 0.0) - (buy.cost.electricity_usd_per_month or 0.0)
        breakeven = buy.cost.purchase_usd / saving if saving > 0 else None  # type: ignore[operator]
    choice, reason = _decide(rent, buy, rent_side, buy_side, breakeven, job, hours_per_month, buy_cost)
    return Verdict(
        choice=choice, basis=basis, rent=rent_side, buy=buy_side, breakeven_months=breakeven, reason=reason
    )


def _side(
    option: Option, cost: float | None, per_month: float | None, job: bool, job_power: float | None = None
):
    assert cost is not None
    return VerdictSide(
        gpu=option.gpu,
        gpu_id=option.gpu_id,
        count=option.count,
        machines=option.machines,
        gpus_per_machine=option.gpus_per_machine,
        gpus_bought=option.gpus_bought or option.count,
        machine=option.host.label,
        cost_usd=cost,
        usd_per_month=per_month,
        job_usd=(option.cost.job_cloud_usd if job_power is None else job_power) if job else None,
    )


def _decide(rent, buy, rent_side, buy_side, breakeven, job, hours_per_month, buy_cost):
    """(choice, one sentence): which side wins, naming both options and their costs."""
    if rent is None and buy is None:
        return None, "No option that fits has a cloud or purchase price in the catalogue (price unknown)."
    rent_text = (
        None
        if rent is None
        else f"{_rented(rent)} "
        + (
            f"for this job at {format_usd(rent_side.cost_usd)}"
            if job
            else f"at {format_usd(rent_side.cost_usd)}/month ({hours_per_month:g} h)"
        )
    )
    buy_text = None if buy is None else f"{_bought(buy)} for {format_usd(buy_side.cost_usd)}"
    if buy is None:
        return "rent", f"Rent {rent_text}: no option that fits has a purchase price."
    if rent is None:
        return "buy", f"Buy {buy_text}: no option that fits has a cloud price."
    rent_first = f"Rent {rent_text} rather than buy {buy_text}"
    buy_first = f"Buy {buy_text} rather than rent {rent_text}"
    if job:
        if rent_side.cost_usd <= buy_cost(buy):
            return "rent", f"{rent_first}: renting the job costs less than buying the hardware."
        return "buy", f"{buy_first}: the job's rent is more than the purchase and its electricity."
    if breakeven is None:
        return (
            "rent",
            f"{rent_first}: the purchase's electricity costs more than the rent; buying never pays off.",
        )
    if breakeven <= OWNERSHIP_MONTHS:
        return "buy", f"{buy_first}: buying wins after {format_months(breakeven)}."
    return (
        "rent",
        f"{rent_first}: buying would win only after {format_months(breakeven)}, beyond the "
        f"{OWNERSHIP_MONTHS}-month life assumed.",
    )
