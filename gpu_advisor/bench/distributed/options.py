"""What a cluster run is asked to do (DistributedOptions). No torch.

The same options reach every rank: the launcher (`--nproc N`) turns them back into the command line
torchrun starts on each rank (`to_argv`), and the CLI parses that into these options again.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gpu_advisor.bench.distributed.conventions import COLLECTIVES, MIN_MESSAGE_BYTES
from gpu_advisor.telemetry.sampler import DEFAULT_INTERVAL_S, MAX_INTERVAL_S, MIN_INTERVAL_S

MIB = 2**20
GIB = 2**30
PHASES: tuple[str, ...] = ("collectives", "p2p", "scaling")
# Default bound on every collective and every wait for another rank: long enough for the slowest
# legitimate step of the built-in sizes on a busy 2-core machine, short enough that a dead or hung
# rank ends the run within minutes (NCCL's own default is 10 minutes).
DEFAULT_TIMEOUT_S = 120.0
Mode = Literal["toy", "quick", "full"]


class DistributedOptions(BaseModel):
    """One cluster run. Validation messages name the field (the CLI maps them to flags)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    device: Literal["auto", "cpu", "cuda"] = Field(
        default="auto", description="auto: one GPU per rank with NCCL where CUDA exists, else gloo on CPU"
    )
    mode: Mode = Field(default="full", description="sizes and budgets: toy (tests), quick, full")
    phases: tuple[str, ...] = Field(default=PHASES, description="subset of collectives, p2p, scaling")
    ops: tuple[str, ...] = Field(default=COLLECTIVES, description="collectives to sweep")
    max_message_bytes: int | None = Field(
        default=None, ge=MIN_MESSAGE_BYTES, description="largest message; None: bounded by memory and time"
    )
    op_budget_s: float | None = Field(
        default=None, gt=0, le=3600, description="seconds per collective and scope; None: by mode"
    )
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, ge=1, le=3600)
    interval_s: float = Field(default=DEFAULT_INTERVAL_S, ge=MIN_INTERVAL_S, le=MAX_INTERVAL_S)

    @field_validator("phases", "ops", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(v.strip() for v in value.split(",") if v.strip())
        return value

    @field_validator("phases")
    @classmethod
    def _phases(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [p for p in value if p not in PHASES]
        if unknown or not value:
            raise ValueError(f"choose from {', '.join(PHASES)}")
        return tuple(p for p in PHASES if p in value)

    @field_validator("ops")
    @classmethod
    def _ops(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [p for p in value if p not in COLLECTIVES]
        if unknown or not value:
            raise ValueError(f"choose from {', '.join(COLLECTIVES)}")
        return tuple(p for p in COLLECTIVES if p in value)

    @classmethod
    def toy_run(cls, **overrides: object) -> DistributedOptions:
        """A run of a few seconds on two CPU ranks: messages up to 64 KiB, short budgets (tests)."""
        fields: dict[str, object] = {"device": "cpu", "mode": "toy", "timeout_s": 30.0, "interval_s": 0.2}
        fields.update(overrides)
        return cls.model_validate(fields)

    def budget_s(self) -> float:
        """Seconds per collective sweep in one scope."""
        if self.op_budget_s is not None:
            return self.op_budget_s
        return {"toy": 0.3, "quick": 1.5, "full": 6.0}[self.mode]

    def max_bytes(self, device_kind: str) -> int:
        """The largest message asked for (memory may bound it further on each rank)."""
        if self.max_message_bytes is not None:
            return self.max_message_bytes
        table = {
            "toy": 64 * 2**10,
            "quick": (16 * MIB) if device_kind == "cpu" else (256 * MIB),
            "full": (128 * MIB) if device_kind == "cpu" else (2 * GIB),
        }
        return table[self.mode]

    def to_argv(self) -> list[str]:
        """The `gpu-advisor bench --distributed` flags that reproduce these options."""
        argv = [
            "--device",
            self.device,
            "--timeout",
            f"{self.timeout_s:g}",
            "--interval",
            f"{self.interval_s:g}",
        ]
        if self.mode != "full":
            argv.append(f"--{self.mode}")
        if self.phases != PHASES:
            argv += ["--phases", ",".join(self.phases)]
        if self.ops != COLLECTIVES:
            argv += ["--collectives", ",".join(self.ops)]
        if self.max_message_bytes is not None:
            argv += ["--max-message", str(self.max_message_bytes)]
        if self.op_budget_s is not None:
            argv += ["--duration", f"{self.op_budget_s:g}"]
        return argv


def parse_device(text: str) -> str:
    """'auto' | 'cpu' | 'cuda' (a cluster run gives each rank its own GPU: no index)."""
    value = text.strip().lower()
    if not re.fullmatch(r"auto|cpu|cuda", value):
        raise ValueError(
            f"{value!r}: a cluster run takes auto, cpu or cuda (each rank uses the GPU of its local rank)"
        )
    return value
