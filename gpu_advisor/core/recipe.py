"""The training recipe: which knobs the user locked and which the planner may choose.

A knob the request sets is the user's lock; one it leaves unset is the planner's. `variants` lists
the recipes the planner tries (gradient checkpointing off and on, micro-batches 1 to 8), each as a
request whose knobs are all set; `keep_global_batch` gives a layout the accumulation that keeps data
replicas x micro-batch x accumulation at the request's global batch. `describe` is what an option
reports (`recipe` and `recipe_source` of the plan@1 contract). Without a global batch the request
is planned at `default_global_batch`, the one published runs of its task and size used.
"""

from __future__ import annotations

import math
from typing import Any

from .precision import Framework, LossImpl, Task
from .request import PlanRequest

RECIPE_KEYS = ("micro_batch", "grad_accum", "global_batch", "grad_checkpointing", "loss", "zero_stage")
# Micro-batches the planner tries when the user leaves it open: powers of two, as trainers use.
MICRO_BATCHES = (1, 2, 4, 8)
# Published practice for the global batch, in sequences per optimizer step, when none is given.
# Pre-training: GPT-3 (Brown et al. 2020, Table 2.1) grew the batch from 0.5M tokens (125M
# parameters) to 3.2M tokens (175B); Llama 2 (Touvron et al. 2023, section 2.2) used 4M tokens.
# Fine-tuning: Stanford Alpaca (Taori et al. 2023) fine-tuned LLaMA 7B at 128 sequences per step;
# QLoRA (Dettmers et al. 2023, Appendix B) trained adapters at 16 sequences per step.
_PRETRAIN_TOKENS_PER_STEP = (
    (350e6, 0.5e6),
    (3e9, 1e6),
    (20e9, 2e6),
    (float("inf"), 4e6),
)
PRETRAIN_SOURCE = "GPT-3 (Brown et al. 2020, Table 2.1) and Llama 2 (Touvron et al. 2023, section 2.2)"
FINETUNE_SEQUENCES, FINETUNE_SOURCE = 128, "Stanford Alpaca (Taori et al. 2023): 128 sequences per step"
ADAPTER_SEQUENCES, ADAPTER_SOURCE = 16, "QLoRA (Dettmers et al. 2023, Appendix B): 16 sequences per step"


def published_global_batch(req: PlanRequest) -> tuple[int, str]:
    """(sequences per step, source) that published runs of this task and size used."""
    if req.task is Task.PRETRAIN:
        params = req.model.total_params()
        tokens = next(t for limit, t in _PRETRAIN_TOKENS_PER_STEP if params <= limit)
        sequences = max(1, 2 ** round(math.log2(max(1.0, tokens / req.seq_len))))
        return sequences, f"{tokens / 1e6:g}M tokens per step at this size, {PRETRAIN_SOURCE}"
    if req.task.is_adapter:
        return ADAPTER_SEQUENCES, ADAPTER_SOURCE
    return FINETUNE_SEQUENCES, FINETUNE_SOURCE


def default_global_batch(req: PlanRequest) -> tuple[int, str] | None:
    """The published global batch (sequences per step, source) a training request without one is
    planned with, or None where none applies: a global batch given, a trace (it measured one recipe),
    the micro-batch or the accumulation set by the user (the sequences per replica are then theirs and
    the batch follows the replicas: a held batch would leave no layout for a GPU that needs more
    replicas than it has micro-batches), or a GPU count that no power-of-two batch divides into
    replicas. With the micro-batch open the search's micro-batch 1 keeps up to that many replicas."""
    if not req.task.is_training or req.global_batch is not None or req.trace is not None:
        return None
    if {"grad_accumulation_steps", "batch_size"} & req.model_fields_set:
        return None
    if req.gpus is not None and req.gpus & (req.gpus - 1):
        return None
    return published_global_batch(req)


# Without a deadline, a token budget is planned to finish within this many days: published
# pre-training runs took one to three months (Llama 3 405B: 54 days on 16,384 H100s, Dubey et al.
# 2024, section 3.3.4; OPT-175B: about two months on 992 A100s, Zhang et al. 2022, logbook).
DEFAULT_DEADLINE_DAYS = 90
DEADLINE_SOURCE = (
    "published pre-training runs took one to three months (Llama 3 405B: 54 days, Dubey et al. 2024, "
    "section 3.3.4; OPT-175B: about two months, Zhang et al. 2022)"
)
YEAR_S = 365 * 86400


def default_deadline_hours(req: PlanRequest) -> float | None:
    """The deadline a token budget without one is planned to (hours), or None: no token budget, a
    deadline given, or the GPU count fixed."""
    if not req.task.is_training or req.max_hours is not None or req.gpus is not None:
        return None
    if req.total_train_tokens is None:
        return None
    return DEFAULT_DEADLINE_DAYS * 24.0


def locked(req: PlanRequest) -> dict[str, bool]:
    """For each recipe key, whether the user set it (a lock) or left it to the planner."""
    given = req.model_fields_set
    return {
        "micro_batch": "batch_size" in given,
        "grad_accum": "grad_accumulation_steps" in given,
        "global_batch": req.global_batch is not None,
        "grad_checkpointing": req.grad_checkpointing is not None,
        "loss": "loss" in given,
        "zero_stage": req.zero_stage is not None,
    }


def variants(req: PlanRequest) -> list[PlanRequest]:
    """The recipes to plan: every open knob's choices, the literal recipe (what the request says, its
    defaults for what it leaves open) first. Inference has no recipe: the request alone."""
    if not req.task.is_training:
        return [req]
    if req.trace is not None:  # a trace measured one recipe: plan that one (open knobs take its values)
        return [
            req.model_copy(
                update={
                    "grad_checkpointing": req.trace.grad_checkpointing,
                    "batch_size": req.trace.batch_size,
                }
            )
        ]
    locks = locked(req)
    checkpointing = [req.grad_checkpointing] if locks["grad_checkpointing"] else [False, True]
    if not locks["grad_checkpointing"] and req.framework is Framework.LITGPT:
        checkpointing = [False]  # LitGPT's finetune/lora.py has no activation checkpointing
    micro = [req.batch_size] if locks["micro_batch"] else list(MICRO_BATCHES)
    if req.global_batch is not None:
        # A locked accumulation: the micro-batch and the replicas must share what it leaves.
        accum = req.grad_accumulation_steps if locks["grad_accum"] else 1
        micro = [m for m in micro if req.global_batch % (m * accum) == 0] or [req.batch_size]
    out = []
    for gc in checkpointing:
        for mb in micro:
            update: dict[str, Any] = {"grad_checkpointing": gc, "batch_size": mb}
            if req.global_batch is not None and not locks["grad_accum"]:
                update["grad_accumulation_steps"] = max(1, req.global_batch // mb)
            out.append(req.model_copy(update=update))
    return out


def fixed_replicas(req: PlanRequest, accum_locked: bool) -> int | None:
    """The one data-parallel degree that keeps the global batch when the accumulation is locked too:
    global batch / (micro-batch x accumulation); None when the degree is the search's to choose (no
    global batch, an open accumulation) or when no whole degree keeps it (keep_global_batch then says so)."""
    if req.global_batch is None or not accum_locked or not req.task.is_training:
        return None
    per_replica = req.batch_size * req.grad_accumulation_steps
    if req.global_batch % per_replica:
        return None
    return req.global_batch // per_replica


def keep_global_batch(req: PlanRequest, data_parallel: int, accum_locked: bool) -> PlanRequest | None:
    """The request with the accumulation that keeps replicas x micro-batch x accumulation at the
    global batch on `data_parallel` replicas; the request itself without a global batch; None when no
    whole accumulation does (more replicas x micro-batch than the batch has sequences, or not a
    divisor)."""
    if req.global_batch is None:
        return req
    per_step = data_parallel * req.batch_size
    if req.global_batch % per_step:
        return None
    accum = req.global_batch // per_step
    if accum_locked and req.grad_accumulation_steps != accum:
        return None
    if accum == req.grad_accumulation_steps:
        return req
    return req.model_copy(update={"grad_accumulation_steps": accum})


def describe(user: PlanRequest, used: PlanRequest, data_parallel: int, zero_stage: int) -> tuple[dict, dict]:
    """(recipe, recipe_source) of one training option: what it runs and who chose each knob."""
    recipe = {
        "micro_batch": used.batch_size,
        "grad_accum": used.grad_accumulation_steps,
        "global_batch": data_parallel * used.batch_size * used.grad_accumulation_steps,
        "grad_checkpointing": bool(used.grad_checkpointing),
        "loss": LossImpl(used.loss).value,
        "zero_stage": zero_stage,
    }
    locks = locked(user)
    source = {key: "user" if locks[key] else "planner" for key in RECIPE_KEYS}
    return recipe, source


def chosen_words(user: PlanRequest, recipe: dict, source: dict) -> str:
    """'gradient checkpointing and micro-batch 4': the planner's choices that differ from the
    request's literal recipe (empty when it ran the recipe as given)."""
    parts = []
    if source["grad_checkpointing"] == "planner" and recipe["grad_checkpointing"]:
        parts.append("gradient checkpointing")
    if source["micro_batch"] == "planner" and recipe["micro_batch"] != user.batch_size:
        parts.append(f"micro-batch {recipe['micro_batch']}")
    return " and ".join(parts)
