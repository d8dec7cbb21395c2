"""How benchmark results read, for every face: the CLI, the Monitor tab, the PDF, Markdown and Compare.

Each function takes the loaded, validated model (`bench.results.BenchReport`, `WorkloadResult`,
`VerdictRecord`) and returns text, or rows of text that a face lays out. Numbers become text only through
`core.units`: memory in binary units (MiB, GiB), rates in decimal SI (GFLOP/s, GB/s), so the same peak
memory reads "144.2 MiB" in the terminal, the GUI, the PDF and Compare.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gpu_advisor.bench.results import (
    BenchReport,
    DeviceInfo,
    Machine,
    PredictionCheck,
    Quantity,
    Spread,
    VerdictRecord,
    WorkloadResult,
    as_number,
)
from gpu_advisor.core.units import (
    NA,
    format_bandwidth,
    format_bytes,
    format_count,
    format_duration,
    format_error_pct,
    format_flops,
    format_pct,
    format_rate,
    format_si,
)
from gpu_advisor.telemetry.diagnosis import primary
from gpu_advisor.wording.gpu_facts import gpu_facts

# ---- one metric, one wording ----------------------------------------------------------------------
# The numbers worth showing per workload kind, in order; other kinds show their first few metrics.
KEY_METRICS: dict[str, tuple[str, ...]] = {
    "matmul": ("flops_per_s", "fraction_of_catalogue_peak"),
    "bandwidth": ("bytes_per_s", "fraction_of_catalogue"),
    "train": ("tokens_per_s", "mfu", "input_wait_fraction", "peak_memory_bytes"),
    "dataloader": ("tokens_per_s", "input_wait_fraction", "mfu"),
    "inference": ("prefill_s", "decode_tokens_per_s", "peak_memory_bytes"),
    "transfer": ("bytes_per_s", "fraction_of_catalogue"),
    "command": (
        "exit_code",
        "duration_s",
        "samples_per_s",
        "tokens_per_s",
        "time_per_epoch_s",
        "input_wait_fraction",
        "peak_memory_bytes",
    ),
}
# How a metric reads around its value; a key not listed reads "its words {value}".
METRIC_TEMPLATES: dict[str, str] = {
    "mfu": "MFU {}",
    "input_wait_fraction": "input wait {}",
    "fraction_of_catalogue_peak": "{} of catalogue peak",
    "fraction_of_catalogue": "{} of catalogue peak",
    "peak_memory_bytes": "peak memory {}",
    "prefill_s": "prefill {}",
    "decode_tokens_per_s": "decode {}",
    "flops_per_s": "{}",
    "bytes_per_s": "{}",
    "tokens_per_s": "{}",
    "samples_per_s": "{}",
    "duration_s": "ran {}",
    "time_per_epoch_s": "{} per epoch",
}
# Workload config keys that name a variant, with the words before their value.
CONFIG_LABELS = (("model", ""), ("precision", ""), ("batch_size", "batch "), ("seq_len", "seq "))
MEMORY_MEANING = {"cpu": "live tensors (CPU)", "cuda": "max allocated (CUDA)"}


def quantity_text(quantity: Quantity, value: float | str | None, unit: str = "") -> str:
    """A number in its quantity's unit through core.units ('n/a' when missing); identity text as is."""
    if value is None:
        return NA
    if isinstance(value, str):
        return value
    if quantity == "count":
        return format_count(value) if value == round(value) else format_si(value, "", digits=4)
    if quantity == "rate":
        return format_rate(value, unit)
    words: dict[str, Callable[[float], str]] = {
        "bytes": format_bytes,
        "flops": format_flops,
        "bandwidth": format_bandwidth,
        "duration": format_duration,
        "fraction": format_pct,
        "error_pct": format_error_pct,
    }
    return words[quantity](value) if quantity in words else str(value)


def metric_quantity(key: str) -> tuple[Quantity, str]:
    """What a metric is, from its key's unit suffix (bench@1's naming rule), and a rate's unit."""
    for suffix, quantity, unit in (
        ("flops_per_s", "flops", ""),
        ("bytes_per_s", "bandwidth", ""),
        ("tokens_per_s", "rate", "tokens/s"),
        ("samples_per_s", "rate", "samples/s"),
        ("_bytes", "bytes", ""),
        ("_s", "duration", ""),
    ):
        if key.endswith(suffix):
            return quantity, unit  # type: ignore[return-value]
    return ("fraction", "") if key == "mfu" or "fraction" in key else ("count", "")


def value_text(key: str, value: object) -> str:
    """A metric's value alone: 'decode_tokens_per_s', 1118.3 -> '1,118 tokens/s'; 'n/a' if not a number."""
    quantity, unit = metric_quantity(key)
    return quantity_text(quantity, as_number(value), unit)


def metric_text(key: str, value: object) -> str | None:
    """'flops_per_s', 1.3e11 -> '132 GFLOP/s'; 'mfu', 0.07 -> 'MFU 7%'. None when not a number."""
    number = as_number(value)
    if number is None:
        return None
    template = METRIC_TEMPLATES.get(key, key.replace("_", " ") + " {}")
    return template.format(value_text(key, number))


def key_numbers(result: WorkloadResult) -> list[str]:
    """The workload's key metrics as text, in KEY_METRICS order."""
    keys = KEY_METRICS.get(result.workload, tuple(result.metrics)[:3])
    return [text for key in keys if (text := metric_text(key, result.metrics.get(key))) is not None]


def workload_label(result: WorkloadResult) -> str:
    """'train bench-gpt2-cpu (fp32, batch 4, seq 128)': the result's name and what sets it apart."""
    name = result.name or result.workload
    details = [
        f"{label}{result.config[key]}"
        for key, label in CONFIG_LABELS
        if result.config.get(key) not in (None, "")
    ]
    details = [d for d in details if d not in name]
    return f"{name} ({', '.join(details)})" if details else name


def spread_text(spread: Spread | None) -> str:
    """'107.9 ms (102.0 ms to 144.9 ms, n=14)': the median, then the p10 to p90 band."""
    if spread is None:
        return NA
    band = f"{format_duration(spread.p10)} to {format_duration(spread.p90)}"
    return f"{format_duration(spread.median)} ({band}, n={spread.n})"


def peak_memory_bytes(result: WorkloadResult) -> float | None:
    """Measured peak memory: the workload's metric, else the prediction check's measurement."""
    value = result.number("peak_memory_bytes")
    if value is None and result.prediction is not None:
        value = result.prediction.peak_memory_bytes.measured
    return value


def memory_meaning(device_kind: str) -> str:
    """What 'peak memory' measures on this kind of device."""
    return MEMORY_MEANING.get(device_kind, "")


def device_text(device: DeviceInfo) -> str:
    """'NVIDIA H100 80GB HBM3 (cuda:0, NVML GPU 2)' or 'AMD EPYC (CPU, 2 threads)'."""
    if device.kind == "cpu":
        return f"{device.name} (CPU, {device.torch_threads} threads)"
    where = [f"cuda:{device.index}" if device.index is not None else "cuda"]
    if device.nvml_index is not None:
        where.append(f"NVML GPU {device.nvml_index}")
    return f"{device.name} ({', '.join(where)})"


# ---- verdicts -------------------------------------------------------------------------------------
def finding_text(verdict: VerdictRecord) -> str:
    """'[warning] Input-bound: ...: input wait 16% of step time (...)'; no tag on an 'ok' verdict."""
    summary = verdict.evidence.get("summary")
    text = f"{verdict.title}: {summary}" if summary else verdict.title
    return text if verdict.severity == "ok" else f"[{verdict.severity}] {text}"


def verdict_detail(verdict: VerdictRecord) -> str:
    """The evidence and what to do, as one sentence pair: 'input wait 16% .... Feed batches faster: ...'."""
    summary = str(verdict.evidence.get("summary", ""))
    return f"{summary}. {verdict.fix}".strip(". ") if summary else verdict.fix


def primary_verdict(verdicts: Sequence[VerdictRecord]) -> VerdictRecord | None:
    """The verdict to show first (telemetry.diagnosis.primary's order)."""
    return primary(verdicts)


# ---- rows for the faces ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ResultRow:
    workload: str
    status: str
    time: str  # median step with its p10-p90 band
    numbers: str  # key numbers, notes of a run that did not finish


@dataclass(frozen=True, slots=True)
class PredictionRow:
    """One prediction check, in PREDICTION_HEADERS order (`cells()`)."""

    workload: str
    status: str
    step_measured: str
    step_predicted: str
    step_error: str
    memory_measured: str
    memory_predicted: str
    memory_error: str

    def cells(self) -> tuple[str, ...]:
        """The row's texts in PREDICTION_HEADERS order."""
        return (
            self.workload,
            self.status,
            self.step_measured,
            self.step_predicted,
            self.step_error,
            self.memory_measured,
            self.memory_predicted,
            self.memory_error,
        )


@dataclass(frozen=True, slots=True)
class DiagnosisRow:
    workload: str
    severity: str
    finding: str
    fix: str


def result_rows(report: BenchReport) -> list[ResultRow]:
    """Per workload: status, the median step with its spread, and its key numbers (or why it stopped)."""
    rows = []
    for result in report.results:
        numbers = key_numbers(result)
        if result.status != "ok":
            numbers += result.notes
            if result.error:
                numbers.append(f"error: {result.error}")
        rows.append(
            ResultRow(
                workload_label(result), result.status, spread_text(result.step), "; ".join(numbers) or NA
            )
        )
    return rows


def _error(check: PredictionCheck) -> str:
    return format_error_pct(check.error_pct)


def prediction_rows(report: BenchReport) -> list[PredictionRow]:
    """Per workload with a prediction: measured and predicted step time and peak memory, and the errors.

    On a CPU the step-time error is marked "(CPU only)": see `prediction_caveat`."""
    rows = []
    cpu = report.device.kind == "cpu"
    for result in report.results:
        p = result.prediction
        if p is None:
            continue
        step, memory = p.step_time_s, p.peak_memory_bytes
        rows.append(
            PredictionRow(
                workload=workload_label(result),
                status=result.status,
                step_measured=format_duration(step.measured),
                step_predicted=format_duration(step.predicted),
                step_error=f"{_error(step)} {CPU_ONLY}"
                if cpu and step.error_pct is not None
                else _error(step),
                memory_measured=format_bytes(memory.measured),
                memory_predicted=format_bytes(memory.predicted),
                memory_error=_error(memory),
            )
        )
    return rows


def prediction_bases(report: BenchReport) -> list[str]:
    """What the time predictions assumed, each once."""
    return list(
        dict.fromkeys(r.prediction.basis for r in report.results if r.prediction and r.prediction.basis)
    )


def diagnosis_rows(report: BenchReport) -> list[DiagnosisRow]:
    """Every verdict of every workload: (workload, severity, finding, what to do)."""
    return [
        DiagnosisRow(workload_label(r), v.severity, finding_text(v), v.fix)
        for r in report.results
        for v in r.diagnosis
    ]


def machine_rows(report: BenchReport) -> list[tuple[str, str]]:
    """The benchmarked machine as (label, value) rows."""
    m: Machine = report.machine
    rows: list[tuple[str, str]] = []
    if m.cpu_model:
        cores = [
            f"{n} {label}" for n, label in ((m.physical_cores, "cores"), (m.logical_cores, "threads")) if n
        ]
        rows.append(("CPU", m.cpu_model + (f" ({', '.join(cores)})" if cores else "")))
    if m.ram_total_bytes:
        rows.append(("RAM", format_bytes(m.ram_total_bytes)))
    for gpu in m.gpus:
        parts = [str(gpu.get("name") or "GPU")]
        parts += gpu_facts(gpu, ("memory_total_bytes", "driver_version", "cuda_driver_version"))
        rows.append((f"GPU {gpu.get('index', '')}".strip(), ", ".join(parts)))
    if not m.gpus and m.gpu_status:
        rows.append(("GPU", m.gpu_status))
    for value, label in ((m.os, "OS"), (m.python_version, "Python"), (m.torch_version, "PyTorch")):
        if value:
            rows.append((label, value))
    rows.append(("Device benchmarked", device_text(report.device)))
    return rows


def attached_line(
    name: str, report: BenchReport, plan_gpu: str | None = None, plan_gpu_id: str | None = None
) -> str | None:
    """One sentence for a report's first page about an attached file's first prediction check.

    Memory leads: it carries over to any device. A run on another device than the plan's GPU (a CPU,
    or another GPU) is never quoted as evidence of that GPU's speed: the sentence says what it checks.
    """
    rows = prediction_rows(report)
    if not rows:
        return None
    first = rows[0]
    device = report.device
    memory = (
        f"peak memory {first.memory_measured} measured against {first.memory_predicted} predicted "
        f"({first.memory_error})"
    )
    same_gpu = (
        device.kind == "cuda"
        and plan_gpu_id is not None
        and (device.catalogue_id == plan_gpu_id or device.name == plan_gpu)
    )
    if not same_gpu:
        target = f"the recommended {plan_gpu}" if plan_gpu else "the plan's GPU"
        return (
            f"Benchmark attached ({name}) ran on {device.name}, not on {target}: it checks the sizing "
            f"({first.workload}: {memory}), not the speed of {target}."
        )
    return (
        f"Benchmark attached ({name}, {device.name}): {first.workload} {memory}; step "
        f"{first.step_measured} measured against {first.step_predicted} predicted ({first.step_error})."
    )


def _torch_build(cuda: str | None, hip: str | None) -> str:
    """ "CUDA 12.4", "ROCm 6.2.41133" (a ROCm build drives AMD GPUs through torch.cuda), "CUDA none"."""
    if hip and not cuda:
        return f"ROCm {hip}"
    return f"CUDA {cuda or 'none'}"


def run_lines(report: BenchReport) -> list[str]:
    """The heading lines of `gpu-advisor bench`'s summary: where it ran, on what, for how long."""
    m, d = report.machine, report.device
    cores = f"{m.physical_cores or '?'} cores / {m.logical_cores or '?'} threads"
    lines = [
        f"machine: {m.cpu_model or 'unknown CPU'} ({cores}), RAM {format_bytes(m.ram_total_bytes)}, {m.os or ''}".rstrip(
            ", "
        ),
        f"torch {m.torch_version} ({_torch_build(m.torch_cuda_version, m.torch_hip_version)}), "
        f"{d.torch_threads} threads; "
        f"{m.gpu_status or ''}".rstrip("; "),
    ]
    if d.catalogue_id:
        lines.append(f"catalogue entry: {d.catalogue_id}")
    lines.append(
        f"run: {format_duration(report.duration_s)}, {len(report.telemetry.samples)} telemetry samples every "
        f"{format_duration(report.telemetry.interval_s)}"
    )
    if report.partial:
        lines.append(
            "partial run: stopped before every workload had run; the results below are those finished"
        )
    return lines


def telemetry_title(report: BenchReport) -> str:
    """'Telemetry during the benchmark (56 samples, one every 500.0 ms, NVML GPU 2)'."""
    parts = [
        f"{len(report.telemetry.samples)} samples",
        f"one every {format_duration(report.telemetry.interval_s)}",
    ]
    if report.device.nvml_index is not None:
        parts.append(f"NVML GPU {report.device.nvml_index}, the one benchmarked")
    return f"Telemetry during {run_noun(report)} ({', '.join(parts)})"


def is_watched(report: BenchReport) -> bool:
    """Whether the file is a watched command (gpu-advisor/monitor@1, read as one `command` run)."""
    return bool(report.results) and all(r.workload == "command" for r in report.results)


def run_noun(report: BenchReport) -> str:
    """'the watched command' or 'the benchmark'."""
    return "the watched command" if is_watched(report) else "the benchmark"


def host_ram_peak_text(report: BenchReport) -> str | None:
    """'Host RAM in use peaked at 1.2 GiB.' (None without host RAM readings)."""
    peak = max((s.host.ram_used_bytes or 0 for s in report.telemetry.samples), default=0)
    return f"Host RAM in use peaked at {format_bytes(peak)}." if peak else None


RESULT_HEADERS = ("Workload", "Status", "Median step (p10 to p90)", "Key numbers")
PREDICTION_HEADERS = (
    "Workload",
    "Status",
    "Step measured",
    "Step predicted",
    "Error",
    "Peak memory measured",
    "Peak memory predicted",
    "Error",
)
DIAGNOSIS_HEADERS = ("Workload", "Finding", "What to do")
ERROR_MEANING = "Error = (predicted - measured) / measured."
CPU_ONLY = "(CPU only)"
CPU_STEP_CAVEAT = (
    "On a CPU the memory check is the one that carries over to a GPU plan: the same model, batch and "
    "precision need the same bytes on any device. The step-time check tests the planner's arithmetic "
    "model on this CPU only and is not meaningful for a GPU plan's speed."
)


def prediction_caveat(report: BenchReport) -> str:
    """What the self-check's errors mean for a plan on this run's device ('' on a GPU)."""
    return CPU_STEP_CAVEAT if report.device.kind == "cpu" else ""


def memory_note(report: BenchReport) -> str:
    """What the step times and memory figures measure on this device."""
    return (
        "median: per step (inference: per decode step of the whole batch); peak memory: "
        f"{memory_meaning(report.device.kind)}"
    )


def epoch_projection_text(projection) -> str:
    """'Projected time per epoch: 10,000 samples × 2,048 tokens at 1,234 tokens/s (…) = 4.6 h'."""
    measured = ", ".join(
        part
        for part in (
            None if projection.measured_seq_len is None else f"seq {projection.measured_seq_len}",
            None if projection.measured_batch_size is None else f"batch {projection.measured_batch_size}",
        )
        if part
    )
    return (
        f"Projected time per epoch: {projection.dataset_samples:,} samples × {projection.seq_len:,} tokens at "
        f"{format_rate(projection.tokens_per_s, 'tokens/s')} ({projection.measured_by}, measured at {measured}, "
        f"input pipeline included) = {format_duration(projection.time_per_epoch_s)}"
    )
