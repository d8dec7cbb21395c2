"""An offline Hugging Face cache for every Hub test: no test touches the network."""

from __future__ import annotations

import pytest

from tests.hub_cache import build_hub_cache


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """The test cache, with huggingface_hub (in this process and in subprocesses) reading only it."""
    from huggingface_hub import constants

    cache = build_hub_cache(tmp_path / "hf-cache")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))  # no login, no telemetry state of the user's
    return cache
