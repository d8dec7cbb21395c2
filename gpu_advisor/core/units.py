"""Units: constants, and the one place where numbers become text and text becomes numbers.

Every face (CLI, GUI, PDF, Markdown, Compare) formats through these functions, so a figure reads the
same everywhere. Machine-readable values stay numbers (integer bytes, seconds, USD) until the edge.

The unit convention, one rule for the whole app:
- Memory sizes are binary: KiB, MiB, GiB, TiB (2^10, 2^20, 2^30, 2^40 bytes). That is what the driver,
  `nvidia-smi` and PyTorch report, and what a card sold as "80 GB" holds (80 GiB).
- Rates are decimal SI, as datasheets quote them: GB/s of bandwidth (10^9 bytes per second), TFLOP/s.
- Money in USD; durations in the largest unit that keeps the number readable.
Unknown values are None and read "n/a" (or the caller's own word, e.g. "price unknown").
"""

from __future__ import annotations

import math
import re

KB = 10**3
MB = 10**6
GB = 10**9
TB = 10**12
KIB = 2**10
MIB = 2**20
GIB = 2**30
TIB = 2**40
TERA = 1e12
SECONDS_PER_HOUR = 3600.0
HOURS_PER_MONTH = 730.0  # 8760 h / 12, the convention cloud price pages use
NA = "n/a"

_BINARY_UNITS = (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB))
_BYTE_UNITS = {"B": 1, "KiB": KIB, "MiB": MIB, "GiB": GIB, "TiB": TIB, "KB": KB, "MB": MB, "GB": GB, "TB": TB}
_SI_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def _sig(value: float, digits: int = 3) -> str:
    """`digits` significant figures without trailing zeros: 10.73 -> '10.7', 0.0213 -> '0.0213'."""
    if abs(value) >= 10**digits:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


# ---- sizes ------------------------------------------------------------------------------------------
def byte_unit(n_bytes: float) -> tuple[str, int]:
    """The binary unit a size reads best in: ('GiB', 2**30) for 3e9 bytes, ('B', 1) below 1 KiB."""
    for name, scale in _BINARY_UNITS:
        if abs(n_bytes) >= scale:
            return name, scale
    return "B", 1


def format_bytes(n_bytes: float | None, unit: str | None = None) -> str:
    """A memory size in binary units: '15.0 GiB', '144.2 MiB', '80 GiB'. `unit` forces one ('GiB')."""
    # _missing and byte_unit, inline: a plan words a few hundred sizes
    if n_bytes is None or (isinstance(n_bytes, float) and not math.isfinite(n_bytes)):
        return NA
    if unit:
        name, scale = unit, _BYTE_UNITS[unit]
    else:
        size = abs(n_bytes)
        name, scale = "B", 1
        for binary_name, binary_scale in _BINARY_UNITS:
            if size >= binary_scale:
                name, scale = binary_name, binary_scale
                break
    value = n_bytes / scale
    if name == "B":
        return f"{value:,.0f} B"
    if abs(value) >= 1000 or (value == round(value) and abs(value) >= 10):
        return f"{value:,.0f} {name}"
    return f"{value:,.1f} {name}"


def format_bytes_of(used: float | None, total: float | None) -> str:
    """'62.3 of 80 GiB': a part of a capacity, both in the capacity's unit."""
    if _missing(total):
        return format_bytes(used)
    assert total is not None
    name, _ = byte_unit(total)
    used_text = format_bytes(used, name).removesuffix(f" {name}")
    return f"{used_text} of {format_bytes(total, name)}"


# ---- rates and SI quantities ----------------------------------------------------------------------------
def format_si(value: float | None, unit: str, digits: int = 3) -> str:
    """A decimal-prefixed quantity: 1.6e12, 'B/s' -> '1.6 TB/s'; 1.3e11, 'FLOP/s' -> '130 GFLOP/s'."""
    if _missing(value):
        return NA
    assert value is not None
    for scale, prefix in _SI_PREFIXES:
        if abs(value) >= scale:
            return f"{_sig(value / scale, digits)} {prefix}{unit}"
    return f"{_sig(value, digits)} {unit}".rstrip()


def si_unit(value: float, unit: str) -> tuple[str, float]:
    """The prefixed unit a value reads best in, and its scale: 7e14, 'FLOP/s' -> ('TFLOP/s', 1e12).

    For an axis or a column that shows several values in one unit (pass the largest)."""
    for scale, prefix in _SI_PREFIXES:
        if abs(value) >= scale:
            return f"{prefix}{unit}", scale
    return unit, 1.0


def format_flops(flops_per_s: float | None) -> str:
    """'989 TFLOP/s'."""
    return format_si(flops_per_s, "FLOP/s")


def format_bandwidth(bytes_per_s: float | None) -> str:
    """Memory or link bandwidth in decimal units, as datasheets quote it: '3.35 TB/s', '64 GB/s'."""
    return format_si(bytes_per_s, "B/s")


def format_rate(value: float | None, unit: str = "") -> str:
    """A throughput people compare: '1,234 tokens/s', '10.7 tokens/s', '0.0213 steps/s'."""
    if _missing(value):
        return NA
    assert value is not None
    text = f"{value:,.0f}" if abs(value) >= 100 else _sig(value, 3)
    return f"{text} {unit}".rstrip()


def format_watts(watts: float | None) -> str:
    """Power draw: '350 W'."""
    return NA if _missing(watts) else f"{watts:,.0f} W"


def format_celsius(celsius: float | None) -> str:
    """A temperature: '71 °C'."""
    return NA if _missing(celsius) else f"{celsius:.0f} °C"


def format_mhz(mhz: float | None) -> str:
    """A clock frequency: '2,596 MHz'."""
    return NA if _missing(mhz) else f"{mhz:,.0f} MHz"


def format_count(n: float | None) -> str:
    """Parameter or token counts: '124M', '8.03B', '15T'."""
    if _missing(n):
        return NA
    assert n is not None
    steps = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K"))
    for i, (scale, suffix) in enumerate(steps):
        if abs(n) >= scale:
            value = n / scale
            text = f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
            if abs(float(text)) >= 1000 and i > 0:  # 999.7e9 rounds to '1T', not '1000B'
                return f"{value / 1000:.3g}{steps[i - 1][1]}"
            return f"{text}{suffix}"
    return f"{n:.0f}"


def format_pct(fraction: float | None, *, signed: bool = False, digits: int = 0) -> str:
    """A fraction as a percentage: 0.42 -> '42%', 299 -> '29,900%'; signed: '+5%', '-12%', never '-0%'."""
    if _missing(fraction):
        return NA
    assert fraction is not None
    value = round(fraction * 100, digits)
    if value == 0:
        value = 0.0  # no '-0%'
    return f"{value:+,.{digits}f}%" if signed and value != 0 else f"{value:,.{digits}f}%"


def format_error_pct(error_pct: float | None) -> str:
    """A prediction error already in percent: 5.2 -> '+5%', -91.3 -> '-91%', -0.3 -> '0%'."""
    return format_pct(None if error_pct is None else error_pct / 100, signed=True)


# ---- time and money -------------------------------------------------------------------------------------
def format_duration(seconds: float | None) -> str:
    """A duration as a person reads it: 850 ms, 12.3 s, 4.2 min, 4.2 h, 3.1 days."""
    if seconds is None or (isinstance(seconds, float) and not math.isfinite(seconds)):  # _missing
        return NA
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.1f} min"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.1f} days"


def duration_unit(seconds: float) -> tuple[str, float]:
    """The unit a duration reads best in, and its scale in seconds: 0.2 -> ('ms', 1e-3). For axes."""
    if seconds < 1e-3:
        return "µs", 1e-6
    if seconds < 1:
        return "ms", 1e-3
    return "s", 1.0


def format_months(months: float | None, unit: str = "months") -> str:
    """'15.0 months' ('mo' for narrow table cells)."""
    if _missing(months):
        return NA
    return f"{months:,.1f} {unit}"


def format_usd(amount: float | None, missing: str = NA) -> str:
    """Money in USD, no cents from $100 up: '$0.74', '$3,781'. `missing` for an unknown price."""
    if amount is None or (isinstance(amount, float) and not math.isfinite(amount)):  # _missing
        return missing
    return f"${amount:,.2f}" if abs(amount) < 100 else f"${amount:,.0f}"


def format_usd_short(amount: float) -> str:
    """Axis labels: '$250', '$1.5k', '$1.2M'."""
    return "$" + short_number(amount)


def short_number(value: float) -> str:
    """Axis tick labels: 0, 250, 1.5k, 20k, 1.2M."""
    a = abs(value)
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= scale:
            text = f"{value / scale:.1f}".rstrip("0").rstrip(".")
            return f"{text}{suffix}"
    if a >= 10 or value == int(value):
        return f"{value:.0f}"
    return f"{value:.2g}"


def format_number(value: int | float | None) -> str:
    """The text to put back into an input field for a value (parse_number reads it back)."""
    if value is None:
        return ""
    if isinstance(value, int) or (float(value).is_integer() and abs(value) < 1e15):
        number = int(value)
        short = f"{number:.6g}"  # 1000000000 -> '1e+09', easier to read and to edit
        return short if number >= 10**7 and float(short) == number else str(number)
    return f"{value:g}"


# ---- parsing ------------------------------------------------------------------------------------------
_NUMBER_RE = re.compile(r"^([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*([kmbt]?)$", re.IGNORECASE)
_COUNT_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
_SIZE_RE = re.compile(r"^([0-9]*\.?[0-9]+(?:e[+]?[0-9]+)?)\s*([kmgt]i?b|b)?$", re.IGNORECASE)


def parse_number(text: str, *, integer: bool = False) -> int | float:
    """What people type: '2048', '32,768', '4k', '1e9', '10B', '0.15'. ValueError with a message."""
    cleaned = str(text).strip().replace(",", "").replace("_", "").replace(" ", "")
    if not cleaned:
        raise ValueError("enter a value")
    match = _NUMBER_RE.match(cleaned)
    if not match:
        example = "2048, 4k, 1e9" if integer else "0.15, 2.5, 1e3"
        raise ValueError(f"{str(text).strip()!r} is not a number (examples: {example})")
    value = float(match.group(1)) * _COUNT_SUFFIX[match.group(2).lower()]
    if not math.isfinite(value):
        raise ValueError("the number is too large")
    if integer:
        if value != round(value):
            raise ValueError("enter a whole number")
        return round(value)
    return value


# Hours per unit of a deadline as people write it ("1 week", "7d", "48h", "90 min").
_HOURS_PER_UNIT = {
    "": 1.0,
    "h": 1.0,
    "hr": 1.0,
    "hrs": 1.0,
    "hour": 1.0,
    "hours": 1.0,
    "min": 1 / 60,
    "mins": 1 / 60,
    "minute": 1 / 60,
    "minutes": 1 / 60,
    "d": 24.0,
    "day": 24.0,
    "days": 24.0,
    "w": 168.0,
    "wk": 168.0,
    "week": 168.0,
    "weeks": 168.0,
}
_DURATION_RE = re.compile(r"^([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*([a-z]*)$", re.IGNORECASE)


def parse_hours(text: str) -> float:
    """A duration in hours from what people type: '48', '48h', '7d', '1 week', '90 min'. ValueError
    with a message (a bare number is hours)."""
    cleaned = str(text).strip().replace(",", "").replace("_", "")
    match = _DURATION_RE.match(cleaned)
    unit = match.group(2).lower() if match else None
    if match is None or unit not in _HOURS_PER_UNIT:
        if not cleaned:
            raise ValueError("enter a value")
        raise ValueError(f"{str(text).strip()!r} is not a duration (examples: 48, 48h, 7d, 1 week)")
    value = float(match.group(1)) * _HOURS_PER_UNIT[unit]
    if not math.isfinite(value):
        raise ValueError("the number is too large")
    return value


def parse_count(text: str) -> int:
    """'7B', '350M', '7e9', '1.5b' -> a count. ValueError for anything else."""
    value = parse_number(text)
    if value < 0:
        raise ValueError(f"{str(text).strip()!r} is negative")
    return round(value)


def parse_bytes(text: str) -> int:
    """'2GiB', '512MB', '1e9', '64 KiB' -> bytes (GB decimal, GiB binary). ValueError otherwise."""
    match = _SIZE_RE.match(str(text).strip())
    if not match:
        raise ValueError(f"{str(text).strip()!r} is not a size (examples: 2GiB, 512MB, 1e9)")
    unit = (match.group(2) or "B").upper().replace("IB", "iB")
    value = float(match.group(1)) * _BYTE_UNITS[unit]
    if not math.isfinite(value):
        raise ValueError("the size is too large")
    return int(value)
