"""Every character the Plan view and the PDF show is in the font they use: no empty box where an
emoji or a symbol the default fonts lack was written (the suggestion bullet once was a light bulb)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetrics, QTextDocument
from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QTabWidget, QWidget

from gpu_advisor.report.document import build_document
from gpu_advisor.report.qtapp import report_font_family
from gpu_advisor.ui.plan.wizard import STEP_RESULT
from tests.report.samples import buy_plan, no_fit_plan, training_plan


def _plain(text: str) -> str:
    """What a label shows: rich text without its markup and entities."""
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def _shown_texts(root: QWidget) -> list[tuple[QFont, str]]:
    found: list[tuple[QFont, str]] = []
    for widget in root.findChildren(QWidget):
        if not widget.isVisibleTo(root):
            continue
        if isinstance(widget, QLabel):
            found.append((widget.font(), _plain(widget.text())))
        elif isinstance(widget, QAbstractButton):
            found.append((widget.font(), widget.text()))
        elif isinstance(widget, QGroupBox):
            found.append((widget.font(), widget.title()))
        elif isinstance(widget, QTabWidget):
            found += [(widget.font(), widget.tabText(i)) for i in range(widget.count())]
    return found


def _missing(font: QFont, text: str) -> set[str]:
    metrics = QFontMetrics(font)
    return {ch for ch in text if not ch.isspace() and not metrics.inFontUcs4(ord(ch))}


def test_the_result_views_glyphs_are_in_the_default_font(window):
    # plans with suggestions (their bullet), for serving and for training
    window.form.set_model_source("preset", "mixtral-8x7b")
    cases = (
        {
            "task": "inference",
            "users": 8,
            "tokens_per_s_per_user": 20.0,
            "tier": "workstation",
            "purchase": "buy",
        },
        {"task": "finetune", "tier": None, "gpu": "nvidia-rtx-4090", "gpus": 1},
    )
    for fields in cases:
        for field, value in fields.items():
            window.form.set_field(field, value)
        window.wizard.go_to(STEP_RESULT)
        view = window.wizard.result_view
        assert view.plan is not None and view.plan.suggestions
        assert "Suggestion:" in view.warnings.text()
        for index in range(view.tabs.count()):
            view.tabs.setCurrentIndex(index)
            texts = _shown_texts(window)
            table = view.options.model()
            texts += [
                (view.options.font(), str(table.index(r, c).data()))
                for r in range(table.rowCount())
                for c in range(table.columnCount())
            ]
            for font, text in texts:
                assert not _missing(font, text), text


def test_the_pdfs_glyphs_are_in_the_report_font():
    for result in (buy_plan(), no_fit_plan(), training_plan()):
        content = build_document(result, [], 480, 72)
        text = _plain(content.html(frozenset()))
        assert not _missing(QFont(report_font_family()), text)
