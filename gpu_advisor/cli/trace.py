"""`gpu-advisor trace`: the exact memory of one step of the real architecture, traced on fake tensors.

Takes the same model and workload flags as `plan`; prints a table, or `--json` (schema
gpu-advisor/trace@1, integer bytes). Needs PyTorch and transformers (and peft for LoRA); a missing one
is one line saying how to install it.
"""

from __future__ import annotations

import argparse
import json
import sys

from gpu_advisor.cli.fields import given_flags
from gpu_advisor.core.errors import UserInputError, field_problem
from gpu_advisor.core.precision import Optimizer, Precision, Task

# The vocabulary of a `--module` model when --vocab-size is not given (a Llama-2 tokenizer's).
MODULE_VOCAB_SIZE = 32000

# TraceSetup's workload fields, each set by the flag of its name (--seq-len sets seq_len).
_WORKLOAD_FLAGS = {
    name: "--" + name.replace("_", "-")
    for name in (
        "task",
        "precision",
        "optimizer",
        "seq_len",
        "batch_size",
        "grad_checkpointing",
        "users",
        "prompt_tokens",
        "output_tokens",
        "lora_rank",
    )
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    from gpu_advisor.cli.models import MODEL_HELP

    p = sub.add_parser(
        "trace",
        help="trace the exact memory of one training or inference step of the real model",
        description="Build the model from its config.json with transformers on fake tensors (no real "
        "memory), run one steady-state training step (or a prefill and one decode step) under PyTorch's "
        "memory tracker, and print the peak live tensor bytes by category and by top-level module.",
    )
    model = p.add_mutually_exclusive_group(required=True)
    model.add_argument("--model", metavar="PRESET|ORG/NAME", help=MODEL_HELP)
    model.add_argument("--config", metavar="FILE", help="a Hugging Face config.json")
    model.add_argument("--params", metavar="N", help="a parameter count: 7B (a guessed Llama-style shape)")
    model.add_argument(
        "--module",
        metavar="PKG.MOD:FUNC",
        help="your own model: a function returning a torch.nn.Module that maps token ids to logits",
    )
    p.add_argument("--vocab-size", type=int, help=f"token ids for --module (default {MODULE_VOCAB_SIZE})")
    p.add_argument("--task", choices=[t.value for t in Task])
    p.add_argument("--precision", choices=[x.value for x in Precision])
    p.add_argument("--optimizer", choices=[o.value for o in Optimizer])
    p.add_argument("--seq-len", type=int, help="tokens per sequence (training)")
    p.add_argument("--batch-size", type=int, help="micro-batch (training)")
    p.add_argument("--grad-checkpointing", action="store_true", help="recompute activations in backward")
    p.add_argument("--users", type=int, help="concurrent sequences (inference)")
    p.add_argument("--prompt-tokens", type=int)
    p.add_argument("--output-tokens", type=int)
    p.add_argument("--lora-rank", type=int, help="LoRA rank r (task lora)")
    p.add_argument("--json", action="store_true", help="print the gpu-advisor/trace@1 JSON object")
    p.set_defaults(func=cmd_trace)


def _setup(args: argparse.Namespace):
    from pydantic import ValidationError

    from gpu_advisor.bench.trace import TraceSetup

    fields = given_flags(args, _WORKLOAD_FLAGS)  # a flag not given is left out: TraceSetup holds the defaults
    try:
        if args.module is not None:
            return TraceSetup(
                name=args.module,
                module=args.module,
                vocab_size=args.vocab_size or MODULE_VOCAB_SIZE,
                **fields,
            )
        from gpu_advisor.bench.trace_model import config_from_spec
        from gpu_advisor.cli.models import chosen_model

        chosen = chosen_model(args)
        config = chosen.config or config_from_spec(chosen.spec)
        for note in chosen.notes:
            print(f"note: {note}", file=sys.stderr)
        return TraceSetup(name=chosen.spec.name, config=config, vocab_size=chosen.spec.vocab_size, **fields)
    except ValidationError as exc:
        loc, message = field_problem(exc)
        flag = "--" + loc[0].replace("_", "-") if loc else "trace"
        raise UserInputError(f"{flag}: {message}") from None


def cmd_trace(args: argparse.Namespace) -> int:
    try:
        from gpu_advisor.bench.trace import trace_memory
    except ImportError as exc:
        raise UserInputError(f"the trace needs PyTorch ({exc}); install it with ./install.sh") from None
    from gpu_advisor.wording.trace import format_trace

    setup = _setup(args)
    tty = sys.stderr.isatty()

    def progress(message: str) -> None:
        if tty:
            sys.stderr.write(f"\r\x1b[2K{message} ...")
            sys.stderr.flush()

    try:
        result = trace_memory(setup, on_progress=progress)
    except UserInputError:  # TraceUnavailable: its own line
        raise
    except (
        RuntimeError,
        NotImplementedError,
        ValueError,
        TypeError,
        KeyError,
        AttributeError,
        OverflowError,
    ) as exc:
        # transformers' own errors for a config it cannot build (a field of the wrong type included)
        raise UserInputError(
            f"the trace of {setup.name} failed: {type(exc).__name__}: {str(exc).splitlines()[0]}"
        ) from None
    finally:
        if tty:
            sys.stderr.write("\r\x1b[2K")
    print(json.dumps(result.to_json_dict(), indent=1, allow_nan=False) if args.json else format_trace(result))
    return 0
