"""The PDF a manager reads (review 3, D21): page 1 states the target and whether it is met, no page is
left mostly blank, the options are the ones worth a look, assumptions and sources read for people,
the memory table shows what allocates the card; and the Markdown renders the PDF's outline."""

from __future__ import annotations

import re

import pytest
from pypdf import PdfReader

from gpu_advisor.core.presets import resolve_model
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.units import format_bytes, format_duration, format_usd
from gpu_advisor.report import pdf as pdf_module
from gpu_advisor.report.markdown import render_markdown
from gpu_advisor.report.pdf import write_pdf
from tests.report.conftest import pdf_text, squash
from tests.report.samples import training_plan


@pytest.fixture(scope="module")
def arrivals():
    """Review 3's J8/D21 plan: Llama 3 70B at 5 requests/s of 1,024 + 256 tokens, first token within
    0.5 s, 20 tokens/s per user."""
    model = resolve_model(preset="llama-3-70b", config=None, params=None)
    request = PlanRequest(
        model=model,
        requests_per_s=5,
        prompt_tokens=1024,
        output_tokens=256,
        ttft_s=0.5,
        tokens_per_s_per_user=20,
    )
    return plan(request)


@pytest.fixture(scope="module")
def arrivals_pdf(arrivals, tmp_path_factory):
    path = tmp_path_factory.mktemp("pdf") / "arrivals.pdf"
    write_pdf(arrivals, path)
    return path


def test_page_one_states_the_serving_target_and_that_the_answer_meets_it(arrivals, arrivals_pdf):
    best = arrivals.best
    first = pdf_text(arrivals_pdf)[0]
    target = "5 requests/s of 1,024 + 256 tokens, 20 tokens/s per user, first token within 500.0 ms"
    assert squash(f"Target: {target} — met by {best.count} × {best.gpu}") in first
    assert squash(f"first token after {format_duration(best.serving.ttft_s)}") in first


def test_page_one_states_the_training_deadline_and_the_time_it_takes(tmp_path):
    result = training_plan()  # 1B tokens within 24 h
    best = result.best
    path = tmp_path / "train.pdf"
    write_pdf(result, path)
    first = pdf_text(path)[0]
    line = f"Target: 1B training tokens, within 24 h — met by {best.count} × {best.gpu}: "
    assert squash(line + f"{format_duration(best.training.time_to_train_s)} to train") in first


def _lowest_text(path) -> list[float]:
    """Per page, how far down the body its lowest line of text sits (0 top, 1 bottom)."""
    points = 72 / 25.4
    margins = pdf_module.MARGINS_MM
    body_top = (297 - margins.top()) * points
    body_h = (297 - margins.top() - margins.bottom()) * points
    out = []
    for page in PdfReader(str(path)).pages:
        ys = [0.0]

        def visit(text, cm, tm, _font, _size, ys=ys):
            y = body_top - (tm[4] * cm[1] + tm[5] * cm[3] + cm[5])
            if text.strip() and 0 <= y <= body_h:
                ys.append(y / body_h)

        page.extract_text(visitor_text=visit)
        out.append(max(ys))
    return out


def test_no_page_but_the_last_is_mostly_blank(arrivals_pdf):
    """Page 2 (the cost chart and the next best options) used to end 45% down the page: the inputs
    started a new page of their own."""
    filled = _lowest_text(arrivals_pdf)
    assert all(f > 0.6 for f in filled[:-1]), [f"{f:.0%}" for f in filled]


def test_the_options_list_leaves_out_absurd_rows_and_names_them(arrivals, arrivals_pdf):
    text = "".join(pdf_text(arrivals_pdf))
    options = text.split(squash("Options"))[-1]
    best = arrivals.best
    huge = [o for o in arrivals.options if o.fits and o.count > 8 * best.count]
    assert huge, "the plan sizes some GPU at more than 8 times the answer's count"
    for option in huge:
        # named among those left out, and none of its figures printed
        assert squash(f"{option.count} × {option.gpu}") in options
        if option.cost.purchase_usd is not None:
            assert squash(format_usd(option.cost.purchase_usd)) not in text
    assert squash("Left out as more than 8 times the GPUs of the first option") in options


def test_an_option_beaten_on_price_and_speed_is_folded(arrivals):
    """No row of the Markdown's options table (the PDF's content) is slower and dearer than another
    with no more GPUs."""
    text = render_markdown(arrivals)
    table = text.split("## Options")[1].split("## Speed")[0]
    shown = [o for o in arrivals.options if f"| {o.gpu} (" in table]
    assert 3 <= len(shown) < len(arrivals.options)
    # the next options that meet the target stay, whatever their price: what a reader who cannot
    # get the first choice buys
    best = arrivals.best
    runners_up = [o for o in arrivals.options if o.fits and o.meets_target and o is not best][:3]
    for worse in shown:
        if worse is arrivals.best or worse.rank_usd is None:
            continue
        for better in shown:
            if better is worse or better.rank_usd is None or not better.fits or better.count > worse.count:
                continue
            if better.meets_target < worse.meets_target:
                continue
            faster = better.serving.tokens_per_s_per_user >= worse.serving.tokens_per_s_per_user
            sooner = better.serving.ttft_s <= worse.serving.ttft_s
            assert worse in runners_up or not (faster and sooner and better.rank_usd < worse.rank_usd), (
                worse.gpu,
                better.gpu,
            )


def test_assumptions_read_as_labels_not_code_identifiers(arrivals_pdf):
    text = "".join(pdf_text(arrivals_pdf))
    assumptions = text.split(squash("Assumptions"))[-1]
    for identifier in ("host_usd_per_machine", "max_gpus_searched", "ownership_months_for_buy_ranking"):
        assert identifier not in assumptions
    for label in ("Machine price without GPUs", "Most GPUs searched", "Decode step overhead"):
        assert squash(label) in assumptions


def test_sources_cite_datasheets_before_aggregators(tmp_path):
    """H100 SXM cites a datasheet (S7) and GitHub tables (S1 stas00/ml-engineering, S5 Lightning):
    a purchase reader meets the datasheet first, and each source says what kind it is."""
    model = resolve_model(preset="llama-3-8b", config=None, params=None)
    result = plan(PlanRequest(model=model, users=8, tokens_per_s_per_user=20, gpu="h100-sxm"))
    path = tmp_path / "h100.pdf"
    write_pdf(result, path)
    sources = "".join(pdf_text(path)).split(squash("Catalogue sources for the recommended GPU"))[-1]
    datasheet = sources.index(squash("S7 (datasheet or maker)"))
    assert datasheet < sources.index(squash("S1 (aggregator)"))
    assert datasheet < sources.index(squash("S5 (aggregator)"))


def test_the_memory_table_shows_what_allocates_the_card(arrivals, arrivals_pdf):
    """vLLM on the answer's GPU: non-PyTorch memory, the engine's reserve and its KV pool, each
    with its size, instead of one "CUDA context + fragmentation" row."""
    text = "".join(pdf_text(arrivals_pdf))
    memory = text.split(squash("On each GPU of"))[1].split(squash("Options"))[0]
    parts = arrivals.best.per_gpu.overhead_parts
    assert parts and parts["engine_reserve_bytes"] > 0
    assert squash(f"Non-PyTorch memory {format_bytes(parts['non_pytorch_bytes'])}") in memory
    assert squash(f"Engine reserve {format_bytes(parts['engine_reserve_bytes'])}") in memory
    assert squash(f"KV pool (engine) {format_bytes(arrivals.best.per_gpu.kv_pool_bytes)}") in memory
    assert squash("CUDA context + fragmentation") not in text  # the charts are images


def test_a_training_plans_memory_table_splits_fragmentation_out(tmp_path):
    result = training_plan()
    parts = result.best.per_gpu.overhead_parts
    assert parts and parts["fragmentation_bytes"] > 0
    text = render_markdown(result)
    assert f"| Fragmentation | {format_bytes(parts['fragmentation_bytes'])} |" in text
    assert f"| Non-PyTorch memory | {format_bytes(parts['non_pytorch_bytes'])} |" in text


def test_the_markdown_has_the_pdfs_sections_in_its_order(arrivals):
    """One outline: every heading of the PDF is a heading of the Markdown, in the same order (the
    Markdown used to lack "Next best options")."""
    from gpu_advisor.report.document import Heading, build_document

    pdf_headings = [p.text for p in build_document(arrivals, [], 480, 72).parts if isinstance(p, Heading)]
    markdown = render_markdown(arrivals)
    md_headings = [re.sub(r"^#+ ", "", line) for line in markdown.splitlines() if line.startswith("#")]
    md_headings[0] = md_headings[0].removeprefix("GPU recommendation: ")
    assert "Next best options" in pdf_headings
    assert md_headings == pdf_headings


def test_where_nothing_fits_the_near_misses_are_still_listed():
    """Leaving out what does not fit is for plans with an answer; without one, the closest options
    are all the reader has."""
    from tests.report.samples import no_fit_plan

    result = no_fit_plan()
    assert not any(o.fits for o in result.options)
    table = render_markdown(result).split("## Options")[1].split("## Speed")[0]
    for option in result.options:
        assert f"| {option.gpu} (" in table
    assert "Left out" not in table


def test_a_training_plans_next_best_options_are_priced_as_the_job():
    """Review 3's J3: the next best options showed $/h and $/month for a one-off training job."""
    from gpu_advisor.core.units import format_usd
    from gpu_advisor.wording.plan import rent_text

    result = training_plan()
    text = render_markdown(result)
    section = text.split("### Next best options")[1].split("## ")[0]
    others = [o for o in result.options if o.fits and o.meets_target and o is not result.best][:3]
    assert others
    for option in others:
        job = f"{format_usd(option.cost.job_cloud_usd)} for the job ({option.training.gpu_hours:,.0f} GPU-hours)"
        assert job in section
        assert rent_text(option.cost) not in section


def test_an_attached_watched_command_is_titled_as_one(tmp_path):
    """Review 3's D21: a watched run was titled "Benchmark: … Telemetry during the benchmark"."""
    import sys

    from gpu_advisor.bench.loading import load_named
    from gpu_advisor.bench.monitor import run_monitor
    from gpu_advisor.telemetry import NvmlSource
    from tests.report.samples import inference_plan
    from tests.telemetry.fake_nvml import FakeNvml

    report = run_monitor(
        [sys.executable, "-c", "import time; time.sleep(0.3)"],
        interval_s=0.1,
        nvml=NvmlSource(nvml_module=FakeNvml([])),
    )
    report.save(tmp_path / "run.json")
    text = render_markdown(inference_plan(), [load_named(tmp_path / "run.json")])
    assert "## Watched command: run.json" in text and "## Benchmark:" not in text
    assert "Telemetry during the watched command" in text


@pytest.mark.parametrize(("which", "size"), [("buy", "Letter"), ("training", "Letter"), ("inference", "A4")])
def test_the_cost_table_stays_on_its_headings_page(tmp_path, which, size):
    """A short table reads as one: "Cost: rent or buy" was split across two pages (review 3, D21;
    the buy plan on Letter paper did so)."""
    from gpu_advisor.wording.plan import build_summary, cost_rows
    from tests.report.samples import buy_plan, inference_plan

    result = {"buy": buy_plan, "training": training_plan, "inference": inference_plan}[which]()
    path = tmp_path / "cost.pdf"
    write_pdf(result, path, page_size=size)
    pages = pdf_text(path)
    (page,) = [t for t in pages if squash("Cost: rent or buy") in t]
    section = page.split(squash("Cost: rent or buy"))[1]
    summed = build_summary(result).cost
    for label, value in cost_rows(summed):
        assert squash(f"{label}{value}") in section, label
    assert squash(summed.advice) in section
