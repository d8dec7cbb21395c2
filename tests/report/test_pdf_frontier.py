"""Without a deadline a token budget is planned to a default duration, and the PDF shows what the CLI
table and the GUI's tier card show: the recommended GPU and recipe at each scale, time against rent."""

from __future__ import annotations

from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.units import format_duration, format_usd
from gpu_advisor.report.pdf import write_pdf
from tests.report.conftest import pdf_text, squash


def test_the_pdf_of_a_15t_token_70b_run_without_a_deadline_shows_time_and_rent_at_each_scale(tmp_path):
    result = plan(
        PlanRequest(
            model=get_preset("llama-3-70b"),
            task="pretrain",
            seq_len=8192,
            grad_checkpointing=True,
            train_tokens=15e12,
            gpu="nvidia-h100-sxm",
        )
    )
    assert len(result.frontier) >= 3
    path = tmp_path / "frontier.pdf"
    write_pdf(result, path)
    text = "".join(pdf_text(path))
    assert squash("Time and cost by scale (NVIDIA H100 SXM, the recommended recipe)") in text
    for point in result.frontier:
        row = f"{point.count:,}{format_duration(point.time_to_train_s)}{format_usd(point.job_cloud_usd)}"
        if point.count == result.best.count:
            row += "recommended"
        assert squash(row) in text, row


def test_a_plan_with_a_deadline_has_no_frontier_section(tmp_path):
    result = plan(
        PlanRequest(
            model=get_preset("gpt2-xl"), task="pretrain", seq_len=1024, train_tokens=10e9, max_hours=24
        )
    )
    assert not result.frontier
    path = tmp_path / "deadline.pdf"
    write_pdf(result, path)
    assert squash("Time and cost by scale") not in "".join(pdf_text(path))
