"""The monitor's link to the benchmark engine and telemetry: the one module that knows their names.

Everything here runs without Qt widgets; `run` is called on the worker thread. torch is imported by
the benchmark engine only when a run starts, never when the window opens.
"""

from __future__ import annotations

import gc
import importlib.util
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpu_advisor.ui.monitor.runs import BenchmarkRun, ClusterRun, CommandRun, RunResult

if TYPE_CHECKING:  # the telemetry package (psutil, the diagnosis rules) loads when a run starts
    from gpu_advisor.bench.monitor import MonitorReport
    from gpu_advisor.bench.probe_events import Event
    from gpu_advisor.bench.results import BenchReport
    from gpu_advisor.telemetry.gpu_source import AutoGpuSource, GpuSource
    from gpu_advisor.telemetry.processes import ProcessRow
    from gpu_advisor.telemetry.samples import Sample
    from gpu_advisor.ui.workers import RunContext

CPU_DEVICE_KEY = "cpu"
COMMAND_WORKLOAD = "command"
CLUSTER_WORKLOAD = "cluster"
ALL_WORKLOADS = "all"
CPU_MODE_TEXT = "CPU mode — no NVIDIA GPU"

# (key, label, what it shows). Keys other than "all" and "command" are bench workload names.
WORKLOAD_CHOICES: tuple[tuple[str, str, str], ...] = (
    (
        ALL_WORKLOADS,
        "All workloads",
        "Every built-in workload in turn (about 2 minutes on a CPU in quick mode).",
    ),
    (
        "train",
        "Training step",
        "Forward, backward and optimizer step of a GPT-2 style model: time per step, tokens/s, peak memory, MFU.",
    ),
    ("inference", "Inference", "Prefill and token-by-token decode of a Llama-style model with a KV cache."),
    ("matmul", "Matrix multiply", "Large matrix multiplications: the device's achievable FLOP/s."),
    ("bandwidth", "Memory bandwidth", "Large copies: the device's achievable bytes/s."),
    ("dataloader", "Data loader", "A training loop fed by a slow data loader: shows an input-bound run."),
    ("transfer", "Host ↔ device transfer", "PCIe copies between host and GPU memory (GPU only)."),
    (
        CLUSTER_WORKLOAD,
        "Cluster: N processes",
        "Collectives, point-to-point links and data-parallel scaling over N processes on this machine with "
        "torch.distributed (NCCL with one GPU each, gloo on the CPU), started through torchrun.",
    ),
    (COMMAND_WORKLOAD, "My command…", "Run your own command and watch the machine while it runs."),
)


@dataclass(frozen=True, slots=True)
class DeviceChoice:
    """A device to run on, named in each numbering: NVML's picks the telemetry to plot, CUDA's (found
    through the UUID when the run starts) the device torch runs on. They differ under
    CUDA_VISIBLE_DEVICES and with mixed GPUs (telemetry.identity)."""

    key: str  # "cpu" or "gpu:<NVML index>"
    label: str
    nvml_index: int | None = None  # None for the CPU
    uuid: str | None = None
    cuda_index: int | None = None  # this process's CUDA index when known without torch, else None

    @property
    def kind(self) -> str:
        """'cuda' for a GPU, 'cpu' for the CPU (DeviceInfo.kind's words)."""
        return "cpu" if self.nvml_index is None else "cuda"


@dataclass(frozen=True, slots=True)
class MonitorRequest:
    """What the user asked the monitor to run (immutable: it crosses into the worker thread)."""

    device: DeviceChoice
    workload: str  # a WORKLOAD_CHOICES key
    quick: bool = True
    interval_s: float = 0.5
    command: str = ""
    working_dir: str = ""
    nproc: int = 2  # processes of a cluster run
    log_path: str = ""  # where a command's output goes ("": this process's own output)


def planned_workloads(choice: str | None) -> list[tuple[str, str]]:
    """(bench workload key, label) of each workload a benchmark choice runs, in order; none for a
    watched command or a cluster run (they are no list of workloads)."""
    labels = {key: label for key, label, _ in WORKLOAD_CHOICES}
    if choice == ALL_WORKLOADS:
        from gpu_advisor.bench.options import WORKLOADS

        return [(key, labels.get(key, key)) for key in WORKLOADS]
    if choice in (None, COMMAND_WORKLOAD, CLUSTER_WORKLOAD):
        return []
    return [(choice, labels.get(choice, choice))]


def parse_command(command: str, working_dir: str) -> tuple[list[str], Path | None]:
    """The argument list and folder of 'My command'; ValueError with a message for the user."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"command: {exc}") from None
    if not argv:
        raise ValueError("command: enter the command to run, e.g. python train.py")
    folder = Path(working_dir).expanduser() if working_dir.strip() else None
    if folder is not None and not folder.is_dir():
        raise ValueError(f"working folder: {folder} is not a folder")
    return argv, folder


def bench_available() -> bool:
    """True when PyTorch is installed, so the benchmark engine can run (found without importing it)."""
    return importlib.util.find_spec("torch") is not None


class BenchBackend:
    """Lists devices and workloads, runs a request, loads and saves results files.

    `toy=True` runs the benchmark engine's tiny sizes (about 2 s on a CPU): GUI tests and --self-test.
    """

    def __init__(self, toy: bool = False, nvml: GpuSource | None = None) -> None:
        self.toy = toy
        self.nvml = nvml  # a telemetry GPU source for watched commands (None: the machine's own)
        self._machine: dict[str, Any] | None = None
        self._nvml: AutoGpuSource | None = (
            None  # the GPU source for the process list, opened when first asked
        )
        self._cpu_temp_readable: bool | None = None  # found by prepare(); None: not yet known

    # ---- the machine -----------------------------------------------------------------------------
    def machine(self) -> dict[str, Any]:
        """describe_machine(), cached (it opens NVML once)."""
        if self._machine is None:
            from gpu_advisor.telemetry.machine import describe_machine

            self._machine = describe_machine()
        return self._machine

    def machine_summary(self) -> str:
        """The status bar's hardware line."""
        from gpu_advisor.telemetry.machine import hardware_summary

        return hardware_summary(self.machine())

    def devices(self) -> list[DeviceChoice]:
        """Detected GPUs (the GPU library's numbering, with CUDA's where it differs), then the CPU."""
        from gpu_advisor.telemetry.identity import cuda_index_of

        gpus = self.machine().get("gpus") or []
        choices = []
        for g in gpus:
            nvml_index = int(g["index"])
            cuda_index = cuda_index_of(nvml_index, gpus)
            label = f"GPU {nvml_index}: {g.get('name') or 'GPU'}"
            if cuda_index is not None and cuda_index != nvml_index:
                label += f" (cuda:{cuda_index})"
            choices.append(DeviceChoice(f"gpu:{nvml_index}", label, nvml_index, g.get("uuid"), cuda_index))
        cpu = self.machine().get("cpu_model") or "CPU"
        return [*choices, DeviceChoice(CPU_DEVICE_KEY, f"CPU: {cpu}")]

    def gpu_library(self) -> str:
        """The library that reads this machine's GPUs, for sentences: "NVML" or "AMD SMI"."""
        from gpu_advisor.telemetry.gpu_source import library_label

        gpus = self.machine().get("gpus") or []
        return library_label(gpus[0].get("backend") if gpus else None)

    def gpu_processes(self, nvml_index: int) -> list[ProcessRow]:
        """The compute processes on one GPU (telemetry.processes rows), through a GPU library session
        (NVML, else AMD SMI) opened on first use and kept; empty when the library cannot say."""
        from gpu_advisor.telemetry.processes import gpu_rows

        if self._nvml is None:
            from gpu_advisor.telemetry.gpu_source import AutoGpuSource

            self._nvml = AutoGpuSource()
            self._nvml.open()
        return gpu_rows(self._nvml.processes(nvml_index))

    def has_gpu(self) -> bool:
        return any(d.nvml_index is not None for d in self.devices())

    # ---- running ---------------------------------------------------------------------------------
    def prepare(self) -> None:
        """Load the benchmark engine and PyTorch ahead of the first run (on the worker thread).

        Importing torch holds the GIL for 200-400 ms at a stretch (the C extension's module init,
        which cannot be split), so the window cannot answer meanwhile. Done when the Monitor is first
        opened, that pause comes once, before the user starts anything, and not in the middle of a
        run's live plots. Toy backends (GUI tests, the self-test) load nothing ahead. Also finds
        whether psutil can read this CPU's temperature (unmeasured_channels)."""
        from gpu_advisor.telemetry.host import read_cpu_temp_c

        self._cpu_temp_readable = read_cpu_temp_c() is not None
        if not self.toy and bench_available():
            freeze_after_imports()

    def unmeasured_channels(self, choice: DeviceChoice) -> set[str]:
        """The live plots' channels (series.TELEMETRY_CHANNELS) a run on `choice` will have no reading
        for, as far as known before it starts: on the CPU, power (psutil has none) and the
        temperature where no sensor answered prepare(). On a GPU, none: NVML's answers tell."""
        from gpu_advisor.telemetry.channels import unmeasured_on

        if choice.nvml_index is not None:
            return set()
        return unmeasured_on("cpu") | ({"temperature_c"} if self._cpu_temp_readable is False else set())

    def run(
        self,
        request: MonitorRequest,
        context: RunContext,
        on_sample: Callable[[Sample], None],
        on_events: Callable[[list[Event]], None] | None = None,
        on_step: Callable[[str, str, float], None] | None = None,
    ) -> RunResult | None:
        """Run on the worker thread; returns the run's typed result (None: a cluster run stopped). Progress and finished workloads go
        through `context`; telemetry samples to `on_sample` (called on the sampler's thread); a
        command's probe events to `on_events` (on the worker thread); each timed step's (workload,
        metric key, rate) of a benchmark to `on_step` (the worker thread)."""
        if request.workload == COMMAND_WORKLOAD:
            return self._run_command(request, context, on_sample, on_events)
        if request.workload == CLUSTER_WORKLOAD:
            return self._run_cluster(request, context, on_sample, on_step)
        from gpu_advisor.bench import WORKLOADS, BenchOptions, run_benchmark

        freeze_after_imports()
        workloads = WORKLOADS if request.workload == ALL_WORKLOADS else (request.workload,)
        options = BenchOptions(
            device=torch_device(request.device),
            workloads=workloads,
            quick=request.quick,
            toy=self.toy,
            interval_s=max(0.1, request.interval_s if not self.toy else 0.1),
        )
        return BenchmarkRun(
            run_benchmark(
                options,
                on_progress=context.report_progress,
                on_sample=on_sample,
                on_result=context.report_result,
                on_step=on_step,
                stop=context.stop,
            )
        )

    def _run_command(
        self,
        request: MonitorRequest,
        context: RunContext,
        on_sample: Callable[[Sample], None],
        on_events: Callable[[list[Event]], None] | None,
    ) -> CommandRun:
        from gpu_advisor.bench.monitor import run_monitor

        argv, folder = parse_command(request.command, request.working_dir)
        report = run_monitor(
            argv,
            cwd=folder,
            interval_s=max(0.1, request.interval_s),
            on_sample=on_sample,
            on_events=on_events,
            stop=context.stop,
            nvml=self.nvml,
            log_path=request.log_path or None,
        )
        return CommandRun(report)

    def _run_cluster(
        self,
        request: MonitorRequest,
        context: RunContext,
        on_sample: Callable[[Sample], None],
        on_step: Callable[[str, str, float], None] | None = None,
    ) -> ClusterRun | None:
        """torchrun with `request.nproc` ranks here (bench.distributed.launcher); this process samples
        the whole machine for the live plots while the ranks run, and each collective's bus bandwidth
        goes to `on_step` as each message size is measured. None when the user stopped it."""
        from gpu_advisor.bench.distributed.errors import DistributedRunFailed
        from gpu_advisor.bench.distributed.launcher import run_local
        from gpu_advisor.bench.distributed.options import DistributedOptions
        from gpu_advisor.telemetry import AutoGpuSource, HostSource, Sampler

        interval_s = max(0.1, request.interval_s if not self.toy else 0.1)
        options = DistributedOptions(
            device=request.device.kind,
            mode="toy" if self.toy else "quick" if request.quick else "full",
            interval_s=interval_s,
        )
        nvml = AutoGpuSource()
        sampler = Sampler(
            interval_s, nvml=nvml if nvml.open() else None, host=HostSource(), on_sample=on_sample
        )
        sampler.start()
        try:
            return ClusterRun(
                run_local(
                    options,
                    request.nproc,
                    on_progress=context.report_progress,
                    on_collective=None if on_step is None else collective_step(on_step),
                    stop=context.stop,
                )
            )
        except DistributedRunFailed:
            if context.stop.is_set():
                return None
            raise
        finally:
            sampler.stop()
            nvml.close()

    # ---- files -----------------------------------------------------------------------------------
    @staticmethod
    def load_results(path: str | Path) -> BenchReport:
        """A validated results file; raises FileFormatError naming the file and the field."""
        from gpu_advisor.bench.loading import load_report

        return load_report(path)

    @staticmethod
    def save_results(report: BenchReport | MonitorReport, path: str | Path) -> None:
        """Write a results file atomically (bench@1, or monitor@1 for a watched command)."""
        report.save(path)


def torch_device(choice: DeviceChoice) -> str:
    """The BenchOptions device for a choice: 'cpu', or 'cuda:N' with N found through the GPU's UUID
    (torch is loaded by now). ValueError when this process cannot see the GPU."""
    if choice.nvml_index is None:
        return "cpu"
    from gpu_advisor.bench.device import cuda_index_of_uuid

    cuda_index = cuda_index_of_uuid(choice.uuid) if choice.uuid else None
    if cuda_index is None:
        cuda_index = choice.cuda_index
    if cuda_index is None:
        raise ValueError(
            f"{choice.label} is not visible to CUDA in this process (see CUDA_VISIBLE_DEVICES); "
            "its telemetry can still be watched with My command"
        )
    return f"cuda:{cuda_index}"


def freeze_after_imports() -> None:
    """Import the workloads (and torch) now, then move every object alive into the GC's permanent
    generation.

    A full garbage collection stops every thread while it walks all tracked objects: with torch,
    pyqtgraph and Qt loaded that took 60-200 ms at a time on the development machines, stalling the
    window mid-run. Objects frozen here (modules, classes, the widgets) are never walked again;
    what the run allocates is still collected.
    """
    try:
        from gpu_advisor.bench.runner import default_workloads
    except ImportError:
        return
    default_workloads()  # imports torch and the workload modules
    # Modules torch imports on first use: the optimizers import torch._dynamo (and with it sympy and
    # torch.distributed, some 800 modules, 120k objects), the CPU peak-memory check the profiler.
    # Imported after the freeze they would be walked by every collection of the run (60-110 ms each).
    import torch._dynamo
    import torch.profiler  # noqa: F401

    gc.freeze()


def default_backend() -> BenchBackend:
    return BenchBackend()


def collective_step(on_step: Callable[[str, str, float], None]) -> Callable[[str, str, int, float], None]:
    """A cluster run's measured message sizes as the live rate plot's steps: one curve per
    collective and scope ("all-reduce (intra-node)"), each point a size's bus bandwidth."""
    from gpu_advisor.wording.distributed import OP_NAMES

    def step(op: str, scope: str, _bytes: int, busbw_bytes_per_s: float) -> None:
        on_step(f"{OP_NAMES.get(op, op)} ({scope})", "busbw_bytes_per_s", busbw_bytes_per_s)

    return step
