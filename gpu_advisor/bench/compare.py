"""Several results files side by side, with the catalogue's figures for the same GPUs. No torch.

`compare(named)` returns a Comparison of typed rows: per file, the number in its base unit (bytes,
seconds, FLOP/s, B/s, a fraction, a percentage) or a piece of identity text, the catalogue's figure for the
same quantity where there is one, and whether lower is better. Faces word the rows through
`gpu_advisor.wording.compare`; a number a file does not have is None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpu_advisor.bench.distributed.conventions import COLLECTIVES
from gpu_advisor.bench.distributed.section import DistributedSection
from gpu_advisor.bench.loading import load_named
from gpu_advisor.bench.results import BenchReport, NamedReport, Quantity, WorkloadResult, as_number
from gpu_advisor.core.catalog import Catalog, GpuSpec, default_catalog
from gpu_advisor.core.units import format_bytes

Value = float | str | None
CATALOGUE_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8")


@dataclass(frozen=True, slots=True)
class CompareRow:
    """One quantity across the compared files."""

    label: str  # what is measured, without a unit: "matmul bf16"
    quantity: Quantity
    values: tuple[Value, ...]  # one per file, in base units; None where the file has no such number
    reference: tuple[float | None, ...] | None = None  # the catalogue's figure per file, if it has one
    reference_label: str = ""  # "catalogue bf16 peak"
    lower_is_better: bool | None = None  # None: identity or an error, where neither way is better
    unit: str = ""  # for a rate: "tokens/s"
    worst_of: tuple[int, ...] = ()  # per file, for errors: how many results the worst one was taken from

    @property
    def measured(self) -> bool:
        """A measurement of speed or size, where one way is better (not the machine's description)."""
        return self.lower_is_better is not None


@dataclass(frozen=True, slots=True)
class Comparison:
    """The files' names (column order) and the rows."""

    names: tuple[str, ...]
    rows: tuple[CompareRow, ...]

    def row(self, label: str) -> CompareRow:
        """The row labelled `label` (KeyError if none)."""
        for row in self.rows:
            if row.label == label:
                return row
        raise KeyError(label)


def _metric(results: list[WorkloadResult], key: str) -> float | None:
    return next(
        (r.number(key) for r in results if r.status in ("ok", "oom") and r.number(key) is not None), None
    )


def _median(results: list[WorkloadResult], key: str) -> float | None:
    return next((r.timings[key].median for r in results if key in r.timings), None)


def _config(results: list[WorkloadResult], key: str) -> float | None:
    return next((as_number(r.config.get(key)) for r in results if r.status == "ok"), None)


def _catalogue_gpu(report: BenchReport, catalog: Catalog) -> GpuSpec | None:
    if report.device.kind != "cuda":
        return None
    if report.device.catalogue_id:
        found = catalog.find(report.device.catalogue_id)
        if found is not None:
            return found
    return catalog.match_device_name(report.device.name)


def _worst_error(results: list[WorkloadResult]) -> tuple[float | None, int]:
    errors = [
        x.prediction.peak_memory_bytes.error_pct
        for x in results
        if x.prediction and x.prediction.peak_memory_bytes.error_pct is not None
    ]
    return (max(errors, key=abs), len(errors)) if errors else (None, 0)


def compare(named: Sequence[NamedReport], catalog: Catalog | None = None) -> Comparison:
    """The side-by-side rows for already loaded reports."""
    catalog = catalog or default_catalog()
    reports = [n.report for n in named]
    gpus = [_catalogue_gpu(r, catalog) for r in reports]
    rows: list[CompareRow] = []

    def row(
        label: str,
        quantity: Quantity,
        value: Callable[[BenchReport], Value],
        reference: Callable[[GpuSpec], float | None] | None = None,
        reference_label: str = "",
        lower_is_better: bool | None = None,
        unit: str = "",
    ) -> None:
        refs = None
        if reference is not None:
            refs = tuple(None if g is None else reference(g) for g in gpus)
        rows.append(
            CompareRow(
                label=label,
                quantity=quantity,
                values=tuple(value(r) for r in reports),
                reference=refs,
                reference_label=reference_label,
                lower_is_better=lower_is_better,
                unit=unit,
            )
        )

    row("device", "text", lambda r: r.device.name)
    row("CPU", "text", lambda r: r.machine.cpu_model)
    row("CPU cores", "count", lambda r: r.machine.physical_cores)
    row("threads used", "count", lambda r: r.device.torch_threads)
    row("RAM", "bytes", lambda r: r.machine.ram_total_bytes)
    row("PyTorch", "text", lambda r: r.machine.torch_version)
    rows.append(CompareRow("catalogue entry", "text", tuple(g.name if g else None for g in gpus)))
    row(
        "device memory",
        "bytes",
        lambda r: r.device.memory_total_bytes,
        lambda g: g.memory_bytes,
        "catalogue memory",
    )
    # A stopped matmul has no dtype: it is no row of its own ("matmul None").
    dtypes = list(
        dict.fromkeys(
            str(x.config["dtype"]) for r in reports for x in r.result("matmul") if x.config.get("dtype")
        )
    )
    for dtype in dtypes:
        row(
            f"matmul {dtype}",
            "flops",
            lambda r, d=dtype: _metric(
                [x for x in r.result("matmul") if x.config.get("dtype") == d], "flops_per_s"
            ),
            (lambda g, d=dtype: g.peak_flops_per_s(d)) if dtype in CATALOGUE_DTYPES else None,
            f"catalogue {dtype} peak",
            lower_is_better=False,
        )
    row(
        "memory bandwidth",
        "bandwidth",
        lambda r: _metric(r.result("bandwidth"), "bytes_per_s"),
        lambda g: g.bandwidth_bytes_per_s,
        "catalogue bandwidth",
        lower_is_better=False,
    )
    row(
        "train model",
        "text",
        lambda r: next((str(x.config["model"]) for x in r.result("train") if x.config.get("model")), None),
    )
    row("train batch", "count", lambda r: _config(r.result("train"), "batch_size"))
    row("train sequence", "count", lambda r: _config(r.result("train"), "seq_len"))
    row(
        "train step median",
        "duration",
        lambda r: _median(r.result("train"), "step_time_s"),
        lower_is_better=True,
    )
    row(
        "train throughput",
        "rate",
        lambda r: _metric(r.result("train"), "tokens_per_s"),
        lower_is_better=False,
        unit="tokens/s",
    )
    row("train MFU", "fraction", lambda r: _metric(r.result("train"), "mfu"), lower_is_better=False)
    row(
        "train peak memory",
        "bytes",
        lambda r: _metric(r.result("train"), "peak_memory_bytes"),
        lower_is_better=True,
    )
    _error_row(rows, "train memory prediction error", [r.result("train") for r in reports])
    batches = sorted(
        {
            int(x.config["batch_size"])
            for r in reports
            for x in r.result("inference")
            if isinstance(x.config.get("batch_size"), int)
        }
    )
    for b in batches:

        def at(r: BenchReport, b: int = b) -> list[WorkloadResult]:
            return [x for x in r.result("inference") if x.config.get("batch_size") == b]

        row(
            f"decode batch {b}",
            "rate",
            lambda r, at=at: _metric(at(r), "decode_tokens_per_s"),
            lower_is_better=False,
            unit="tokens/s",
        )
        row(
            f"prefill batch {b}",
            "duration",
            lambda r, at=at: _median(at(r), "prefill_s"),
            lower_is_better=True,
        )
    _error_row(rows, "inference memory prediction error", [r.result("inference") for r in reports])
    row(
        "dataloader stress input wait",
        "fraction",
        lambda r: _metric(r.result("dataloader"), "input_wait_fraction"),
        lower_is_better=True,
    )
    for kind in ("pinned", "pageable"):
        row(
            f"host-to-device {kind}",
            "bandwidth",
            lambda r, k=kind: _metric([x for x in r.result("transfer") if x.name.endswith(k)], "bytes_per_s"),
            lower_is_better=False,
        )
    if any(r.result("command") for r in reports):  # watched commands (monitor@1 files)
        _command_rows(row)
    rows += cluster_rows(reports)  # cluster runs (bench --nproc / --distributed); none otherwise
    return Comparison(names=tuple(n.name for n in named), rows=tuple(rows))


def _command_rows(row: Callable[..., None]) -> None:
    """A watched command's figures: how it ended, and what the probe measured where it reported."""

    def metric(key: str) -> Callable[[BenchReport], Value]:
        return lambda r: next((x.number(key) for x in r.result("command") if x.number(key) is not None), None)

    row("command", "text", lambda r: next((x.name for x in r.result("command")), None))
    row("command exit code", "count", metric("exit_code"))
    row("command duration", "duration", metric("duration_s"), lower_is_better=True)
    row(
        "command step median",
        "duration",
        lambda r: _median(r.result("command"), "step_time_s"),
        lower_is_better=True,
    )
    row("command samples/s", "rate", metric("samples_per_s"), lower_is_better=False, unit="samples/s")
    row("command tokens/s", "rate", metric("tokens_per_s"), lower_is_better=False, unit="tokens/s")
    row("command time per epoch", "duration", metric("time_per_epoch_s"), lower_is_better=True)
    row("command data wait", "fraction", metric("input_wait_fraction"), lower_is_better=True)
    row("command peak memory", "bytes", metric("peak_memory_bytes"), lower_is_better=True)


def _error_row(rows: list[CompareRow], label: str, per_file: list[list[WorkloadResult]]) -> None:
    worst = [_worst_error(results) for results in per_file]
    rows.append(
        CompareRow(
            label=label,
            quantity="error_pct",
            values=tuple(error for error, _ in worst),
            worst_of=tuple(count for _, count in worst),
        )
    )


def compare_files(paths: Sequence[str | Path], catalog: Catalog | None = None) -> Comparison:
    """Load each results file (ResultsFileError on a bad one) and compare them, named by file name."""
    return compare([load_named(p) for p in paths], catalog)


# ---- cluster runs (bench --nproc / --distributed): bus bandwidth and latency per collective and scope,
# and data-parallel scaling. Bus bandwidth is compared at one message size for every file, the largest
# that all of them measured (the sweeps stop where each machine's time budget ran out), so that the
# columns measure the same thing.

OP_WORDS = {"all_reduce": "all-reduce", "all_gather": "all-gather", "reduce_scatter": "reduce-scatter"}


def common_size(sections: Sequence[DistributedSection | None], op: str, scope: str) -> int | None:
    """The largest message every section measured for `op` in `scope` (None if one has none)."""
    sizes = [{r.bytes for r in s.rows(op, scope)} for s in sections if s is not None]
    if not sizes or any(not s for s in sizes):
        return None
    shared = set.intersection(*sizes)
    return max(shared) if shared else None


def cluster_rows(reports: Sequence[BenchReport]) -> list[CompareRow]:
    """Rows for the files that hold a cluster run (none when no file does)."""
    sections = [r.distributed for r in reports]
    present = [s for s in sections if s is not None]
    if not present:
        return []
    rows = [
        CompareRow("cluster backend", "text", tuple(None if s is None else s.backend for s in sections)),
        CompareRow("cluster ranks", "count", tuple(None if s is None else s.world_size for s in sections)),
        CompareRow("cluster nodes", "count", tuple(None if s is None else len(s.hosts) for s in sections)),
    ]
    scopes = [sc for sc in ("intra-node", "inter-node") if any(sc in s.scopes() for s in present)]
    for scope in scopes:
        for op in COLLECTIVES:
            with_op = [s if s is not None and s.rows(op, scope) else None for s in sections]
            if not any(with_op):
                continue
            size = common_size(with_op, op, scope)
            if size is not None:
                rows.append(
                    CompareRow(
                        f"{OP_WORDS.get(op, op)} bus bandwidth, {scope}, {format_bytes(size)}",
                        "bandwidth",
                        tuple(_busbw_at(s, op, scope, size) for s in with_op),
                        lower_is_better=False,
                    )
                )
            rows.append(
                CompareRow(
                    f"{OP_WORDS.get(op, op)} latency, {scope}, smallest message",
                    "duration",
                    tuple(None if s is None else s.rows(op, scope)[0].time_s for s in with_op),
                    lower_is_better=True,
                )
            )
    scalings = [None if s is None else s.scaling for s in sections]
    if any(scalings):
        rows += [
            CompareRow(
                "data-parallel scaling efficiency",
                "fraction",
                tuple(None if x is None else x.efficiency[-1] for x in scalings),
                lower_is_better=False,
            ),
            CompareRow(
                "data-parallel throughput",
                "rate",
                tuple(None if x is None else x.tokens_per_s[-1] for x in scalings),
                lower_is_better=False,
                unit="tokens/s",
            ),
            CompareRow(
                "communication not hidden by backward",
                "fraction",
                tuple(None if x is None else x.exposed_comm_fraction[-1] for x in scalings),
                lower_is_better=True,
            ),
        ]
    return rows


def _busbw_at(section: DistributedSection | None, op: str, scope: str, size: int) -> float | None:
    if section is None:
        return None
    return next((r.busbw_bytes_per_s for r in section.rows(op, scope) if r.bytes == size), None)
