"""The data-loader stress case's loader is sized from the step it feeds, on any machine."""

from __future__ import annotations

import pytest

from gpu_advisor.bench.loader_stress import (
    LOADER_MAX_S_PER_BATCH,
    LOADER_TIME_PER_STEP,
    LoaderSizer,
    SyntheticRecords,
    decode_round_s,
    loader_rounds,
)


@pytest.mark.parametrize("compute_s", [0.002, 0.05])  # a fast device's step and a slow CPU's
@pytest.mark.parametrize("workers", [0, 1, 4])
def test_the_loader_takes_three_steps_per_batch_whatever_the_machine(compute_s, workers):
    round_s, batch = 2e-5, 8
    rounds = loader_rounds(compute_s, round_s, batch, workers)
    loader_s_per_batch = rounds * round_s * batch / max(1, workers)  # workers share a batch's samples
    assert loader_s_per_batch == pytest.approx(LOADER_TIME_PER_STEP * compute_s, rel=0.05)


def test_no_batch_takes_the_loader_more_than_the_cap():
    rounds = loader_rounds(compute_s=2.0, round_s=1e-3, batch=4, workers=0)
    assert rounds * 1e-3 * 4 == pytest.approx(LOADER_MAX_S_PER_BATCH, rel=0.01)


def test_records_decode_into_reproducible_token_pairs():
    records = SyntheticRecords(vocab_size=512, seq_len=16, length=4, rounds=3)
    tokens, targets = records[1]
    again, _ = records[1]
    assert tokens.tolist() == again.tolist() and tokens.shape == (16,)
    assert tokens[1:].tolist() == targets[:-1].tolist()  # next-token targets
    assert int(tokens.min()) >= 0 and int(tokens.max()) < 512
    assert decode_round_s(records) > 0


def test_a_loader_in_the_training_process_follows_the_slowest_step():
    records = SyntheticRecords(vocab_size=512, seq_len=16, length=4, rounds=1)
    sizer = LoaderSizer(records, round_s=1e-5, batch=4, workers=0, compute_s=0.01)
    start = records.rounds
    sizer.observe(0.005)  # a faster step: the loader stays as slow
    assert records.rounds == start
    sizer.observe(0.05)  # the machine got busier: the loader keeps 3x the step
    assert records.rounds * 1e-5 * 4 == pytest.approx(LOADER_TIME_PER_STEP * 0.05, rel=0.05)


def test_worker_processes_keep_the_start_up_sizing():
    records = SyntheticRecords(vocab_size=512, seq_len=16, length=4, rounds=1)
    sizer = LoaderSizer(records, round_s=1e-5, batch=4, workers=2, compute_s=0.01)
    start = records.rounds
    sizer.observe(0.05)  # the workers' copies would not see a change
    assert records.rounds == start
