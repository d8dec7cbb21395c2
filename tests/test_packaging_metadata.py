"""pyproject lists packages explicitly (resources/ is mapped to gpu_advisor.resources), so a new
subpackage that is not listed would be missing from wheels and bundles."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_on_disk_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "gpu_advisor").rglob("__init__.py")
    }
    assert on_disk | {"gpu_advisor.resources"} == listed
