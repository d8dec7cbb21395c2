"""Interrupts are results: real signals sent to a real `gpu-advisor bench` process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from gpu_advisor.bench import load_report
from gpu_advisor.cli import run_cli

# The signal must land after matmul finished and before the run ends: each variant is timed for
# this long, and the run has three workloads.
_VARIANT_S = "3"


def _start_bench(json_path) -> subprocess.Popen:
    argv = [
        "--device",
        "cpu",
        "--toy",
        "--duration",
        _VARIANT_S,
        "--interval",
        "0.2",
        "--json",
        str(json_path),
    ]
    return subprocess.Popen(
        [sys.executable, "-m", "gpu_advisor", "bench", *argv, "--workloads", "matmul,bandwidth,train"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_line(stream, fragment: str, timeout_s: float = 120) -> list[str]:
    seen, deadline = [], time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        if fragment in line:
            return seen
    raise AssertionError(f"{fragment!r} never printed; stderr so far: {''.join(seen)}")


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_bench_saves_the_finished_workloads_marked_partial(tmp_path, sig, code):
    path = tmp_path / "results.json"
    with _start_bench(path) as proc:
        try:
            _wait_for_line(proc.stderr, "bandwidth ...")  # matmul has finished
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=120)
        finally:
            proc.kill()
    assert proc.returncode == code, err
    assert "Traceback" not in err and "stopping after the current step" in err
    report = load_report(path)
    assert report.to_json_dict()["partial"] is True
    statuses = {r.workload: r.status for r in report.results}
    assert statuses["matmul"] == "ok"
    # train never ran: on a loaded machine bandwidth can finish before the signal lands, and then train
    # is recorded as cancelled at its first check, before any step
    assert statuses.get("train", "cancelled") == "cancelled"
    assert "partial run" in out and f"Results written to {path}" in out
    assert os.listdir(tmp_path) == ["results.json"]  # no hidden temporary left


@pytest.mark.slow
def test_a_finished_bench_is_not_partial(tmp_path):
    path = tmp_path / "results.json"
    code = run_cli(
        [
            "bench",
            "--device",
            "cpu",
            "--toy",
            "--workloads",
            "matmul",
            "--duration",
            "0.1",
            "--json",
            str(path),
        ]
    )
    assert code == 0
    assert load_report(path).to_json_dict()["partial"] is False


def test_a_read_only_output_folder_fails_before_the_run(read_only_folder, capsys):
    code = run_cli(["bench", "--device", "cpu", "--toy", "--json", str(read_only_folder / "r.json")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""  # refused before the run, not after it
    assert err.startswith(f"gpu-advisor bench: error: --json: {read_only_folder / 'r.json'}: cannot write")
    assert "Read-only file system" in err or "Permission denied" in err
    assert err.count("\n") == 1


def test_a_full_output_disk_fails_before_the_run(small_disk, capsys):
    if small_disk is None:
        pytest.skip("needs a tmpfs mount (root): a full disk cannot be made otherwise")
    with open(small_disk / "filler", "wb", buffering=0) as fh, pytest.raises(OSError):
        while True:  # until the disk is full
            fh.write(b"\0" * 1024)
    code = run_cli(["bench", "--device", "cpu", "--toy", "--json", str(small_disk / "r.json")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "No space left on device" in err
    assert [p.name for p in small_disk.iterdir()] == ["filler"]
