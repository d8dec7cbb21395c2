"""Plain-text layout shared by the CLI's tables (plans, results, comparisons)."""

from __future__ import annotations

from collections.abc import Sequence

# The longest name (model, GPU, device) a face shows, and the longest single text a report lays out:
# longer ones come from broken or hostile files (a 1 MB model name kept the PDF layout busy for
# minutes), so they are cut, saying how much was left out.
MAX_NAME_CHARS = 120
MAX_TEXT_CHARS = 2000


def clip_text(text: str, max_chars: int = MAX_TEXT_CHARS) -> str:
    """`text` cut to `max_chars` characters, with the number of characters left out."""
    text = str(text)
    if len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}… ({len(text) - max_chars:,} more characters)"


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
