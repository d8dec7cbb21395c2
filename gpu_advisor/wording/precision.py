"""How the precision side-by-side table reads (the Plan view's 'Memory by precision' and its CSV)."""

from __future__ import annotations

from collections.abc import Sequence

from gpu_advisor.core.precision_row import PrecisionRow
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.serving import sized_at_targets
from gpu_advisor.core.units import format_bytes

PRECISION_HEADERS = ("Precision", "Weights stored as", "Bytes per weight", "Weights", "Whole job, one device")
KV_CACHE_HEADER = "KV cache"  # a serving plan's: the cache follows the precision (8-bit at fp8)


def precision_headers(serving: bool) -> tuple[str, ...]:
    """The table's headers; a serving plan's add the KV cache, part of the whole job."""
    return (*PRECISION_HEADERS, KV_CACHE_HEADER) if serving else PRECISION_HEADERS


def precision_shape(request: PlanRequest, users: int | None = None) -> str:
    """What stays fixed while the precision changes: 'inference, 200 users, 512 + 256 tokens each'
    ('39 users (5 requests/s on the answer's GPUs, Little's law)' for requests per second, with the
    answer's `users`; 'at most 67 users (... at the targets ...)' before a plan), or a training step's
    'finetune, batch 4, sequence 4,096 tokens'."""
    if request.task.is_training:
        return f"{request.task.value}, batch {request.batch_size}, sequence {request.seq_len:,} tokens"
    if request.requests_per_s is not None and users is not None:
        shape = f"{users:,} users ({request.requests_per_s:g} requests/s on the answer's GPUs, Little's law)"
    elif request.requests_per_s is not None:
        # Each option's own speed sets its users; with targets, the table is sized at the most an
        # option meeting them holds, without them at the form's users.
        shape = (
            f"at most {sized_at_targets(request).users:,} users ({request.requests_per_s:g} requests/s "
            "at the targets, Little's law)"
            if request.tokens_per_s_per_user is not None
            else f"{request.requests_per_s:g} requests/s"
        )
    else:
        shape = f"{request.users:,} users"
    return f"{request.task.value}, {shape}, {request.prompt_tokens:,} + {request.output_tokens:,} tokens each"


WHOLE_JOB_NOTE = (
    "Whole job: the plan's memory on one device without sharding (weights, gradients, optimizer, "
    "activations, KV cache and overhead) with only the precision changed. MiB = 2^20 bytes, "
    "GiB = 2^30 bytes."
)


def precision_cells(row: PrecisionRow, serving: bool = False) -> tuple[str, ...]:
    """A row's texts in `precision_headers(serving)` order; a precision the task cannot use says why."""
    name = f"{row.precision.value} (chosen)" if row.chosen else row.precision.value
    kv: tuple[str, ...] = ()
    if row.total_bytes is None:
        return (name, row.reason, "", "", "", *(("",) if serving else ()))
    if serving:
        kv = (format_bytes(row.kv_cache_bytes),)
    per_weight = "" if row.bytes_per_weight is None else f"{row.bytes_per_weight:.3g} B"
    return (
        name,
        row.weight_format,
        per_weight,
        format_bytes(row.weights_bytes),
        format_bytes(row.total_bytes),
        *kv,
    )


def precision_lines(rows: Sequence[PrecisionRow], serving: bool = False) -> list[tuple[str, ...]]:
    return [precision_cells(row, serving) for row in rows]
