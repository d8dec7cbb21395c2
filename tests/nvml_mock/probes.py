"""What a child process runs against the mock NVML library: the app's own readers, unchanged.

    python -m tests.nvml_mock.probes NAME '{"keyword": "arguments"}'

prints one line of JSON: what the reader returned, as plain data, for the test to assert on. Each probe
imports only what it exercises (the telemetry probes need neither Qt nor torch).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any


def bindings() -> dict[str, Any]:
    """nvidia-ml-py's own functions, called as an NVIDIA tool would call them."""
    import pynvml as n

    n.nvmlInit()
    try:
        out: dict[str, Any] = {
            "count": n.nvmlDeviceGetCount(),
            "driver": n.nvmlSystemGetDriverVersion(),
            "nvml": n.nvmlSystemGetNVMLVersion(),
            "cuda": n.nvmlSystemGetCudaDriverVersion_v2(),
            "devices": [],
        }
        for index in range(out["count"]):
            h = n.nvmlDeviceGetHandleByIndex(index)
            v1 = n.nvmlDeviceGetMemoryInfo(h)
            v2 = n.nvmlDeviceGetMemoryInfo(h, version=n.nvmlMemory_v2)
            util = n.nvmlDeviceGetUtilizationRates(h)
            out["devices"].append(
                {
                    "name": n.nvmlDeviceGetName(h),
                    "uuid": n.nvmlDeviceGetUUID(h),
                    "bus_id": n.nvmlDeviceGetPciInfo(h).busId,
                    "memory_v1": [v1.total, v1.used, v1.free],
                    "memory_v2": [v2.total, v2.reserved, v2.used, v2.free],
                    "utilization": [util.gpu, util.memory],
                    "temperature_v": n.nvmlDeviceGetTemperatureV(h, n.NVML_TEMPERATURE_GPU),
                    "temperature": n.nvmlDeviceGetTemperature(h, n.NVML_TEMPERATURE_GPU),
                    "power_mw": n.nvmlDeviceGetPowerUsage(h),
                    "limit_mw": n.nvmlDeviceGetEnforcedPowerLimit(h),
                    "clocks_mhz": [
                        n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_SM),
                        n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_MEM),
                    ],
                    "reasons": n.nvmlDeviceGetCurrentClocksEventReasons(h),
                    "pcie_kb": [
                        n.nvmlDeviceGetPcieThroughput(h, n.NVML_PCIE_UTIL_RX_BYTES),
                        n.nvmlDeviceGetPcieThroughput(h, n.NVML_PCIE_UTIL_TX_BYTES),
                    ],
                    "processes": [
                        [p.pid, p.usedGpuMemory] for p in n.nvmlDeviceGetComputeRunningProcesses(h)
                    ],
                    "mig": n.nvmlDeviceGetMigMode(h),
                }
            )
        a = n.nvmlDeviceGetHandleByIndex(0)
        try:
            n.nvmlDeviceGetFanSpeed(a)
            out["fan_speed"] = "answered"
        except n.NVMLError as err:
            out["fan_speed"] = type(err).__name__
        out["error_string"] = n.nvmlErrorString(n.NVML_ERROR_GPU_IS_LOST)
        return out
    finally:
        n.nvmlShutdown()


def read_all(reads: int = 2, read_pcie: bool = True) -> dict[str, Any]:
    """NvmlSource, the app's reader: its devices and `reads` readings of every GPU."""
    from gpu_advisor.telemetry import NvmlSource

    source = NvmlSource(read_pcie=read_pcie)
    available = source.open()
    try:
        return {
            "available": available,
            "reason": source.unavailable_reason,
            "devices": [info.to_dict() for info in source.devices()],
            "reads": [[s.to_dict() for s in source.read_all()] for _ in range(reads)],
        }
    finally:
        source.close()


def sample(
    interval_s: float,
    until_gpu: int,
    until_field: str,
    until_value: Any,
    after: int = 3,
    timeout_s: float = 30.0,
) -> dict[str, Any]:
    """The Sampler over NvmlSource until GPU `until_gpu` reads `until_value` in `until_field`, then
    `after` samples more (or `timeout_s`)."""
    from gpu_advisor.telemetry import HostSource, NvmlSource, Sampler

    source = NvmlSource()
    source.open()
    sampler = Sampler(interval_s, nvml=source, host=HostSource())
    seen_at: int | None = None
    deadline = time.monotonic() + timeout_s
    sampler.start()
    try:
        while time.monotonic() < deadline:
            samples = sampler.snapshot()
            if seen_at is None:
                for i, s in enumerate(samples):
                    gpu = next((g for g in s.gpus if g.index == until_gpu), None)
                    if gpu is not None and gpu.to_dict()[until_field] == until_value:
                        seen_at = i
                        break
            if seen_at is not None and len(samples) >= seen_at + 1 + after:
                break
            time.sleep(interval_s)
    finally:
        sampler.stop()
        source.close()
    return {
        "samples": [s.to_dict() for s in sampler.snapshot()],
        "seen": seen_at is not None,
        "sampling_errors": sampler.sampling_error_count,
    }


def links(pairs: list[list[str]]) -> list[str | None]:
    """telemetry.topology's label for each pair of CUDA-style UUIDs (no "GPU-" prefix)."""
    from gpu_advisor.telemetry.topology import close_nvml, link_label, nvml_uuid, open_nvml

    nvml = open_nvml()
    try:
        return [link_label(nvml, nvml_uuid(a), nvml_uuid(b)) if nvml else None for a, b in pairs]
    finally:
        close_nvml(nvml)


def identity(torch_uuids: list[str]) -> dict[str, Any]:
    """describe_machine()'s GPUs and telemetry.identity's answers for this process's environment;
    `torch_uuids`: what torch would report per CUDA index (no prefix)."""
    from gpu_advisor.telemetry import describe_machine
    from gpu_advisor.telemetry.identity import cuda_index_of, nvml_index_of, visible_nvml_indices

    gpus = describe_machine()["gpus"]
    return {
        "gpus": [[g["index"], g["name"], g["uuid"], g["pci_bus_id"]] for g in gpus],
        "visible": visible_nvml_indices(gpus),
        "cuda_index_of": [cuda_index_of(g["index"], gpus) for g in gpus],
        "by_uuid": [nvml_index_of(gpus, uuid=u, cuda_index=i) for i, u in enumerate(torch_uuids)],
        "by_cuda_index": [nvml_index_of(gpus, cuda_index=i) for i in range(len(torch_uuids))],
    }


def processes(index: int) -> list[dict[str, Any]]:
    """The Processes tab's rows for GPU `index` (NvmlSource, named through psutil)."""
    from dataclasses import asdict

    from gpu_advisor.telemetry import NvmlSource
    from gpu_advisor.telemetry.processes import gpu_rows

    with NvmlSource() as source:
        return [asdict(row) for row in gpu_rows(source.processes(index))]


def doctor_checks() -> list[dict[str, Any]]:
    """`doctor --gpu`'s GPU-library rows (the benchmark half needs CUDA)."""
    from dataclasses import asdict

    from gpu_advisor.bench.doctor import nvml_checks
    from gpu_advisor.telemetry import AutoGpuSource

    with AutoGpuSource() as source:
        return [asdict(check) for check in nvml_checks(source)]


def monitor_window(screenshot: str | None = None) -> dict[str, Any]:
    """The app's window on this machine: the Monitor's devices, its banner for each GPU, and the
    Processes tab for GPU 0 (Qt offscreen)."""
    from PySide6.QtWidgets import QApplication

    from gpu_advisor.ui.main_window import VIEW_MONITOR, MainWindow
    from gpu_advisor.ui.monitor.backend import BenchBackend

    app = QApplication.instance() or QApplication([])
    window = MainWindow(backend=BenchBackend(toy=True))
    window.resize(1280, 800)
    window.show()
    window.tabs.setCurrentIndex(VIEW_MONITOR)
    deadline = time.monotonic() + 60
    while window.hardware_label.text().startswith("Detecting") and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.02)
    panel = window.monitor
    out: dict[str, Any] = {"devices": [], "banners": [], "hardware": window.hardware_label.text()}
    for i in range(panel.device_combo.count()):
        out["devices"].append(panel.device_combo.itemText(i))
        panel.device_combo.setCurrentIndex(i)
        app.processEvents()
        out["banners"].append(panel.mode_banner.text())
    panel.device_combo.setCurrentIndex(0)
    app.processEvents()
    table = panel.processes
    table.refresh()
    out["process_rows"] = [
        [table.item(r, c).text() if table.item(r, c) else "" for c in range(table.columnCount())]
        for r in range(table.rowCount())
    ]
    if screenshot:  # for a person to look at
        app.processEvents()
        window.grab().save(screenshot)
    window.close()
    return out


def main(argv: list[str]) -> int:
    name, kwargs = argv[1], json.loads(argv[2]) if len(argv) > 2 else {}
    result = globals()[name](**kwargs)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
