"""How a job is split over GPUs: tensor, pipeline and data parallel degrees and the ZeRO stage."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Parallelism(BaseModel):
    """tp x pp GPUs hold one model replica; dp replicas (data parallel or serving replicas)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    tensor: int = Field(default=1, ge=1)
    pipeline: int = Field(default=1, ge=1)
    data: int = Field(default=1, ge=1)
    zero_stage: int = Field(default=0, ge=0, le=3)

    @property
    def gpus(self) -> int:
        return self.tensor * self.pipeline * self.data

    @property
    def model_parallel(self) -> int:
        return self.tensor * self.pipeline

    def users_per_replica(self, users: int) -> int:
        """Concurrent users (sequences) each serving replica holds: users spread over `data` replicas."""
        return -(-users // self.data)

    def describe(self) -> str:
        parts = []
        if self.tensor > 1:
            parts.append(f"tensor parallel {self.tensor}")
        if self.pipeline > 1:
            parts.append(f"pipeline parallel {self.pipeline}")
        if self.data > 1:
            parts.append(f"{self.data} data-parallel replicas")
        if self.zero_stage:
            parts.append(f"ZeRO stage {self.zero_stage}")
        return ", ".join(parts) if parts else "single GPU"


SINGLE = Parallelism()
