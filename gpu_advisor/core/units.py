"""Unit constants and human formatting. Machine-readable sizes are integer bytes everywhere."""

from __future__ import annotations

import math

KB = 10**3
MB = 10**6
GB = 10**9
TB = 10**12
KIB = 2**10
MIB = 2**20
GIB = 2**30
TERA = 1e12
HOURS_PER_MONTH = 730.0  # 8760 h / 12, the convention cloud price pages use


def format_bytes(n_bytes: float | None, unit: str = "GB") -> str:
    """Human size with the unit written out: decimal GB by default (as datasheets print), or GiB."""
    if n_bytes is None:
        return "n/a"
    scale = {"GB": GB, "GiB": GIB, "MB": MB, "MiB": MIB, "TB": TB}[unit]
    value = n_bytes / scale
    if unit in ("GB", "GiB") and abs(value) < 1:
        return format_bytes(n_bytes, "MB" if unit == "GB" else "MiB")
    return f"{value:,.1f} {unit}" if abs(value) < 1000 else f"{value:,.0f} {unit}"


def format_duration(seconds: float | None) -> str:
    """A duration as a person reads it: 850 ms, 12.3 s, 4.2 h, 3.1 days."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "n/a"
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
    return f"{seconds / 86400:.1f} days"


def format_usd(amount: float | None) -> str:
    """Money in USD, no cents above $100."""
    if amount is None:
        return "n/a"
    return f"${amount:,.2f}" if abs(amount) < 100 else f"${amount:,.0f}"


def format_count(n: float) -> str:
    """Parameter or token counts: 124.4M, 6.74B, 1.2T."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(n) >= scale:
            return f"{n / scale:.3g}{suffix}" if n / scale < 100 else f"{n / scale:.0f}{suffix}"
    return f"{n:.0f}"
