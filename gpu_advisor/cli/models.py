"""The model a command was given: a preset, a Hugging Face Hub id (ORG/NAME[@revision]), a config.json
or a parameter count; and the trace of a request when asked for (or when the formulas cannot count it).

Shared by `plan`, `bench` and `trace`. A Hub id or a config.json of an architecture the formulas do not
count exactly gets a Llama-style approximation with a warning; `plan` then traces the real architecture
when transformers is installed.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from typing import Any

from gpu_advisor.core.architecture import ModelSpec, read_hf_config
from gpu_advisor.core.errors import UserInputError
from gpu_advisor.core.presets import resolve_model
from gpu_advisor.core.request import PlanRequest

MODEL_HELP = "a preset id (see `gpu-advisor catalog --models`) or a Hugging Face id ORG/NAME[@revision]"


@dataclass(frozen=True)
class ChosenModel:
    """The planner's shape, and the config.json the trace builds from (None for presets and counts)."""

    spec: ModelSpec
    config: dict[str, Any] | None = None
    exact: bool = True  # the formulas count this architecture exactly
    notes: tuple[str, ...] = field(default=())


def _from_config_file(path: str) -> ChosenModel:
    spec, data, exact = read_hf_config(path)
    return ChosenModel(spec, data, exact=exact, notes=spec.notes)


def choose_model(model: str | None, config: str | None = None, params: str | None = None) -> ChosenModel:
    """Resolve the model flags; a UserInputError (one line) when the model cannot be had."""
    from gpu_advisor.hub import fetch_model, looks_like_hub_id

    if model is not None and looks_like_hub_id(model) and config is None and params is None:
        hub = fetch_model(model)
        return ChosenModel(hub.spec, hub.config, exact=hub.exact, notes=hub.warnings)
    if config is not None and model is None and params is None:
        return _from_config_file(config)
    return ChosenModel(resolve_model(preset=model, config=config, params=params))


def chosen_model(args: argparse.Namespace) -> ChosenModel:
    """`choose_model` for parsed flags, resolved once per command (a Hub fetch is not repeated)."""
    cached = getattr(args, "_chosen_model", None)
    if cached is None:
        cached = choose_model(args.model, getattr(args, "config", None), getattr(args, "params", None))
        args._chosen_model = cached
    return cached


def _stderr(message: str) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"\r\x1b[2K{message}")
    else:
        print(message, file=sys.stderr, flush=True)


def with_trace(
    req: PlanRequest, chosen: ChosenModel, *, explicit: bool, deadline_s: float | None = None
) -> PlanRequest:
    """The request with a trace attached: when asked (`--trace`, errors are the user's to fix) or when
    the formulas cannot count the architecture (then a missing transformers is only a warning).

    The trace runs in a child process (bench.trace_child) for at most `deadline_s` (default 60 s, GPU_ADVISOR_TRACE_TIMEOUT_S);
    past it the plan falls back to the formulas with a note, asked for or not."""
    from gpu_advisor.bench.trace_child import TraceFailed, trace_in_child

    if not explicit and chosen.exact:
        return req
    try:
        result = trace_in_child(
            _recipe_to_trace(req),
            chosen.config,
            deadline_s=deadline_s,
            on_progress=lambda m: _stderr(f"trace: {m} ..."),
        )
    except TraceFailed as exc:
        if exc.timed_out:
            print(f"warning: {exc}; the memory figures come from the formulas", file=sys.stderr)
        return _untraced(req, str(exc).removeprefix("--trace: "), explicit and not exc.timed_out)
    finally:
        if sys.stderr.isatty():
            sys.stderr.write("\r\x1b[2K")
    return req.model_copy(update={"trace": result})


def _recipe_to_trace(req: PlanRequest) -> PlanRequest:
    """The request with the recipe the planner would run filled into the knobs the user left open: a
    trace measures one recipe, and the plan then runs that one (core.recipe.variants)."""
    if not req.task.is_training:
        return req
    from gpu_advisor.core.recommend import plan

    best = plan(req).best
    if best is None or best.recipe is None:
        return req.model_copy(update={"grad_checkpointing": bool(req.grad_checkpointing)})
    return req.model_copy(
        update={
            "grad_checkpointing": best.recipe["grad_checkpointing"],
            "batch_size": best.recipe["micro_batch"],
        }
    )


def _untraced(req: PlanRequest, why: str, explicit: bool) -> PlanRequest:
    if explicit:
        raise UserInputError(f"--trace: {why}")
    note = f"No trace: {why}. The memory figures come from the approximation."
    model = req.model.model_copy(update={"notes": (*req.model.notes, note)})
    return req.model_copy(update={"model": model})
