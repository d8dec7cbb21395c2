"""Which options a reader's list shows, and why the others are left out.

The planner sizes every catalogue GPU; a manager's list needs only the options someone could choose:
- the recommendation and its runners-up (the next options that fit and meet the target: what a
  reader who cannot get the first choice buys) are always shown;
- an option that does not fit in memory at any count searched is no option (unless nothing fits:
  then the near misses are the list);
- an option is dominated when another option that fits is at least as fast on the request's target
  (tokens/s per user and first token for serving, time to train or tokens/s for training), uses no
  more GPUs and is cheaper by the plan's ranking (both prices known);
- an option needing more GPUs than SCALE_FACTOR times the recommendation's (and more than one
  SCALE_FACTOR-GPU server) is another order of scale, not an alternative (512 × T4 beside 1 GPU).

Each left-out option is named in a line under the list, with its reason, so the list stays a
complete account of what the planner considered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_advisor.core.result import Option, Plan
from gpu_advisor.wording.plan import gpu_line

RUNNERS_UP = 3
# The GPUs of one 8-GPU server: past SCALE_FACTOR times the answer's GPU count (and past one such
# server) an option is a different purchase, not an alternative to the answer.
SCALE_FACTOR = 8


@dataclass
class Shortlist:
    shown: list[Option] = field(default_factory=list)
    dominated: list[Option] = field(default_factory=list)
    too_large: list[Option] = field(default_factory=list)
    not_fitting: list[Option] = field(default_factory=list)

    def folded_lines(self) -> list[str]:
        """One sentence per reason, naming each option left out."""

        def names(options: list[Option]) -> str:
            return ", ".join(gpu_line(o) for o in options)

        lines = []
        if self.dominated:
            lines.append(
                "Left out as slower and dearer than an option shown, with no fewer GPUs: "
                f"{names(self.dominated)}."
            )
        if self.too_large:
            lines.append(
                f"Left out as more than {SCALE_FACTOR} times the GPUs of the first option: {names(self.too_large)}."
            )
        if self.not_fitting:
            lines.append(
                f"Left out as not fitting in memory at the counts searched: {names(self.not_fitting)}."
            )
        return lines


def runners_up(plan: Plan, limit: int = RUNNERS_UP) -> list[Option]:
    """The next best options that fit and meet the target, after the recommendation."""
    return [o for o in plan.options if o.fits and o.meets_target and o is not plan.best][:limit]


def _speed_key(option: Option) -> tuple[float, float]:
    """Larger is faster: (the target's measure, a second measure)."""
    training = option.training
    if training is not None:
        if training.time_to_train_s is not None:
            return (-training.time_to_train_s, training.tokens_per_s)
        return (training.tokens_per_s, 0.0)
    speed = option.serving
    return (speed.tokens_per_s_per_user, -speed.ttft_s)


def _dominates(better: Option, worse: Option) -> bool:
    if not better.fits or better.rank_usd is None or worse.rank_usd is None:
        return False
    if worse.meets_target and not better.meets_target:
        return False
    faster = all(b >= w for b, w in zip(_speed_key(better), _speed_key(worse), strict=True))
    return faster and better.count <= worse.count and better.rank_usd < worse.rank_usd


def shortlist(plan: Plan) -> Shortlist:
    """The options worth a row, best first, and the others by reason (see the module's docstring)."""
    keep = {id(o) for o in [plan.best, *runners_up(plan)] if o is not None}
    fitting = [o for o in plan.options if o.fits]
    reference = plan.best or (fitting[0] if fitting else None)
    limit = None if reference is None else max(SCALE_FACTOR, SCALE_FACTOR * reference.count)
    out = Shortlist()
    for option in plan.options:
        if id(option) in keep:
            out.shown.append(option)
        elif not option.fits and fitting:  # where nothing fits, the near misses are all there is
            out.not_fitting.append(option)
        elif limit is not None and option.count > limit:
            out.too_large.append(option)
        elif any(_dominates(other, option) for other in fitting if other is not option):
            out.dominated.append(option)
        else:
            out.shown.append(option)
    return out
