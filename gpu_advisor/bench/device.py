"""The device a benchmark runs on: torch's device, its DeviceInfo, and its catalogue entry.

A GPU is named three ways (telemetry.identity): torch's CUDA index, NVML's index and its UUID. torch
reports the UUID (`get_device_properties(i).uuid`), NVML lists every GPU's UUID, and the two together
say which NVML GPU's telemetry belongs to the run. torch is imported when these functions run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import psutil

from gpu_advisor.bench.results import DeviceInfo
from gpu_advisor.core.errors import UserInputError
from gpu_advisor.telemetry.identity import normalise_uuid, nvml_index_of


class BenchError(UserInputError):
    """The run cannot start (no such device, ...); the message names the option."""


def torch_uuid(props: Any) -> str | None:
    """The UUID torch reports for a CUDA device, as NVML writes it ('GPU-...'); None if it has none."""
    text = normalise_uuid(getattr(props, "uuid", None))
    return None if text is None else f"GPU-{text}"


def resolve_device(spec: str) -> tuple[Any, DeviceInfo, Any]:
    """'auto' | 'cpu' | 'cuda' | 'cuda:N' -> (torch.device, DeviceInfo, catalogue GpuSpec or None).

    DeviceInfo.nvml_index is left unset here: `identify` fills it in once NVML has listed the GPUs.
    """
    import torch

    from gpu_advisor.core.catalog import default_catalog

    if spec == "auto":
        spec = "cuda:0" if torch.cuda.is_available() else "cpu"
    threads = torch.get_num_threads()
    if spec == "cpu":
        from gpu_advisor.telemetry.machine import cpu_model

        return (
            torch.device("cpu"),
            DeviceInfo(
                kind="cpu",
                name=cpu_model() or "CPU",
                torch_threads=threads,
                memory_total_bytes=psutil.virtual_memory().total,
            ),
            None,
        )
    if not torch.cuda.is_available():
        why = (
            "this PyTorch has no CUDA support"
            if torch.version.cuda is None and getattr(torch.version, "hip", None) is None
            else "no CUDA device is visible"
        )
        raise BenchError(f"device: {spec} is not available ({why}); use --device cpu")
    index = int(spec.partition(":")[2] or 0)
    count = torch.cuda.device_count()
    if index >= count:
        raise BenchError(f"device: {spec} does not exist; this machine has {count} CUDA device(s)")
    props = torch.cuda.get_device_properties(index)
    gpu = default_catalog().match_device_name(props.name)
    info = DeviceInfo(
        kind="cuda",
        index=index,
        uuid=torch_uuid(props),
        name=props.name,
        torch_threads=threads,
        memory_total_bytes=int(props.total_memory),
        catalogue_id=gpu.id if gpu else None,
        compute_capability=f"{props.major}.{props.minor}",
    )
    return torch.device("cuda", index), info, gpu


def identify(info: DeviceInfo, nvml_gpus: Sequence[Mapping[str, Any]]) -> DeviceInfo:
    """`info` with the NVML index (and NVML's UUID) of the same GPU, when NVML lists it."""
    if info.kind != "cuda":
        return info
    nvml_index = nvml_index_of(nvml_gpus, uuid=info.uuid, cuda_index=info.index)
    if nvml_index is None:
        return info
    uuid = next((g.get("uuid") for g in nvml_gpus if g.get("index") == nvml_index), None)
    return info.model_copy(update={"nvml_index": nvml_index, "uuid": uuid or info.uuid})


def cuda_index_of_uuid(uuid: str) -> int | None:
    """The CUDA index torch gives the GPU with this UUID in this process; None if it cannot see it."""
    import torch

    if not torch.cuda.is_available():
        return None
    key = normalise_uuid(uuid)
    for index in range(torch.cuda.device_count()):
        if normalise_uuid(getattr(torch.cuda.get_device_properties(index), "uuid", None)) == key:
            return index
    return None
