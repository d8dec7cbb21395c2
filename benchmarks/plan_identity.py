"""Write every plan of a fixed set of requests to a file, to prove a change leaves plan() unchanged.

The set: the requests of benchmarks/plan_speed.py, hand-made variants that set every task, precision,
tier and option of core/request.py at least once (calibration and trace included), and random valid
requests from tests/core/plan_fuzz.py drawn with a fixed seed (hypothesis, derandomized). Per request
the file holds its fields, `gpu-advisor plan --json`'s text and `repr(plan.model_dump())`, or the
error plan() raised; a refused request is not kept.

Run on the code before a change and after it, then compare the two files byte for byte:
  PYTHONPATH=OLD_TREE python benchmarks/plan_identity.py write before.txt
  PYTHONPATH=NEW_TREE python benchmarks/plan_identity.py write after.txt
  python benchmarks/plan_identity.py compare before.txt after.txt
The script imports gpu_advisor and tests.core.plan_fuzz from PYTHONPATH, so one copy of it serves
both trees.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

RANDOM_REQUESTS = 1000
SEPARATOR = "\n#### "


def _benchmark_requests() -> Iterator[tuple[str, dict[str, Any]]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from plan_speed import REQUESTS

    for name, fields in REQUESTS.items():
        yield f"benchmark: {name}", fields


def _variants() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every value of every choice in core/request.py, and every optional field, at least once."""
    from gpu_advisor.core.calibration import Calibration, FabricCalibration, LinkMeasurement
    from gpu_advisor.core.precision import Precision, Task

    train = dict(model="llama-2-7b", task="finetune", seq_len=2048)
    serve = dict(model="llama-3-8b", task="inference")
    for task in Task:
        for precision in Precision:
            # Some pairs are refused (pretraining in int4): those are skipped.
            yield (
                f"combination {task} {precision}",
                dict(model="mistral-7b", task=task.value, precision=precision.value),
            )
    for tier in ("datacenter", "workstation", "consumer"):
        yield f"tier {tier} training", train | dict(tier=tier)
        yield f"tier {tier} serving", serve | dict(tier=tier, users=8)
    for optimizer in ("adamw", "adamw-8bit", "sgd", "adafactor"):
        yield f"optimizer {optimizer}", train | dict(optimizer=optimizer)
    for engine in ("vllm", "tensorrt-llm", "llama.cpp", "hf-generate"):
        yield f"engine {engine}", serve | dict(engine=engine, users=4, precision="int8")
    for zero in (0, 1, 2, 3):
        yield f"zero {zero}", dict(model="llama-2-13b", task="pretrain", zero_stage=zero, gpus=8)
    yield "loss chunked", train | dict(loss="chunked")
    yield "attention eager", train | dict(attention="eager", seq_len=1024)
    yield "pure 16-bit", train | dict(mixed_precision=False)
    yield "grad accumulation", train | dict(grad_accumulation_steps=8, batch_size=2)
    yield "fixed gpus", dict(model="llama-3-70b", task="finetune", gpus=32)
    yield "fixed tp pp", dict(model="llama-3-70b", task="pretrain", tensor_parallel=4, pipeline_parallel=4)
    yield "fixed tp serving", serve | dict(model="llama-3-70b", tensor_parallel=8, users=16)
    yield "users and target", serve | dict(users=256, tokens_per_s_per_user=30, prompt_tokens=2000)
    # Mistral 7B's 32k context holds the prompt and the output (Llama 3 8B's 8k would refuse it).
    yield "long output", serve | dict(model="mistral-7b", output_tokens=8192, prompt_tokens=24000)
    yield "requests per second", serve | dict(requests_per_s=20, tokens_per_s_per_user=25)
    yield "ttft", serve | dict(model="llama-3-70b", ttft_s=0.2, users=64)
    yield "encoder", dict(model="bert-large", task="inference", output_tokens=1, users=128)
    yield "encoder training", dict(model="bert-base", task="finetune", seq_len=512, batch_size=32)
    yield "deadline", dict(model="llama-2-13b", task="pretrain", train_tokens=1e11, max_hours=72)
    yield "deadline unreachable", dict(model="llama-2-70b", task="pretrain", train_tokens=1e15, max_hours=1)
    yield "dataset tokens", train | dict(dataset_tokens=5e8, epochs=3)
    yield "dataset samples", train | dict(dataset_samples=200_000)
    yield "one gpu", train | dict(gpu="nvidia-h100-sxm")
    yield "gpu and other tier", serve | dict(gpu="nvidia-h100-sxm", tier="consumer")
    yield "vendor amd", train | dict(vendor="amd")
    yield "vendor nvidia", serve | dict(vendor="nvidia", users=32)
    yield "nvlink only", dict(model="llama-3-70b", task="finetune", require_nvlink=True)
    yield "buy", train | dict(purchase="buy", hours_per_month=200, electricity_usd_per_kwh=0.3)
    yield "buy, own machines", serve | dict(purchase="buy", own_machines=True, users=16)
    yield "buy serving", serve | dict(model="llama-3-70b", purchase="buy", users=64)
    yield "nothing fits", dict(model="llama-3.1-405b", task="finetune", tier="consumer", gpus=2)
    yield "qlora 70b consumer", dict(model="llama-3-70b", task="qlora", tier="consumer")
    yield (
        "moe training",
        dict(model="mixtral-8x7b", task="pretrain", seq_len=4096, train_tokens=1e12, max_hours=500),
    )
    yield "guessed shape", dict(model=("guess", 30_000_000_000), task="inference", users=4)
    yield (
        "assumptions",
        train
        | dict(
            assumptions=dict(
                mfu=0.3,
                prefill_efficiency=0.5,
                bandwidth_efficiency=0.6,
                step_overhead_s=0.001,
                host_overhead_per_layer_s=0.0001,
                cuda_context_bytes=2**30,
                fragmentation=0.1,
                dp_comm_overlap=0.5,
                pipeline_layers_per_virtual_stage=4,
                loss_chunks=16,
                pue=1.5,
                utilisation_of_tdp=0.9,
                lora_rank=64,
                lora_all_linear=True,
                max_prefill_tokens=4096,
                host_usd_per_machine=5000,
                host_power_w_per_machine=500,
            )
        ),
    )
    yield "lora all linear", dict(model="llama-3-8b", task="lora", assumptions=dict(lora_all_linear=True))
    from gpu_advisor.core.precision import Framework

    for framework in Framework:  # those of the tree under test: a stack added later is "only in after"
        if framework is not Framework.DEFAULT:
            stack = dict(framework=framework.value)
            yield f"framework {framework}", dict(model="llama-2-13b", task="pretrain", gpus=8) | stack
            yield f"framework {framework} qlora", dict(model="llama-3-8b", task="qlora") | stack
    yield (
        "pipeline 1f1b",
        dict(
            model="llama-3-70b", task="pretrain", gpus=32, tensor_parallel=8, pipeline_parallel=4,
            assumptions=dict(pipeline_interleaved=False),
        ),
    )  # fmt: skip
    yield (
        "serving assumptions",
        serve | dict(assumptions=dict(bandwidth_efficiency=0.5, step_overhead_s=0.01)),
    )
    fabric = FabricCalibration(
        backend="nccl",
        world_size=16,
        hosts=2,
        links=(
            LinkMeasurement(op="all_reduce", scope="intra-node", busbw_bytes_per_s=50e9, latency_s=2e-5),
            LinkMeasurement(op="all_reduce", scope="inter-node", busbw_bytes_per_s=2e9),
        ),
    )
    yield (
        "calibrated mfu and fabric",
        dict(
            model="llama-2-13b",
            task="pretrain",
            calibration=Calibration(source="run.json", gpu_id="nvidia-a100-sxm-80gb", mfu=0.3, fabric=fabric),
        ),
    )
    yield "calibrated, any gpu", train | dict(calibration=Calibration(source="x.json", mfu=0.4))
    yield "trace", dict(model="llama-3-8b", task="finetune", precision="bf16", seq_len=2048, trace="finetune")


def _trace(model):
    """A traced bf16 AdamW fine-tuning step of `model` (the shape of tests/core/test_trace_plan.py)."""
    from gpu_advisor.core.trace import PhasePeak, TraceResult

    p, gib = model.total_params(), 2**30
    backward = {"parameters": 2 * p, "optimizer_state": 12 * p, "activations": 30 * gib, "gradients": gib}
    step = {"parameters": 2 * p, "optimizer_state": 12 * p, "gradients": 2 * p, "temporaries": gib}
    return TraceResult(
        model=model.name,
        architecture="LlamaForCausalLM (identity check)",
        parameters=p,
        trainable_parameters=p,
        task="finetune",
        precision="bf16",
        optimizer="adamw",
        batch_size=1,
        seq_len=2048,
        step="training step 2",
        peak_bytes=sum(backward.values()),
        peak_moment="backward, in model.layers.0 (mm)",
        peak_phase="backward",
        by_category=backward,
        by_module={"model.layers": sum(backward.values())},
        phases=(
            PhasePeak(phase="backward", peak_bytes=sum(backward.values()), moment="b", by_category=backward),
            PhasePeak(phase="optimizer step", peak_bytes=sum(step.values()), moment="s", by_category=step),
        ),
    )


def _hand_made_requests() -> Iterator[tuple[str, Any]]:
    from pydantic import ValidationError

    from gpu_advisor.core.architecture import guess_from_param_count
    from gpu_advisor.core.presets import get_preset
    from gpu_advisor.core.request import PlanRequest

    for name, fields in [*_benchmark_requests(), *_variants()]:
        model = fields["model"]
        model = guess_from_param_count(model[1]) if isinstance(model, tuple) else get_preset(model)
        fields = fields | {"model": model}
        if fields.get("trace") == "finetune":
            fields["trace"] = _trace(model)
        try:
            yield name, PlanRequest(**fields)
        except ValidationError:
            if not name.startswith("combination "):
                raise  # a hand-made request that is refused is a mistake here


def _random_requests(count: int) -> list[tuple[str, Any]]:
    """The first `count` valid requests of a derandomized draw (the same draw on every run)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from pydantic import ValidationError

    from gpu_advisor.core.errors import UserInputError
    from gpu_advisor.core.request import PlanRequest
    from tests.core.plan_fuzz import requests

    drawn: list[dict[str, Any]] = []

    @settings(
        max_examples=count * 5,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(fields=requests())
    def draw(fields):
        drawn.append(fields)

    draw()
    valid = []
    for i, fields in enumerate(drawn):
        try:
            valid.append((f"random {i}", PlanRequest.model_validate(fields)))
        except (ValidationError, UserInputError):
            continue
        if len(valid) == count:
            break
    return valid


def write(path: Path, random_count: int) -> None:
    from gpu_advisor.core.catalog import default_catalog
    from gpu_advisor.core.recommend import plan

    catalog = default_catalog()
    requests = [*_hand_made_requests(), *_random_requests(random_count)]
    digest = hashlib.sha256()
    with path.open("w", encoding="utf-8") as out:
        for name, req in requests:
            out.write(f"{SEPARATOR}{name}\n")
            out.write(json.dumps(req.model_dump(mode="json"), sort_keys=True) + "\n")
            try:
                result = plan(req, catalog)
            except Exception as exc:  # the error is part of the answer too
                text = f"raised {type(exc).__name__}: {exc}\n"
            else:
                text = (
                    json.dumps(result.to_json_dict(), indent=1, allow_nan=False)
                    + "\n"
                    + repr(result.model_dump())
                    + "\n"
                )
            out.write(text)
            digest.update(text.encode())
    import gpu_advisor

    print(
        f"{len(requests)} requests planned by {Path(gpu_advisor.__file__).parent}, written to {path}; "
        f"sha256 of the answers {digest.hexdigest()[:16]}"
    )


def compare(before: Path, after: Path) -> int:
    """Plans of the same name, byte for byte; names in only one file (a choice added to the request,
    such as a new --framework value, makes a new variant) are listed apart."""
    a = _by_name(before.read_text(encoding="utf-8"))
    b = _by_name(after.read_text(encoding="utf-8"))
    only_before = [name for name in a if name not in b]
    only_after = [name for name in b if name not in a]
    differ = [name for name in a if name in b and a[name] != b[name]]
    for name in differ[:20]:
        print(f"differs: {name}")
    for label, names in (("only in before", only_before), ("only in after", only_after)):
        for name in names:
            print(f"{label}: {name}")
    print(f"{len(a)} and {len(b)} plans, {len(a) - len(only_before)} compared, {len(differ)} differ")
    return 1 if differ or only_before else 0


def _by_name(text: str) -> dict[str, str]:
    parts = text.split(SEPARATOR)[1:]
    return {part.split("\n", 1)[0]: part for part in parts}


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "write":
        write(Path(argv[1]), int(argv[2]) if len(argv) > 2 else RANDOM_REQUESTS)
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
