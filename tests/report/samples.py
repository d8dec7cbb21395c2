"""Plans and benchmark results files for report tests (the `gpu-advisor/bench@1` contract, by hand)."""

from __future__ import annotations

import math
from typing import Any

from gpu_advisor.core.presets import resolve_model
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.result import Plan
from gpu_advisor.telemetry.samples import GpuSample, HostSample, Sample

GB = 10**9


def inference_plan() -> Plan:
    """Llama 3 70B for 32 users at 20 tokens/s each (rent)."""
    model = resolve_model(preset="llama-3-70b", config=None, params=None)
    return plan(PlanRequest(model=model, users=32, tokens_per_s_per_user=20))


def training_plan() -> Plan:
    """Llama 3 8B full fine-tune on 1B tokens within a day."""
    model = resolve_model(preset="llama-3-8b", config=None, params=None)
    return plan(PlanRequest(model=model, task="finetune", train_tokens=1e9, max_hours=24))


def buy_plan() -> Plan:
    """Mixtral 8x7B for 8 users at 20 tokens/s each on workstation GPUs, bought (has a break-even
    point). With the speed target the rented-and-sold RTX PRO 6000 Blackwell wins; without one the
    cheapest fitting box (a DGX Spark at 2.3 tokens/s per user, not rented by clouds) would."""
    model = resolve_model(preset="mixtral-8x7b", config=None, params=None)
    return plan(
        PlanRequest(model=model, users=8, tokens_per_s_per_user=20, tier="workstation", purchase="buy")
    )


def no_fit_plan() -> Plan:
    """Llama 3 70B on a single RTX 4090: nothing fits."""
    model = resolve_model(preset="llama-3-70b", config=None, params=None)
    return plan(PlanRequest(model=model, gpu="rtx-4090", gpus=1))


def _samples(gpu: bool, count: int, interval_s: float) -> list[dict[str, Any]]:
    out = []
    for i in range(count):
        t = i * interval_s
        busy = 10 < i < count - 10  # idle, a run, idle again
        wave = math.sin(i / 7)
        gpus: tuple[GpuSample, ...] = ()
        if gpu:
            gpus = tuple(
                GpuSample(
                    index=k,
                    name="NVIDIA H100 80GB HBM3",
                    gpu_util_pct=(96 + 3 * wave) if busy else 0.0,
                    memory_used_bytes=int((61 + k) * GB if busy else 0.6 * GB),
                    memory_total_bytes=80 * GB,
                    power_w=(640 + 40 * wave - 15 * k) if busy else 72.0,
                    power_limit_w=700.0,
                    temperature_c=(58 + 20 * (1 - math.exp(-i / 30))) if busy else 36.0,
                    sm_clock_mhz=1980 if busy else 345,
                    clock_event_reasons=("sw_power_cap",) if busy and wave > 0.8 else (),
                )
                for k in range(2)
            )
        out.append(
            Sample(
                t_s=1000.0 + t,
                wall_time=1_760_000_000.0 + t,
                host=HostSample(
                    cpu_pct=(35 + 10 * wave) if busy else 3.0,
                    ram_used_bytes=int((14 + (6 if busy else 0)) * GB),
                    ram_total_bytes=64 * GB,
                    cpu_temp_c=None if gpu else 55 + 5 * wave,
                ),
                gpus=gpus,
            ).to_dict()
        )
    return out


def bench_results(gpu: bool = True, samples: int = 120) -> dict[str, Any]:
    """A plausible results file: a training and an inference workload, diagnosis and telemetry."""
    device = (
        {
            "kind": "cuda",
            "index": 0,
            "name": "NVIDIA H100 80GB HBM3",
            "torch_threads": 8,
            "catalogue_id": "h100-sxm",
        }
        if gpu
        else {"kind": "cpu", "name": "AMD EPYC 7B13 (CPU)", "torch_threads": 16}
    )
    gpus = (
        [
            {
                "index": k,
                "name": "NVIDIA H100 80GB HBM3",
                "memory_total_bytes": 80 * GB,
                "driver_version": "550.54.15",
                "cuda_driver_version": "12.4",
            }
            for k in range(2)
        ]
        if gpu
        else []
    )

    def check(predicted: float, measured: float) -> dict[str, float]:
        return {
            "predicted": predicted,
            "measured": measured,
            "error_pct": round((predicted - measured) / measured * 100, 2),
        }

    train = {
        "workload": "train",
        "name": "train gpt2-medium",
        "status": "ok",
        "config": {"model": "gpt2-medium", "batch_size": 8, "seq_len": 1024, "precision": "bf16"},
        "metrics": {"tokens_per_s": 41230.0, "peak_memory_bytes": 21_400_000_000},
        "diagnosis": [
            {
                "kind": "compute_bound",
                "severity": "ok",
                "title": "Compute-bound: the tensor cores are the limit",
                "evidence": {"summary": "52% of peak bf16 FLOP/s; GPU busy 98% of the time"},
                "fix": "A faster GPU or lower precision (fp8) would help; the input pipeline is fine.",
            }
        ],
        "prediction": {
            "peak_memory_bytes": check(20_100_000_000, 21_400_000_000),
            "step_time_s": check(0.181, 0.1987),
        },
    }
    infer = {
        "workload": "inference",
        "name": "inference gpt2-medium",
        "status": "ok",
        "config": {"model": "gpt2-medium", "batch_size": 16, "precision": "bf16"},
        "metrics": {"tokens_per_s": 9120.0},
        "diagnosis": [
            {
                "kind": "memory_bound",
                "severity": "info",
                "title": "Memory-bound: decode reads the weights every token",
                "evidence": {"summary": "71% of peak bandwidth, 6% of peak FLOP/s"},
                "fix": "Batch more users per step to reuse each weight read.",
            }
        ],
        "prediction": {
            "peak_memory_bytes": check(2_300_000_000, 2_050_000_000),
            "step_time_s": check(0.0108, 0.0121),
        },
    }
    oom = {
        "workload": "train",
        "name": "train gpt2-xl",
        "status": "oom",
        "config": {"model": "gpt2-xl", "batch_size": 64, "seq_len": 1024},
        "notes": ["out of memory at batch 64; largest batch that fits: 16"],
    }
    return {
        "schema": "gpu-advisor/bench@1",
        "created": "2026-11-30T10:00:00Z",
        "app_version": "0.1.0",
        "machine": {
            "cpu_model": "AMD EPYC 7B13",
            "physical_cores": 16,
            "logical_cores": 32,
            "ram_total_bytes": 64 * GB,
            "os": "Ubuntu 24.04 LTS",
            "python_version": "3.11.9",
            "gpus": gpus,
            "gpu_status": "2 NVIDIA GPUs found through NVML"
            if gpu
            else "No NVIDIA GPU: CPU mode (no driver)",
            "torch_version": "2.13.0",
        },
        "device": device,
        "options": {"quick": True},
        "duration_s": samples * 0.5,
        "results": [train, infer, oom],
        "telemetry": {"interval_s": 0.5, "samples": _samples(gpu, samples, 0.5)},
    }
