"""`gpu-advisor plan`: the request from flags, the plan, and its outputs (table, JSON, files)."""

from __future__ import annotations

import argparse
import json
import sys

from pydantic import BaseModel

from gpu_advisor.cli.fields import given_flags
from gpu_advisor.cli.models import MODEL_HELP, chosen_model, with_trace
from gpu_advisor.cli.report import write_file
from gpu_advisor.core.architecture import ConfigError
from gpu_advisor.core.errors import UserInputError as CliError
from gpu_advisor.core.precision import Engine, Framework, LossImpl, Optimizer, Precision, Task, Tier
from gpu_advisor.core.request import (
    Assumptions,
    Attention,
    PlanRequest,
    Purchase,
    Vendor,
    describe_validation_error,
)
from gpu_advisor.core.units import parse_hours, parse_number
from gpu_advisor.wording.plan_tables import plan_text


def _default(field: str, owner: type[BaseModel] = PlanRequest) -> object:
    """The owner's own default for a flag (PlanRequest's, or Assumptions'; an enum as its value), so the
    CLI never restates one."""
    value = owner.model_fields[field].default
    return getattr(value, "value", value)


def count_arg(text: str) -> int:
    """A whole number as the GUI's fields read it: '10k', '32,768', '1e6' (argparse type)."""
    try:
        return int(parse_number(text, integer=True))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def hours_arg(text: str) -> float:
    """A duration in hours as the GUI's Deadline field reads it: '48', '7d', '1 week' (argparse type)."""
    try:
        return parse_hours(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def amount_arg(text: str) -> float:
    """A number as the GUI's fields read it: '20B', '1e9', '2.5' (argparse type)."""
    try:
        return float(parse_number(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plan",
        help="recommend GPUs for a training or inference job",
        description="Recommend the tier, GPU and count for a job, with memory, speed and cost.",
    )
    model = p.add_mutually_exclusive_group(required=True)
    model.add_argument("--model", metavar="PRESET|ORG/NAME", help=MODEL_HELP)
    model.add_argument("--config", metavar="FILE", help="a Hugging Face config.json")
    model.add_argument("--params", metavar="N", help="a parameter count: 7B, 350M, 7e9 (shape is guessed)")
    p.add_argument("--task", choices=[t.value for t in Task], default=_default("task"))
    p.add_argument("--precision", choices=[x.value for x in Precision], default=_default("precision"))
    p.add_argument("--optimizer", choices=[o.value for o in Optimizer], default=_default("optimizer"))
    p.add_argument(
        "--seq-len", type=count_arg, default=_default("seq_len"), help="tokens per sequence (training)"
    )
    p.add_argument("--batch-size", type=int, help="micro-batch per GPU (training; default: the planner's)")
    p.add_argument(
        "--grad-checkpointing",
        action=argparse.BooleanOptionalAction,
        help="recompute activations in backward (on or off; default: the planner chooses)",
    )
    p.add_argument("--grad-accum", type=int, metavar="N", help="micro-batches per optimizer step")
    p.add_argument(
        "--global-batch",
        type=int,
        metavar="N",
        help="sequences per optimizer step over all replicas (replicas x micro-batch x accumulation)",
    )
    p.add_argument(
        "--loss",
        choices=[x.value for x in LossImpl],
        help="cross-entropy recipe (default full)",
    )
    p.add_argument(
        "--pure-16bit", action="store_true", help="16-bit weights and optimizer state (no fp32 master copy)"
    )
    p.add_argument("--attention", choices=[a.value for a in Attention], default=_default("attention"))
    p.add_argument("--zero", type=int, choices=[0, 1, 2, 3], help="ZeRO stage (default: auto)")
    p.add_argument("--gpus", type=int, metavar="N", help="fix the GPU count")
    p.add_argument("--tp", type=int, metavar="N", help="fix the tensor-parallel degree")
    p.add_argument("--pp", type=int, metavar="N", help="fix the pipeline-parallel degree")
    p.add_argument(
        "--engine",
        choices=[e.value for e in Engine],
        default=_default("engine"),
        help="serving stack (inference)",
    )
    p.add_argument(
        "--framework",
        choices=[f.value for f in Framework],
        default=_default("framework"),
        help="training stack: default (the stacks the MFU tables were measured on), megatron-deepspeed "
        "(its MFU and DeepSpeed's fp32 gradient buffer), megatron-core (the distributed optimizer's "
        "buffers), fsdp (the root unit kept whole), hf-trainer (PEFT's k-bit preparation, fp32 "
        "logits) or litgpt (its LoRA block's tensors; QLoRA: bnb.nf4 without double quantisation and "
        "the inputs bitsandbytes before 0.43.2 keeps); the last four change memory only",
    )
    p.add_argument("--users", type=count_arg, default=_default("users"), help="concurrent users (inference)")
    p.add_argument("--prompt-tokens", type=count_arg, default=_default("prompt_tokens"))
    p.add_argument("--output-tokens", type=count_arg, default=_default("output_tokens"))
    p.add_argument("--tokens-per-s", type=float, help="target tokens/s per user (inference)")
    p.add_argument(
        "--requests-per-s",
        type=float,
        metavar="R",
        help="traffic as requests per second instead of --users (Little's law; needs --tokens-per-s)",
    )
    p.add_argument("--ttft-s", type=float, metavar="S", help="target time to first token (s)")
    p.add_argument("--train-tokens", type=amount_arg, help="training token budget, e.g. 1e9")
    p.add_argument("--max-hours", type=hours_arg, help="training deadline in hours ('48', '7d', '1 week')")
    p.add_argument("--dataset-tokens", type=amount_arg, metavar="N", help="tokens in the dataset")
    p.add_argument(
        "--dataset-samples",
        type=count_arg,
        metavar="N",
        help="samples in the dataset, each --seq-len tokens",
    )
    p.add_argument("--epochs", type=float, metavar="E", help="passes over the dataset (default 1)")
    p.add_argument("--gpu", metavar="NAME", help="consider only this GPU (id or name)")
    p.add_argument("--tier", choices=[t.value for t in Tier])
    p.add_argument("--vendor", choices=[v.value for v in Vendor], help="only this vendor's GPUs")
    p.add_argument(
        "--require-nvlink", action="store_true", help="only GPUs joined by NVLink (bridges or NVSwitch)"
    )
    p.add_argument("--buy", action="store_true", help="rank by purchase cost instead of rent")
    p.add_argument(
        "--own-machines", action="store_true", help="I already own the machines: buying prices the GPUs only"
    )
    p.add_argument("--hours-per-month", type=float, default=_default("hours_per_month"))
    p.add_argument("--electricity-usd-per-kwh", type=float, default=_default("electricity_usd_per_kwh"))
    p.add_argument(
        "--mfu",
        type=float,
        help="override the assumed training utilisation (0-1): the fraction of the peak reached on the "
        "FLOPs a step executes, recomputation included (the MFU without checkpointing)",
    )
    p.add_argument(
        "--pipeline-schedule",
        choices=["interleaved", "1f1b"],
        default="interleaved" if _default("pipeline_interleaved", Assumptions) else "1f1b",
        help="interleaved 1F1B (Megatron virtual stages) or plain 1F1B (DeepSpeed, Megatron without them)",
    )
    p.add_argument(
        "--lora-rank",
        type=int,
        default=_default("lora_rank", Assumptions),
        metavar="R",
        help="LoRA adapter rank (lora, qlora)",
    )
    p.add_argument(
        "--lora-targets",
        choices=["attention", "all-linear"],
        default="all-linear" if _default("lora_all_linear", Assumptions) else "attention",
        help="layers the adapters sit on: q, k, v, o, or every linear layer (lora, qlora)",
    )
    p.add_argument(
        "--trace",
        action="store_true",
        help="trace the real architecture on fake tensors (needs transformers) and plan from its bytes; "
        "automatic for architectures the formulas do not count",
    )
    p.add_argument(
        "--calibrate",
        metavar="FILE",
        help="a cluster results file (gpu-advisor bench --nproc N / --distributed --json FILE): "
        "the plan carries its measured bus bandwidth and latency",
    )
    p.add_argument("--json", action="store_true", help="print the gpu-advisor/plan@1 JSON object")
    p.add_argument("--markdown", metavar="FILE", help="also write a Markdown report")
    p.add_argument("--pdf", metavar="FILE", help="also write a PDF report")
    p.add_argument("--save", metavar="FILE", help="also save the plan as JSON (to reopen in the app)")
    p.set_defaults(func=cmd_plan)


def _recipe_locks(args: argparse.Namespace) -> dict:
    """The recipe knobs given on the command line: locks; the others are left to the planner."""
    return given_flags(args, {field: _flag(field) for field in _RECIPE_KNOBS})


# The training-recipe fields a flag locks (the planner chooses the others).
_RECIPE_KNOBS = ("batch_size", "grad_checkpointing", "grad_accumulation_steps", "global_batch", "loss")


def request_from_args(args: argparse.Namespace):
    """Build the validated PlanRequest; raises CliError naming the field."""
    from pydantic import ValidationError

    try:
        model = chosen_model(args).spec
        assumptions = Assumptions(
            mfu=args.mfu,
            pipeline_interleaved=args.pipeline_schedule == "interleaved",
            lora_rank=args.lora_rank,
            lora_all_linear=args.lora_targets == "all-linear",
        )
        return PlanRequest(
            model=model,
            task=args.task,
            precision=args.precision,
            optimizer=args.optimizer,
            seq_len=args.seq_len,
            **_recipe_locks(args),
            mixed_precision=not args.pure_16bit,
            attention=args.attention,
            zero_stage=args.zero,
            gpus=args.gpus,
            tensor_parallel=args.tp,
            pipeline_parallel=args.pp,
            engine=args.engine,
            framework=args.framework,
            users=args.users,
            prompt_tokens=args.prompt_tokens,
            output_tokens=args.output_tokens,
            tokens_per_s_per_user=args.tokens_per_s,
            requests_per_s=args.requests_per_s,
            ttft_s=args.ttft_s,
            train_tokens=args.train_tokens,
            max_hours=args.max_hours,
            dataset_tokens=args.dataset_tokens,
            dataset_samples=args.dataset_samples,
            epochs=args.epochs,
            gpu=args.gpu,
            tier=args.tier,
            vendor=args.vendor,
            require_nvlink=args.require_nvlink,
            purchase=Purchase.BUY if args.buy else Purchase.RENT,
            hours_per_month=args.hours_per_month,
            electricity_usd_per_kwh=args.electricity_usd_per_kwh,
            own_machines=args.own_machines,
            assumptions=assumptions,
        )
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    except ValidationError as exc:
        field, message = describe_validation_error(exc)
        raise CliError(f"{_flag(field)}: {message}") from None


_FIELD_FLAGS = {
    "tokens_per_s_per_user": "tokens-per-s",
    "zero_stage": "zero",
    "tensor_parallel": "tp",
    "pipeline_parallel": "pp",
    "grad_accumulation_steps": "grad-accum",
    "mixed_precision": "pure-16bit",
    "purchase": "buy",
    "assumptions.mfu": "mfu",
    "assumptions.pipeline_interleaved": "pipeline-schedule",
    "assumptions.lora_rank": "lora-rank",
    "assumptions.lora_all_linear": "lora-targets",
    "electricity_usd_per_kwh": "electricity-usd-per-kwh",
}


def _flag(field: str) -> str:
    name = _FIELD_FLAGS.get(field, field.replace("_", "-"))
    return f"--{name}" if not name.startswith("model") else name


def cmd_plan(args: argparse.Namespace) -> int:
    from gpu_advisor.core.recommend import plan

    req = request_from_args(args)
    if args.calibrate:
        from gpu_advisor.bench.run_calibration import load_calibration

        # ResultsFileError (a UserInputError) names the file and the field: one line, exit 2.
        req = req.model_copy(update={"calibration": load_calibration(args.calibrate, req)})
    if req.gpu is not None:
        from gpu_advisor.core.catalog import default_catalog

        gpu = default_catalog().find(req.gpu)
        if gpu is None:
            raise CliError(f"--gpu: no GPU named {req.gpu!r} in the catalogue (see `gpu-advisor catalog`)")
        # A --gpu of another --tier is planned as the app plans it: the GPU named wins and the plan's
        # warnings say that the tier was ignored (core.recommend words it once, for every face).
    req = with_trace(req, chosen_model(args), explicit=args.trace)
    result = plan(req)
    # What was written goes to stderr, worded as `report` words it: stdout is the plan (or its JSON).
    if args.save:
        from gpu_advisor.core.files import write_json_atomic

        write_file(lambda p: write_json_atomic(p, result.to_json_dict()), args.save)
        print(f"wrote {args.save}", file=sys.stderr)
    if args.markdown:
        from gpu_advisor.report.markdown import write_markdown

        write_file(lambda p: write_markdown(result, p), args.markdown)
        print(f"wrote {args.markdown}", file=sys.stderr)
    if args.pdf:
        from gpu_advisor.report.pdf import write_pdf

        pages = write_file(lambda p: write_pdf(result, p), args.pdf)
        print(f"wrote {args.pdf} ({pages} page{'s' if pages != 1 else ''}, A4)", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_json_dict(), indent=1, allow_nan=False))  # JSON has no NaN or Infinity
    else:
        print(plan_text(result))
        if result.trace is not None:  # the formulas beside the trace the plan used
            from gpu_advisor.wording.trace import format_comparison

            print("\n" + format_comparison(result.trace))
        if result.request.calibration is not None:
            from gpu_advisor.wording.distributed import calibration_lines

            print("\n".join(calibration_lines(result.request.calibration)))
    return 0
