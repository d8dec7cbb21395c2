"""The launcher's run folder (events, failure notes, torchrun's log) is temporary: no path of a cluster
run leaves it behind, and after a failure torchrun's log is kept beside the results file asked for."""

from __future__ import annotations

import signal
import threading

import pytest

from gpu_advisor.bench.distributed.errors import DistributedRunFailed
from gpu_advisor.bench.distributed.launcher import RUN_DIR_PREFIX, run_local
from gpu_advisor.bench.distributed.options import DistributedOptions
from tests.bench.distributed.helpers import cli, find_rank, start, wait_until_measuring

pytestmark = pytest.mark.slow

TOY = DistributedOptions(device="cpu", mode="toy", timeout_s=20)


def _run_folders(root) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(RUN_DIR_PREFIX))


def test_a_run_past_its_deadline_leaves_no_run_folder(tmp_path):
    results = tmp_path / "cluster.json"
    with pytest.raises(DistributedRunFailed, match="did not finish within 1 s") as failed:
        run_local(TOY, 2, json_path=results, deadline_s=1.0, run_root=tmp_path)
    assert _run_folders(tmp_path) == []
    kept = tmp_path / "cluster.torchrun.log"
    assert kept.is_file() and str(kept) in str(failed.value)
    assert not results.exists()


def test_a_stopped_run_without_a_results_file_leaves_nothing(tmp_path):
    stop = threading.Event()
    stop.set()
    with pytest.raises(DistributedRunFailed, match="stopped by the user") as failed:
        run_local(TOY, 2, stop=stop, run_root=tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert "torchrun's log" not in str(failed.value)


def test_an_exception_in_the_callers_callback_stops_the_ranks_and_leaves_no_run_folder(tmp_path):
    def broken(_event) -> None:
        raise RuntimeError("the progress display broke")

    with pytest.raises(RuntimeError, match="the progress display broke"):
        run_local(TOY, 2, on_progress=broken, run_root=tmp_path)
    assert _run_folders(tmp_path) == []


def test_a_killed_rank_leaves_no_run_folder_and_keeps_torchruns_log_beside_the_results(tmp_path):
    runs = tmp_path / "tmp"
    runs.mkdir()
    path = tmp_path / "never.json"
    argv = ["bench", "--nproc", "2", "--device", "cpu", "--toy", "--duration", "30", "--timeout", "10"]
    proc = start(cli([*argv, "--json", str(path)]), TMPDIR=str(runs))  # tempfile's folder for the run
    victim = find_rank([proc], 1)
    wait_until_measuring(victim)
    victim.send_signal(signal.SIGKILL)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert list(runs.iterdir()) == []
    kept = tmp_path / "never.torchrun.log"
    assert f"(torchrun's log: {kept})" in err
    assert "SIGKILL" in kept.read_text()
