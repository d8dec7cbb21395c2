"""A Hub that accepts connections and never answers holds no command (issue 27): every Hub request of
`fetch_model` together waits at most its deadline, then one line says so. Probe 3 measured 397 s of
huggingface_hub's retries against such an endpoint; here `plan` runs in a fresh process (so
huggingface_hub's abandoned request ends with it) with a 2 s deadline against a server that never
answers at all."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

import pytest

from gpu_advisor.hub.resolve import HUB_DEADLINE_ENV, _within


@pytest.fixture
def silent_hub():
    """An endpoint on 127.0.0.1 that accepts every connection and never writes a byte."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()
    for conn in accepted:
        conn.close()


def test_plan_against_a_hub_that_never_answers_is_one_line_after_the_deadline(silent_hub, tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k != "HF_HUB_OFFLINE"},
        "NO_PROXY": "127.0.0.1",
        "HF_ENDPOINT": silent_hub,
        "HF_HUB_CACHE": str(tmp_path / "empty-cache"),
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_DISABLE_TELEMETRY": "1",
        HUB_DEADLINE_ENV: "2",
    }
    out = subprocess.run(
        [sys.executable, "-m", "gpu_advisor", "plan", "--model", "org/silent"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # a safety net only: before the fix this waited 397 s
    )
    assert out.returncode == 2, out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert "did not answer within 2 s" in last and "HF_HUB_OFFLINE=1" in last
    assert "Traceback" not in out.stderr


def test_the_deadline_hands_back_the_answer_or_the_error_of_a_request_that_ends():
    assert _within(60.0, "a quick answer", lambda: 42) == 42
    with pytest.raises(KeyError, match="its own error"):
        _within(60.0, "a quick refusal", lambda: {}["its own error"])
