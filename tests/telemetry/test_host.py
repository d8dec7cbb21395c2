"""HostSource on the real machine through psutil."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import namedtuple

import psutil
import pytest

from gpu_advisor.telemetry import HostSample, HostSource
from gpu_advisor.telemetry import host as host_module
from gpu_advisor.telemetry.host import CPU_TEMP_REFRESH_S, PROCESS_TREE_REFRESH_S, cpu_busy_pct
from tests.telemetry.waiting import wait_until

# A child that starts a grandchild, so the tree has two levels; both sleep long enough for the test.
PARENT_WITH_GRANDCHILD = (
    "import subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(5)'])\n"
    "time.sleep(5)\n"
    "child.kill()\n"
)


def burn_cpu(seconds: float = 0.05) -> None:
    import time

    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_reading_from_another_thread_is_not_a_fake_zero() -> None:
    """psutil.cpu_percent() primes per thread; ours must work on the sampler thread at once."""
    source = HostSource()
    burn_cpu()
    results: list[HostSample] = []
    thread = threading.Thread(target=lambda: results.append(source.read()))
    thread.start()
    thread.join()
    cpu = results[0].cpu_pct
    assert cpu is not None and 0.0 < cpu <= 100.0


def test_reading_has_cores_ram_and_plausible_ranges() -> None:
    source = HostSource()
    burn_cpu()
    sample = source.read()
    assert sample.per_core_pct is not None
    assert len(sample.per_core_pct) == psutil.cpu_count()
    assert all(0.0 <= v <= 100.0 for v in sample.per_core_pct)
    assert sample.ram_total_bytes is not None and sample.ram_used_bytes is not None
    assert 0 < sample.ram_used_bytes < sample.ram_total_bytes
    assert sample.process_rss_bytes is None  # nothing watched
    assert sample.cpu_freq_mhz is None or sample.cpu_freq_mhz > 0
    assert sample.cpu_temp_c is None or -20 < sample.cpu_temp_c < 150


def test_watched_process_tree_rss_includes_grandchildren() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT_WITH_GRANDCHILD])
    try:
        assert wait_until(lambda: len(psutil.Process(parent.pid).children(recursive=True)) >= 1)
        source = HostSource(watch_pid=parent.pid)
        assert source.watch_pid == parent.pid
        tree_rss = source.read().process_rss_bytes
        parent_rss = psutil.Process(parent.pid).memory_info().rss
        assert tree_rss is not None and tree_rss > parent_rss > 0
    finally:
        for child in psutil.Process(parent.pid).children(recursive=True):
            child.kill()
        parent.kill()
        parent.wait()


def test_watched_process_that_exits_gives_none_not_an_exception() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    source = HostSource(watch_pid=child.pid)
    first = source.read().process_rss_bytes
    assert first is not None and first > 0
    child.kill()
    child.wait()
    assert source.read().process_rss_bytes is None


def test_watching_a_pid_that_does_not_exist() -> None:
    missing_pid = 2**22 + 12345  # above Linux's default pid_max
    if psutil.pid_exists(missing_pid):
        pytest.skip("pid unexpectedly exists")
    assert HostSource(watch_pid=missing_pid).read().process_rss_bytes is None


Times = namedtuple("Times", "user nice system idle iowait guest guest_nice")


def test_cpu_busy_pct_matches_psutil_arithmetic() -> None:
    before = Times(10, 0, 5, 80, 5, 0, 0)
    after = Times(40, 0, 15, 120, 25, 10, 0)  # +30 user (10 of it guest), +10 sys, +40 idle, +20 iowait
    # total = 30 + 10 + 40 + 20 + 10 - 10 (guest inside user) = 100; busy = 100 - 40 - 20 = 40
    assert cpu_busy_pct(before, after) == 40.0
    assert cpu_busy_pct(before, before) is None  # no time passed: unknown, not 0 %


def test_new_descendants_are_found_at_the_next_tree_refresh() -> None:
    """The process scan is throttled; a new DataLoader-like worker still shows up after the refresh."""
    now_s = [0.0]
    source = HostSource(watch_pid=os.getpid(), clock=lambda: now_s[0])
    before = source.read().process_rss_bytes
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        child_process = psutil.Process(child.pid)
        assert wait_until(lambda: child_process.memory_info().rss > 5_000_000)  # interpreter loaded
        child_rss = child_process.memory_info().rss
        not_yet = source.read().process_rss_bytes
        now_s[0] += PROCESS_TREE_REFRESH_S
        after = source.read().process_rss_bytes
        assert before is not None and not_yet is not None and after is not None
        assert abs(not_yet - before) < child_rss / 2  # same tree: the scan has not run again
        assert after - not_yet > child_rss / 2  # the child is counted now
    finally:
        child.kill()
        child.wait()


def test_watched_process_that_exited_but_is_not_reaped_gives_none() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        source = HostSource(watch_pid=child.pid)
        child.kill()  # not waited for: a zombie until child.wait()
        assert wait_until(lambda: psutil.Process(child.pid).status() == psutil.STATUS_ZOMBIE)
        assert source.read().process_rss_bytes is None
    finally:
        child.wait()


def test_cpu_temperature_is_read_at_most_once_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[float] = []

    def fake_sensor() -> float:
        reads.append(1.0)
        return 55.0 + len(reads)

    monkeypatch.setattr(host_module, "read_cpu_temp_c", fake_sensor)
    now_s = [0.0]
    source = HostSource(clock=lambda: now_s[0])
    assert source.read().cpu_temp_c == 56.0
    assert source.read().cpu_temp_c == 56.0  # the last value, not a new sensor scan
    now_s[0] += CPU_TEMP_REFRESH_S
    assert source.read().cpu_temp_c == 57.0
    assert len(reads) == 2


def test_missing_sensors_are_not_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(host_module, "read_cpu_temp_c", lambda: calls.append("temp"))
    monkeypatch.setattr(host_module, "read_cpu_freq_mhz", lambda *_: calls.append("freq"))
    now_s = [0.0]
    source = HostSource(clock=lambda: now_s[0])
    for _ in range(3):
        sample = source.read()
        now_s[0] += 5.0
        assert sample.cpu_temp_c is None and sample.cpu_freq_mhz is None
    assert sorted(calls) == ["freq", "temp"]  # one attempt each


def test_the_process_tree_is_found_without_scanning_every_process():
    """A real tree (a shell and its two children): the cheap /proc walk finds what psutil's scan finds."""
    from gpu_advisor.telemetry.host import _descendants

    shell = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30 & wait"])
    me = psutil.Process(os.getpid())
    try:
        deadline = time.monotonic() + 10
        while len(me.children(recursive=True)) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        expected = sorted(p.pid for p in me.children(recursive=True))
        assert len(expected) == 3
        assert sorted(p.pid for p in _descendants(me)) == expected
    finally:
        for child in psutil.Process(shell.pid).children(recursive=True):
            child.kill()
        shell.kill()
        shell.wait()
