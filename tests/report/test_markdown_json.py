"""Markdown and JSON reports carry the same answer as the PDF, and are written atomically."""

from __future__ import annotations

import json

import pytest

from gpu_advisor.bench.loading import report_from_dict
from gpu_advisor.bench.results import NamedReport
from gpu_advisor.core.units import format_usd
from gpu_advisor.report.json_report import REPORT_SCHEMA, render_json, write_json_report
from gpu_advisor.report.markdown import render_markdown, write_markdown
from gpu_advisor.wording.shortlist import shortlist
from tests.report.samples import bench_results, inference_plan, no_fit_plan, training_plan


@pytest.fixture(scope="module")
def inference():
    return inference_plan()


def test_markdown_summary_options_and_assumptions(inference):
    best = inference.best
    text = render_markdown(inference)
    assert text.startswith("# GPU recommendation: Llama 3 70B inference, bf16\n")
    # The headline names the verdict's rental and purchase when they are different GPUs.
    v = inference.verdict
    assert f"**Rent: {best.count} × {best.gpu}; to buy: {v.buy.count} × {v.buy.gpu}, break-even" in text
    assert (
        f"| Rent | {format_usd(best.cost.cloud_usd_per_hour)}/h ({format_usd(best.cost.cloud_usd_per_month)}/month)"
        in text
    )
    options = text.split("## Options")[1].split("## Speed")[0]
    rows = [line for line in options.splitlines() if line.startswith("| ") and "---" not in line]
    # The shortlist's rows (+ the header); every option left out is named under the table.
    listed = shortlist(inference)
    assert len(rows) == len(listed.shown) + 1
    for option in [*listed.dominated, *listed.too_large, *listed.not_fitting]:
        assert f"{option.count} × {option.gpu}" in options
    # The efficiencies come per GPU architecture and precision unless the user sets one for every GPU.
    assert "| Training MFU (model FLOPs utilisation) | per GPU (published tables) |" in text
    assert "| kv_cache" not in text  # components are labelled for people
    assert "| KV cache | 7.5 GiB |" in text


def test_markdown_training_job_is_priced_as_the_job_not_36_months_of_rent():
    """A one-off job reads as its rent against the purchase; 36 months of round-the-clock rent
    beside it (what the report used to print) is no figure anyone would pay."""
    plan = training_plan()
    text = render_markdown(plan)
    assert "| 36 | " + format_usd(plan.best.cost.cloud_usd_per_month * 36) not in text
    assert f"{format_usd(plan.best.cost.job_cloud_usd)} to rent this job" in text
    assert f"| This training job, rented | {format_usd(plan.best.cost.job_cloud_usd)} |" in text
    assert f"**Rent or buy:** {plan.verdict.reason}" in text
    assert "### The three tiers side by side" in text


def test_markdown_no_fit_lists_suggestions():
    plan = no_fit_plan()
    text = render_markdown(plan)
    assert "**No recommendation: nothing fits in memory**" in text
    assert f"- {plan.suggestions[0]}" in text
    assert "No option fits, so there is nothing to price." in text


def test_markdown_with_results_and_escaped_pipes(inference):
    data = bench_results(gpu=False)
    data["results"][0]["name"] = "train a|b"
    text = render_markdown(inference, [NamedReport("cpu.json", report_from_dict(data))])
    assert "## Benchmark: cpu.json" in text
    assert "train a\\|b" in text
    assert "| GPU | No NVIDIA GPU: CPU mode (no driver) |" in text


def test_json_report_holds_the_plan_summary_and_results(inference):
    data = bench_results(gpu=True)
    report = render_json(inference, [NamedReport("gpu.json", report_from_dict(data))])
    assert report["schema"] == REPORT_SCHEMA
    assert report["plan"] == json.loads(json.dumps(inference.to_json_dict()))
    summary = report["summary"]
    best = inference.best
    assert (summary["gpu"], summary["count"], summary["tier"]) == (best.gpu, best.count, best.tier.label)
    assert summary["cost"]["rent_usd_per_month"] == best.cost.cloud_usd_per_month
    assert summary["cost"]["rent_total_usd"] == pytest.approx(best.cost.cloud_usd_per_month * 36)
    assert report["results"][0]["file"] == "gpu.json"
    # the attached file's content, as bench@1 (read back, it is the same results)
    attached = {k: v for k, v in report["results"][0].items() if k != "file"}
    assert report_from_dict(attached).results == report_from_dict(data).results
    json.dumps(report, allow_nan=False)  # valid JSON


def test_writers_replace_files_whole(tmp_path, inference, monkeypatch):
    md, js = tmp_path / "r.md", tmp_path / "r.json"
    write_markdown(inference, md)
    write_json_report(inference, js)
    assert md.read_text().startswith("# GPU recommendation")
    assert json.loads(js.read_text())["schema"] == REPORT_SCHEMA

    from gpu_advisor.report import markdown

    def broken(*args, **kwargs):
        raise RuntimeError("render failed")

    monkeypatch.setattr(markdown, "render_markdown", broken)
    before = md.read_bytes()
    with pytest.raises(RuntimeError):
        write_markdown(inference, md)
    assert md.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "r.md"]


def test_break_even_tells_never_from_unknown_price():
    """The PDF said 'never' when the cloud price was unknown; the Markdown said 'n/a' when renting won."""
    from gpu_advisor.core.estimates import CostEstimate
    from gpu_advisor.wording.plan import breakeven_text

    def cost(months, rent, buy):
        monthly = None if rent is None else rent * 730
        return CostEstimate(
            cloud_usd_per_hour=rent,
            cloud_usd_per_month=monthly,
            purchase_usd=buy,
            electricity_usd_per_month=None,
            breakeven_months=months,
            formula="",
        )

    assert breakeven_text(cost(5.04, 0.74, 2398.0)) == "5.0 months"
    assert breakeven_text(cost(None, 0.74, 2398.0)) == "never"  # renting stays cheaper than owning
    assert breakeven_text(cost(None, None, 2398.0)) == "n/a (price unknown)"
    assert breakeven_text(cost(None, 2.59, None)) == "n/a (price unknown)"
