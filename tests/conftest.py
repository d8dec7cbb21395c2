"""Test-wide settings: headless Qt, and no user configuration leaking into tests."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


import pytest

# Session fixtures from elsewhere in the tree, shared by several test folders.
pytest_plugins = ["tests.bench.distributed.fixtures", "tests.nvml_mock.fixtures"]


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path_factory, monkeypatch):
    """Point the app's config folder at a fresh temporary folder for every test."""
    config_dir = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("GPU_ADVISOR_CONFIG_DIR", str(config_dir))
    return config_dir


def _mount_tmpfs(folder, options: str) -> bool:
    import subprocess

    folder.mkdir()
    return (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True
        ).returncode
        == 0
    )


def _unmount(folder) -> None:
    import subprocess

    subprocess.run(["umount", str(folder)], check=True)


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KiB tmpfs where the test may mount one (root on Linux), else None (tests use a wrapper)."""
    mount = tmp_path / "disk"
    mounted = _mount_tmpfs(mount, "size=64k")
    yield mount if mounted else None
    if mounted:
        _unmount(mount)


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder nobody may write to: a read-only tmpfs as root (root ignores permissions), else a
    folder without write permission."""
    folder = tmp_path / "read-only"
    if os.geteuid() == 0:
        if not _mount_tmpfs(folder, "size=64k,ro"):
            pytest.skip("root without mount permission: no folder is read-only to this test")
        yield folder
        _unmount(folder)
    else:
        folder.mkdir(mode=0o555)
        yield folder
        folder.chmod(0o755)
