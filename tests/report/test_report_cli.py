"""`gpu-advisor report PLAN.json ...`: a saved plan becomes a report; a bad file is one line, exit 2."""

from __future__ import annotations

import json

import pytest
from pypdf import PdfReader

from gpu_advisor.cli import run_cli
from gpu_advisor.core.units import format_usd
from tests.report.conftest import pdf_text, squash
from tests.report.samples import bench_results


@pytest.fixture(scope="module")
def saved_plan(tmp_path_factory):
    path = tmp_path_factory.mktemp("plans") / "plan.json"
    assert (
        run_cli(
            ["plan", "--model", "llama-3-8b", "--task", "lora", "--train-tokens", "5e8", "--save", str(path)]
        )
        == 0
    )
    return path


def test_report_writes_pdf_markdown_and_json_with_results(tmp_path, saved_plan, capsys):
    saved = json.loads(saved_plan.read_text())
    results = tmp_path / "bench.json"
    results.write_text(json.dumps(bench_results(gpu=True)))
    out = tmp_path / "out"
    out.mkdir()
    code = run_cli(
        [
            "report", str(saved_plan), "--results", str(results),
            "--pdf", str(out / "r.pdf"), "--markdown", str(out / "r.md"), "--json", str(out / "r.json"),
            "--page-size", "Letter",
        ]
    )  # fmt: skip
    assert code == 0
    assert "Letter" in capsys.readouterr().out
    rec = saved["recommendation"]
    best = next(o for o in saved["options"] if o["gpu_id"] == rec["gpu_id"])
    first = pdf_text(out / "r.pdf")[0]
    assert squash(f"{rec['count']} × {rec['gpu']}") in first
    assert squash(f"{format_usd(best['job_cloud_usd'])} to rent this job") in first
    assert "## Benchmark: bench.json" in (out / "r.md").read_text()
    report = json.loads((out / "r.json").read_text())
    assert report["plan"]["recommendation"] == rec
    assert report["results"][0]["file"] == "bench.json"


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "not valid JSON (line 1, column 2"),
        (json.dumps({"schema": "gpu-advisor/bench@1"}), "schema: expected 'gpu-advisor/plan@1'"),
        (json.dumps({"schema": "gpu-advisor/plan@1"}), "inputs: missing or not an object"),
        (
            json.dumps({"schema": "gpu-advisor/plan@1", "inputs": {"model": {"name": "x"}}}),
            "inputs.model.family",
        ),
    ],
)
def test_corrupt_plan_file_is_one_line_and_exit_2(tmp_path, capsys, content, expected):
    plan_file = _write(tmp_path, "bad.json", content)
    code = run_cli(["report", str(plan_file), "--pdf", str(tmp_path / "r.pdf")])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert str(plan_file) in err and expected in err
    assert "Traceback" not in err
    assert not (tmp_path / "r.pdf").exists()


def test_bad_field_value_names_the_field(tmp_path, saved_plan, capsys):
    data = json.loads(saved_plan.read_text())
    data["inputs"]["seq_len"] = -5
    plan_file = _write(tmp_path, "neg.json", json.dumps(data))
    assert run_cli(["report", str(plan_file), "--pdf", str(tmp_path / "r.pdf")]) == 2
    assert f"{plan_file}: inputs.seq_len:" in capsys.readouterr().err


def test_bad_results_file_names_the_file_and_field(tmp_path, saved_plan, capsys):
    data = bench_results(gpu=False)
    data["results"] = "nope"
    results = _write(tmp_path, "bench.json", json.dumps(data))
    assert (
        run_cli(["report", str(saved_plan), "--results", str(results), "--pdf", str(tmp_path / "r.pdf")]) == 2
    )
    err = capsys.readouterr().err
    assert str(results) in err and "results" in err.split(str(results))[1]
    assert not (tmp_path / "r.pdf").exists()


def test_report_needs_an_output(saved_plan, capsys):
    assert run_cli(["report", str(saved_plan)]) == 2
    assert "nothing to write" in capsys.readouterr().err


def test_changed_answer_is_noted(tmp_path, saved_plan, capsys):
    data = json.loads(saved_plan.read_text())
    data["recommendation"] = {**data["recommendation"], "gpu_id": "old-gpu", "gpu": "Old GPU", "count": 3}
    plan_file = _write(tmp_path, "old.json", json.dumps(data))
    assert run_cli(["report", str(plan_file), "--markdown", str(tmp_path / "r.md")]) == 0
    assert "recommended 3 x Old GPU; planned again" in capsys.readouterr().err


def test_plan_says_what_it_wrote_and_keeps_stdout_for_the_plan(tmp_path, capsys):
    pdf, md, saved = tmp_path / "plan.pdf", tmp_path / "plan.md", tmp_path / "plan.json"
    argv = ["plan", "--model", "llama-3-8b", "--pdf", str(pdf), "--markdown", str(md), "--save", str(saved)]
    assert run_cli([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["schema"] == "gpu-advisor/plan@1"  # still one JSON object
    pages = len(PdfReader(str(pdf)).pages)
    assert captured.err.splitlines() == [
        f"wrote {saved}",
        f"wrote {md}",
        f"wrote {pdf} ({pages} page{'s' if pages != 1 else ''}, A4)",
    ]
