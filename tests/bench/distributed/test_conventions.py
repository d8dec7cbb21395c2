"""nccl-tests' bandwidth conventions and the message-size ladder."""

from __future__ import annotations

import pytest

from gpu_advisor.bench.distributed.conventions import (
    bus_bandwidth,
    bus_factor,
    message_bytes,
    message_sizes,
)


@pytest.mark.parametrize(
    ("op", "ranks", "factor"),
    [
        # doc/PERFORMANCE.md of NVIDIA/nccl-tests: 2(n-1)/n, (n-1)/n, (n-1)/n, 1
        ("all_reduce", 2, 1.0),
        ("all_reduce", 8, 1.75),
        ("all_gather", 8, 0.875),
        ("reduce_scatter", 4, 0.75),
        ("broadcast", 16, 1.0),
    ],
)
def test_bus_factor_follows_nccl_tests(op, ranks, factor):
    assert bus_factor(op, ranks) == pytest.approx(factor)


def test_bus_bandwidth_of_a_known_measurement():
    # 1 GiB all-reduced over 8 ranks in 10 ms: algbw 107.4 GB/s, busbw 1.75 x that.
    assert bus_bandwidth("all_reduce", 2**30, 0.010, 8) == pytest.approx(2**30 / 0.010 * 1.75)


def test_sizes_double_from_8_bytes_to_the_maximum():
    assert message_sizes(128) == [8, 16, 32, 64, 128]
    assert message_sizes(100) == [8, 16, 32, 64]
    assert message_sizes(4) == [8]  # never empty: the smallest message always runs


def test_sharded_ops_hold_a_whole_element_per_rank():
    assert message_bytes("all_gather", 8, 4) == 16  # one float32 per rank at least
    assert message_bytes("reduce_scatter", 40, 4) == 48
    assert message_bytes("all_reduce", 8, 4) == 8
    assert message_bytes("broadcast", 10, 2) == 12  # whole float32 elements
