"""The data-loader stress case's loader (imports torch): real per-sample CPU work on synthetic records,
sized at start-up from the measured model step so that the run is input-bound on a fast machine and
on a slow one. `training.py` measures the step and runs the loop.
"""

from __future__ import annotations

import math
import random
import time

import torch
from torch.utils.data import Dataset

from gpu_advisor.bench.context import RunContext

# The data-loader stress case: the loader's time per batch over the model step's compute time, both
# measured at start-up. With the loader in the training process (num_workers=0) the loop waits
# ratio / (ratio + 1) of each step (75 %); with W workers sharing the work, (ratio - 1) / ratio
# (67 %). The input-bound rule starts at 10 %: for the verdict to change after start-up the step
# would have to slow down against the loader ~27-fold in the main process, ~2.7-fold with workers
# (both slow down together on a loaded machine: the loader's work is CPU time, not a sleep).
LOADER_TIME_PER_STEP = 3.0
# ... but no batch takes the loader longer than this (a stop is honoured between steps, within the
# 1 s promised even when a loaded machine doubles it): a step that already takes 0.5 s of compute
# still waits half of its time.
LOADER_MAX_S_PER_BATCH = 0.5
# Decode passes timed at start-up to price one pass.
CALIBRATION_ROUNDS = 8


def decode_record(raw: bytes, rounds: int, vocab_size: int, length: int) -> list[int]:
    """Token ids decoded from a raw record by `rounds` passes of a byte-level decode (a rolling hash
    over the record, each pass reading the previous one's state): per-sample CPU work in pure Python,
    as a tokenizer or an image decoder written in Python is, holding the GIL on one core."""
    state = 0
    ids = [0] * length
    for r in range(rounds):
        for i, byte in enumerate(raw):
            state = (state * 31 + byte + r) & 0xFFFFFFFF
            ids[i % length] = state % vocab_size
    return ids


class SyntheticRecords(Dataset):
    """Token sequences decoded from synthetic raw records (4 bytes per token, reproducible per index)
    with `rounds` decode passes per sample: the loader's own CPU time, not a sleep, so it slows down
    with the machine as the model step does."""

    def __init__(self, vocab_size: int, seq_len: int, length: int, rounds: int, seed: int = 0) -> None:
        self.vocab_size, self.seq_len, self.length = vocab_size, seq_len, length
        self.rounds, self.seed = rounds, seed

    def __len__(self) -> int:
        return self.length

    def raw(self, index: int) -> bytes:
        return random.Random(self.seed * 1_000_003 + index).randbytes(4 * (self.seq_len + 1))

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        ids = decode_record(self.raw(index), self.rounds, self.vocab_size, self.seq_len + 1)
        tokens = torch.tensor(ids, dtype=torch.long)
        return tokens[:-1], tokens[1:]


def decode_round_s(dataset: SyntheticRecords) -> float:
    """Seconds of one decode pass over one sample, here and now (the fastest of three timings)."""
    raw = dataset.raw(0)
    best = float("inf")
    for _ in range(3):
        begin = time.perf_counter()
        decode_record(raw, CALIBRATION_ROUNDS, dataset.vocab_size, dataset.seq_len + 1)
        best = min(best, time.perf_counter() - begin)
    return best / CALIBRATION_ROUNDS


def loader_rounds(compute_s: float, round_s: float, batch: int, workers: int) -> int:
    """Decode passes per sample so the loader takes LOADER_TIME_PER_STEP times the step's compute per
    batch (at most LOADER_MAX_S_PER_BATCH): `workers` processes share a batch's samples (the main
    process alone when 0)."""
    per_batch_s = min(LOADER_TIME_PER_STEP * compute_s, LOADER_MAX_S_PER_BATCH)
    per_sample_s = per_batch_s * max(1, workers) / batch
    return max(1, math.ceil(per_sample_s / max(round_s, 1e-9)))


def expected_wait_fraction(workers: int) -> float:
    """Share of each step spent waiting for a loader LOADER_TIME_PER_STEP times slower than the step:
    in the main process the loader's time adds to the step; workers overlap it with the step."""
    ratio = LOADER_TIME_PER_STEP
    return ratio / (ratio + 1) if workers == 0 else (ratio - 1) / ratio


def loader_workers(ctx: RunContext) -> int:
    """The stress case's loader: in the training process on the CPU, one worker process on a GPU (the
    usual first setting people try); --workers overrides, and the sizing follows it."""
    if ctx.options.dataloader_workers is not None:
        return ctx.options.dataloader_workers
    return 1 if ctx.is_cuda else 0


class LoaderSizer:
    """Keeps a main-process loader at LOADER_TIME_PER_STEP times the slowest step compute seen so far.

    On a shared CPU a multi-threaded step can slow down many times over for a while (its threads
    wait for each other when one is descheduled) while a single-threaded decode slows down only in
    proportion, so a sizing fixed at start-up can fall behind. A loader in the training process reads
    `rounds` as each batch is made, so it follows; worker processes hold their own copy of the dataset
    and keep the start-up sizing (on a GPU the step does not share the CPU's cores)."""

    def __init__(
        self, records: SyntheticRecords, round_s: float, batch: int, workers: int, compute_s: float
    ) -> None:
        """Sized from the start-up step's `compute_s`, before the loader starts."""
        self.records, self.round_s, self.batch, self.workers = records, round_s, batch, workers
        self.slowest_compute_s = compute_s
        records.rounds = loader_rounds(compute_s, round_s, batch, workers)

    @property
    def follows_the_step(self) -> bool:
        return self.workers == 0

    def observe(self, compute_s: float) -> None:
        """Size the next batches from this step's compute seconds if it is the slowest yet."""
        if not self.follows_the_step or compute_s <= self.slowest_compute_s:
            return
        self.slowest_compute_s = compute_s
        self.records.rounds = loader_rounds(compute_s, self.round_s, self.batch, self.workers)
