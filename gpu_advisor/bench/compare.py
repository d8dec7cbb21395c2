"""Several results files side by side, with the catalogue's figures for the same GPUs. No torch.

`compare_reports(paths)` loads and validates each file (ResultsFileError names the file and the
field) and returns a Comparison: a header per file and labelled rows, units in the labels. Values a
file does not have are "n/a".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpu_advisor.bench.results import BenchReport, WorkloadResult, load_report
from gpu_advisor.core.catalog import Catalog, GpuSpec, default_catalog
from gpu_advisor.core.units import GB, GIB, MIB

NA = "n/a"


@dataclass(frozen=True, slots=True)
class Comparison:
    """A table: `headers[0]` labels the row-label column; each other header is one file."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def render(self) -> str:
        """Plain text with aligned columns."""
        table = [self.headers, *self.rows]
        widths = [max(len(row[i]) for row in table) for i in range(len(self.headers))]
        lines = []
        for n, row in enumerate(table):
            cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
            lines.append("  ".join(cells).rstrip())
            if n == 0:
                lines.append("-" * len(lines[0]))
        return "\n".join(lines)


def _num(value: object, scale: float = 1.0, fmt: str = "{:,.1f}") -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return NA
    return fmt.format(value / scale)


def _metric(results: list[WorkloadResult], key: str) -> object:
    for r in results:
        if r.status in ("ok", "oom") and r.metrics.get(key) is not None:
            return r.metrics[key]
    return None


def _median(results: list[WorkloadResult], key: str) -> float | None:
    return next((r.timings[key].median for r in results if key in r.timings), None)


def _catalogue_gpu(report: BenchReport, catalog: Catalog) -> GpuSpec | None:
    if report.device.kind != "cuda":
        return None
    if report.device.catalogue_id:
        found = catalog.find(report.device.catalogue_id)
        if found is not None:
            return found
    return catalog.match_device_name(report.device.name)


def compare(named: Sequence[tuple[str, BenchReport]], catalog: Catalog | None = None) -> Comparison:
    """Build the side-by-side table for already loaded reports (label, report)."""
    catalog = catalog or default_catalog()
    gpus = [_catalogue_gpu(r, catalog) for _, r in named]
    rows: list[tuple[str, ...]] = []

    def row(label: str, cell: Callable[[BenchReport, GpuSpec | None], str]) -> None:
        rows.append((label, *(cell(r, g) for (_, r), g in zip(named, gpus, strict=True))))

    row("device", lambda r, g: r.device.name)
    row("CPU", lambda r, g: r.machine.cpu_model or NA)
    row(
        "CPU cores / threads used",
        lambda r, g: f"{r.machine.physical_cores or NA} / {r.device.torch_threads}",
    )
    row("RAM (GiB)", lambda r, g: _num(r.machine.ram_total_bytes, GIB, "{:,.0f}"))
    row("PyTorch", lambda r, g: r.machine.torch_version or NA)
    row("catalogue entry", lambda r, g: g.name if g else NA)
    row("catalogue memory (GB)", lambda r, g: _num(g.memory_gb if g else None, 1, "{:,.0f}"))

    dtypes = list(dict.fromkeys(str(x.config.get("dtype")) for _, r in named for x in r.result("matmul")))
    for dtype in dtypes:
        row(
            f"matmul {dtype} (TFLOP/s)",
            lambda r, g, d=dtype: _num(
                _metric([x for x in r.result("matmul") if x.config.get("dtype") == d], "flops_per_s"),
                1e12,
                "{:,.3g}",
            ),
        )
        row(
            f"  catalogue {dtype} peak (TFLOP/s)",
            lambda r, g, d=dtype: _num(
                g.peak_flops_per_s(d) if g and d in ("fp32", "tf32", "bf16", "fp16", "fp8") else None,
                1e12,
                "{:,.3g}",
            ),
        )
    row("memory bandwidth (GB/s)", lambda r, g: _num(_metric(r.result("bandwidth"), "bytes_per_s"), GB))
    row(
        "  catalogue bandwidth (GB/s)",
        lambda r, g: _num(g.bandwidth_bytes_per_s if g else None, GB, "{:,.0f}"),
    )
    row("train model", lambda r, g: str(next((x.config.get("model") for x in r.result("train")), NA)))
    row(
        "train batch x seq",
        lambda r, g: next(
            (
                f"{x.config.get('batch_size')} x {x.config.get('seq_len')}"
                for x in r.result("train")
                if x.status == "ok"
            ),
            NA,
        ),
    )
    row("train step median (ms)", lambda r, g: _num(_median(r.result("train"), "step_time_s"), 1e-3))
    row("train tokens/s", lambda r, g: _num(_metric(r.result("train"), "tokens_per_s"), 1, "{:,.0f}"))
    row("train MFU (%)", lambda r, g: _num(_metric(r.result("train"), "mfu"), 0.01))
    row(
        "train peak memory (MiB)",
        lambda r, g: _num(_metric(r.result("train"), "peak_memory_bytes"), MIB, "{:,.0f}"),
    )
    row("train memory prediction error (%)", lambda r, g: _prediction_error(r.result("train")))
    batches = sorted(
        {
            int(x.config["batch_size"])
            for _, r in named
            for x in r.result("inference")
            if isinstance(x.config.get("batch_size"), int)
        }
    )
    for b in batches:

        def at(r: BenchReport, b: int = b) -> list[WorkloadResult]:
            return [x for x in r.result("inference") if x.config.get("batch_size") == b]

        row(
            f"decode batch {b} (tokens/s)",
            lambda r, g, at=at: _num(_metric(at(r), "decode_tokens_per_s"), 1, "{:,.0f}"),
        )
        row(f"prefill batch {b} (ms)", lambda r, g, at=at: _num(_median(at(r), "prefill_s"), 1e-3))
    row("inference memory prediction error (%)", lambda r, g: _prediction_error(r.result("inference")))
    row(
        "dataloader stress input wait (%)",
        lambda r, g: _num(_metric(r.result("dataloader"), "input_wait_fraction"), 0.01, "{:,.0f}"),
    )
    for kind in ("pinned", "pageable"):
        row(
            f"host-to-device {kind} (GB/s)",
            lambda r, g, k=kind: _num(
                _metric([x for x in r.result("transfer") if x.name.endswith(k)], "bytes_per_s"), GB
            ),
        )
    return Comparison(headers=("", *(label for label, _ in named)), rows=tuple(rows))


def _prediction_error(results: list[WorkloadResult]) -> str:
    errors = [
        x.prediction.peak_memory_bytes.error_pct
        for x in results
        if x.prediction and x.prediction.peak_memory_bytes.error_pct is not None
    ]
    if not errors:
        return NA
    worst = max(errors, key=abs)
    return f"{worst:+.1f}" if len(errors) == 1 else f"{worst:+.1f} (worst of {len(errors)})"


def compare_reports(paths: Sequence[str | Path], catalog: Catalog | None = None) -> Comparison:
    """Load each results file (ResultsFileError on a bad one) and compare them."""
    named = [(Path(p).name, load_report(p)) for p in paths]
    return compare(named, catalog)
