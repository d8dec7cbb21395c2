"""The memory a training stack keeps beyond the formulas (core/stack_memory.py): each buffer is named in
the plan, counted in its component, split the way the stack splits it, and shown with its source."""

from __future__ import annotations

import json

from gpu_advisor.cli import run_cli
from gpu_advisor.core.layout import Parallelism
from gpu_advisor.core.memory import Device, estimate_memory
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.request import Assumptions, PlanRequest
from gpu_advisor.wording.plan_tables import memory_row_bytes, memory_rows

LLAMA_7B = get_preset("llama-2-7b")
LLAMA_8B = get_preset("llama-3-8b")


def _pretrain(framework: str, par: Parallelism):
    req = PlanRequest(model=LLAMA_7B, task="pretrain", precision="bf16", framework=framework)
    return estimate_memory(req, par, device=Device.CPU)


def test_deepspeed_bf16_optimizer_keeps_an_fp32_gradient_buffer_that_dp_does_not_shard():
    p = LLAMA_7B.total_params()
    for par in (Parallelism(data=8, zero_stage=1), Parallelism(tensor=2, data=4, zero_stage=1)):
        default = _pretrain("default", par).components
        stack = _pretrain("megatron-deepspeed", par)
        buffer = p * 4 / par.tensor  # the whole rank's parameters in fp32, whatever the DP degree
        assert abs(stack.components.gradients - default.gradients - buffer) <= 2
        assert stack.components.optimizer == default.optimizer
        (part,) = stack.stack_parts
        assert part.name == "DeepSpeed BF16_Optimizer fp32 gradient buffer"
        assert part.component == "gradients" and abs(part.bytes - buffer) <= 1
        assert "bf16_optimizer.py" in part.source
        assert "BF16_Optimizer" in stack.formulas["gradients"]
    # ZeRO-2 and 3 run DeepSpeed's ZeRO optimizers instead: no such buffer there.
    zero2 = Parallelism(data=8, zero_stage=2)
    assert _pretrain("megatron-deepspeed", zero2).components == _pretrain("default", zero2).components


def test_megatron_core_holds_every_gradient_in_fp32_and_shards_only_the_optimizer():
    p = LLAMA_7B.total_params()
    for dp in (1, 8, 64):
        with_distopt = _pretrain("megatron-core", Parallelism(data=dp, zero_stage=1)).components
        # Megatron's table: bf16 params and fp32 grads take 6 + 12/d bytes per parameter.
        per_param = (with_distopt.weights + with_distopt.gradients + with_distopt.optimizer) / p
        assert abs(per_param - (6 + 12 / dp)) < 1e-6
    without = _pretrain("megatron-core", Parallelism(data=8, zero_stage=0))
    assert (
        abs(
            (without.components.weights + without.components.gradients + without.components.optimizer) / p
            - 18
        )
        < 1e-6
    )
    assert without.formulas["gradients"].startswith("no 16-bit gradients")


def test_the_buffers_leave_adapters_serving_and_other_precisions_alone():
    lora = PlanRequest(model=LLAMA_8B, task="lora", framework="megatron-deepspeed")
    assert estimate_memory(lora).stack_parts == ()
    serving = PlanRequest(model=LLAMA_8B, task="inference", framework="hf-trainer")
    assert estimate_memory(serving) == estimate_memory(serving.model_copy(update={"framework": "default"}))
    fp16 = PlanRequest(model=LLAMA_7B, task="pretrain", precision="fp16", framework="megatron-deepspeed")
    assert estimate_memory(fp16).stack_parts == ()  # fp16 runs DeepSpeed's FP16 optimizer, not BF16's


def _qlora(framework: str):
    req = PlanRequest(
        model=LLAMA_8B,
        task="qlora",
        seq_len=2048,
        batch_size=2,
        grad_checkpointing=True,
        framework=framework,
        assumptions=Assumptions(lora_rank=16, lora_all_linear=True),
    )
    return estimate_memory(req, device=Device.CPU)


def test_peft_kbit_preparation_upcasts_embeddings_head_and_norms_and_the_logits_to_fp32():
    default, hf = _qlora("default"), _qlora("hf-trainer")
    upcast = LLAMA_8B.embedding_params() + LLAMA_8B.n_layers * LLAMA_8B.layer_norms * LLAMA_8B.norm_params()
    assert abs(hf.components.weights - default.components.weights - 2 * upcast) <= 2
    logits = 2 * 2048 * LLAMA_8B.vocab_size * 2  # b x s x V x (4 - 2) B
    assert hf.phase == "backward"
    assert abs(hf.components.activations - default.components.activations - logits) <= 2
    names = [part.name for part in hf.stack_parts]
    assert names == [
        "PEFT k-bit preparation: embeddings, head and norms upcast to fp32",
        "fp32 logits returned by the model",
    ]
    # Llama 3 8B's untied 128k vocabulary: about 2 GiB more weights, the difference a buyer of a 12 GiB
    # card notices.
    assert 1.9 * 2**30 < hf.components.weights - default.components.weights < 2.1 * 2**30


def test_the_breakdown_lists_each_buffer_under_its_component_with_its_source():
    hf = _qlora("hf-trainer")
    rows = memory_rows(hf)
    labels = [row[0] for row in rows]
    weights = labels.index("Weights")
    assert labels[weights + 1].startswith("  of which: PEFT k-bit preparation")
    assert "peft/utils/other.py" in rows[weights + 1][2]
    assert len(memory_row_bytes(hf)) == len(rows)
    assert memory_row_bytes(hf)[-1] == hf.total_bytes


def _plan_json(capsys, argv: list[str]) -> dict:
    assert run_cli(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_the_cli_framework_flag_names_the_buffers_and_the_default_plan_reads_as_before(capsys):
    base = ["plan", "--model", "llama-2-7b", "--task", "pretrain", "--gpu", "nvidia-h100-sxm", "--gpus", "8"]
    default = _plan_json(capsys, [*base, "--json"])
    assert "stack_parts" not in default["memory"] and "stack_parts" not in default["options"][0]
    core = _plan_json(capsys, [*base, "--framework", "megatron-core", "--json"])
    parts = core["options"][0]["stack_parts"]
    assert [p["name"] for p in parts] == [
        "Megatron DDP fp32 main_grad buffer (replaces the 16-bit gradients)"
    ]
    assert parts[0]["bytes"] > 0 and "Megatron-LM" in parts[0]["source"]
    assert core["options"][0]["per_gpu_bytes"] > default["options"][0]["per_gpu_bytes"]


def test_fsdp_keeps_its_root_unit_whole_from_forward_to_backward_under_full_shard_only():
    req = PlanRequest(
        model=LLAMA_8B, task="finetune", seq_len=4096, grad_checkpointing=True, framework="fsdp"
    )
    base = req.model_copy(update={"framework": "default"})
    root = LLAMA_8B.embedding_params() * 2  # embeddings, final norm and untied head in bf16
    for dp in (8, 64):  # not divided by the data-parallel degree
        full = estimate_memory(req, Parallelism(data=dp, zero_stage=3), device=Device.CPU)
        plain = estimate_memory(base, Parallelism(data=dp, zero_stage=3), device=Device.CPU)
        assert full.phase == "backward"
        assert abs(full.components.weights - plain.components.weights - root) <= 2
        assert full.stack_parts[0].name.startswith("FSDP root unit")
    grad_op = Parallelism(data=8, zero_stage=2)  # SHARD_GRAD_OP: every weight is whole anyway
    assert estimate_memory(req, grad_op).total_bytes == estimate_memory(base, grad_op).total_bytes
