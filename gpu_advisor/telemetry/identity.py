"""Which GPU is which: a CUDA index, an NVML index and a UUID are three different things.

- NVML (nvidia-smi, this package's telemetry) numbers every GPU in the machine, in PCI bus order.
- CUDA (PyTorch's ``cuda:N``) numbers only the GPUs this process may see (``CUDA_VISIBLE_DEVICES``),
  in ``CUDA_DEVICE_ORDER``: ``FASTEST_FIRST`` by default, ``PCI_BUS_ID`` on request. ``cuda:0`` can be
  NVML GPU 3.
- A UUID names one GPU in both: NVML says ``GPU-5f3c...``, CUDA (``torch.cuda.get_device_properties(i)
  .uuid``) the same digits without the prefix.

CUDA's rules (CUDA C Programming Guide, "CUDA Environment Variables"): the devices listed in
``CUDA_VISIBLE_DEVICES`` (indices or UUIDs, a UUID may be shortened to a unique prefix) are enumerated in
the order listed, and the list ends at the first entry that names no device. With ``FASTEST_FIRST``
CUDA ranks devices by speed, ties in PCI bus order: identical GPUs keep NVML's order, mixed ones may not.
Pure functions over ``describe_machine()``'s ``gpus`` dicts (``index``, ``name``, ``uuid``); no NVML calls.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

GpuRecord = Mapping[str, Any]  # one entry of describe_machine()["gpus"]


def normalise_uuid(uuid: object) -> str | None:
    """A UUID as both NVML and CUDA can be compared on: lower case, no 'GPU-' prefix. None if empty."""
    text = str(uuid).strip().lower() if uuid else ""
    return text.removeprefix("gpu-") or None


def _pci_ordered(gpus: Sequence[GpuRecord], environ: Mapping[str, str]) -> bool:
    """Does CUDA count the machine's GPUs in NVML's (PCI bus) order?"""
    return environ.get("CUDA_DEVICE_ORDER") == "PCI_BUS_ID" or len({g.get("name") for g in gpus}) <= 1


def visible_nvml_indices(
    gpus: Sequence[GpuRecord], environ: Mapping[str, str] | None = None
) -> list[int] | None:
    """The NVML indices of the GPUs CUDA numbers 0, 1, 2, ... in this process.

    None when the order cannot be known (mixed GPUs counted fastest first, by index).
    """
    environ = os.environ if environ is None else environ
    nvml = sorted(int(g["index"]) for g in gpus)
    spec = environ.get("CUDA_VISIBLE_DEVICES")
    if spec is None:
        return nvml if _pci_ordered(gpus, environ) else None
    pci_ordered = _pci_ordered(gpus, environ)
    visible: list[int] = []
    for entry in (e.strip() for e in spec.split(",")):
        if entry.isdigit():
            if int(entry) >= len(nvml):
                break  # CUDA stops at the first entry that names no device
            if not pci_ordered:
                return None
            found = nvml[int(entry)]
        else:
            key = normalise_uuid(entry)
            matches = [g for g in gpus if key and (normalise_uuid(g.get("uuid")) or "").startswith(key)]
            if len(matches) != 1:
                break  # CUDA stops at the first entry that names no single device
            found = int(matches[0]["index"])
        if found in visible:
            break
        visible.append(found)
    return visible


def nvml_index_of(
    gpus: Sequence[GpuRecord],
    *,
    uuid: str | None = None,
    cuda_index: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> int | None:
    """The NVML index of the GPU that CUDA calls `cuda_index` and reports as `uuid`; None if unknown.

    The UUID decides when NVML knows it; otherwise CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER do.
    """
    key = normalise_uuid(uuid)
    if key is not None:
        for gpu in gpus:
            if normalise_uuid(gpu.get("uuid")) == key:
                return int(gpu["index"])
    if cuda_index is None:
        return None
    visible = visible_nvml_indices(gpus, environ)
    return visible[cuda_index] if visible is not None and 0 <= cuda_index < len(visible) else None


def cuda_index_of(
    nvml_index: int, gpus: Sequence[GpuRecord], environ: Mapping[str, str] | None = None
) -> int | None:
    """The CUDA index this process would give NVML GPU `nvml_index`; None if hidden or unknown."""
    visible = visible_nvml_indices(gpus, environ)
    if visible is None or nvml_index not in visible:
        return None
    return visible.index(nvml_index)
