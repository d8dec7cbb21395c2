"""Out of memory is a result: retry at half the batch until one fits, and report the largest that fits.

An attempt that runs out of memory (torch.OutOfMemoryError on a GPU, a failed CPU allocation, or the
configured memory cap) is retried at half the batch after freeing what it held. The result is measured
at the largest batch that fits; its status is `oom` when that is smaller than the batch asked for.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

from gpu_advisor.bench.context import MemoryCapExceeded, Outcome, RunContext, now
from gpu_advisor.bench.results import WorkloadKind, WorkloadResult


def is_out_of_memory(exc: BaseException) -> bool:
    """True for the memory cap, torch's OutOfMemoryError (CUDA), and CPU allocator failures."""
    if isinstance(exc, MemoryCapExceeded):
        return True
    import torch

    if isinstance(exc, torch.OutOfMemoryError):
        return True
    # The CPU allocator raises a plain RuntimeError: "DefaultCPUAllocator: can't allocate memory".
    return isinstance(exc, RuntimeError) and "can't allocate memory" in str(exc)


def free_memory(device: Any) -> None:
    """Collect garbage (tensors held by the failed attempt) and return cached blocks to the driver."""
    gc.collect()
    if getattr(device, "type", None) == "cuda":
        import torch

        torch.cuda.empty_cache()


def with_oom_backoff(
    ctx: RunContext,
    batch: int,
    attempt: Callable[[int], Outcome],
    *,
    workload: WorkloadKind,
    name: str,
    config: dict[str, Any],
) -> Outcome:
    """Run `attempt(batch)`, halving the batch on out-of-memory until it fits or reaches zero."""
    started = now()
    failures: list[str] = []
    size = batch
    while size >= 1:
        ctx.check()
        try:
            outcome = attempt(size)
        except Exception as exc:
            if not is_out_of_memory(exc):
                raise
            failures.append(f"batch {size}: {_short(exc)}")
        else:
            if not failures:
                return outcome
            result = outcome.result
            note = (
                f"batch {batch} does not fit ({failures[0]}); {size} is the largest that fits, "
                "halving from the requested batch"
            )
            metrics = {**result.metrics, "requested_batch_size": batch, "max_batch_size": size}
            return Outcome(
                result.model_copy(
                    update={
                        "status": "oom",
                        "metrics": metrics,
                        "notes": [note, *result.notes],
                        "started_at": started,
                        "elapsed_s": now() - started,
                    }
                ),
                outcome.evidence,
            )
        # The failed attempt's frames are gone once the except block ends; now free their tensors.
        free_memory(ctx.device)
        size //= 2
    return Outcome(
        WorkloadResult(
            workload=workload,
            name=name,
            status="oom",
            config=config,
            metrics={"requested_batch_size": batch, "max_batch_size": None},
            notes=[f"even batch 1 does not fit ({failures[-1]})", *failures[:-1]],
            started_at=started,
            elapsed_s=now() - started,
        )
    )


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."
