"""`GpuAdvisorCallback` for PyTorch Lightning: steps, epochs and data wait.

    from gpu_advisor.probe.lightning import GpuAdvisorCallback
    trainer = lightning.Trainer(max_epochs=3, callbacks=[GpuAdvisorCallback()])

Importing this module imports lightning; `gpu_advisor.probe` itself does not. A step is one training
batch. Lightning calls `on_train_batch_start` once the batch is fetched, so the time since the
previous batch ended counts as data wait. Samples are the batch's first dimension; tokens the size of
an `input_ids` tensor when the batch is a mapping that has one. The epoch ends at
`on_train_epoch_end`, which Lightning calls after the epoch's validation, so validation time is in the
epoch's time but not in its steps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import lightning

from gpu_advisor import probe


class GpuAdvisorCallback(lightning.Callback):
    """Reports each training batch and epoch to `gpu_advisor.probe` (a no-op outside `gpu-advisor monitor`)."""

    def on_train_epoch_start(self, trainer: Any, pl_module: Any) -> None:
        probe.epoch_start()

    def on_train_batch_start(self, trainer: Any, pl_module: Any, batch: Any, batch_idx: int) -> None:
        probe.step_start()

    def on_train_batch_end(
        self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        probe.step(samples=_samples(batch), tokens=_tokens(batch))

    def on_train_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        probe.epoch_end()


def _first_dim(value: Any) -> int | None:
    shape = getattr(value, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) > 0 else None


def _samples(batch: Any) -> int | None:
    if isinstance(batch, Mapping):
        batch = next(iter(batch.values()), None)
    elif isinstance(batch, Sequence) and not isinstance(batch, str):
        batch = batch[0] if batch else None
    return _first_dim(batch)


def _tokens(batch: Any) -> int | None:
    ids = batch.get("input_ids") if isinstance(batch, Mapping) else None
    return int(ids.numel()) if hasattr(ids, "numel") else None
