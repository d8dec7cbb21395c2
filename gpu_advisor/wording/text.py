"""Plain-text layout shared by the CLI's tables (plans, results, comparisons)."""

from __future__ import annotations

from collections.abc import Sequence


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[bool]) -> list[str]:
    """Aligned plain-text columns (numbers right-aligned) with a rule under the header."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        cells = [
            str(c).rjust(w) if right else str(c).ljust(w)
            for c, w, right in zip(row, widths, numeric, strict=True)
        ]
        return "  ".join(cells).rstrip()

    head = line(headers)
    return [head, "-" * len(head), *(line(r) for r in rows)]
