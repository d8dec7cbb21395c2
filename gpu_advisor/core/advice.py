"""What would change the answer: changes to the request that need fewer GPUs of the recommended kind,
and what else the user could change in the recipe, with its effect on cost and time.

Each change is re-planned on the recommended GPU. `count_suggestions`: only those that lower the count,
ordered by the memory they cut (activations: gradient checkpointing, a smaller micro-batch; weights:
quantisation), largest first. `recipe_suggestions`: a larger micro-batch where the user locked a small
one, and CUDA graphs or torch.compile where the host's kernel launches set the step, each only when it
cuts what the plan is ranked by (the job's rent, the rent per hour or the purchase).
"""

from __future__ import annotations

from collections.abc import Callable

from .precision import Precision, Task
from .request import PlanRequest
from .result import Option
from .units import format_bytes, format_duration, format_rate, format_usd

Replan = Callable[[PlanRequest], Option | None]


def _changes(req: PlanRequest) -> list[tuple[str, str, dict]]:
    """(component it cuts, wording, request update) for each change worth trying."""
    out: list[tuple[str, str, dict]] = []
    if req.task.is_training:
        if not req.grad_checkpointing:
            out.append(("activations", "Turn on gradient checkpointing", {"grad_checkpointing": True}))
        if req.batch_size > 1:
            half = req.batch_size // 2
            out.append(
                (
                    "activations",
                    f"Halve the micro-batch to {half} with twice the gradient accumulation "
                    "(same tokens per step)",
                    {"batch_size": half, "grad_accumulation_steps": req.grad_accumulation_steps * 2},
                )
            )
    elif req.precision in (Precision.FP32, Precision.BF16, Precision.FP16):
        for precision, words in ((Precision.INT8, "int8"), (Precision.INT4, "int4")):
            out.append(("weights", f"Quantise the weights to {words}", {"precision": precision}))
    return out


def count_suggestions(req: PlanRequest, best: Option, replan: Replan, memory_set: bool = True) -> list[str]:
    """Sentences like 'Turn on gradient checkpointing: 1 x RTX 3060 instead of 2 (...)'.

    `memory_set`: whether memory (not the speed target) sets the count. Cutting activations only
    slows a step, so it cannot lower a count the target set; quantised weights also decode faster,
    so they are tried either way.
    """
    if best.count == 1:
        return []  # nothing can need fewer than one GPU
    components = best.per_gpu_components
    found: list[tuple[int, str]] = []
    tried_weights = False
    for cut, words, update in _changes(req):
        if cut == "weights" and tried_weights:
            continue  # int4 only when int8 does not already lower the count
        if cut == "activations" and not memory_set:
            continue
        # Every change keeps the request valid (llama.cpp runs int8 and int4 too): no re-validation.
        option = replan(req.model_copy(update=update))
        if option is None or not (option.fits and option.meets_target) or option.count >= best.count:
            continue
        tried_weights = tried_weights or cut == "weights"
        speed = (
            f"{format_duration(option.speed.step_time_s)} per step"
            if option.speed.kind == "training"
            else format_rate(option.speed.tokens_per_s_per_user, "tokens/s per user")
        )
        found.append(
            (
                getattr(components, cut),
                f"{words}: {option.count} × {option.gpu} instead of {best.count} "
                f"({format_bytes(option.per_gpu_bytes)} per GPU, {speed}).",
            )
        )
    found.sort(key=lambda item: -item[0])
    return [text for _, text in found]


# Micro-batches tried against a locked one (as the planner's own search, core/recipe.MICRO_BATCHES).
_LARGER_MICRO_BATCHES = (2, 4, 8)


def recipe_suggestions(req: PlanRequest, best: Option, replan: Replan) -> list[str]:
    """'Micro-batch 8 (you set 1): $219 and 85 h instead of $400 and 155 h (2 x A100).' Changes to the
    recipe the user locked, or to how the step runs, re-planned on the recommended GPU at any count."""
    if not req.task.is_training or best.speed.kind != "training" or best.rank_usd is None:
        return []
    out = []
    locked_micro = best.recipe_source is not None and best.recipe_source.get("micro_batch") == "user"
    if locked_micro:
        tried = []
        for micro in _LARGER_MICRO_BATCHES:
            if micro <= req.batch_size or (req.global_batch and req.global_batch % micro):
                continue
            accum = max(1, req.grad_accumulation_steps * req.batch_size // micro)
            option = replan(req.model_copy(update={"batch_size": micro, "grad_accumulation_steps": accum}))
            if option is not None and option.fits and option.meets_target and option.rank_usd is not None:
                tried.append((option.rank_usd, micro, option))
        if tried:
            usd, micro, option = min(tried, key=lambda t: t[:2])
            if usd < best.rank_usd:
                out.append(
                    f"Raise the micro-batch to {micro} (you set {req.batch_size}): {_effect(option, best)}."
                )
    if best.speed.bound == "host":
        a = req.assumptions.model_copy(update={"host_overhead_per_layer_s": 0.0})
        option = replan(req.model_copy(update={"assumptions": a}))
        if (
            option is not None
            and option.fits
            and option.rank_usd is not None
            and option.rank_usd < best.rank_usd
        ):
            out.append(
                "The host's kernel launches set the step: capture it with CUDA graphs or torch.compile "
                f"(mode='reduce-overhead'), which launch it without Python; at best {_effect(option, best)}."
            )
    return out


def _effect(option: Option, best: Option) -> str:
    """'$219 and 85 h instead of $400 and 155 h (2 x A100, 1.1 s per step)': cost, then time."""
    cost = f"{format_usd(option.rank_usd)} instead of {format_usd(best.rank_usd)}"
    new, old = option.training, best.training
    if new is None or old is None:  # suggestions are made for training plans only
        return cost
    new_t, old_t = new.time_to_train_s, old.time_to_train_s
    if new_t is not None and old_t is not None:
        cost = (
            f"{format_usd(option.rank_usd)} and {format_duration(new_t)} instead of "
            f"{format_usd(best.rank_usd)} and {format_duration(old_t)}"
        )
    return f"{cost} ({option.count} × {option.gpu}, {format_duration(new.step_time_s)} per step)"


def fallback_suggestions(
    req: PlanRequest,
    fastest: Option | None = None,
    activations_bytes: int = 0,
    state_bytes: int = 0,
) -> list[str]:
    """What to change when nothing fits or meets the target (the first one is quoted in the reason).

    `fastest`: the fitting option that comes closest to a speed target that none meets; then the
    suggestions are about speed (the target itself first), not memory. Otherwise nothing fits, and
    where the activations outweigh the weights and training state (`state_bytes`: weights, gradients,
    optimizer), a smaller micro-batch or sequence comes first.
    """
    if fastest is not None:
        return _speed_suggestions(req, fastest)
    out = []
    if req.precision in (Precision.FP32, Precision.BF16, Precision.FP16) and req.task is Task.INFERENCE:
        out.append("Quantise the weights (int8 or int4) to cut weight memory 2-4x.")
    if req.task in (Task.PRETRAIN, Task.FINETUNE):
        out.append("Fine-tune with LoRA or QLoRA: no gradients or optimizer state for the frozen base.")
        if not req.grad_checkpointing:
            out.append(
                "Turn on gradient checkpointing to trade ~33% more compute for far less activation memory."
            )
        if req.zero_stage is not None and req.zero_stage < 3:
            out.append("Shard optimizer, gradients and weights with ZeRO stage 3.")
    if req.gpus is not None:
        out.append("Allow more GPUs (leave the GPU count unset).")
    if req.tier is not None or req.gpu is not None:
        out.append("Widen the search to every tier and GPU.")
    if req.task is Task.INFERENCE:
        out.append("Serve fewer concurrent users per replica or shorten the context.")
    else:
        smaller = "Lower the micro-batch or sequence length."
        # A micro-batch of a million sequences: its activations, not the model, are what does not fit.
        out.insert(0, smaller) if activations_bytes > state_bytes else out.append(smaller)
    return out


def _speed_suggestions(req: PlanRequest, fastest: Option) -> list[str]:
    """Nothing meets the speed target: how close the fastest fitting option comes, and what speeds up."""
    what = f"{fastest.count} × {fastest.gpu}"
    out = []
    if req.task.is_training:
        took = getattr(fastest.speed, "time_to_train_s", None)
        if req.max_hours is not None and took is not None:
            out.append(f"Extend the deadline: the fastest option, {what}, takes {format_duration(took)}.")
        else:
            out.append(f"Relax the target: the fastest option is {what}.")
    else:
        serving = fastest.serving
        reached = []
        if req.tokens_per_s_per_user is not None:
            reached.append(format_rate(serving.tokens_per_s_per_user, "tokens/s per user"))
        if req.ttft_s is not None:
            reached.append(f"a first token after {format_duration(serving.ttft_s)}")
        out.append(f"Lower the speed target: the fastest option, {what}, reaches {' and '.join(reached)}.")
        if req.precision in (Precision.FP32, Precision.BF16, Precision.FP16):
            out.append("Quantise the weights (int8 or fp8): decoding reads fewer bytes per token.")
        if req.users > 1:
            out.append("Serve fewer concurrent users per replica: each gets more of the GPU.")
    if req.gpus is not None:
        out.append("Allow more GPUs (leave the GPU count unset).")
    if req.tier is not None or req.gpu is not None:
        out.append("Widen the search to every tier and GPU.")
    return out
