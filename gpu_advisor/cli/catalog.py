"""`gpu-advisor catalog`: the GPUs (or model presets) the planner knows, with their sources."""

from __future__ import annotations

import argparse
import json
import sys

from gpu_advisor.core.units import format_usd


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("catalog", help="list the GPUs (or model presets) the planner knows")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--models", action="store_true", help="list model presets instead of GPUs")
    p.set_defaults(func=cmd_catalog)


def cmd_catalog(args: argparse.Namespace) -> int:
    if args.models:
        from gpu_advisor.core.presets import presets

        items = presets()
        if args.json:
            print(
                json.dumps(
                    [
                        {"id": k, "params": p.spec.total_params(), **p.spec.model_dump(mode="json")}
                        for k, p in items.items()
                    ],
                    indent=1,
                    allow_nan=False,
                )
            )
        else:
            for key, p in items.items():
                print(f"{key:<16} {p.spec.total_params() / 1e9:>8.3f}B  {p.spec.describe()}")
        return 0
    from gpu_advisor.core.catalog import default_catalog

    cat = default_catalog()
    for w in cat.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "gpu-advisor/catalog@1",
                    "gpus": [g.model_dump(mode="json") for g in cat.gpus],
                    "source_keys": cat.source_keys,
                },
                indent=1,
                allow_nan=False,
            )
        )
        return 0
    width = max(26, *(len(g.id) for g in cat.gpus))
    header = (
        f"{'id':<{width}} {'tier':<11} {'memory':>8} {'GB/s':>6} {'bf16 TF':>8} {'fp8 TF':>7} "
        f"{'CC/gfx':>7} {'TDP W':>6} {'$/h':>6} {'buy $':>8} {'sold':>4}"
    )
    print(header)
    print("-" * len(header))
    for g in cat.gpus:
        pk = g.dense_peak_tflops
        bf16 = _num(pk.bf16) if g.runs_natively("bf16") is not False else "no"
        arch = g.compute_capability or g.gfx_target or "?"
        print(
            f"{g.id:<{width}} {g.tier.value:<11} {_num(g.memory_gb, '{:.0f} GB'):>8} "
            f"{_num(g.memory_bandwidth_gb_per_s):>6} {bf16:>8} {_num(pk.fp8):>7} {arch:>7} "
            f"{_num(g.tdp_w):>6} {_num(g.cloud_usd_per_hour, '{:.2f}'):>6} {_num(g.purchase_usd):>8} "
            f"{'yes' if g.on_sale else 'no':>4}"
        )
    print(
        "\nDense tensor peaks; sources per GPU with --json. n/a = not found in a usable source; "
        "bf16 'no' = no bf16 tensor math (a bf16 job runs as fp16). CC/gfx: compute capability or gfx "
        "target (resources/support.json). sold 'no' = no longer sold new: left out of Buy answers "
        "unless named with --gpu."
    )
    print("\nPrices: where and when each was seen (keys in brackets: catalog --json, source_keys)")
    for g in cat.gpus:
        print(f"{g.id:<{width}} {_price_line(g)}")
    return 0


def _num(x, fmt="{:,.0f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def _price_line(g) -> str:
    """'buy $8,565 (2026-04, MSRP ... [S34]); rent $1.57/h (2026-03-10, RunPod on-demand [P4])'."""
    parts = []
    if g.purchase_usd is not None:
        parts.append(
            f"buy {format_usd(g.purchase_usd)} ({g.purchase_price_date or 'undated'}, {g.purchase_source or 'no source'})"
        )
    if g.cloud_usd_per_hour is not None:
        parts.append(
            f"rent ${g.cloud_usd_per_hour:.2f}/h ({g.cloud_price_date or 'undated'}, {g.cloud_source or 'no source'})"
        )
    if not g.on_sale:
        parts.append(f"not sold new: {g.on_sale_source}")
    if g.price_note:
        parts.append(f"no price: {g.price_note}")
    return "; ".join(parts)
