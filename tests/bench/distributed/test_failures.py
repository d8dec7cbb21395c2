"""One line for a failed run: a backend's error text, torchrun's root cause, the launcher's choice."""

from __future__ import annotations

import socket

from gpu_advisor.bench.distributed.events import write_failure
from gpu_advisor.bench.distributed.failures import backend_text, parse_torchrun_root_cause, what_happened
from gpu_advisor.bench.distributed.launcher import LOG_FILE, _explain

# What torchrun 2.13 printed when rank 1 of a --standalone run was killed (this machine, trimmed).
TORCHRUN_LOG = """\
E1201 10:58:53.173000 7018 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 1 (pid: 7024) of binary: /work/.venv/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
======================================================
w.py FAILED
------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-01_10:58:53
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -15 (pid: 7023)  (SIGTERM)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 7023
------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-01_10:58:53
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : -9 (pid: 7024)  (SIGKILL)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 7024
======================================================
"""


def test_root_cause_is_the_first_failure_not_the_ranks_torchrun_stopped():
    failure = parse_torchrun_root_cause(TORCHRUN_LOG)
    assert failure is not None
    assert (failure.rank, failure.local_rank, failure.exitcode, failure.signal_name) == (1, 1, -9, "SIGKILL")
    assert failure.describe("gpu-07") == "rank 1 on host gpu-07 was killed by SIGKILL"


def test_no_root_cause_in_an_ordinary_log():
    assert parse_torchrun_root_cause("W1201 Setting OMP_NUM_THREADS ...") is None


def test_gloo_errors_lose_their_source_location_and_advice():
    exc = RuntimeError(
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error "
        "[127.0.0.1]:17285: Connection reset by peer. This is typically caused by a remote worker "
        "hanging or bugs in the application. GLHF!"
    )
    assert backend_text(exc) == "Read error [127.0.0.1]:17285: Connection reset by peer"
    assert what_happened(exc, 10).startswith("the connection to another rank broke")
    timeout = RuntimeError("[../gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 5000ms for recv")
    assert what_happened(timeout, 5).startswith("a collective did not complete within the 5 s timeout")


def test_the_launcher_prefers_a_ranks_own_explanation(tmp_path):
    (tmp_path / LOG_FILE).write_text(TORCHRUN_LOG)
    write_failure(tmp_path, 0, "gpu-07", "rank 1 on host gpu-07 died or stopped responding ...")
    assert _explain(tmp_path, 1, None) == "rank 1 on host gpu-07 died or stopped responding ..."


def test_the_launcher_falls_back_to_torchruns_root_cause_with_this_hosts_name(tmp_path):
    (tmp_path / LOG_FILE).write_text(TORCHRUN_LOG)
    kept = tmp_path / "cluster.torchrun.log"
    message = _explain(tmp_path, 1, None, kept)
    assert message.startswith(f"rank 1 on host {socket.gethostname()} was killed by SIGKILL")
    assert message.endswith(f"(torchrun's log: {kept})")


def test_without_a_kept_log_the_message_points_at_no_file(tmp_path):
    (tmp_path / LOG_FILE).write_text(TORCHRUN_LOG)
    message = _explain(tmp_path, 1, None, None)
    assert (
        message
        == f"rank 1 on host {socket.gethostname()} was killed by SIGKILL; torchrun stopped the other ranks"
    )


def test_the_launcher_says_when_it_stopped_the_run_itself(tmp_path):
    (tmp_path / LOG_FILE).write_text("")
    assert _explain(tmp_path, -15, "the run did not finish within 90 s").startswith(
        "the run did not finish within 90 s"
    )
