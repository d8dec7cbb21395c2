"""How a memory trace and its comparison with the formulas are worded, for the CLI and the app."""

from __future__ import annotations

from gpu_advisor.core.trace import TraceResult
from gpu_advisor.core.trace_compare import TraceComparison
from gpu_advisor.core.units import format_bytes, format_count, format_duration, format_pct

CATEGORY_LABELS = {
    "parameters": "parameters (and buffers)",
    "gradients": "gradients",
    "optimizer_state": "optimizer state",
    "activations": "activations",
    "kv_cache": "KV cache",
    "temporaries": "temporaries",
    "inputs": "inputs",
}
COMPONENT_LABELS = {
    "weights": "weights",
    "gradients": "gradients",
    "optimizer": "optimizer",
    "activations": "activations",
    "kv_cache": "KV cache",
}
MAX_MODULE_ROWS = 12


def category_rows(result: TraceResult) -> list[tuple[str, str, str]]:
    """(category, size, share of the peak), largest first."""
    total = result.peak_bytes or 1
    items = sorted(result.by_category.items(), key=lambda kv: -kv[1])
    return [(CATEGORY_LABELS.get(k, k), format_bytes(v), format_pct(v / total)) for k, v in items if v]


def module_rows(result: TraceResult) -> list[tuple[str, str, str]]:
    """(top-level module, size, share of the peak), largest first, the rest summed."""
    total = result.peak_bytes or 1
    items = list(result.by_module.items())
    rows = [(k, format_bytes(v), format_pct(v / total)) for k, v in items[:MAX_MODULE_ROWS]]
    rest = sum(v for _, v in items[MAX_MODULE_ROWS:])
    if rest:
        rows.append((f"{len(items) - MAX_MODULE_ROWS} more", format_bytes(rest), format_pct(rest / total)))
    return rows


def trace_summary(result: TraceResult) -> str:
    """One line: the peak and when it happens."""
    return f"Peak {format_bytes(result.peak_bytes)} of live tensors at {result.peak_moment}"


def format_trace(result: TraceResult) -> str:
    """The `gpu-advisor trace` table."""
    title = f"{result.model}: {result.architecture}, {format_count(result.parameters)} parameters"
    lines = [title, "=" * len(title), f"Traced: {result.step}.", trace_summary(result) + "."]
    lines.append("Live tensor bytes on one device, no sharding, no CUDA context or fragmentation.")
    lines += ["", "By category:"]
    lines += [f"  {name:<26} {size:>12} {share:>6}" for name, size, share in category_rows(result)]
    lines += ["", "By top-level module:"]
    lines += [f"  {name:<40} {size:>12} {share:>6}" for name, size, share in module_rows(result)]
    if len(result.phases) > 1:
        lines += ["", "Peak of each phase:"]
        for phase in result.phases:
            lines.append(f"  {phase.phase:<16} {format_bytes(phase.peak_bytes):>12}   {phase.moment}")
    for note in result.notes:
        lines.append(f"note: {note}")
    lines.append(f"Traced in {format_duration(result.elapsed_s)} on fake tensors (no real memory).")
    return "\n".join(lines)


def comparison_rows(comparison: TraceComparison) -> list[tuple[str, str, str, str, bool]]:
    """(component, formula, trace, difference, flagged) for the side-by-side table."""
    rows = []
    for row in comparison.rows:
        diff = (
            "new" if row.difference is None and row.trace_bytes else format_pct(row.difference, signed=True)
        )
        rows.append(
            (
                COMPONENT_LABELS.get(row.component, row.component),
                format_bytes(row.formula_bytes),
                format_bytes(row.trace_bytes),
                diff,
                row.flagged,
            )
        )
    rows.append(
        (
            "total (no overhead)",
            format_bytes(comparison.formula_total_bytes),
            format_bytes(comparison.trace_total_bytes),
            format_pct(comparison.trace_total_bytes / comparison.formula_total_bytes - 1, signed=True)
            if comparison.formula_total_bytes
            else "",
            False,
        )
    )
    return rows


def format_comparison(comparison: TraceComparison) -> str:
    """Formula estimate and trace side by side; components more than 10% apart are marked '!'."""
    lines = [
        "Memory basis: the trace (formulas beside it; '!' marks a difference over 10%):",
        f"  {'component':<20} {'formula':>12} {'trace':>12} {'diff':>7}",
    ]
    for name, formula, traced, diff, flagged in comparison_rows(comparison):
        lines.append(f"{'!' if flagged else ' '} {name:<20} {formula:>12} {traced:>12} {diff:>7}")
    lines.append(f"  peak moment: formulas {comparison.formula_phase}; trace {comparison.trace.peak_moment}")
    lines.append("  CUDA context and allocator fragmentation are added by the planner on top of both.")
    return "\n".join(lines)
