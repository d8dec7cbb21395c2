"""The app's preferences: a pydantic model saved atomically as JSON in the user's config folder.

A missing file gives the defaults silently; an unreadable or invalid one gives the defaults and a
message for the user, and is left untouched on disk until the user saves new preferences.
Window geometry lives in QSettings instead (Qt's own format for it).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gpu_advisor.core.calibration import MIN_EFFICIENCY
from gpu_advisor.core.errors import field_message
from gpu_advisor.core.files import FileFormatError, read_json, write_json_atomic
from gpu_advisor.core.paths import config_dir
from gpu_advisor.core.request import PlanRequest, Purchase
from gpu_advisor.core.units import HOURS_PER_MONTH

SETTINGS_SCHEMA = "gpu-advisor/settings@1"
SETTINGS_FILENAME = "settings.json"
MAX_RECENT_FILES = 8


class Calibration(BaseModel):
    """A measured efficiency fed back into the planner ("Use as calibration" in the monitor)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    # The planner's own bound (core.calibration): what is saved here is what a plan accepts.
    mfu: float = Field(ge=MIN_EFFICIENCY, le=1, description="Measured model FLOPs utilisation")
    source: str = Field(default="", description="Which run it came from (device, workload, date)")


class AppSettings(BaseModel):
    """Everything the user can set in Preferences, plus remembered folders and files."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    sample_interval_s: float = Field(
        default=0.5, ge=0.1, le=10, description="Seconds between telemetry samples while monitoring."
    )
    plot_window_s: float = Field(
        default=120.0, ge=10, le=3600, description="Seconds of history shown in the live plots."
    )
    default_purchase: Purchase = Field(default=Purchase.RENT, description="Rent or buy for new plans.")
    default_hours_per_month: float = Field(
        default=HOURS_PER_MONTH, gt=0, le=744, description="Hours of use per month."
    )
    default_electricity_usd_per_kwh: float = Field(
        default=PlanRequest.model_fields["electricity_usd_per_kwh"].default,
        ge=0,
        le=10,
        description="Electricity price for new plans, USD per kWh.",
    )
    calibration: Calibration | None = Field(
        default=None, description="Measured MFU used instead of the default assumption when set."
    )
    last_folder: str | None = None
    recent_files: tuple[str, ...] = ()

    def with_recent(self, path: str | Path) -> AppSettings:
        """A copy with `path` first in the recent files (and its folder remembered)."""
        path = str(Path(path))
        recent = (path, *(p for p in self.recent_files if p != path))[:MAX_RECENT_FILES]
        return self.model_copy(update={"recent_files": recent, "last_folder": str(Path(path).parent)})


def settings_path() -> Path:
    """Where the settings file lives (honours GPU_ADVISOR_CONFIG_DIR)."""
    return config_dir() / SETTINGS_FILENAME


def load_settings(path: Path | None = None) -> tuple[AppSettings, str | None]:
    """(settings, message). The message is None unless the file was bad and defaults were used."""
    path = path or settings_path()
    if not path.exists():
        return AppSettings(), None
    try:
        data = read_json(path, SETTINGS_SCHEMA)
    except FileFormatError as exc:
        return AppSettings(), f"Preferences were reset to the defaults: {exc}"
    data.pop("schema", None)
    try:
        return AppSettings.model_validate(data), None
    except ValidationError as exc:
        problem = f"{path}: {field_message(exc, 'settings')}"
    if data.get("calibration") is not None:  # a bad calibration costs only the calibration
        try:
            kept = AppSettings.model_validate({**data, "calibration": None})
        except ValidationError:
            pass
        else:
            return kept, f"Your saved calibration was dropped (plans use the default MFU): {problem}"
    return AppSettings(), f"Preferences were reset to the defaults: {problem}"


def save_settings(settings: AppSettings, path: Path | None = None) -> None:
    """Write the settings atomically (creating the config folder). Raises OSError on failure."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, {"schema": SETTINGS_SCHEMA, **settings.model_dump(mode="json")})
