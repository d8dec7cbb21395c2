"""The session fixture that builds the mock NVML library once (registered in tests/conftest.py)."""

from __future__ import annotations

import pytest

from tests.nvml_mock.harness import MockNvml, build_library


@pytest.fixture(scope="session")
def nvml_mock(tmp_path_factory: pytest.TempPathFactory) -> MockNvml:
    """The mock libnvidia-ml.so.1, built with `cc` (a missing compiler fails the tests that need it)."""
    library = build_library(tmp_path_factory.mktemp("nvml-mock-lib"))
    return MockNvml(library_dir=library, work_dir=tmp_path_factory.mktemp("nvml-mock-work"))
