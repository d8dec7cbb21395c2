"""The engine against llm-foundry benchmark rows that core/published.py does not hold (tokens/s per GPU).

Source: mosaicml/llm-foundry scripts/train/benchmarking/README.md, the 'H100 80GB BF16' and 'A100 80GB with
1600 Gbps node-node interconnect (RoCE)' tables (FSDP FULL_SHARD, amp_bf16; the A100 70B row is bf16 PURE).
Columns: GPU, model, sequence length, GPUs, micro-batch, accumulation, activation checkpointing, published.
Run: .venv/bin/python benchmarks/foundry_rows.py
"""

from __future__ import annotations

import statistics

from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.core.published import MPT_1B, MPT_3B, MPT_7B, MPT_13B, MPT_30B, MPT_70B, MPT_760M, _foundry

MODELS = {
    "760m": MPT_760M,
    "1b": MPT_1B,
    "3b": MPT_3B,
    "7b": MPT_7B,
    "13b": MPT_13B,
    "30b": MPT_30B,
    "70b": MPT_70B,
}
H100, A100 = "nvidia-h100-sxm", "nvidia-a100-sxm-80gb"
ROWS = [  # GPU, model, sequence, GPUs, micro-batch, accumulation, checkpointing, published tokens/s/GPU
    (H100, "70b", 2048, 32, 2, 16, 1, 882),
    (H100, "30b", 8192, 8, 1, 21, 1, 1384),
    (H100, "30b", 4096, 8, 1, 21, 1, 1802),
    (H100, "30b", 2048, 16, 10, 3, 1, 2263),
    (H100, "30b", 2048, 8, 3, 21, 1, 2002),
    (H100, "30b", 1024, 8, 6, 21, 1, 2084),
    (H100, "13b", 32768, 8, 1, 3, 1, 1976),
    (H100, "13b", 16384, 8, 3, 3, 1, 2985),
    (H100, "13b", 4096, 8, 10, 3, 1, 4717),
    (H100, "13b", 2048, 32, 2, 1, 0, 4811),
    (H100, "13b", 1024, 8, 40, 3, 1, 5502),
    (H100, "7b", 65536, 8, 1, 2, 1, 1956),
    (H100, "7b", 32768, 8, 2, 2, 1, 3318),
    (H100, "7b", 8192, 8, 8, 2, 1, 6935),
    (H100, "7b", 1024, 8, 64, 2, 1, 10203),
    (H100, "3b", 65536, 8, 1, 2, 1, 3262),
    (H100, "3b", 32768, 8, 3, 6, 1, 5873),
    (H100, "3b", 16384, 8, 1, 6, 0, 11152),
    (H100, "3b", 4096, 8, 5, 6, 0, 20964),
    (H100, "3b", 2048, 64, 6, 3, 0, 22525),
    (H100, "3b", 2048, 16, 10, 3, 0, 24142),
    (H100, "3b", 1024, 8, 20, 6, 0, 27046),
    (H100, "3b", 512, 8, 40, 6, 0, 27965),
    (H100, "1b", 32768, 8, 1, 4, 0, 12025),
    (H100, "1b", 16384, 8, 2, 4, 0, 19649),
    (H100, "1b", 8192, 8, 3, 4, 0, 29157),
    (H100, "1b", 4096, 8, 7, 4, 0, 38535),
    (H100, "1b", 2048, 8, 14, 1, 0, 45455),
    (H100, "1b", 1024, 8, 18, 4, 0, 48910),
    (H100, "1b", 512, 8, 56, 4, 0, 52275),
    (H100, "760m", 32768, 8, 1, 2, 0, 16291),
    (H100, "760m", 8192, 8, 6, 2, 0, 41825),
    (H100, "760m", 2048, 8, 24, 2, 0, 63147),
    (H100, "760m", 512, 8, 96, 2, 0, 83749),
    (A100, "70b", 2048, 32, 2, 16, 1, 373),
    (A100, "30b", 8192, 8, 1, 21, 1, 574),
    (A100, "30b", 4096, 8, 1, 21, 1, 814),
    (A100, "30b", 1024, 8, 6, 21, 1, 946),
    (A100, "30b", 512, 8, 12, 21, 1, 967),
    (A100, "13b", 32768, 8, 1, 3, 1, 1016),
    (A100, "13b", 16384, 8, 3, 3, 1, 1431),
    (A100, "13b", 8192, 8, 5, 3, 1, 1795),
    (A100, "13b", 1024, 8, 40, 3, 1, 2330),
    (A100, "7b", 65536, 8, 1, 2, 1, 1013),
]


def main() -> None:
    catalog = default_catalog()
    errors: dict[str, list[float]] = {H100: [], A100: []}
    for gpu, model, seq, gpus, micro, accumulation, checkpointing, published in ROWS:
        pure = model == "70b" and gpu == A100  # that row's precision is bf16 PURE
        row = _foundry("row", "", MODELS[model], gpu, gpus, seq, micro, accumulation, bool(checkpointing),
                       published, pure_bf16=pure)  # fmt: skip
        engine = row.engine_figure(catalog)
        errors[gpu].append(engine / published - 1)
        print(
            f"{gpu:22} {model:>4} seq {seq:>6} {gpus:>3} GPUs {micro} x {accumulation}"
            f"{' checkpointed' if checkpointing else '':13} published {published:>6,} engine {engine:>7,.0f} "
            f"{engine / published - 1:+.0%}"
        )
    for gpu, errs in errors.items():
        within = sum(abs(e) <= 0.25 for e in errs)
        print(
            f"{gpu}: {within} of {len(errs)} within 25 %, median {statistics.median(errs):+.0%}, "
            f"{min(errs):+.0%} to {max(errs):+.0%}"
        )


if __name__ == "__main__":
    main()
