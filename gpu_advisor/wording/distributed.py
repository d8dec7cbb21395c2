"""How a cluster run (the `distributed` section of a results file) is worded, for every face.

Typed rows of text for the CLI, the app's Compare page and the PDF; numbers formatted only through
`core.units`. No Qt, no torch, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from gpu_advisor.bench.distributed.section import CollectiveRecord, DistributedSection, LinkSummary
from gpu_advisor.bench.results import BenchReport
from gpu_advisor.core.calibration import Calibration
from gpu_advisor.core.units import (
    format_bandwidth,
    format_bytes,
    format_duration,
    format_pct,
    format_rate,
    si_unit,
)
from gpu_advisor.wording.monitor import EMPTY, Cards
from gpu_advisor.wording.text import text_table

OP_NAMES = {
    "all_reduce": "all-reduce",
    "all_gather": "all-gather",
    "reduce_scatter": "reduce-scatter",
    "broadcast": "broadcast",
}
COLLECTIVE_HEADERS = ("size", "time (median)", "p10-p90", "algbw", "busbw")
# The cluster tables' columns, for the CLI text and the PDF alike (report.cluster capitalises them).
LINK_HEADERS = ("collective", "scope", "bus bandwidth", "latency")
P2P_HEADERS = ("from", "to", "link", "size", "bandwidth")
SCALING_HEADERS = ("world size", "step time", "throughput", "efficiency", "exposed comm")
COLLECTIVE_NUMERIC = (True, True, True, True, True)


@dataclass(frozen=True, slots=True)
class CollectiveTable:
    """One collective in one scope: a title and one row per message size."""

    title: str
    rows: tuple[tuple[str, ...], ...]


def latency_text(seconds: float | None) -> str:
    """Collective times reach microseconds: '48.2 µs', '1.25 ms', '2.3 s'."""
    if seconds is None:
        return "n/a"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return format_duration(seconds)


def backend_line(section: DistributedSection) -> str:
    """'gloo on CPU, 2 ranks on 1 node (no GPU: ...)'"""
    where = "CPU" if section.device_kind == "cpu" else "GPUs"
    nodes = len(section.hosts)
    return (
        f"{section.backend} on {where}, {section.world_size} ranks on {nodes} node{'s' if nodes > 1 else ''}"
        f", every wait bounded by {format_duration(section.timeout_s)}"
    )


def scope_title(section: DistributedSection, scope: str, node_rank: int | None) -> str:
    if scope == "inter-node":
        return f"across {len(section.hosts)} nodes ({section.world_size} ranks)"
    host = next((h for h in section.hosts if h.node_rank == node_rank), section.hosts[0])
    return f"within node {host.node_rank} ({host.hostname}, {len(host.ranks)} ranks)"


def collective_tables(section: DistributedSection) -> list[CollectiveTable]:
    """Every (op, scope, node) sweep as a table: size, median time, spread, algbw, busbw."""
    keys = sorted(
        {(c.scope, c.node_rank if c.scope == "intra-node" else None, c.op) for c in section.collectives},
        key=lambda k: (k[0] != "intra-node", k[1] or 0, list(OP_NAMES).index(k[2])),
    )
    tables = []
    for scope, node, op in keys:
        rows = section.rows(op, scope, node)
        tables.append(
            CollectiveTable(
                title=f"{OP_NAMES[op]} {scope_title(section, scope, node)}",
                rows=tuple(
                    (
                        format_bytes(r.bytes),
                        latency_text(r.time_s),
                        f"{latency_text(r.time_p10_s)}-{latency_text(r.time_p90_s)}",
                        format_bandwidth(r.algbw_bytes_per_s),
                        format_bandwidth(r.busbw_bytes_per_s),
                    )
                    for r in rows
                ),
            )
        )
    return tables


def peak_row(section: DistributedSection, link: LinkSummary) -> CollectiveRecord | None:
    """The size of the link's sweep with the highest bus bandwidth (on a noisy run the largest
    message can be a dip: 94 MB/s at 4 MiB beside 528 MB/s at 2 MiB, ux-review-3 D24): the one the
    file names, or for a file written before links named it, the highest of the rows."""
    rows = section.rows(link.op, link.scope, link.node_rank)
    named = [r for r in rows if r.bytes == link.peak_bytes]
    if named:
        return named[0]
    return max(rows, key=lambda r: r.busbw_bytes_per_s) if rows else None


def busbw_text(section: DistributedSection, link: LinkSummary) -> str:
    """'93.8 MB/s at 4 MiB (peak 528 MB/s at 2 MiB)': the largest message's, and beside it the peak
    over sizes, '(the peak)' where the largest message reached it."""
    text = f"{format_bandwidth(link.busbw_bytes_per_s)} at {format_bytes(link.largest_bytes)}"
    peak = peak_row(section, link)
    if peak is None:
        return text
    if peak.bytes == link.largest_bytes:
        return f"{text} (the peak)"
    return f"{text} (peak {format_bandwidth(peak.busbw_bytes_per_s)} at {format_bytes(peak.bytes)})"


def link_rows(section: DistributedSection) -> list[tuple[str, str, str, str]]:
    """(collective, scope, bus bandwidth at the largest size and its peak, latency at the smallest)."""
    out = []
    for s in sorted(section.links, key=lambda s: (s.scope != "intra-node", s.node_rank or 0, s.op)):
        where = "intra-node" if s.scope == "intra-node" else "inter-node"
        if s.scope == "intra-node" and len(section.hosts) > 1:
            where = f"intra-node (node {s.node_rank})"
        out.append(
            (
                OP_NAMES.get(s.op, s.op),
                where,
                busbw_text(section, s),
                f"{latency_text(s.latency_s)} at {format_bytes(s.smallest_bytes)}",
            )
        )
    return out


def p2p_rows(section: DistributedSection) -> list[tuple[str, str, str, str, str]]:
    """(from, to, link, size, bandwidth) for every point-to-point transfer."""
    return [
        (p.src, p.dst, p.link or "unknown", format_bytes(p.bytes), format_bandwidth(p.bytes_per_s))
        for p in section.p2p
    ]


def scaling_rows(section: DistributedSection) -> list[tuple[str, ...]]:
    """(world size, step time, tokens/s, efficiency, exposed communication) per world size, and FSDP."""
    s = section.scaling
    rows: list[tuple[str, ...]] = []
    if s is not None:
        for i, n in enumerate(s.world_sizes):
            label = "1 (rank 0 alone, no DDP)" if n == 1 else f"{n} (DDP)"
            rows.append(
                (
                    label,
                    format_duration(s.step_time_s[i]),
                    format_rate(s.tokens_per_s[i], "tokens/s"),
                    format_pct(s.efficiency[i]),
                    format_pct(s.exposed_comm_fraction[i]) if s.exposed_comm_fraction[i] is not None else "-",
                )
            )
    f = section.fsdp
    if f is not None:
        rows.append(
            (
                f"{f.world_size} (FSDP)",
                format_duration(f.step_time_s),
                format_rate(f.tokens_per_s, "tokens/s"),
                "-",
                "-",
            )
        )
    return rows


def scaling_summary(section: DistributedSection) -> str | None:
    """'Scaling efficiency 82% at 2 ranks; 9% of the step is communication not hidden by backward.'"""
    s = section.scaling
    if s is None or len(s.world_sizes) < 2:
        return None
    exposed = s.exposed_comm_fraction[-1]
    text = f"Scaling efficiency {format_pct(s.efficiency[-1])} at {s.world_sizes[-1]} ranks"
    if exposed is not None:
        text += f"; {format_pct(exposed)} of the step is gradient all-reduce not hidden behind backward"
    return text + "."


def fsdp_summary(section: DistributedSection) -> str | None:
    f = section.fsdp
    if f is None:
        return None
    return (
        f"FSDP (fully_shard) over {f.world_size} ranks: {format_bytes(f.state_bytes_per_rank)} of parameters, "
        f"gradients and optimizer state per rank instead of {format_bytes(f.unsharded_state_bytes)}."
    )


def render_cluster(report: BenchReport) -> str:
    """The text `gpu-advisor bench --nproc N` / `--distributed` prints."""
    section = report.distributed
    if section is None:
        return "This results file holds no cluster run."
    title = f"GPU Advisor cluster benchmark: {backend_line(section)}"
    lines = [title, "=" * len(title)]
    for host in section.hosts:
        devices = ", ".join(sorted(set(host.devices))) or "unknown"
        lines.append(f"node {host.node_rank}: {host.hostname}, ranks {_ranks(host.ranks)}, {devices}")
    lines += [f"note: {n}" for n in section.notes]
    if section.links:
        lines += [
            "",
            "Bus bandwidth (largest message, and the peak over sizes) and latency (smallest), nccl-tests conventions:",
        ]
        lines += text_table(LINK_HEADERS, link_rows(section), (False,) * 4)
    for table in collective_tables(section):
        lines += ["", f"{table.title}:"]
        lines += text_table(COLLECTIVE_HEADERS, table.rows, COLLECTIVE_NUMERIC)
    if section.p2p:
        lines += ["", "Point to point (one-way, median):"]
        lines += text_table(P2P_HEADERS, p2p_rows(section), (False, False, False, True, True))
    rows = scaling_rows(section)
    if rows:
        s = section.scaling
        model = (
            f" ({s.model}, {s.batch_size_per_rank} x {s.seq_len} tokens per rank, {s.precision})" if s else ""
        )
        lines += ["", f"Data-parallel training{model}:"]
        lines += text_table(
            SCALING_HEADERS,
            rows,
            (False, True, True, True, True),
        )
        lines += [t for t in (scaling_summary(section), fsdp_summary(section)) if t]
    return "\n".join(lines)


def _ranks(ranks: list[int]) -> str:
    if ranks and ranks == list(range(ranks[0], ranks[-1] + 1)) and len(ranks) > 2:
        return f"{ranks[0]}-{ranks[-1]}"
    return ", ".join(str(r) for r in ranks)


def calibration_lines(calibration: Calibration) -> list[str]:
    """What a calibrated plan tells its reader about the measured fabric it carries."""
    fabric = calibration.fabric
    if fabric is None:
        if calibration.mfu is None:
            return []
        return [
            f"Calibrated with {calibration.source}: measured MFU {format_pct(calibration.mfu, digits=1)}."
        ]
    nodes = f"{fabric.hosts} node{'s' if fabric.hosts > 1 else ''}"
    lines = [f"Calibrated with {calibration.source}: {fabric.backend}, {fabric.world_size} ranks on {nodes}."]
    for m in fabric.links:
        latency = f", latency {latency_text(m.latency_s)}" if m.latency_s is not None else ""
        lines.append(
            f"  measured {OP_NAMES.get(m.op, m.op)} {m.scope}: bus bandwidth "
            f"{format_bandwidth(m.busbw_bytes_per_s)}{latency}"
        )
    return lines


# ---- bus bandwidth against message size, for charts (Compare, the PDF) -------------------------------
@dataclass(frozen=True, slots=True)
class Curve:
    """One line: message sizes (bytes) and bus bandwidth (in the chart's unit) for one file or scope."""

    label: str
    sizes_bytes: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class CurveChart:
    """Bus bandwidth against message size for one collective: a curve per file (Compare) or per scope
    (one file's report), all in `unit` (`scale` bytes per second each)."""

    title: str
    unit: str
    scale: float
    curves: tuple[Curve, ...]


def _chart(title: str, raw: list[tuple[str, list[tuple[int, float]]]]) -> CurveChart | None:
    raw = [(label, points) for label, points in raw if points]
    if not raw:
        return None
    top = max(v for _, points in raw for _, v in points)
    unit, scale = si_unit(top, "B/s")
    curves = tuple(
        Curve(label, tuple(b for b, _ in points), tuple(v / scale for _, v in points))
        for label, points in raw
    )
    return CurveChart(title, unit, scale, curves)


def busbw_charts_by_file(named: Sequence[tuple[str, DistributedSection]]) -> list[CurveChart]:
    """Per (collective, scope): one curve per file (the Compare view: machines side by side)."""
    charts = []
    for scope in ("intra-node", "inter-node"):
        for op in OP_NAMES:
            raw = [(name, [(r.bytes, r.busbw_bytes_per_s) for r in s.rows(op, scope)]) for name, s in named]
            chart = _chart(f"{OP_NAMES[op]} bus bandwidth, {scope}", raw)
            if chart is not None:
                charts.append(chart)
    return charts


def busbw_charts_by_scope(section: DistributedSection) -> list[CurveChart]:
    """Per collective: one curve per scope and node (one file's report)."""
    charts = []
    for op in OP_NAMES:
        raw = []
        for scope in ("intra-node", "inter-node"):
            nodes = sorted(
                {c.node_rank for c in section.collectives if c.scope == scope and c.op == op}, key=str
            )
            for node in nodes:
                label = scope if scope == "inter-node" or len(nodes) == 1 else f"{scope}, node {node}"
                raw.append((label, [(r.bytes, r.busbw_bytes_per_s) for r in section.rows(op, scope, node)]))
        chart = _chart(f"{OP_NAMES[op]} bus bandwidth", raw)
        if chart is not None:
            charts.append(chart)
    return charts


# ---- the Monitor's cards for a cluster run -----------------------------------------------------------
# The four cards' titles for a cluster run (step, throughput, memory, prediction cards in that order).
CLUSTER_CAPTIONS = (
    "Time per step (DDP)",
    "Data-parallel throughput",
    "State per rank (FSDP)",
    "All-reduce bus bandwidth",
)


def cluster_cards(section: DistributedSection) -> Cards:
    """The Monitor's four cards and diagnosis line for a finished cluster run."""
    s, f = section.scaling, section.fsdp
    link = section.link("all_reduce", "inter-node") or section.link("all_reduce", "intra-node")
    peak = peak_row(section, link) if link else None
    cards = Cards(
        step_time=format_duration(s.step_time_s[-1]) if s else EMPTY,
        step_detail=f"DDP step over {s.world_sizes[-1]} ranks; alone: {format_duration(s.step_time_s[0])}"
        if s
        else "",
        throughput=format_rate(s.tokens_per_s[-1], "tokens/s") if s else EMPTY,
        throughput_detail=f"scaling efficiency {format_pct(s.efficiency[-1])}" if s else "",
        peak_memory=format_bytes(f.state_bytes_per_rank) if f else EMPTY,
        memory_detail=f"parameters, gradients, optimizer state; unsharded {format_bytes(f.unsharded_state_bytes)}"
        if f
        else "",
        prediction=format_bandwidth(peak.busbw_bytes_per_s) if peak else EMPTY,
        prediction_detail=(
            f"peak, {link.scope}, at {format_bytes(peak.bytes)}; at the largest message "
            f"({format_bytes(link.largest_bytes)}): {format_bandwidth(link.busbw_bytes_per_s)}; "
            f"latency {latency_text(link.latency_s)}"
            if link and peak
            else ""
        ),
    )
    summary = scaling_summary(section)
    return replace(
        cards,
        diagnosis_title=f"Cluster run: {backend_line(section)}",
        diagnosis_detail=summary or "Collectives and links measured; no data-parallel scaling run.",
    )


def shared_cores_note(ranks: int, cores: int, load: float) -> str:
    """'2 ranks shared 2 CPU cores, 1 of them idle at the start (load 1.3): ...' where the ranks
    outnumber the idle cores (each rank then waits for a core, so the step times and the scaling read
    worse than the machine alone would give); '' where each rank had an idle core."""
    idle = max(0, cores - round(load))
    if ranks <= idle:
        return ""
    return (
        f"{ranks} ranks shared {cores} CPU core{'s' if cores != 1 else ''}, {idle} of them idle at the "
        f"start (load {load:.1f}): the ranks waited for a core, so the step times, the scaling "
        "efficiency and the bus bandwidth read lower than an idle machine would give."
    )
