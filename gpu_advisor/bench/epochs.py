"""The time one epoch would take at a benchmark's measured training speed (`bench --dataset-samples`).

The training workload's step time includes its wait for input, so the projection carries the input
pipeline with it. The dataset's tokens (samples x their sequence length) over the measured tokens/s:
a sequence length far from the benchmark's changes attention's share of the work, which the
projection says rather than models.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from gpu_advisor.bench.results import BenchReport


class EpochProjection(BaseModel):
    """One epoch over `dataset_samples` of `seq_len` tokens at the measured tokens/s."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    dataset_samples: int
    seq_len: int
    tokens_per_s: float
    measured_by: str  # the training result's name
    measured_seq_len: int | None
    measured_batch_size: int | None
    time_per_epoch_s: float


def project_epoch(report: BenchReport, dataset_samples: int, seq_len: int) -> EpochProjection | None:
    """The projection from the run's last finished training result; None if none measured tokens/s."""
    trained = [r for r in report.result("train") if r.status == "ok" and r.number("tokens_per_s")]
    if not trained:
        return None
    result = trained[-1]
    rate = float(result.number("tokens_per_s"))  # type: ignore[arg-type]
    seq, batch = result.config.get("seq_len"), result.config.get("batch_size")
    return EpochProjection(
        dataset_samples=dataset_samples,
        seq_len=seq_len,
        tokens_per_s=rate,
        measured_by=result.name,
        measured_seq_len=seq if isinstance(seq, int) else None,
        measured_batch_size=batch if isinstance(batch, int) else None,
        time_per_epoch_s=dataset_samples * seq_len / rate,
    )
