"""The order of a plan's options: quality first, then the user's price; a missing price breaks ties and
never puts a far worse priced option ahead.

The rule, in order:
1. Options that fit come before those that do not, those that meet the target before those that miss it,
   and training options at a sound utilisation (MFU of 10 % or more) before those flagged for low
   utilisation, priced or not: a cheap hour of GPUs that mostly wait is not the better answer.
2. Within each of those classes, priced options are ordered by the user's ranking (the rent, the job's
   rent, or the purchase plus power over the ownership months), then by GPU count. A training price
   that does not grow with the work (rent per hour without a token budget, or a purchase) is divided
   by the option's throughput first: the price of a token trained. Two 5070 Tis for $3,498 and one
   5090 for $3,599 are then compared on what each trains for its money, not on the $101 alone.
3. An option without a price is given no estimated one. It goes just ahead of the first priced option of
   its own tier that it beats on hardware outright: fewer machines, no more GPUs and at least the
   throughput. The priced option then joins more boxes over a network to do less work, which costs a
   whole extra machine to own or is not rented at all. Fewer GPUs alone, or a faster card alone, says
   nothing about price (one B200 against two L4s), so no comparison is made there, nor across tiers.
4. An unpriced option that beats no priced one follows all the priced options of its class, by GPU
   count, machine count, then throughput.

The answer shows "price unknown" for such an option (wording/plan.py), and a warning says when the
recommendation itself carries no price and which priced option it was ranked ahead of.
"""

from __future__ import annotations

from collections.abc import Sequence

from .request import PlanRequest, Purchase
from .result import Option

LOW_MFU = 0.10  # below this a training option spends most of its step off the tensor cores

RANKING_RULE = (
    "fitting, meeting the target and (training) an MFU of at least 10% first; then by the user's price "
    "(rent, or purchase + power over the ownership months), for training per token/s of throughput "
    "unless the rent is the whole job's; an option with no price is estimated none "
    "and goes just ahead of the first priced option of its own tier that needs more machines and at "
    "least as many GPUs for no more throughput, otherwise after the priced ones, by GPU count"
)


def low_utilisation(option: Option) -> bool:
    """A training option whose MFU is under LOW_MFU (it carries a warning in its note)."""
    training = option.training
    return training is not None and training.mfu is not None and training.mfu < LOW_MFU


def ranks_per_token(req: PlanRequest) -> bool:
    """Whether the user's price buys time rather than the job: a training request bought, or rented
    without a token budget (the job's rent already grows with the time it takes)."""
    return req.task.is_training and (req.purchase is Purchase.BUY or req.train_tokens is None)


def _price_key(option: Option, per_token: bool) -> float:
    assert option.rank_usd is not None
    tokens_per_s = option.speed.tokens_per_s
    if per_token and option.training is not None and tokens_per_s > 0:
        return option.rank_usd / tokens_per_s
    return option.rank_usd


def _quality(option: Option) -> tuple[bool, bool, bool]:
    return (not option.fits, not option.meets_target, low_utilisation(option))


def _unpriced_key(option: Option) -> tuple:
    return (option.count, option.machines, -option.speed.tokens_per_s, -option.gpu_memory_bytes)


def beats_outright(a: Option, b: Option) -> bool:
    """Whether `a` needs fewer machines and no more GPUs than `b` for at least its throughput, in the
    same tier: then `a` costs no more to rent or own whatever the two prices are."""
    return (
        a.tier is b.tier
        and a.machines < b.machines
        and a.count <= b.count
        and a.speed.tokens_per_s >= b.speed.tokens_per_s
    )


def rank_options(options: Sequence[Option], *, per_token: bool = False) -> list[Option]:
    """The options in the order the plan presents them; the first that fits and meets the target is the
    recommendation, and the first of each tier is that tier's pick. `per_token` (ranks_per_token)
    orders training options by their price per token/s."""
    ranked: list[Option] = []
    classes: dict[tuple[bool, bool, bool], list[Option]] = {}
    for option in options:
        classes.setdefault(_quality(option), []).append(option)
    for quality in sorted(classes):
        members = classes[quality]
        priced = sorted(
            (o for o in members if o.rank_usd is not None),
            key=lambda o: (_price_key(o, per_token), o.count, -o.gpu_memory_bytes),
        )
        unpriced = sorted((o for o in members if o.rank_usd is None), key=_unpriced_key)
        ahead_of: dict[
            int, list[Option]
        ] = {}  # a priced option's index -> the unpriced ones placed before it
        trailing: list[Option] = []
        for option in unpriced:
            beaten = next((i for i, p in enumerate(priced) if beats_outright(option, p)), None)
            (trailing if beaten is None else ahead_of.setdefault(beaten, [])).append(option)
        for i, option in enumerate(priced):
            ranked.extend(ahead_of.get(i, ()))
            ranked.append(option)
        ranked.extend(trailing)
    return ranked
