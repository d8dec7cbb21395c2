"""Print the README's tables of the engine's figures next to the published ones (Markdown): sizes
(ZeRO, weights, KV cache, parameter counts), then measured runs (throughput, GPU-hours, memory,
latency) from gpu_advisor.core.published.

Run: .venv/bin/python scripts/method_table.py
"""

from __future__ import annotations

from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.memory import Device, estimate_memory, kv_cache_bytes, model_state_bytes
from gpu_advisor.core.presets import get_preset, presets
from gpu_advisor.core.published import published as published_measurements
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.units import GB, GIB


def main() -> None:
    rows = []
    for stage, published in ((0, "120 GB"), (1, "31.4 GB"), (2, "16.6 GB"), (3, "1.9 GB")):
        ours = sum(model_state_bytes(7.5e9, stage, 64).values()) / GB
        rows.append(
            (
                f"ZeRO stage {stage}, 7.5B, 64 GPUs, model states per GPU",
                published,
                f"{ours:.1f} GB",
                "Rajbhandari et al. 2019 (arXiv 1910.02054)",
            )
        )
    for preset, figures in (
        ("llama-3-8b", (16, 8, 4)),
        ("llama-3-70b", (140, 70, 35)),
        ("llama-3.1-405b", (810, 405, 203)),
    ):
        for precision, published in zip(("fp16", "fp8", "int4"), figures, strict=True):
            req = PlanRequest(model=get_preset(preset), task="inference", precision=precision)
            ours = estimate_memory(req, device=Device.CPU).components.weights / GB
            note = " (embeddings and head 16-bit, as real checkpoints)" if precision != "fp16" else ""
            rows.append(
                (
                    f"{preset} weights at {precision}",
                    f"{published} GB",
                    f"{ours:.1f} GB{note}",
                    "Llama 3.1 launch post (Hugging Face)",
                )
            )
    for preset, figures in (("llama-3-8b", (0.125, 1.95, 15.62)), ("llama-3-70b", (0.313, 4.88, 39.06))):
        for tokens, published in zip((1024, 16_000, 128_000), figures, strict=True):
            ours = kv_cache_bytes(get_preset(preset), tokens, 2) / GIB
            rows.append(
                (
                    f"{preset} KV cache, {tokens:,} tokens, fp16",
                    f"{published} GiB",
                    f"{ours:.3f} GiB",
                    "Llama 3.1 launch post (Hugging Face)",
                )
            )
    for key, preset in presets().items():
        rows.append(
            (
                f"{key} parameters",
                f"{preset.published_params:,}",
                f"{preset.spec.total_params():,}",
                preset.spec.source.split(";")[0],
            )
        )
    req = PlanRequest(model=get_preset("llama-3-8b"), task="inference", precision="int4")
    rows.insert(
        13,
        (
            "llama-3-8b weights at int4, AWQ group-128 checkpoint",
            "5.73 GB (1.98B stored params)",
            f"{estimate_memory(req, device=Device.CPU).components.weights / GB:.2f} GB",
            "UCLA-EMC/Meta-Llama-3.1-8B-Instruct-AWQ-INT4 model card",
        ),
    )
    print("| quantity | published | GPU Advisor | source |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    measured = published_measurements()
    misses = (
        "; rows marked\n\u2021 are known misses, with their cause below the table"
        if any(m.known_miss for m in measured)
        else ""
    )
    print("Measured runs, with the default assumptions (speed within 25 %, memory within 10 %; rows marked")
    print(
        f"\u2020 are the measurements a default efficiency was taken from, not independent checks{misses}):"
    )
    print()
    print("| measurement | published | GPU Advisor | error | source |")
    print("|---|---|---|---|---|")
    catalog = load_catalog(user_file=None)
    independent: list[tuple[float, float, str]] = []  # (error, tolerance, what) of the checks
    for entry in measured:
        ours = entry.engine_figure(catalog)
        err = (ours - entry.published) / entry.published
        mark = (" \u2020" if entry.sets_default else "") + (" \u2021" if entry.known_miss else "")
        if not entry.sets_default:
            independent.append((err, entry.tolerance, entry.what))
        print(
            f"| {entry.what}{mark} | {_number(entry.published)} {entry.unit} | {_number(ours)} {entry.unit} | "
            f"{err:+.0%} | {entry.source} |"
        )
    print()
    print(_check_summary(independent))
    misses = [entry for entry in published_measurements() if entry.known_miss]
    if misses:
        print()
        print("Known misses (\u2021):")
        print()
        causes: dict[str, list[str]] = {}
        for entry in misses:
            causes.setdefault(entry.known_miss, []).append(entry.key)
        for cause, keys in causes.items():
            print(f"- {', '.join(keys)}: {cause}.")


def _check_summary(checks: list[tuple[float, float, str]]) -> str:
    """'N of M independent checks within tolerance; worst: WHAT, ERR (tolerance T).' Where some miss, the
    line says how far and names the worst of the matched ones too."""
    within = [c for c in checks if abs(c[0]) <= c[1]]
    misses = [c for c in checks if abs(c[0]) > c[1]]
    line = f"{len(within)} of {len(checks)} independent checks within their tolerance"
    if misses:
        low, high = min(c[0] for c in misses), max(c[0] for c in misses)
        line += f"; the {len(misses)} outside read {low:+.0%} to {high:+.0%}"
    err, tolerance, what = max(within, key=lambda c: abs(c[0]) / c[1])
    return f"{line}; the worst within, relative to its tolerance: {what}, {err:+.0%} (tolerance {tolerance:.0%})."


def _number(value: float) -> str:
    """Three significant figures with thousands separators: 4,641; 42.9; 30.8M."""
    if value >= 1e6:
        return f"{value / 1e6:.3g}M"
    if value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


if __name__ == "__main__":
    main()
