"""The session fixture that builds the mock NVML library once (registered in tests/conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.nvml_mock.harness import MockNvml, build_library


@pytest.fixture(scope="session")
def nvml_mock(tmp_path_factory: pytest.TempPathFactory) -> MockNvml:
    """The mock libnvidia-ml.so.1, built with `cc` (a missing compiler fails the tests that need it).

    NVML_MOCK_LIB_DIR names a folder where .ci/run built it already."""
    prebuilt = os.environ.get("NVML_MOCK_LIB_DIR")
    if prebuilt and (Path(prebuilt) / "libnvidia-ml.so.1").is_file():
        library = Path(prebuilt)
    else:
        library = build_library(tmp_path_factory.mktemp("nvml-mock-lib"))
    return MockNvml(library_dir=library, work_dir=tmp_path_factory.mktemp("nvml-mock-work"))
