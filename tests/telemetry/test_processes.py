"""Per-process readings: the watched GPU's compute processes from NVML, this app's tree from psutil."""

from __future__ import annotations

import os
import subprocess
import sys

import pynvml

from gpu_advisor.core.units import GIB
from gpu_advisor.telemetry.nvml import NvmlSource
from gpu_advisor.telemetry.processes import NVML_VALUE_NOT_AVAILABLE, HostProcesses, gpu_rows
from tests.telemetry.fake_nvml import FakeGpu, FakeNvml
from tests.telemetry.waiting import wait_until


def test_gpu_processes_carry_memory_and_sm_share_and_unknown_stays_unknown():
    gpu = FakeGpu(processes=[(os.getpid(), 3 * GIB, 72), (999_999_999, NVML_VALUE_NOT_AVAILABLE, None)])
    source = NvmlSource(nvml_module=FakeNvml([gpu]))
    assert source.open()
    rows = gpu_rows(source.processes(0))
    assert [(r.pid, r.gpu_memory_bytes, r.gpu_sm_pct) for r in rows] == [
        (os.getpid(), 3 * GIB, 72.0),
        (999_999_999, None, None),  # "not available" is unknown, not 16 EiB
    ]
    assert rows[0].name and rows[1].name == "pid 999999999"  # a process psutil cannot see


def test_a_gpu_that_refuses_or_is_lost_lists_no_processes():
    refusing = FakeGpu(errors={"nvmlDeviceGetComputeRunningProcesses": pynvml.NVMLError_NotSupported})
    source = NvmlSource(nvml_module=FakeNvml([refusing, FakeGpu(lost=True)]))
    assert source.open()
    assert source.processes(0) == [] and source.processes(1) == [] and source.processes(7) == []


def test_the_host_list_holds_this_process_and_what_it_started():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        host = HostProcesses(os.getpid())
        first = host.read()
        assert {os.getpid(), child.pid} <= {r.pid for r in first}
        assert all(r.cpu_pct is None for r in first)  # psutil's first reading has no interval
        assert all(r.rss_bytes and r.rss_bytes > 0 for r in first)
        assert wait_until(lambda: all(r.cpu_pct is not None for r in host.read()), timeout_s=5)
    finally:
        child.kill()
        child.wait()
    assert child.pid not in {r.pid for r in host.read()}  # gone from the list once it ended
