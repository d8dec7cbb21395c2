"""Convert the sourced GPU reference table (gpus.csv) into resources/gpus.json.

Usage: python scripts/catalog_from_csv.py path/to/gpus.csv > resources/gpus.json

resources/gpus.json has since gained parts, price dates and sources, and on_sale marks that the CSV
lacks (issue 21): regenerating it from the CSV drops them; edit resources/gpus.json instead.

Units are kept as the sources print them (GB, GB/s, TFLOPS) so that every figure can be checked
against its source by eye; gpu_advisor.core.catalog converts to bytes and FLOP/s on load.
An empty cell stays null (not found in a usable source), never zero.
"""

from __future__ import annotations

import csv
import json
import re
import sys

TIERS = {"data center": "datacenter", "workstation": "workstation", "consumer": "consumer"}
PEAK_COLUMNS = {
    "fp32": "fp32_tflops",
    "tf32": "tf32_tflops",
    "bf16": "bf16_tflops",
    "fp16": "fp16_tflops",
    "fp8": "fp8_tflops",
    "int8": "int8_tops",
}


def _num(text: str) -> float | None:
    text = text.strip()
    return float(text) if text else None


MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def _dates(text: str) -> list[str]:
    """ISO dates in a source note; 'June 2026' becomes '2026-06'."""
    found = re.findall(r"20\d\d-\d\d-\d\d", text)
    for month, year in re.findall(r"(" + "|".join(MONTHS) + r") (20\d\d)", text):
        found.append(f"{year}-{MONTHS.index(month) + 1:02d}")
    return found


def _slug(name: str) -> str:
    name = re.sub(r"\(.*?\)", "", name.replace("GeForce ", "").replace("Generation", ""))
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def convert(rows: list[dict[str, str]]) -> dict:
    gpus = []
    for row in rows:
        dates = _dates(row["sources"].split("cloud=")[-1])
        pcie = row["pcie_gen"].strip()
        gpus.append(
            {
                "id": _slug(row["name"]),
                "name": row["name"],
                "vendor": row["vendor"],
                "tier": TIERS[row["tier"]],
                "arch": row["arch"],
                "memory_gb": _num(row["mem_gb"]),
                "memory_type": row["mem_type"],
                "memory_bandwidth_gb_per_s": _num(row["mem_bw_gbs"]),
                "dense_peak_tflops": {k: _num(row[c]) for k, c in PEAK_COLUMNS.items()},
                "tdp_w": _num(row["tdp_w"]),
                "nvlink_gb_per_s": _num(row["nvlink_gbs"]),
                "pcie_gen": int(pcie[0]) if pcie else None,
                "pcie_lanes": 8 if "x8" in pcie else (16 if pcie else None),
                "form_factor": row["form_factor"],
                "year": int(row["year"]) if row["year"].strip() else None,
                "purchase_usd": _num(row["price_usd"]),
                "cloud_usd_per_hour": _num(row["cloud_usd_hr"]),
                "cloud_price_date": dates[0] if dates and row["cloud_usd_hr"].strip() else None,
                "sources": row["sources"],
            }
        )
    return {
        "schema": "gpu-advisor/catalog@1",
        "conventions": (
            "Tensor peaks are dense (sparse datasheet figures halved), bf16/fp16 with fp32 accumulation; "
            "GB = 1e9 bytes; bandwidth GB/s; nvlink = bidirectional aggregate per GPU (AMD: Infinity Fabric); "
            "null = not found in a usable source. Source keys [S1]..[S31] are listed in 'source_keys'."
        ),
        "source_keys": SOURCE_KEYS,
        "gpus": gpus,
    }


SOURCE_KEYS = {
    "S1": "stas00/ml-engineering compute/accelerator/README.md, commit 744d01e (2026-08-22): TFLOPS table w/o sparsity",
    "S2": "karpathy/nanochat nanochat/common.py get_peak_flops/get_peak_bandwidth, commit 92d63d4 (2026-07-03)",
    "S3": "pytorch/torchtitan torchtitan/tools/utils.py get_peak_flops",
    "S4": "cli99/llm-analysis gpu_configs, commit d841e40; RahulSChand/gpu_poor gpu_config.json",
    "S5": "Lightning-AI/pytorch-lightning fabric/utilities/throughput.py _CUDA_FLOPS (datasheets, sparsity halved)",
    "S6": "hahnyuan/LLM-Viewer hardwares/hardware_params.py",
    "S7": "NVIDIA H100 datasheet table (archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html), sparse halved",
    "S8": "NVIDIA H100 PCIe Product Brief PB-11133-001_v02",
    "S9": "NVIDIA HGX B200 spec table (zdszero.github.io mirror); glennklockwood.com B200",
    "S10": "MLCommons inference results system descriptions (H200-SXM-141GB, B200-SXM-180GB)",
    "S11": "nvidia.com H200 page captures 2026-06-27 and 2026-08-13 (sparse; dense = half)",
    "S12": "PNY H100 NVL datasheet PB-11773-001; aiminingco.com/gpu/h100-nvl/specs",
    "S13": "NVIDIA L40/L40S datasheet reproduction (mullet.se)",
    "S14": "L4 sparse datasheet numbers (store.sourcecode.com) and gmasse/gpu-specs",
    "S14-gmasse": "gmasse/gpu-specs specs.md, commit 578a5d7 (2025-04-30)",
    "S15": "VladislavDuma/gpu_specs README (dense/sparse tables)",
    "S16": "glennklockwood.com/garden/processors/A100 (A100 datasheet)",
    "S17": "NVIDIA GA102 whitepaper figures for RTX 3090",
    "S18": "NVIDIA Ada whitepaper Appendix A (RTX 4090), v2.02",
    "S19": "hmc-tech.com spec database pages (computed from clocks)",
    "S20": "jaeseok614/gpu-specs-kr data/gpu_specs.csv (Wikipedia scrape, 2026-08-16)",
    "S21": "huggingface.co/hardware pages, 'MSRP' field (rough street estimates)",
    "S22": "baseten.co A10 vs A10G blog; nvidia-smi on AWS g5 (A10G 300 W)",
    "S23": "AMD MI250X table (zexron.com), tomshardware.com, siliconcat.net, gpu.blog",
    "S24": "git.hubacek.cloud knowledge-base AI-INFRASTRUCTURE.en.md (2026-06-18), MI300X",
    "S25": "itcreations.com (W7900, L40S); grafikkarten.com (RTX 6000 Ada)",
    "S26a": "runpod.io/pricing, lambda.ai/pricing, nebius.com/prices via tgarg01/silybench-data, checked 2026-09-25",
    "S26b": "lambda.ai/instances via api-evangelist/lambda-labs, read 2026-09-20",
    "S26c": "Hyperstack rate card via api-evangelist/nexgen-cloud, 2026-08-26",
    "S26d": "Modal list prices (techbytes.app), verified 2026-05-07",
    "S26e": "AWS EC2 on-demand g5.xlarge us-east-1 (factualminds.com), June 2026",
    "S26f": "DigitalOcean MI300X list price (huggingface.co/datasets/tokenwatt/gpu-cloud-prices), 2026-10-07",
    "S27": "launch prices: incpak.com, slashgear.com, wccftech.com, gamebastion.com, pcpartdb.com, sysrqmts.com, hmc-tech",
    "S28": "spheron.network RTX 5090 specs; pangoly.com; gamerevolution.com",
    "S29": "A100 80GB PCIe announcement (June 2021); wccftech.com NVLink bridge",
    "S30": "huggingface.co/spaces/Elfsong/gcp_allocator GCP GPU table",
    "S31": "public note: RTX 4090 has no NVLink (removed from Ada Lovelace)",
}

if __name__ == "__main__":
    with open(sys.argv[1], newline="", encoding="utf-8") as fh:
        catalogue = convert(list(csv.DictReader(fh)))
    json.dump(catalogue, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
