"""`gpu-advisor catalog`: the GPUs (or model presets) the planner knows, with their sources."""

from __future__ import annotations

import argparse
import json
import sys


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
    header = f"{'id':<26} {'tier':<11} {'memory':>8} {'GB/s':>6} {'bf16 TF':>8} {'fp8 TF':>7} {'CC/gfx':>7} {'TDP W':>6} {'$/h':>6} {'buy $':>8}"
    print(header)
    print("-" * len(header))
    for g in cat.gpus:
        pk = g.dense_peak_tflops

        def num(x, fmt="{:,.0f}"):
            return "n/a" if x is None else fmt.format(x)

        bf16 = num(pk.bf16) if g.runs_natively("bf16") is not False else "no"
        arch = g.compute_capability or g.gfx_target or "?"
        print(
            f"{g.id:<26} {g.tier.value:<11} {num(g.memory_gb, '{:.0f} GB'):>8} "
            f"{num(g.memory_bandwidth_gb_per_s):>6} {bf16:>8} {num(pk.fp8):>7} {arch:>7} "
            f"{num(g.tdp_w):>6} {num(g.cloud_usd_per_hour, '{:.2f}'):>6} {num(g.purchase_usd):>8}"
        )
    print(
        "\nDense tensor peaks; sources per GPU with --json. n/a = not found in a usable source; "
        "bf16 'no' = no bf16 tensor math (a bf16 job runs as fp16). CC/gfx: compute capability or gfx "
        "target (resources/support.json)."
    )
    return 0
