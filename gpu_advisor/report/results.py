"""Benchmark results attached to a report: read a `gpu-advisor/bench@1` file and describe it.

A file is validated by the benchmark package's own model (`bench.results`), so the report accepts
exactly what `gpu-advisor bench` accepts: a bad file raises FileFormatError naming the file and the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpu_advisor.bench.results import SCHEMA, report_from_dict
from gpu_advisor.core.files import read_json
from gpu_advisor.core.units import format_bytes, format_duration
from gpu_advisor.telemetry.samples import Sample


@dataclass(frozen=True)
class AttachedResults:
    """One validated benchmark results file: where it came from, its data, and its telemetry samples."""

    name: str  # file name, shown in the report
    data: Mapping[str, Any]
    samples: tuple[Sample, ...]

    @property
    def machine(self) -> Mapping[str, Any]:
        return self.data.get("machine") or {}

    @property
    def results(self) -> Sequence[Mapping[str, Any]]:
        return self.data.get("results") or []

    @property
    def device(self) -> str:
        return str(self.data["device"]["name"])  # required by bench@1

    @property
    def interval_s(self) -> float:
        return float(self.data["telemetry"]["interval_s"])  # required by bench@1, > 0


def results_from_dict(data: Mapping[str, Any], name: str = "results") -> AttachedResults:
    """Validate a results object with the benchmark's own model; FileFormatError names `name` and the field."""
    report = report_from_dict(dict(data), name)  # raises ResultsFileError, a FileFormatError
    return AttachedResults(name=name, data=data, samples=report.telemetry.parsed_samples())


def load_results(path: str | Path) -> AttachedResults:
    """Read a results file written by `gpu-advisor bench --json FILE`."""
    path = Path(path)
    data = read_json(path, SCHEMA)
    return replace(results_from_dict(data, str(path)), name=path.name)


# ---- describing ------------------------------------------------------------------------------------
def machine_rows(att: AttachedResults) -> list[tuple[str, str]]:
    """The benchmarked machine as (label, value) rows."""
    m = att.machine
    rows: list[tuple[str, str]] = []
    if m.get("cpu_model"):
        cores = [
            f"{m[k]} {label}"
            for k, label in (("physical_cores", "cores"), ("logical_cores", "threads"))
            if m.get(k)
        ]
        rows.append(("CPU", f"{m['cpu_model']}" + (f" ({', '.join(cores)})" if cores else "")))
    if m.get("ram_total_bytes"):
        rows.append(("RAM", format_bytes(m["ram_total_bytes"], "GiB")))
    gpus = m.get("gpus") or []
    for gpu in gpus if isinstance(gpus, list) else []:
        if not isinstance(gpu, Mapping):
            continue
        parts = [str(gpu.get("name") or "GPU")]
        if gpu.get("memory_total_bytes"):
            parts.append(format_bytes(gpu["memory_total_bytes"], "GiB"))
        if gpu.get("driver_version"):
            parts.append(f"driver {gpu['driver_version']}")
        if gpu.get("cuda_driver_version"):
            parts.append(f"CUDA {gpu['cuda_driver_version']}")
        rows.append((f"GPU {gpu.get('index', '')}".strip(), ", ".join(parts)))
    if not gpus and m.get("gpu_status"):
        rows.append(("GPU", str(m["gpu_status"])))
    for key, label in (("os", "OS"), ("python_version", "Python"), ("torch_version", "PyTorch")):
        if m.get(key):
            rows.append((label, str(m[key])))
    rows.append(("Device benchmarked", att.device))
    return rows


CONFIG_LABELS = (("model", ""), ("precision", ""), ("batch_size", "batch "), ("seq_len", "seq "))


def workload_name(result: Mapping[str, Any]) -> str:
    """A readable name: the result's name (or its workload kind) and the key parts of its config."""
    name = str(result.get("name") or result.get("workload") or "workload")
    config = result.get("config")
    details = []
    if isinstance(config, Mapping):
        details = [
            f"{label}{config[key]}" for key, label in CONFIG_LABELS if config.get(key) not in (None, "")
        ]
        details = [d for d in details if d not in name]
    return f"{name} ({', '.join(details)})" if details else name


def _pair(pred: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = pred.get(key) if isinstance(pred, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _error(pair: Mapping[str, Any]) -> str:
    err = _num(pair.get("error_pct"))
    if err is None:
        pred, meas = _num(pair.get("predicted")), _num(pair.get("measured"))
        if pred is None or not meas:
            return "n/a"
        err = (pred - meas) / meas * 100
    return f"{err:+.0f}%"


# The numbers worth a line per workload kind, in order; other kinds show their first few metrics.
KEY_METRICS = {
    "matmul": ("flops_per_s", "fraction_of_catalogue_peak"),
    "bandwidth": ("bytes_per_s", "fraction_of_catalogue"),
    "train": ("tokens_per_s", "mfu", "input_wait_fraction", "peak_memory_bytes"),
    "dataloader": ("tokens_per_s", "input_wait_fraction", "mfu"),
    "inference": ("prefill_s", "decode_tokens_per_s", "peak_memory_bytes"),
    "transfer": ("pinned_bytes_per_s", "pageable_bytes_per_s"),
}
METRIC_LABELS = {
    "flops_per_s": "",
    "bytes_per_s": "",
    "mfu": "MFU",
    "input_wait_fraction": "input wait",
    "fraction_of_catalogue_peak": "of catalogue peak",
    "fraction_of_catalogue": "of catalogue peak",
    "peak_memory_bytes": "peak memory",
    "prefill_s": "prefill",
    "decode_tokens_per_s": "decode",
    "tokens_per_s": "",
}


def _si(value: float) -> str:
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}"
    return f"{value:.3g} "


def format_metric(key: str, value: Any) -> str | None:
    """'flops_per_s', 1.3e11 -> '132 GFLOP/s'; the unit comes from the key's suffix. None: not a number."""
    v = _num(value)
    if v is None:
        return None
    label = METRIC_LABELS.get(key, key.replace("_", " "))
    if key.endswith("flops_per_s"):
        text = f"{_si(v)}FLOP/s"
    elif key.endswith("bytes_per_s"):
        text = f"{_si(v)}B/s"
    elif key.endswith("tokens_per_s"):
        text = f"{v:,.0f} tokens/s"
    elif key.endswith("_bytes"):
        text = format_bytes(v)
    elif key.endswith("_s"):
        text = format_duration(v)
    elif key == "mfu" or "fraction" in key:
        text = f"{v:.0%}"
    else:
        text = f"{v:,.4g}"
    return f"{label} {text}".strip() if label and not label.endswith("peak") else (f"{text} {label}".strip())


def _spread(result: Mapping[str, Any]) -> str:
    timings = result.get("timings")
    if not isinstance(timings, Mapping) or not timings:
        return "n/a"
    key = next(
        (k for k in ("step_time_s", "decode_step_s", "copy_time_s") if k in timings), next(iter(timings))
    )
    t = timings[key]
    if not isinstance(t, Mapping) or _num(t.get("median")) is None:
        return "n/a"
    text = format_duration(t["median"])
    if _num(t.get("p10")) is not None and _num(t.get("p90")) is not None:
        text += f" ({format_duration(t['p10'])} to {format_duration(t['p90'])}, n={t.get('n', '?')})"
    return text


def result_rows(att: AttachedResults) -> list[dict[str, str]]:
    """Per workload: status, the median time with its p10-p90 spread, and its key numbers."""
    rows = []
    for result in att.results:
        metrics = result.get("metrics") if isinstance(result.get("metrics"), Mapping) else {}
        keys = KEY_METRICS.get(str(result.get("workload")), tuple(metrics)[:3])
        numbers = [t for k in keys if (t := format_metric(k, metrics.get(k))) is not None]
        if result.get("status") != "ok":
            numbers += [str(n) for n in result.get("notes") or []]
            if result.get("error"):
                numbers.append(str(result["error"]))
        rows.append(
            {
                "workload": workload_name(result),
                "status": str(result.get("status") or "n/a"),
                "time": _spread(result),
                "numbers": "; ".join(numbers) or "n/a",
            }
        )
    return rows


def comparison_rows(att: AttachedResults) -> list[dict[str, str]]:
    """Per workload with a prediction: measured and predicted step time and peak memory, and the error."""
    rows = []
    for result in att.results:
        pred = result.get("prediction") or {}
        if not pred:
            continue
        step = _pair(pred, "step_time_s")
        mem = _pair(pred, "peak_memory_bytes")

        def dur(v: Any) -> str:
            n = _num(v)
            return "n/a" if n is None else format_duration(n)

        def size(v: Any) -> str:
            n = _num(v)
            return "n/a" if n is None else format_bytes(n)

        rows.append(
            {
                "workload": workload_name(result),
                "status": str(result.get("status") or "n/a"),
                "step_measured": dur(step.get("measured")),
                "step_predicted": dur(step.get("predicted")),
                "step_error": _error(step),
                "mem_measured": size(mem.get("measured")),
                "mem_predicted": size(mem.get("predicted")),
                "mem_error": _error(mem),
            }
        )
    return rows


def diagnosis_lines(att: AttachedResults) -> list[tuple[str, str, str]]:
    """(workload, finding, what to do) for every diagnosis in the file."""
    out = []
    for result in att.results:
        diag = result.get("diagnosis")
        items = diag if isinstance(diag, list) else [diag] if diag else []
        for item in items:
            if isinstance(item, Mapping):
                title = str(item.get("title") or item.get("kind") or "")
                evidence = item.get("evidence")
                summary = evidence.get("summary") if isinstance(evidence, Mapping) else None
                if summary:
                    title = f"{title}: {summary}"
                severity = item.get("severity")
                if severity and severity != "ok":
                    title = f"[{severity}] {title}"
                out.append((workload_name(result), title, str(item.get("fix") or "")))
            else:
                out.append((workload_name(result), str(item), ""))
    return out
