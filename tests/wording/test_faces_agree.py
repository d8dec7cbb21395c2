"""One plan, every face: the CLI table, Markdown, the PDF, the JSON report and the GUI word each figure
the same way, because they all take their words from `gpu_advisor.wording`."""

from __future__ import annotations

import json

import pytest

from gpu_advisor.cli import run_cli
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.report.json_report import render_json
from gpu_advisor.report.markdown import render_markdown
from gpu_advisor.report.pdf import write_pdf
from gpu_advisor.ui.plan.options_table import OptionsTable
from gpu_advisor.ui.plan.tier_card import TierCard
from gpu_advisor.wording.plan import (
    breakeven_text,
    buy_text,
    gpu_line,
    headline,
    memory_text,
    rent_text,
    speed_text,
)
from gpu_advisor.wording.plan_tables import plan_text
from tests.report.conftest import pdf_text, squash

# Electricity at $3/kWh: owning a GeForce RTX 4090 never pays off against renting it, so the break-even
# reads "never" (the CLI table once said "n/a" here while the Markdown said "never").
EXPENSIVE_POWER = ["plan", "--model", "llama-3-8b", "--electricity-usd-per-kwh", "3"]


@pytest.fixture(scope="module")
def expensive_power_plan():
    return plan(PlanRequest(model=get_preset("llama-3-8b"), electricity_usd_per_kwh=3))


def _row(text: str, gpu: str) -> str:
    return next(line for line in text.splitlines() if line.lstrip("| ").startswith(gpu))


def test_cli_table_and_markdown_agree_on_break_even(tmp_path, capsys, expensive_power_plan):
    md = tmp_path / "plan.md"
    assert run_cli([*EXPENSIVE_POWER, "--markdown", str(md)]) == 0
    table = capsys.readouterr().out
    rtx = next(o for o in expensive_power_plan.options if o.gpu_id == "nvidia-rtx-4090")
    assert rtx.cost.breakeven_months is None and rtx.cost.purchase_usd and rtx.cost.cloud_usd_per_hour
    cli_row = _row(table, rtx.gpu)
    md_row = _row(md.read_text(encoding="utf-8"), rtx.gpu)
    assert cli_row.rstrip().endswith("never")
    assert "| never |" in md_row


def test_every_face_words_the_recommendation_the_same(tmp_path, qtbot, expensive_power_plan):
    result = expensive_power_plan
    best = result.best
    figures = {
        "gpus": gpu_line(best),
        "memory": memory_text(best),
        "speed": speed_text(best),
        "rent": rent_text(best.cost),
        "buy": buy_text(best.cost),
        "break-even": breakeven_text(best.cost),
    }
    cli = plan_text(result)
    markdown = render_markdown(result)
    write_pdf(result, tmp_path / "plan.pdf")
    pdf_first_page = pdf_text(tmp_path / "plan.pdf")[0]
    summary = dict(render_json(result)["summary"])
    card = TierCard()
    qtbot.addWidget(card)
    card.show_plan(result)
    gui_card = " ".join(card.figure(k) for k in ("memory", "speed", "rent", "buy", "breakeven"))
    gui_card += " " + card.gpu_label.text()
    for name, words in figures.items():
        assert words in markdown, f"Markdown words the {name} differently"
        assert squash(words) in pdf_first_page, f"the PDF words the {name} differently"
        assert words in gui_card, f"the GUI words the {name} differently"
    assert figures["gpus"] in cli and figures["memory"] in cli
    assert figures["gpus"] in summary["headline"]
    assert summary["headline"] == headline(result) and squash(headline(result)) in pdf_first_page
    assert headline(result) in gui_card and headline(result) in markdown and headline(result) in cli


def test_options_table_cells_match_the_cli_and_markdown(qtbot, expensive_power_plan):
    result = expensive_power_plan
    table = OptionsTable()
    qtbot.addWidget(table)
    table.set_plan(result)
    markdown = render_markdown(result)
    cli = plan_text(result)
    for row, option in enumerate(result.options[:5]):
        md_row = _row(markdown, option.gpu)
        cli_row = _row(cli, option.gpu)
        for header in ("Fits", "Memory per GPU", "Rent $/h", "Break-even"):
            cell = table.cell_text(row, header)
            assert f"| {cell} |" in md_row, (header, cell)
            assert cell in cli_row, (header, cell)


def test_json_report_summary_is_the_plan_json_plus_words(expensive_power_plan):
    report = render_json(expensive_power_plan)
    assert report["plan"] == json.loads(json.dumps(expensive_power_plan.to_json_dict()))
    assert report["summary"]["cost"]["advice"].startswith("Rent")
