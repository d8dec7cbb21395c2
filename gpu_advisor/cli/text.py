"""Plain-text layout for the terminal: aligned columns. The words come from gpu_advisor.wording."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def table_lines(
    headers: Sequence[str], rows: Sequence[Sequence[str]], right: Collection[int] = (), indent: str = ""
) -> list[str]:
    """A header, a rule and the rows in aligned columns; `right` holds the right-aligned column indices."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        cells = [
            str(c).rjust(w) if i in right else str(c).ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        return (indent + "  ".join(cells)).rstrip()

    head = line(headers)
    return [head, indent + "-" * (len(head) - len(indent)), *(line(r) for r in rows)]
