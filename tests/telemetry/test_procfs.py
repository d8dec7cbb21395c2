"""The /proc readings the sampler takes each tick give psutil's numbers (psutil is the reference)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import namedtuple

import psutil
import pytest

from gpu_advisor.telemetry import HostSource, procfs
from gpu_advisor.telemetry import host as host_module
from gpu_advisor.telemetry.host import cpu_busy_pct
from tests.telemetry.test_host import burn_cpu

# psutil's Linux cpu_times() fields, in /proc/stat's order.
CpuTimes = namedtuple("CpuTimes", "user nice system idle iowait irq softirq steal guest guest_nice")

pytestmark = pytest.mark.skipif(procfs.open_host_files() is None, reason="no Linux /proc here")

# /proc/stat of a 2-CPU machine (trimmed): the machine line, two cores, then the rest.
STAT = b"""cpu  4705 356 584 3699 23 0 11 0 0 0
cpu0 2353 178 292 1849 11 0 6 0 5 0
cpu1 2352 178 292 1850 12 0 5 0 0 0
intr 114930548 113199788 3 0 5 263 0 4 [...]
ctxt 1990473
"""


def test_stat_lines_parse_into_the_machine_and_each_core():
    machine, cores = procfs.cpu_ticks(STAT)
    assert machine == (4705, 356, 584, 3699, 23, 0, 11, 0, 0, 0)
    assert cores == [(2353, 178, 292, 1849, 11, 0, 6, 0, 5, 0), (2352, 178, 292, 1850, 12, 0, 5, 0, 0, 0)]


def test_tick_arithmetic_is_psutils():
    before = (10, 0, 5, 80, 5, 0, 0, 0, 0, 0)
    after = (40, 0, 15, 120, 25, 0, 0, 0, 10, 0)  # as test_host's psutil-shaped example
    busy, total = procfs.busy_and_total_ticks(before, after)
    assert (busy, total) == (40, 100)
    assert cpu_busy_pct(CpuTimes(*before), CpuTimes(*after)) == 100 * busy / total  # psutil-shaped
    # iowait stepping back (a known kernel quirk) counts as no change, not negative time
    assert procfs.busy_and_total_ticks((0, 0, 0, 10, 9), (5, 0, 0, 20, 4)) == (5, 15)


def test_ram_and_the_cores_match_psutil():
    files = procfs.open_host_files()
    assert files is not None
    total_bytes, available_bytes = procfs.meminfo_total_and_available_bytes(files.meminfo.read())
    memory = psutil.virtual_memory()
    assert total_bytes == memory.total
    assert abs(available_bytes - memory.available) < 64 * 2**20  # moments apart on a busy machine
    assert len(procfs.cpu_ticks(files.stat.read())[1]) == len(psutil.cpu_times(percpu=True))
    files.close()


def test_ram_without_mem_available_is_left_to_psutil():
    assert procfs.meminfo_total_and_available_bytes(b"MemTotal: 1000 kB\nMemFree: 10 kB\n") is None
    container = b"MemTotal: 1000 kB\nMemFree: 10 kB\nMemAvailable: 5000 kB\n"
    assert procfs.meminfo_total_and_available_bytes(container) == (1000 * 1024, 10 * 1024)


def test_tree_rss_matches_psutils_sum_over_the_tree():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(10)"])
    try:
        source = HostSource(watch_pid=os.getpid())
        me = psutil.Process(os.getpid())
        kids = me.children(recursive=True)
        expected = me.memory_info().rss + sum(k.memory_info().rss for k in kids)
        measured = source.read().process_rss_bytes
        assert measured is not None
        assert abs(measured - expected) < 16 * 2**20  # the child is still loading its interpreter
    finally:
        child.kill()
        child.wait()


def test_without_proc_files_the_host_is_read_through_psutil(monkeypatch):
    monkeypatch.setattr(procfs, "open_host_files", lambda: None)
    source = HostSource(watch_pid=os.getpid())
    assert source._files is None  # the psutil path
    burn_cpu()
    sample = source.read()
    assert sample.per_core_pct is not None and len(sample.per_core_pct) == psutil.cpu_count()
    assert sample.ram_total_bytes == psutil.virtual_memory().total
    assert sample.process_rss_bytes is not None and sample.process_rss_bytes > 0


def test_a_proc_file_is_read_whole_however_long(tmp_path):
    path = tmp_path / "long"
    path.write_bytes(b"x" * 10_000)
    assert procfs.ProcFile(str(path), size=64).read() == b"x" * 10_000


def test_the_cpu_clock_comes_from_the_same_source_as_psutil():
    files = procfs.open_cpu_clock_files()
    psutil_mhz = host_module.read_cpu_freq_mhz()
    if files is None:
        pytest.skip("no cpufreq policies: psutil reads /proc/cpuinfo, and so does the host source")
    ours = files.mean_mhz()
    assert ours is not None and psutil_mhz is not None
    assert ours == pytest.approx(psutil_mhz, rel=0.5)  # clocks move between the two readings


def test_the_cpu_clock_is_the_mean_of_the_policies_and_follows_them_kept_open(tmp_path):
    # A cpufreq tree laid out as the kernel's (kHz per policy), so this runs where the VM has none.
    for index, khz in ((0, 2_000_000), (1, 3_000_000)):
        policy = tmp_path / "cpufreq" / f"policy{index}"
        policy.mkdir(parents=True)
        (policy / "scaling_cur_freq").write_text(f"{khz}\n")
    files = procfs.open_cpu_clock_files(str(tmp_path))
    assert files is not None and files.mean_mhz() == 2500.0
    (tmp_path / "cpufreq" / "policy1" / "scaling_cur_freq").write_text("1000000\n")
    assert files.mean_mhz() == 1500.0  # re-read in place, not a value kept from the first reading
    assert procfs.open_cpu_clock_files(str(tmp_path / "absent")) is None
