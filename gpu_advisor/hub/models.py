"""What a Hub model resolves to, and how a Hub id is written (no network, no huggingface_hub import)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.core.architecture import ModelSpec
from gpu_advisor.core.errors import UserInputError

# The Hub's own rule for repository names (huggingface_hub.utils._validators.REPO_ID_REGEX): letters,
# digits, '-', '_', '.', at most 96 characters, one '/' between the owner and the name.
_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
_HUB_ID = re.compile(rf"^(?P<repo>{_PART}/{_PART})(?:@(?P<revision>[A-Za-z0-9._/-]{{1,200}}))?$")


class HubError(UserInputError):
    """A Hub model that cannot be fetched: one line that says why and what to do."""


class HubModel(BaseModel):
    """A Hub model: its config.json, the shape the planner uses, and what the safetensors hold."""

    model_config = ConfigDict(frozen=True)
    repo_id: str
    revision: str | None = None
    config: dict[str, Any] = Field(description="config.json as published (the trace builds from it)")
    config_path: str = Field(description="The cached config.json")
    spec: ModelSpec
    exact: bool = Field(description="The formulas count this architecture exactly")
    safetensors_params: int | None = Field(default=None, description="Parameters in the weight files")
    safetensors_dtypes: dict[str, int] = Field(default_factory=dict, description="dtype -> parameters")
    warnings: tuple[str, ...] = ()

    @property
    def hub_id(self) -> str:
        return self.repo_id + (f"@{self.revision}" if self.revision else "")


def parse_hub_id(text: str) -> tuple[str, str | None]:
    """'ORG/NAME[@revision]' -> (repo id, revision or None); HubError for anything else."""
    match = _HUB_ID.match(text.strip())
    if not match or ".." in match.group("repo") or "--" in match.group("repo"):
        raise HubError(f"model: {text!r} is not a Hugging Face model id (ORG/NAME or ORG/NAME@revision)")
    return match.group("repo"), match.group("revision")


def looks_like_hub_id(text: str | None) -> bool:
    """True for 'ORG/NAME[@rev]' that is not a file on disk (a path like 'models/config.json' is a file)."""
    if not text or not _HUB_ID.match(text.strip()):
        return False
    return not Path(text).expanduser().exists()
