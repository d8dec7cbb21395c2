"""Text rendering of a benchmark report and of a monitored run, for the terminal. No torch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpu_advisor.bench.results import BenchReport, VerdictRecord, WorkloadResult
from gpu_advisor.core.units import GB, GIB, MIB
from gpu_advisor.telemetry.diagnosis import SEVERITY_RANK

NA = "-"
# The timing that best describes each workload: its step.
MAIN_TIMING = {
    "matmul": "step_time_s",
    "bandwidth": "copy_time_s",
    "train": "step_time_s",
    "inference": "decode_step_s",
    "dataloader": "step_time_s",
    "transfer": "copy_time_s",
}


def _si(value: float, unit: str) -> str:
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def throughput_text(r: WorkloadResult) -> str:
    """The headline rate of a result, with its unit."""
    m = r.metrics
    if r.workload == "matmul" and _num(m.get("flops_per_s")):
        text = _si(m["flops_per_s"], "FLOP/s")
        frac = _num(m.get("fraction_of_catalogue_peak"))
        return f"{text} ({frac:.0%} of catalogue)" if frac else text
    if r.workload in ("bandwidth", "transfer") and _num(m.get("bytes_per_s")):
        text = f"{m['bytes_per_s'] / GB:,.1f} GB/s"
        frac = _num(m.get("fraction_of_catalogue"))
        return f"{text} ({frac:.0%} of catalogue)" if frac else text
    if r.workload in ("train", "dataloader") and _num(m.get("tokens_per_s")):
        parts = [f"{m['tokens_per_s']:,.0f} tok/s"]
        if _num(m.get("mfu")) is not None:
            parts.append(f"MFU {m['mfu']:.0%}")
        if _num(m.get("input_wait_fraction")) is not None:
            parts.append(f"input wait {m['input_wait_fraction']:.0%}")
        return ", ".join(parts)
    if r.workload == "inference" and _num(m.get("decode_tokens_per_s")):
        return f"{m['decode_tokens_per_s']:,.0f} tok/s decode, prefill {m['prefill_s'] * 1e3:,.1f} ms"
    return NA


def _variant(r: WorkloadResult) -> str:
    name = r.name.removeprefix(r.workload).strip()
    return name or r.workload


def _mib(value: Any) -> str:
    n = _num(value)
    return NA if n is None else f"{n / MIB:,.1f}"


def render_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], right: set[int] | None = None
) -> list[str]:
    """Aligned columns; `right` holds the indices of right-aligned columns."""
    right = right or set()
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        cells = [
            str(c).rjust(w) if i in right else str(c).ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    head = line(headers)
    return [head, "-" * len(head), *(line(r) for r in rows)]


def primary_verdict(verdicts: Sequence[VerdictRecord]) -> VerdictRecord | None:
    """The most severe verdict (the list is already ordered by the diagnosis rules)."""
    return max(verdicts, key=lambda v: SEVERITY_RANK[v.severity], default=None)


def render_report(report: BenchReport) -> str:
    """The readable summary `gpu-advisor bench` prints."""
    m, d = report.machine, report.device
    lines = []
    where = f"{d.name} ({d.kind}{'' if d.index is None else f':{d.index}'})"
    title = f"GPU Advisor benchmark on {where}"
    lines += [title, "=" * len(title)]
    cores = f"{m.physical_cores or '?'} cores / {m.logical_cores or '?'} threads"
    lines.append(
        f"machine: {m.cpu_model or 'unknown CPU'} ({cores}), RAM {(m.ram_total_bytes or 0) / GIB:,.1f} GiB, "
        f"{m.os or ''}"
    )
    lines.append(
        f"torch {m.torch_version} (CUDA {m.torch_cuda_version or 'none'}), {d.torch_threads} threads; "
        f"{m.gpu_status or ''}"
    )
    if d.catalogue_id:
        lines.append(f"catalogue entry: {d.catalogue_id}")
    lines.append(
        f"run: {report.duration_s:,.1f} s, {len(report.telemetry.samples)} telemetry samples every "
        f"{report.telemetry.interval_s:g} s"
    )
    lines.append("")
    headers = [
        "workload",
        "variant",
        "status",
        "median (ms)",
        "p10-p90 (ms)",
        "throughput",
        "peak mem (MiB)",
        "predicted (MiB)",
        "error (%)",
    ]
    rows = []
    for r in report.results:
        timing = r.timings.get(MAIN_TIMING[r.workload])
        median = NA if timing is None else f"{timing.median * 1e3:,.2f}"
        band = NA if timing is None else f"{timing.p10 * 1e3:,.2f}-{timing.p90 * 1e3:,.2f}"
        pred = r.prediction.peak_memory_bytes if r.prediction else None
        err = NA if pred is None or pred.error_pct is None else f"{pred.error_pct:+.1f}"
        rows.append(
            [
                r.workload,
                _variant(r),
                r.status,
                median,
                band,
                throughput_text(r),
                _mib(r.metrics.get("peak_memory_bytes")),
                _mib(pred.predicted if pred else None),
                err,
            ]
        )
    lines += render_table(headers, rows, right={3, 4, 6, 7, 8})
    lines.append(
        "median: per step (inference: per decode step of the whole batch); memory: live tensor bytes "
        "on CPU, max allocated on CUDA"
    )

    checks = [r for r in report.results if r.prediction]
    if checks:
        lines += ["", "Prediction check (gpu_advisor.core.predict against this run):"]
        rows = []
        for r in checks:
            p = r.prediction
            assert p is not None
            step = p.step_time_s
            rows.append(
                [
                    r.workload,
                    _variant(r),
                    NA if step.predicted is None else f"{step.predicted * 1e3:,.2f}",
                    NA if step.measured is None else f"{step.measured * 1e3:,.2f}",
                    NA if step.error_pct is None else f"{step.error_pct:+.0f}",
                    _mib(p.peak_memory_bytes.predicted),
                    _mib(p.peak_memory_bytes.measured),
                    NA if p.peak_memory_bytes.error_pct is None else f"{p.peak_memory_bytes.error_pct:+.1f}",
                ]
            )
        lines += render_table(
            [
                "workload",
                "variant",
                "step pred. (ms)",
                "step meas. (ms)",
                "error (%)",
                "memory pred. (MiB)",
                "memory meas. (MiB)",
                "error (%)",
            ],
            rows,
            right={2, 3, 4, 5, 6, 7},
        )
        bases = dict.fromkeys(r.prediction.basis for r in checks if r.prediction and r.prediction.basis)
        lines += [f"  basis: {b}" for b in bases]

    diag = [(r, primary_verdict(r.diagnosis)) for r in report.results if r.diagnosis]
    if diag:
        lines += ["", "Diagnosis:"]
        for r, v in diag:
            if v is None:
                continue
            summary = v.evidence.get("summary")
            lines.append(f"  {r.name}: [{v.severity}] {v.title}" + (f" ({summary})" if summary else ""))
            if v.severity in ("warning", "critical") and v.fix:
                lines.append(f"      fix: {v.fix}")
    notes = [(r, n) for r in report.results for n in r.notes if r.status != "ok"]
    errors = [r for r in report.results if r.error]
    if notes or errors:
        lines += ["", "Notes:"]
        lines += [f"  {r.name}: {n}" for r, n in notes]
        lines += [f"  {r.name}: error: {r.error}" for r in errors]
    return "\n".join(lines)


def render_monitor(report: Any) -> str:
    """The summary `gpu-advisor monitor` prints after the command ends (a MonitorReport)."""
    s = report.summary
    lines = [
        f"monitor: `{' '.join(report.command)}` exited with {report.exit_code} after {report.duration_s:,.1f} s "
        f"({s.get('sample_count', 0)} samples every {report.telemetry.interval_s:g} s)"
    ]

    def stat(stats: dict[str, Any] | None, unit: str = "", scale: float = 1.0, fmt: str = "{:,.1f}") -> str:
        if not stats:
            return "n/a"
        return " / ".join(fmt.format(stats[k] / scale) for k in ("mean", "p95", "max")) + unit

    lines.append(f"  host CPU (mean / p95 / max): {stat(s.get('host_cpu_pct'), ' %')}")
    lines.append(f"  RAM used: {stat(s.get('ram_used_bytes'), ' GiB', GIB, '{:,.2f}')}")
    lines.append(f"  process tree RSS: {stat(s.get('process_rss_bytes'), ' GiB', GIB, '{:,.2f}')}")
    for g in s.get("gpus") or []:
        lines.append(
            f"  GPU {g['index']} {g['name']}: util {stat(g.get('gpu_util_pct'), ' %')}, "
            f"memory {stat(g.get('memory_used_bytes'), ' GiB', GIB, '{:,.2f}')}, "
            f"power {stat(g.get('power_w'), ' W')}, temperature {stat(g.get('temperature_c'), ' °C')}"
        )
        if g.get("throttle_fraction") is not None:
            lines.append(
                f"      clock-event (throttle) reasons active in {g['throttle_fraction']:.0%} of samples"
            )
    if not s.get("gpus"):
        lines.append(f"  GPUs: {report.machine.gpu_status or 'none'}")
    lines.append("Diagnosis:")
    for v in report.diagnosis:
        summary = v.evidence.get("summary")
        lines.append(f"  [{v.severity}] {v.title}" + (f" ({summary})" if summary else ""))
        if v.severity in ("warning", "critical") and v.fix:
            lines.append(f"      fix: {v.fix}")
    return "\n".join(lines)
