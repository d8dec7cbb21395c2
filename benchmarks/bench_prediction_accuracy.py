"""Does the sizing engine predict peak memory? Training and inference, GPT-2 and Llama style, two sizes each.

Runs the benchmark's own train and inference workloads (gpu_advisor.bench.training / .inference) on the
CPU at two sizes per family, and prints the core's predicted peak memory against the measured live
tensor bytes (profiler allocator events), with the error. Target: within 15 %.

Usage: python benchmarks/bench_prediction_accuracy.py
"""

from __future__ import annotations

import dataclasses
import threading

from gpu_advisor.bench import BenchOptions
from gpu_advisor.bench.context import RunContext
from gpu_advisor.bench.inference import inference
from gpu_advisor.bench.options import SIZES, benchmark_spec
from gpu_advisor.bench.device import resolve_device
from gpu_advisor.bench.training import train
from gpu_advisor.core.architecture import Family

TARGET_PCT = 15.0
MIB = 2**20


CASES = [
    # (label, model, train batch, seq, inference batch, prompt)
    ("gpt2 small", benchmark_spec("gpt2-4x256", Family.GPT2, 4, 256, 4, None, 1024, 8192), 4, 128, 4, 128),
    ("gpt2 large", benchmark_spec("gpt2-8x512", Family.GPT2, 8, 512, 8, None, 2048, 32000), 8, 256, 16, 256),
    ("llama small", benchmark_spec("llama-4x256", Family.LLAMA, 4, 256, 8, 2, 704, 8192), 4, 128, 4, 128),
    ("llama large", benchmark_spec("llama-8x512", Family.LLAMA, 8, 512, 8, 2, 1408, 32000), 8, 256, 16, 256),
]


def main() -> None:
    device, info, gpu = resolve_device("cpu")
    rows = []
    for label, model, batch, seq, infer_batch, prompt in CASES:
        sizes = dataclasses.replace(
            SIZES[("cpu", "quick")],
            warmup_steps=2,
            min_steps=2,
            max_steps=3,
            duration_s=0.1,
            train_model=model,
            train_batch=batch,
            train_seq=seq,
            infer_model=model,
            infer_batches=(infer_batch,),
            prompt_tokens=prompt,
            output_tokens=8,
        )
        ctx = RunContext(
            options=BenchOptions(device="cpu"),
            sizes=sizes,
            device=device,
            device_info=info,
            catalog_gpu=gpu,
            stop=threading.Event(),
            memory_cap_bytes=None,
        )
        for outcome in (*train(ctx), *inference(ctx)):
            r = outcome.result
            assert r.prediction is not None, r
            mem = r.prediction.peak_memory_bytes
            shape = (
                f"b{r.config['batch_size']} s{r.config['seq_len']}"
                if r.workload == "train"
                else f"b{r.config['batch_size']} prompt {r.config['prompt_tokens']} + 8"
            )
            rows.append(
                (
                    r.workload,
                    label,
                    f"{model.total_params() / 1e6:.1f}M",
                    shape,
                    mem.predicted / MIB,
                    mem.measured / MIB,
                    mem.error_pct,
                    r.prediction.phase,
                )
            )
    print(
        f"{'workload':<10} {'model':<12} {'params':>7} {'shape':<18} {'predicted MiB':>13} "
        f"{'measured MiB':>12} {'error %':>8}  phase"
    )
    for workload, label, params, shape, pred, meas, err, phase in rows:
        print(
            f"{workload:<10} {label:<12} {params:>7} {shape:<18} {pred:>13.1f} {meas:>12.1f} {err:>+8.1f}  {phase}"
        )
    worst = max(abs(r[6]) for r in rows)
    print(
        f"worst |error| {worst:.1f}%: {'within' if worst <= TARGET_PCT else 'outside'} the {TARGET_PCT:g}% target"
    )


if __name__ == "__main__":
    main()
