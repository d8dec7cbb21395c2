"""D19 (ux-review-3): `gpu-advisor compare` reads each file against a baseline, as the GUI's Compare
does: a column per other file ('+100% (better)') and which way is better; --baseline picks the file."""

from __future__ import annotations

import json

from gpu_advisor.bench import save_report
from gpu_advisor.cli import run_cli


def _two_files(tmp_path, toy_report):
    """a.json, and b.json whose matmul reached twice a's FLOP/s."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    save_report(toy_report, a)
    data = json.loads(a.read_text())
    for result in data["results"]:
        if result["workload"] == "matmul":
            result["metrics"]["flops_per_s"] *= 2
    b.write_text(json.dumps(data))
    return a, b


def _row(out: str, label: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(label + " "))


def test_compare_gives_each_file_against_the_first_and_which_way_is_better(tmp_path, capsys, toy_report):
    a, b = _two_files(tmp_path, toy_report)
    assert run_cli(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    assert "b.json vs a.json" in header and header.rstrip().endswith("better")
    matmul = next(line for line in out.splitlines() if line.startswith("matmul fp32"))
    assert "+100% (better)" in matmul and "higher is better" in matmul


def test_compare_baseline_picks_the_file_the_others_are_read_against(tmp_path, capsys, toy_report):
    a, b = _two_files(tmp_path, toy_report)
    assert run_cli(["compare", str(a), str(b), "--baseline", str(b)]) == 0
    out = capsys.readouterr().out
    assert "a.json vs b.json" in out.splitlines()[0]
    matmul = next(line for line in out.splitlines() if line.startswith("matmul fp32"))
    assert "-50% (worse)" in matmul
    assert run_cli(["compare", str(a), str(b), "--baseline", "c.json"]) == 2
    err = capsys.readouterr().err
    assert "--baseline" in err and err.count("\n") == 1
