"""One model's memory at each precision, side by side (what `accelerate estimate-memory` tabulates).

The same request planned at fp32, bf16, fp8, int8 and int4 with everything else unchanged: the
bytes per weight, the weights, and the whole footprint of the job on one device without sharding
(the plan's `memory.total_bytes` at that precision). A precision the task cannot use (full training
in int4) gets its reason instead of a number. Pure: no Qt, no I/O.
"""

from __future__ import annotations

from pydantic import ValidationError

from gpu_advisor.core.memory import estimate_memory, request_profile
from gpu_advisor.core.precision import Precision
from gpu_advisor.core.precision_row import PrecisionRow
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.serving import sized_at_targets

from .errors import field_problem

SIDE_BY_SIDE: tuple[Precision, ...] = (
    Precision.FP32,
    Precision.BF16,
    Precision.FP8,
    Precision.INT8,
    Precision.INT4,
)


def _first_message(exc: ValidationError) -> str:
    return field_problem(exc)[1]


def precision_table(request: PlanRequest, users: int | None = None) -> tuple[PrecisionRow, ...]:
    """`request` at each SIDE_BY_SIDE precision (validated again, so impossible pairs say why).

    Requests per second are sized at `users`, the plan's answer's own (Little's law at its speed), or
    before a plan at the most users an option meeting the targets holds.
    """
    rows = []
    sized = sized_at_targets(request) if users is None else request.model_copy(update={"users": users})
    base = sized.model_dump()
    for precision in SIDE_BY_SIDE:
        try:
            variant = PlanRequest.model_validate({**base, "precision": precision})
            profile = request_profile(variant)
            components = estimate_memory(variant).components
        except (ValidationError, ValueError) as exc:
            reason = _first_message(exc) if isinstance(exc, ValidationError) else str(exc)
            rows.append(PrecisionRow(precision, reason=reason, chosen=precision is request.precision))
            continue
        rows.append(
            PrecisionRow(
                precision=precision,
                weight_format=profile.weight_format,
                bytes_per_weight=profile.weight_bytes,
                weights_bytes=components.weights,
                total_bytes=components.total,
                kv_cache_bytes=components.kv_cache,
                chosen=precision is request.precision,
            )
        )
    return tuple(rows)
