"""Scenario dicts for the mock NVML library, built up in tests (the file format: README.md here)."""

from __future__ import annotations

from typing import Any

GIB = 1024**3
H100 = "NVIDIA H100 80GB HBM3"
H100_MEMORY_BYTES = 85_520_809_984  # what an H100 SXM5 80GB reports through NVML (79.6 GiB)

# NVML clock-event reason bits (nvml.h, nvmlClocksEventReason*); the app reads them from pynvml.
SW_POWER_CAP = 0x4
SW_THERMAL = 0x20


def uuid(n: int) -> str:
    return f"GPU-{n:08x}-1111-4222-8333-{n:012x}"


def gpu(n: int, **fields: Any) -> dict[str, Any]:
    """A busy H100 SXM numbered `n` (its UUID and PCI bus follow from n); `fields` override."""
    device: dict[str, Any] = {
        "name": H100,
        "uuid": uuid(n),
        "pci_bus_id": f"00000000:{0x18 + 0x10 * n:02X}:00.0",
        "memory_total_bytes": H100_MEMORY_BYTES,
        "memory_used_bytes": 40 * GIB,
        "utilization_gpu_percent": 90,
        "utilization_memory_percent": 40,
        "temperature_c": 60,
        "power_mw": 500_000,
        "power_limit_mw": 700_000,
        "sm_clock_mhz": 1980,
        "mem_clock_mhz": 2619,
        "throttle_reasons": 0,
        "pcie_rx_kb_per_s": 100,
        "pcie_tx_kb_per_s": 200,
        "mig_mode": False,
        "processes": [],
    }
    device.update(fields)
    return device


def machine(*devices: dict[str, Any], **fields: Any) -> dict[str, Any]:
    scenario: dict[str, Any] = {
        "driver_version": "550.54.15",
        "cuda_driver_version": 12040,
        "devices": list(devices),
    }
    scenario.update(fields)
    return scenario
