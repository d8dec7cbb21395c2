"""Report tests: a QApplication exists first (as in the app), so the report never creates its own."""

from __future__ import annotations

import re

import pytest
from pypdf import PdfReader


@pytest.fixture(autouse=True)
def _app(qapp):
    return qapp


def squash(text: str) -> str:
    """Text with all whitespace removed: PDF extraction spaces words with tabs and breaks lines freely."""
    return re.sub(r"\s+", "", text)


def pdf_text(path) -> list[str]:
    """The squashed text of every page."""
    return [squash(page.extract_text()) for page in PdfReader(str(path)).pages]
