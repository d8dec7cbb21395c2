"""How two GPUs of one machine are connected, from NVML: NVLink, one PCIe switch, across CPU sockets.

The labels follow `nvidia-smi topo -m`'s legend (NV#, PIX, PXB, PHB, NODE, SYS): NVLink when NVML says
peer-to-peer over NVLink is possible, otherwise the closest common ancestor of the two devices in the
PCIe tree (nvmlDeviceGetTopologyCommonAncestor). Devices are named by NVML UUID ("GPU-..."), the one
identity that CUDA (torch.cuda.get_device_properties(i).uuid) and NVML share. Any NVML error gives
None ("unknown"), never an exception.
"""

from __future__ import annotations

import contextlib
from typing import Any

# nvmlGpuTopologyLevel_t -> (nvidia-smi's code, words)
_LEVELS = {
    "NVML_TOPOLOGY_INTERNAL": ("SELF", "same board"),
    "NVML_TOPOLOGY_SINGLE": ("PIX", "same PCIe switch"),
    "NVML_TOPOLOGY_MULTIPLE": ("PXB", "across PCIe switches"),
    "NVML_TOPOLOGY_HOSTBRIDGE": ("PHB", "through the CPU's PCIe host bridge"),
    "NVML_TOPOLOGY_NODE": ("NODE", "across host bridges of one CPU socket"),
    "NVML_TOPOLOGY_SYSTEM": ("SYS", "across CPU sockets"),
}


def nvml_uuid(cuda_uuid: object) -> str:
    """CUDA's UUID ('8d2c...' from torch) as NVML writes it ('GPU-8d2c...')."""
    text = str(cuda_uuid)
    return text if text.startswith(("GPU-", "MIG-")) else f"GPU-{text}"


def link_label(nvml: Any, uuid_a: str, uuid_b: str) -> str | None:
    """'NVLink', 'PIX: same PCIe switch', ..., or None where NVML cannot tell. `nvml` is the opened
    pynvml module (nvmlInit done by the caller)."""
    try:
        a = nvml.nvmlDeviceGetHandleByUUID(uuid_a)
        b = nvml.nvmlDeviceGetHandleByUUID(uuid_b)
    except Exception:
        return None
    try:
        status = nvml.nvmlDeviceGetP2PStatus(a, b, nvml.NVML_P2P_CAPS_INDEX_NVLINK)
        if status == nvml.NVML_P2P_STATUS_OK:
            return "NVLink"
    except Exception:
        pass  # no NVLink query on this driver: fall back to the PCIe tree
    try:
        level = nvml.nvmlDeviceGetTopologyCommonAncestor(a, b)
    except Exception:
        return None
    for name, (code, words) in _LEVELS.items():
        if getattr(nvml, name, None) == level:
            return f"{code}: {words}"
    return None


def open_nvml() -> Any | None:
    """The pynvml module, initialised; None without a driver. Close with `close_nvml`."""
    try:
        import pynvml

        pynvml.nvmlInit()
        return pynvml
    except Exception:
        return None


def close_nvml(nvml: Any | None) -> None:
    if nvml is not None:
        with contextlib.suppress(Exception):
            nvml.nvmlShutdown()
