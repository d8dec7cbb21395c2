"""The PDF report: its content matches the plan, its pages are sane, and writing it is atomic."""

from __future__ import annotations

import json
import os
import threading

import pytest
from pypdf import PdfReader

from gpu_advisor.bench.loading import load_named
from gpu_advisor.cli import run_cli
from gpu_advisor.core.units import format_usd
from gpu_advisor.report import pdf as pdf_module
from gpu_advisor.report.pdf import write_pdf
from gpu_advisor.wording.plan import machine_text, rented
from tests.report.conftest import pdf_text, squash
from tests.report.samples import bench_results, buy_plan, inference_plan, no_fit_plan, training_plan


@pytest.fixture(scope="module")
def inference():
    return inference_plan()


def test_cli_plan_writes_a_pdf_naming_the_answer(tmp_path, capsys):
    path = tmp_path / "plan.pdf"
    code = run_cli(
        [
            "plan",
            "--model",
            "llama-3-70b",
            "--users",
            "32",
            "--tokens-per-s",
            "20",
            "--pdf",
            str(path),
            "--json",
        ]
    )
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    rec = printed["recommendation"]
    best = next(o for o in printed["options"] if o["gpu_id"] == rec["gpu_id"])
    pages = pdf_text(path)
    first = pages[0]
    verdict = printed["verdict"]
    # Llama 3 70B for 32 users: the cheapest rental (MI300X, no purchase price) is not the cheapest
    # purchase, so page 1's headline names both, as the verdict under it compares them.
    assert verdict["rent"]["gpu_id"] == rec["gpu_id"] != verdict["buy"]["gpu_id"]
    buy = verdict["buy"]
    assert squash(f"Rent: {rec['count']} × {rec['gpu']}; to buy: {buy['count']} × {buy['gpu']}") in first
    assert squash(format_usd(best["cloud_usd_per_month"])) in first
    assert squash(f"{format_usd(best['cloud_usd_per_month'] * 36)} to rent for 36 months") in first
    assert 3 <= len(pages) <= 10


def test_write_pdf_summary_footer_fonts_and_page_size(tmp_path, inference):
    best = inference.best
    path = tmp_path / "r.pdf"
    pages = write_pdf(inference, path, page_size="Letter")
    reader = PdfReader(str(path))
    assert len(reader.pages) == pages
    text = pdf_text(path)
    assert squash(f"Rent: {best.count} × {best.gpu}; to buy: {inference.verdict.buy.count} ×") in text[0]
    for number, page in enumerate(text, start=1):
        assert f"Page{number}of{pages}" in page
    # Letter is 8.5 x 11 inches (612 x 792 points)
    box = reader.pages[0].mediabox
    assert (round(box.width), round(box.height)) == (612, 792)
    # every font is embedded (a FontFile in each descendant font's descriptor)
    for font in reader.pages[0]["/Resources"]["/Font"].values():
        descriptor = font.get_object()["/DescendantFonts"][0].get_object()["/FontDescriptor"]
        assert "/FontFile2" in descriptor or "/FontFile" in descriptor or "/FontFile3" in descriptor
    assert reader.metadata.title.endswith("Llama 3 70B inference, bf16")


def test_training_pdf_states_the_job_cost_and_options(tmp_path):
    plan = training_plan()
    best = plan.best
    path = tmp_path / "train.pdf"
    write_pdf(plan, path)
    text = "".join(pdf_text(path))
    assert squash(f"{format_usd(best.cost.job_cloud_usd)} to rent this job") in text
    # every option the planner considered is in the options table
    for option in plan.options:
        assert squash(option.gpu) in text


def test_buy_plan_marks_break_even(tmp_path):
    plan = buy_plan()
    best = plan.best
    path = tmp_path / "buy.pdf"
    write_pdf(plan, path)
    first = pdf_text(path)[0]
    assert squash(f"{best.cost.breakeven_months:.1f} months") in first
    assert squash(format_usd(best.cost.purchase_usd)) in first
    assert squash("Buy if the GPUs stay busy") in first


def test_no_fit_plan_says_so_on_page_one(tmp_path):
    plan = no_fit_plan()
    path = tmp_path / "nofit.pdf"
    write_pdf(plan, path)
    first = pdf_text(path)[0]
    assert squash("No recommendation: nothing fits in memory") in first
    assert squash(plan.suggestions[0]) in first


def test_attached_results_show_machine_comparison_and_telemetry(tmp_path, inference):
    results_file = tmp_path / "gpu.json"
    results_file.write_text(json.dumps(bench_results(gpu=True)))
    path = tmp_path / "with-results.pdf"
    write_pdf(inference, path, [load_named(results_file)])
    text = "".join(pdf_text(path))
    for expected in (
        "Benchmark: gpu.json",
        "AMD EPYC 7B13",
        "driver 550.54.15",
        "Measured against predicted",
        "198.7 ms",
        "181.0 ms",
        "-9%",
        "Compute-bound",
        "Telemetry",
    ):
        assert squash(expected) in text
    images = sum(len(page.images) for page in PdfReader(str(path)).pages)
    assert images == 3  # cost, memory, telemetry


def test_failure_mid_write_leaves_the_existing_file_and_no_temporary(tmp_path, inference):
    path = tmp_path / "report.pdf"
    path.write_bytes(b"the previous report")

    def cancel(percent, step):
        if step.startswith("page 2"):
            raise RuntimeError("cancelled")

    with pytest.raises(RuntimeError, match="cancelled"):
        write_pdf(inference, path, progress=cancel)
    assert path.read_bytes() == b"the previous report"
    assert os.listdir(tmp_path) == ["report.pdf"]


def test_failure_while_drawing_charts_leaves_no_file(tmp_path, inference, monkeypatch):
    from gpu_advisor.report import charts

    def broken(*args, **kwargs):
        raise ValueError("chart failed")

    monkeypatch.setattr(charts, "memory_chart_image", broken)
    path = tmp_path / "new.pdf"
    with pytest.raises(ValueError, match="chart failed"):
        write_pdf(inference, path)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("where", ["missing-folder", "folder"])
def test_unwritable_path_raises_oserror_naming_the_file(tmp_path, inference, where):
    path = tmp_path / "no-such-folder" / "r.pdf" if where == "missing-folder" else tmp_path
    with pytest.raises(OSError) as info:
        write_pdf(inference, path)
    assert info.value.filename == str(path)
    assert str(path) in str(info.value)


def test_cli_unwritable_pdf_is_one_line_and_exit_2(tmp_path, capsys):
    target = tmp_path / "missing" / "r.pdf"
    code = run_cli(["plan", "--model", "gpt2-small", "--pdf", str(target)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err == f"gpu-advisor plan: error: {target}: cannot write (the folder does not exist)"


def test_progress_reaches_100_and_counts_pages(tmp_path, inference):
    seen = []
    pages = write_pdf(inference, tmp_path / "p.pdf", progress=lambda pct, step: seen.append((pct, step)))
    percents = [p for p, _ in seen]
    assert percents == sorted(percents) and percents[0] == 0 and percents[-1] == 100
    assert f"page {pages} of {pages}" in [s for _, s in seen]


def test_write_pdf_works_from_a_worker_thread(tmp_path, inference):
    """The GUI exports on a worker thread; the application object lives on the main thread."""
    errors, pages = [], []

    def work():
        try:
            pages.append(write_pdf(inference, tmp_path / "thread.pdf"))
        except Exception as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(timeout=60)
    assert not errors
    assert pages and (tmp_path / "thread.pdf").stat().st_size > 10_000


def test_no_table_row_is_cut_by_a_page_break(tmp_path, inference, monkeypatch):
    """The options table spans pages; every row must land whole on one page."""
    found = []
    original = pdf_module._first_straddling_row

    def spy(doc, page_h):
        result = original(doc, page_h)
        found.append(result)
        return result

    monkeypatch.setattr(pdf_module, "_first_straddling_row", spy)
    write_pdf(inference, tmp_path / "rows.pdf")
    assert found[-1] is None  # the final layout has no straddling row
    assert len(found) > 1  # and there was at least one to fix (the table is long)


def test_a_pdf_that_does_not_fit_on_the_disk_fails_and_keeps_the_old_file(
    small_disk, tmp_path, monkeypatch, inference
):
    """Qt's PDF writer truncates silently on a full disk; the export must fail, not 'succeed'."""
    import errno

    if small_disk is None:  # no tmpfs: make every write past 64 KiB fail as a full disk would
        import gpu_advisor.core.files as files

        real_open = open

        class SmallDisk:
            def __init__(self, fh):
                self.fh = fh

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.fh.close()

            def write(self, data):
                if len(data) > 64 * 1024:
                    raise OSError(errno.ENOSPC, "No space left on device")
                return self.fh.write(data)

            def flush(self):
                self.fh.flush()

        monkeypatch.setattr(files, "open", lambda p, mode="r": SmallDisk(real_open(p, mode)), raising=False)
        folder = tmp_path
    else:
        folder = small_disk
    target = folder / "plan.pdf"
    target.write_bytes(b"%PDF-1.4 an older, good report %%EOF")
    with pytest.raises(OSError) as info:
        write_pdf(inference, target)
    assert info.value.errno == errno.ENOSPC
    assert target.read_bytes() == b"%PDF-1.4 an older, good report %%EOF"
    assert [p.name for p in folder.iterdir() if p.name != "lost+found"] == ["plan.pdf"]


def test_cli_reports_a_full_disk_with_exit_2(small_disk, capsys):
    if small_disk is None:
        pytest.skip("needs a tmpfs mount (root); the write wrapper test above covers the failure path")
    code = run_cli(["plan", "--model", "llama-3-8b", "--pdf", str(small_disk / "plan.pdf")])
    assert code == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "No space left" in err
    assert list(small_disk.iterdir()) == []


def test_page_one_answers_rent_or_buy_and_shows_the_three_tiers(tmp_path, inference):
    """Page 1 carries the verdict across every option and one column per tier with its machines."""
    path = tmp_path / "tiers.pdf"
    write_pdf(inference, path)
    first = pdf_text(path)[0]
    assert squash(f"Rent or buy: {inference.verdict.reason}") in first
    assert squash("The three tiers side by side") in first
    for choice in inference.tiers:
        assert squash(choice.tier.label) in first
    best = inference.best
    assert squash(f"Machines{machine_text(best, rented(inference, best))}") in first


def test_a_training_job_pdf_does_not_quote_months_of_round_the_clock_rent(tmp_path):
    plan = training_plan()
    path = tmp_path / "job.pdf"
    write_pdf(plan, path)
    text = "".join(pdf_text(path))
    assert squash("to rent for 36 months") not in text
    assert squash(f"{format_usd(plan.best.cost.job_cloud_usd)} to rent this job") in text


def test_a_huge_text_from_a_users_file_is_cut_in_the_pdf(tmp_path, inference):
    """One unbreakable 1 MB word (a hostile user catalogue or plan) would keep the layout busy for
    minutes; the report shows its start and says how much it left out."""
    huge = "W" * 1_000_000
    plan = inference.model_copy(update={"warnings": [*inference.warnings, huge]})
    path = tmp_path / "huge.pdf"
    write_pdf(plan, path)
    text = "".join(pdf_text(path))
    assert "W" * 1000 in text and "W" * 3000 not in text
    assert squash("(998,000 more characters)") in text


def test_a_saved_plan_with_an_absurd_model_name_is_refused_in_one_line(tmp_path, capsys, inference):
    data = inference.to_json_dict()
    data["inputs"]["model"]["name"] = "A" * 1_000_000
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data))
    code = run_cli(["report", str(path), "--pdf", str(tmp_path / "r.pdf")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "model.name" in err and "at most 300 characters" in err
    assert not (tmp_path / "r.pdf").exists()


def _page_lines(path) -> list[tuple[list[str], list[str]]]:
    """Per page: the body's lines top to bottom, and any text drawn outside the body and the footer.

    Positions are in points below the body's top (A4: 297 mm high; PDF user space starts at the
    bottom of the page).
    """
    points = 72 / 25.4
    body_top = (297 - pdf_module.MARGINS_MM.top()) * points  # in user space
    body_h = (297 - pdf_module.MARGINS_MM.top() - pdf_module.MARGINS_MM.bottom()) * points
    footer_top = body_h + pdf_module.FOOTER_GAP_MM * points
    pages = []
    for page in PdfReader(str(path)).pages:
        lines: dict[float, list[str]] = {}
        stray: list[str] = []

        def visit(text, cm, tm, _font, _size, lines=lines, stray=stray):
            if not text.strip():
                return
            y = body_top - (tm[4] * cm[1] + tm[5] * cm[3] + cm[5])  # the baseline
            if 0 <= y <= body_h:
                lines.setdefault(round(y), []).append(text)
            elif y < footer_top:
                stray.append(text)

        page.extract_text(visitor_text=visit)
        pages.append(([squash("".join(lines[y])) for y in sorted(lines)], stray))
    return pages


@pytest.mark.parametrize("which", ["inference", "training", "buy", "with results"])
def test_headings_stay_with_what_follows_them(tmp_path, which, inference):
    """No page ends with a heading, and no line of the next page is written, unseen, under this one
    (text a reader copies, searches or hears read aloud as this page's last line)."""
    from gpu_advisor.report.document import Heading, build_document

    plans = {"inference": inference, "training": training_plan(), "buy": buy_plan()}
    plan = plans.get(which, inference)
    results = []
    if which == "with results":
        for name, gpu in (("gpu.json", True), ("cpu.json", False)):
            (tmp_path / name).write_text(json.dumps(bench_results(gpu=gpu)))
            results.append(load_named(str(tmp_path / name)))
    path = tmp_path / "report.pdf"
    write_pdf(plan, path, results)
    content = build_document(plan, results, 480, 72)
    headings = {squash(part.text) for part in content.parts if isinstance(part, Heading)}
    pages = _page_lines(path)
    assert len(pages) > 2
    for number, (lines, stray) in enumerate(pages, 1):
        assert stray == [], f"page {number}"
        assert lines and lines[-1] not in headings, f"page {number} ends with the heading {lines[-1]!r}"
