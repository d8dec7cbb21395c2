"""One unit convention for every face: memory binary, rates decimal, no '-0%', no '1000B'."""

from __future__ import annotations

from gpu_advisor.core.units import (
    format_bytes,
    format_count,
    format_error_pct,
    format_flops,
    format_mhz,
    format_pct,
    si_unit,
)


def test_counts_move_up_a_suffix_when_they_round_to_a_thousand():
    assert format_count(999.7e9) == "1T"  # not "1000B"
    assert format_count(1e12) == "1T"
    assert format_count(8.03e9) == "8.03B"
    assert format_count(999_600) == "1M"
    assert format_count(124e6) == "124M"
    assert format_count(1e15) == "1000T"  # nothing above T: the count reads in T


def test_a_tiny_negative_change_reads_zero_without_a_sign():
    assert format_pct(-0.004, signed=True) == "0%"
    assert format_error_pct(-0.3) == "0%"
    assert format_error_pct(-91.3) == "-91%" and format_error_pct(5.2) == "+5%"


def test_a_large_change_reads_with_thousands_separators():
    # Compare's "vs baseline" column: a CPU run against a GPU run is a change of hundreds of times.
    assert format_pct(299.0, signed=True) == "+29,900%"
    assert format_pct(-0.5, signed=True) == "-50%"
    assert format_pct(12.345, digits=1) == "1,234.5%"


def test_memory_is_binary_and_rates_are_decimal():
    peak = 151_200_000  # bytes: reads 144.2 MiB everywhere, never "151.2 MB"
    assert format_bytes(peak) == "144.2 MiB"
    assert format_bytes(peak, "GiB") == "0.1 GiB"
    assert format_flops(1.3e11) == "130 GFLOP/s"
    assert si_unit(1.3e11, "FLOP/s") == ("GFLOP/s", 1e9)
    assert format_mhz(2596.4) == "2,596 MHz"
