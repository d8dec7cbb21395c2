"""Where the app keeps user files. GPU_ADVISOR_CONFIG_DIR overrides the platform's config folder."""

from __future__ import annotations

import os
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from platformdirs import user_config_dir

USER_GPUS_FILENAME = "gpus.json"


def config_dir() -> Path:
    """The user's config folder (not created here)."""
    override = os.environ.get("GPU_ADVISOR_CONFIG_DIR")
    return Path(override) if override else Path(user_config_dir("gpu-advisor", appauthor=False))


def resource(name: str) -> Traversable:
    """A file packaged in resources/ (installed as the package gpu_advisor.resources)."""
    return resources.files("gpu_advisor.resources").joinpath(name)
