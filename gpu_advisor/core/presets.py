"""Model presets (resources/models.json) and resolving what the user typed into a ModelSpec."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from .architecture import ConfigError, ModelSpec, guess_from_param_count, load_hf_config, parse_param_count
from .files import parse_json
from .paths import resource


class Preset(BaseModel):
    """A named model with the parameter count its authors publish (checked against ours in tests)."""

    model_config = ConfigDict(frozen=True)
    id: str
    spec: ModelSpec
    published_params: int
    published_active_params: int | None = None


@cache
def presets() -> dict[str, Preset]:
    """All presets by id, in file order."""
    data = parse_json(resource("models.json").read_text(encoding="utf-8"), "built-in models.json")
    out: dict[str, Preset] = {}
    for entry in data["models"]:
        entry = dict(entry)
        preset_id = entry.pop("id")
        published = entry.pop("published_params")
        active = entry.pop("published_active_params", None)
        out[preset_id] = Preset(
            id=preset_id, spec=ModelSpec(**entry), published_params=published, published_active_params=active
        )
    return out


def get_preset(preset_id: str) -> ModelSpec:
    """The ModelSpec of a preset; ConfigError lists the valid ids."""
    try:
        return presets()[preset_id].spec
    except KeyError:
        raise ConfigError(
            f"model: unknown preset {preset_id!r}; choose one of {', '.join(presets())}"
        ) from None


def resolve_model(
    preset: str | None = None, config: str | Path | None = None, params: str | int | None = None
) -> ModelSpec:
    """Exactly one of a preset id, a config.json path, or a parameter count ('7B') -> ModelSpec."""
    given = [x is not None for x in (preset, config, params)]
    if sum(given) != 1:
        raise ConfigError("model: give exactly one of a preset, a config.json or a parameter count")
    if preset is not None:
        return get_preset(preset)
    if config is not None:
        return load_hf_config(config)
    count = params if isinstance(params, int) else parse_param_count(str(params))
    return guess_from_param_count(count)
