"""Plain-language explanations of the terms the app shows, used as tooltips everywhere.

Kept as data so every view explains a term the same way and tests can check a tooltip exists.
"""

from __future__ import annotations

from gpu_advisor.core.units import HOURS_PER_MONTH

GLOSSARY: dict[str, str] = {
    "mfu": (
        "MFU (model FLOPs utilisation): the share of the GPU's peak arithmetic rate a training job "
        "really achieves. 40% is typical for large models on data-center GPUs; the rest goes to memory "
        "traffic, communication and kernel launch gaps."
    ),
    "kv_cache": (
        "KV cache: during generation each layer keeps the keys and values of every token seen so far, "
        "so they are not recomputed. It grows with users x (prompt + output tokens) and often outgrows "
        "the weights when many users are served at once."
    ),
    "zero": (
        "ZeRO (Zero Redundancy Optimizer, DeepSpeed / PyTorch FSDP): data-parallel GPUs split training "
        "state instead of each holding a copy. Stage 1 shards optimizer state, stage 2 also gradients, "
        "stage 3 also the weights, at the cost of more communication."
    ),
    "memory_bound": (
        "Memory-bound: the GPU waits on memory bandwidth, not arithmetic. Typical for generating tokens "
        "one at a time: every step reads all weights and the KV cache. Faster memory (HBM) helps; more "
        "FLOP/s does not."
    ),
    "host_bound": (
        "Host-bound: the CPU launching kernels (PyTorch's Python and dispatch) takes longer than the GPU's "
        "work, so the GPU waits. Larger micro-batches, CUDA graphs or torch.compile help."
    ),
    "compute_bound": (
        "Compute-bound: arithmetic is the limit (large matrix multiplications, training, long prompts). "
        "More FLOP/s or a lower precision helps."
    ),
    "tensor_parallel": (
        "Tensor parallel (TP): each layer's matrices are split across GPUs, which exchange partial "
        "results every layer. Needs a fast link (NVLink); the way to fit a model too large for one GPU."
    ),
    "pipeline_parallel": (
        "Pipeline parallel (PP): consecutive layers live on different GPUs and micro-batches flow "
        "through them like an assembly line."
    ),
    "data_parallel": (
        "Data parallel (DP): every GPU holds the model (or its ZeRO shard) and processes different "
        "batches; gradients are averaged each step."
    ),
    "grad_checkpointing": (
        "Gradient (activation) checkpointing: keep only each layer's input and recompute the rest in "
        "the backward pass. Saves most activation memory for about 30% more compute."
    ),
    "attention": (
        "SDPA uses memory-efficient (flash) attention kernels that never store the full "
        "sequence x sequence attention matrix; eager attention stores it and needs far more memory for "
        "long sequences."
    ),
    "precision": (
        "Number format of the weights: bf16/fp16 use 2 bytes per parameter, fp8 and int8 one, int4 about "
        "half a byte. Training needs bf16, fp16, fp8 or fp32; int8/int4 are for inference or LoRA bases."
    ),
    "lora": (
        "LoRA trains small low-rank adapter matrices beside frozen weights; QLoRA does the same over a "
        "4-bit base model. Far less memory than a full fine-tune."
    ),
    "breakeven": (
        "Break-even: the month when the money spent renting equals buying (purchase plus electricity). "
        "Beyond it, owning is cheaper if the GPUs are used as many hours as assumed."
    ),
    "tokens_per_s_per_user": (
        "Generation speed one user sees. People read about 5-10 tokens/s; chat products aim for 20-50."
    ),
    "seq_len": "Tokens per training sequence (the context length the model trains on).",
    "batch_size": "Sequences per GPU per step (the micro-batch). Memory for activations grows with it.",
    "users": "Sequences generated at the same time (concurrent users). The KV cache grows with each.",
    "prompt_tokens": "Tokens each user sends in (prompt and context); processed in one pass (prefill).",
    "output_tokens": "Tokens generated per reply; each needs one pass over the weights (decode).",
    "train_tokens": "Total tokens to train on (e.g. 1e9 or 10B). With a deadline, the planner adds GPUs.",
    "max_hours": "Deadline for the whole training run, in hours.",
    "dataset_samples": "Instead of a token budget: the samples in your dataset, each of the sequence length. "
    "The plan gives the time per epoch (one pass).",
    "dataset_tokens": "Instead of a token budget: the tokens in your dataset (or give its samples).",
    "epochs": "Passes over the dataset (default 1); the time to train is epochs × time per epoch.",
    "hours_per_month": (
        f"Hours a month the GPUs are in use ({HOURS_PER_MONTH:g} = around the clock). Renting scales with it."
    ),
    "electricity": "What a kWh costs where the bought machine would run, in USD.",
    "gpus": "Fix the number of GPUs instead of letting the planner choose the smallest that works.",
    "throughput": "Tokens (or samples) processed per second, measured over the timed steps.",
    "diagnosis": (
        "What limits this run: compute, memory bandwidth, the input pipeline (GPU waiting for data), "
        "the host CPU, or clocks lowered for heat or power (throttling)."
    ),
    "cpu_mode": (
        "No NVIDIA GPU was found (or NVML is unavailable): workloads run on the CPU and the plots show "
        "host telemetry. Numbers describe this CPU, not a GPU."
    ),
}


def tip(key: str) -> str:
    """The explanation for `key` (KeyError for an unknown term: a typo should fail in tests)."""
    return GLOSSARY[key]


def bound_tip(bound: str | None) -> str:
    """The explanation of what limits a speed ('' when unknown)."""
    return {"memory": tip("memory_bound"), "compute": tip("compute_bound"), "host": tip("host_bound")}.get(
        bound or "", ""
    )
