"""`GpuAdvisorCallback` for the Hugging Face `transformers.Trainer`: steps, epochs and data wait.

    from gpu_advisor.probe.hf import GpuAdvisorCallback
    trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=[GpuAdvisorCallback()])

Importing this module imports transformers; `gpu_advisor.probe` itself does not. A step is one
optimiser step (all its accumulated micro-batches). The Trainer fetches a step's batches before
`on_step_begin`, so the time from the previous step's end to that call counts as the step's data wait
(it also holds whatever the Trainer does between steps: logging, and evaluation when it falls there).
Samples per step are the global batch (per-device batch × accumulation × processes), the epoch's last
step capped by the dataset's length; tokens come from the Trainer's count when
`include_num_input_tokens_seen` is on.
"""

from __future__ import annotations

from typing import Any

from transformers import TrainerCallback

from gpu_advisor import probe


class GpuAdvisorCallback(TrainerCallback):
    """Reports each optimiser step and epoch to `gpu_advisor.probe` (a no-op outside `gpu-advisor monitor`)."""

    def __init__(self) -> None:
        self._epoch_samples = 0
        self._tokens_seen = 0

    def on_epoch_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._epoch_samples = 0
        probe.epoch_start()

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        probe.step_start()

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        samples = args.per_device_train_batch_size * args.gradient_accumulation_steps * args.world_size
        size = _dataset_len(kwargs.get("train_dataloader"))
        if size is not None and args.world_size == 1:
            samples = max(0, min(samples, size - self._epoch_samples))
        self._epoch_samples += samples
        seen = int(getattr(state, "num_input_tokens_seen", 0) or 0)
        tokens, self._tokens_seen = (seen - self._tokens_seen if seen > self._tokens_seen else None), seen
        probe.step(samples=samples, tokens=tokens)

    def on_epoch_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        probe.epoch_end()


def _dataset_len(loader: Any) -> int | None:
    try:
        return len(loader.dataset)
    except (AttributeError, TypeError):  # no loader given, or an iterable dataset
        return None
