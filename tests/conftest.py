"""Test-wide settings: headless Qt, and no user configuration leaking into tests."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


import pytest

# Session fixtures from elsewhere in the tree, shared by several test folders.
pytest_plugins = ["tests.bench.distributed.fixtures"]


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path_factory, monkeypatch):
    """Point the app's config folder at a fresh temporary folder for every test."""
    config_dir = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("GPU_ADVISOR_CONFIG_DIR", str(config_dir))
    return config_dir
