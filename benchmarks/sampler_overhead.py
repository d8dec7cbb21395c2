"""How much CPU does the telemetry sampler cost?

Runs the real Sampler (host always, NVML if a driver is present) at 10 Hz and compares the process's
CPU time (``time.process_time()``) against an idle phase of the same length, in alternating
phases. The difference per wall second is the sampler's cost as a share of one core. As a cross-check
it also reads the sampler thread's own CPU clock (``time.thread_time()``) from the ``on_sample``
callback, which runs on that thread.

Usage: python benchmarks/sampler_overhead.py [--duration-s 20] [--repeats 3] [--interval-s 0.1]
       [--watch-self]
Target: at most 0.5 % of one core at 10 Hz (nvitop-class tools stay under half a percent).
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from dataclasses import dataclass

from gpu_advisor.telemetry import HostSource, NvmlSource, Sample, Sampler, describe_machine, hardware_summary

TARGET_PCT_OF_ONE_CORE = 0.5


@dataclass(frozen=True, slots=True)
class Repetition:
    """One idle phase and one sampling phase of equal length."""

    idle_cpu_s: float
    idle_wall_s: float
    sampler_cpu_s: float
    sampler_wall_s: float
    sampler_thread_cpu_s: float | None
    samples: int

    @property
    def overhead_pct_of_one_core(self) -> float:
        """Extra process CPU seconds per wall second while sampling, in % of one core."""
        idle_rate = self.idle_cpu_s / self.idle_wall_s
        sampling_rate = self.sampler_cpu_s / self.sampler_wall_s
        return 100.0 * (sampling_rate - idle_rate)

    @property
    def thread_pct_of_one_core(self) -> float | None:
        """The sampler thread's own CPU seconds per wall second, in % of one core."""
        if self.sampler_thread_cpu_s is None:
            return None
        return 100.0 * self.sampler_thread_cpu_s / self.sampler_wall_s

    @property
    def cpu_ms_per_sample(self) -> float:
        """Extra CPU milliseconds per sample."""
        extra_s = self.sampler_cpu_s - self.idle_cpu_s * self.sampler_wall_s / self.idle_wall_s
        return 1000.0 * extra_s / max(self.samples, 1)


def idle_phase(duration_s: float) -> tuple[float, float]:
    """CPU and wall seconds of this process doing nothing for ``duration_s``."""
    cpu0, wall0 = time.process_time(), time.monotonic()
    threading.Event().wait(duration_s)
    return time.process_time() - cpu0, time.monotonic() - wall0


def sampling_phase(
    duration_s: float, interval_s: float, nvml: NvmlSource | None, watch_pid: int | None
) -> tuple[float, float, float | None, int]:
    """CPU and wall seconds of this process while the sampler runs; also the thread's own CPU time."""
    thread_cpu: list[float] = []

    def on_sample(_: Sample) -> None:
        thread_cpu.append(time.thread_time())  # runs on the sampler thread

    sampler = Sampler(
        interval_s=interval_s, capacity=100_000, nvml=nvml, host=HostSource(watch_pid), on_sample=on_sample
    )
    cpu0, wall0 = time.process_time(), time.monotonic()
    sampler.start()
    threading.Event().wait(duration_s)
    sampler.stop()
    cpu_s, wall_s = time.process_time() - cpu0, time.monotonic() - wall0
    # thread_time() counts from the thread's start, so the last reading is (almost) its whole cost.
    thread_cpu_s = thread_cpu[-1] if thread_cpu else None
    return cpu_s, wall_s, thread_cpu_s, len(sampler.snapshot())


def main() -> None:
    """Run the measurement and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration-s", type=float, default=20.0, help="length of each phase (s)")
    parser.add_argument("--repeats", type=int, default=3, help="idle/sampling pairs; the median is reported")
    parser.add_argument("--interval-s", type=float, default=0.1, help="sampler interval (s); 0.1 = 10 Hz")
    parser.add_argument(
        "--watch-self", action="store_true", help="also measure this process tree's RSS, as a benchmark does"
    )
    args = parser.parse_args()
    watch_pid = os.getpid() if args.watch_self else None

    nvml = NvmlSource()
    nvml_available = nvml.open()
    machine = describe_machine(nvml)
    print(f"machine: {hardware_summary(machine)}")
    print(f"GPU telemetry: {'NVML, ' + str(len(nvml.devices())) + ' GPU(s)' if nvml_available else 'off'}")
    if not nvml_available:
        print(f"  ({nvml.unavailable_reason})")
    print(f"watched process tree: {'this process' if watch_pid else 'none'}")
    phases = f"{args.repeats} x ({args.duration_s} s idle + {args.duration_s} s sampling)"
    print(f"interval {args.interval_s} s, {phases}")

    repetitions: list[Repetition] = []
    for number in range(1, args.repeats + 1):
        idle_cpu_s, idle_wall_s = idle_phase(args.duration_s)
        cpu_s, wall_s, thread_cpu_s, samples = sampling_phase(
            args.duration_s, args.interval_s, nvml if nvml_available else None, watch_pid
        )
        rep = Repetition(idle_cpu_s, idle_wall_s, cpu_s, wall_s, thread_cpu_s, samples)
        repetitions.append(rep)
        thread = "n/a" if rep.thread_pct_of_one_core is None else f"{rep.thread_pct_of_one_core:.3f}%"
        print(
            f"  run {number}: idle {idle_cpu_s:.3f} CPU s / {idle_wall_s:.1f} s, "
            f"sampling {cpu_s:.3f} CPU s / {wall_s:.1f} s, {samples} samples -> "
            f"overhead {rep.overhead_pct_of_one_core:.3f}% of one core "
            f"({rep.cpu_ms_per_sample:.3f} CPU ms/sample), sampler thread alone {thread}"
        )

    overhead = statistics.median(r.overhead_pct_of_one_core for r in repetitions)
    per_sample = statistics.median(r.cpu_ms_per_sample for r in repetitions)
    thread_values = [r.thread_pct_of_one_core for r in repetitions if r.thread_pct_of_one_core is not None]
    verdict = "within" if overhead <= TARGET_PCT_OF_ONE_CORE else "ABOVE"
    print(f"median overhead: {overhead:.3f}% of one core ({overhead / 100:.5f} CPU s per wall s)")
    print(f"median cost per sample: {per_sample:.3f} CPU ms")
    if thread_values:
        print(f"median sampler-thread CPU: {statistics.median(thread_values):.3f}% of one core")
    print(f"target <= {TARGET_PCT_OF_ONE_CORE:.1f}% of one core: {verdict} target")
    nvml.close()


if __name__ == "__main__":
    main()
