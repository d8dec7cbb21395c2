"""One answer per screen: the rental and the purchase the rent-or-buy verdict compares.

The verdict (core/verdict.py) weighs the cheapest rental against the cheapest purchase, which may be
different GPUs. The headline, the verdict sentence, the cost chart and the report's first page all
read this pair, so a screen never names one GPU in its headline and compares another in its chart.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.core.estimates import OWNERSHIP_MONTHS
from gpu_advisor.core.result import Option, Plan
from gpu_advisor.core.units import format_usd


@dataclass(frozen=True)
class AnswerPair:
    """The rental and the purchase of the verdict (None: no option that fits has that price), with
    the months after which buying breaks even (None: never, a missing side, or a one-off job)."""

    rent: Option | None
    buy: Option | None
    breakeven_months: float | None
    job: bool

    @property
    def crosses(self) -> bool:
        """Whether the best rental and the best purchase are different GPUs (or counts)."""
        if self.rent is None or self.buy is None:
            return False
        return (self.rent.gpu_id, self.rent.count) != (self.buy.gpu_id, self.buy.count)


def _option(plan: Plan, gpu_id: str | None) -> Option | None:
    return next((o for o in plan.options if gpu_id and o.gpu_id == gpu_id), None)


def answer_pair(plan: Plan) -> AnswerPair:
    """The verdict's pair, or the recommended option on both sides when the verdict has no price."""
    v, best = plan.verdict, plan.best
    if v is None or (v.rent is None and v.buy is None):
        has_rent = best is not None and best.cost.cloud_usd_per_month is not None
        has_buy = best is not None and best.cost.purchase_usd is not None
        return AnswerPair(
            rent=best if has_rent else None,
            buy=best if has_buy else None,
            breakeven_months=None if best is None else best.cost.breakeven_months,
            job=False,
        )
    return AnswerPair(
        rent=None if v.rent is None else _option(plan, v.rent.gpu_id),
        buy=None if v.buy is None else _option(plan, v.buy.gpu_id),
        breakeven_months=v.breakeven_months,
        job=v.basis == "job",
    )


def cards(option: Option) -> str:
    """'2 × AMD Instinct MI300X'; a purchase of whole baseboards says what is bought."""
    return f"{option.count} × {option.gpu}"


def _bought(option: Option) -> str:
    bought = option.gpus_bought or option.count
    return cards(option) if bought == option.count else f"{cards(option)} (buy {bought})"


def breakeven_phrase(pair: AnswerPair) -> str:
    """'break-even 29.6 of 36 months', 'break-even 52.8 months, past the 36-month life', 'never
    breaks even', or for a one-off job what buying the hardware costs."""
    if pair.job:
        assert pair.buy is not None
        return f"{format_usd(pair.buy.cost.purchase_usd)} for the hardware"
    be = pair.breakeven_months
    if be is None:
        return "never breaks even"
    if be <= OWNERSHIP_MONTHS:
        return f"break-even {be:,.1f} of {OWNERSHIP_MONTHS} months"
    return f"break-even {be:,.1f} months, past the {OWNERSHIP_MONTHS}-month life"


def pair_headline(pair: AnswerPair, buying: bool) -> str:
    """Both answers when they are different GPUs, the side the user ranks by first:
    'Rent: 2 × AMD Instinct MI300X; to buy: 4 × NVIDIA H100 SXM, break-even 52.8 months, past the
    36-month life'."""
    assert pair.rent is not None and pair.buy is not None
    rent, buy = cards(pair.rent), _bought(pair.buy)
    when = breakeven_phrase(pair)
    if buying:
        return f"Buy: {buy}, {when}; to rent: {rent}"
    return f"Rent: {rent}; to buy: {buy}, {when}"


def pair_chart_message(pair: AnswerPair) -> str:
    """What the cost chart of the pair shows, in the verdict's terms."""
    if pair.rent is None or pair.buy is None:
        return "Only one of the rent and purchase prices is known for the options that fit."
    rent, buy = cards(pair.rent), _bought(pair.buy)
    same = not pair.crosses
    what = f"Buying {buy}" if same else f"Buying {buy} against renting {rent}"
    be = pair.breakeven_months
    if be is None:
        return f"{what}: buying never breaks even, its electricity costs more than the rent."
    if be <= OWNERSHIP_MONTHS:
        return f"{what}: buying breaks even after {be:,.1f} months of use."
    return (
        f"{what}: buying would break even only after {be:,.1f} months, past the "
        f"{OWNERSHIP_MONTHS}-month life assumed."
    )
