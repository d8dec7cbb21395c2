"""Layouts chosen by what they serve, the communication model, calibrations, efficiencies per GPU."""

import pytest

from gpu_advisor.core.calibration import Calibration, FabricCalibration, LinkMeasurement
from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.efficiency import architecture_key, resolve_efficiency
from gpu_advisor.core.layout import Parallelism
from gpu_advisor.core.memory import Device, estimate_memory
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(user_file=None)


def _best(catalog, **kw):
    return plan(PlanRequest(**kw), catalog).best


def test_two_gpus_for_one_user_become_tensor_parallelism_not_an_idle_replica(catalog):
    best = _best(catalog, model=get_preset("llama-3-8b"), task="inference", gpu="nvidia-h100-sxm", gpus=2)
    assert best.layout.tensor == 2 and best.layout.data == 1
    single = _best(catalog, model=get_preset("llama-3-8b"), task="inference", gpu="nvidia-h100-sxm", gpus=1)
    # Half the weights per GPU; the fixed per-step overhead and the all-reduces keep it under 2x.
    assert best.speed.tokens_per_s_per_user > 1.3 * single.speed.tokens_per_s_per_user


def test_many_users_on_a_fixed_count_get_replicas_that_serve_them_best(catalog):
    kw = dict(model=get_preset("llama-3-8b"), task="inference", gpu="nvidia-l4", gpus=8, users=256)
    best = _best(catalog, **kw)
    forced_tp = _best(catalog, **kw, tensor_parallel=8)
    assert best.speed.tokens_per_s_per_user >= forced_tp.speed.tokens_per_s_per_user


def test_a_latency_target_is_met_with_tensor_parallelism(catalog):
    kw = dict(model=get_preset("llama-3-70b"), task="inference", gpu="nvidia-h100-sxm", users=1)
    fast = _best(catalog, **kw, tokens_per_s_per_user=60)
    assert fast.layout.tensor >= 4 and fast.speed.tokens_per_s_per_user >= 60


def test_fixed_tp_and_pp_are_kept(catalog):
    best = _best(
        catalog,
        model=get_preset("llama-3-70b"),
        task="pretrain",
        gpu="nvidia-h100-sxm",
        gpus=64,
        tensor_parallel=8,
        pipeline_parallel=4,
        grad_accumulation_steps=8,
        grad_checkpointing=True,
    )
    assert (best.layout.tensor, best.layout.pipeline, best.layout.data) == (8, 4, 2)
    names = {t.name for t in best.speed.terms}
    assert {"tensor-parallel all-reduces", "pipeline bubble", "data-parallel gradient reduction"} <= names


def test_tp_and_pp_must_divide_the_gpus_and_the_heads():
    with pytest.raises(ValueError, match="gpus"):
        PlanRequest(model=get_preset("llama-3-8b"), gpus=6, tensor_parallel=4)
    with pytest.raises(ValueError, match="tensor_parallel"):
        PlanRequest(model=get_preset("llama-3-8b"), tensor_parallel=3)


def test_the_pipeline_bubble_shrinks_with_more_micro_batches(catalog):
    def bubble(m):
        best = _best(
            catalog,
            model=get_preset("llama-3-70b"),
            task="pretrain",
            gpu="nvidia-h100-sxm",
            gpus=32,
            tensor_parallel=8,
            pipeline_parallel=4,
            grad_accumulation_steps=m,
            grad_checkpointing=True,
        )
        term = next(t for t in best.speed.terms if t.name == "pipeline bubble")
        return term.seconds / best.speed.step_time_s

    assert bubble(32) < bubble(4) / 3


def test_recomputation_is_real_work_so_hfu_holds_and_mfu_falls_by_the_recomputed_share(catalog):
    """Checkpointing recomputes the forward: the GPU runs 8P FLOPs per token instead of 6P at the same
    rate, so the executed-FLOP utilisation (HFU) holds and MFU, on the 6P that train the model, falls
    by about a quarter. A free recomputation would make checkpointing look costless to the planner."""
    kw = dict(
        model=get_preset("llama-2-7b"),
        task="pretrain",
        gpu="nvidia-a100-sxm-80gb",
        gpus=8,
        seq_len=2048,
        batch_size=1,
        zero_stage=3,
    )
    plain = _best(catalog, **kw).speed
    ckpt = _best(catalog, **kw, grad_checkpointing=True).speed
    assert ckpt.hfu == pytest.approx(plain.hfu, rel=0.05)
    assert ckpt.hfu == pytest.approx(ckpt.mfu * ckpt.hardware_flops_per_token / ckpt.flops_per_token)
    assert ckpt.mfu < 0.8 * plain.mfu
    assert ckpt.step_time_s > 1.25 * plain.step_time_s


def test_zero3_gathers_make_thousands_of_gpus_communication_bound(catalog):
    def per_gpu(n):
        best = _best(
            catalog,
            model=get_preset("llama-2-70b"),
            task="pretrain",
            gpu="nvidia-a100-sxm-80gb",
            gpus=n,
            seq_len=4096,
            batch_size=1,  # one sequence per GPU: the gathers are not amortised over a larger micro-batch
            grad_accumulation_steps=1,  # nor over accumulation (a lock: no published global batch applied)
            grad_checkpointing=True,
            zero_stage=3,
            tensor_parallel=1,
        )
        return best.speed.tokens_per_s / n, best.speed.bound

    small, _ = per_gpu(64)
    large, bound = per_gpu(8192)
    assert large < small / 2 and bound == "communication"


def test_a_measured_fabric_replaces_the_catalogue_links(catalog):
    slow = FabricCalibration(
        backend="nccl",
        world_size=16,
        hosts=2,
        links=(
            LinkMeasurement(op="all_reduce", scope="intra-node", busbw_bytes_per_s=50e9),
            LinkMeasurement(op="all_reduce", scope="inter-node", busbw_bytes_per_s=2e9),
        ),
    )
    kw = dict(model=get_preset("llama-2-13b"), task="pretrain", gpu="nvidia-h100-sxm", gpus=16, zero_stage=0)
    catalogue = _best(catalog, **kw)
    cal = Calibration(source="cluster.json", gpu_id="nvidia-h100-sxm", fabric=slow)
    measured = _best(catalog, **kw, calibration=cal)
    assert measured.speed.step_time_s > catalogue.speed.step_time_s
    text = " ".join(t.formula for t in measured.speed.terms)
    assert "measured" in text and "cluster.json" in text


def test_a_fabric_measured_on_one_gpu_kind_is_refused_for_another_with_a_warning(catalog):
    """A cluster file from H100s says nothing of MI300X links (nor a gloo/CPU one of any GPU's): the
    MI300X keeps its catalogue links and the plan's warnings name what was measured."""
    from gpu_advisor.core.recommend import plan
    from gpu_advisor.core.request import PlanRequest

    fabric = FabricCalibration(
        backend="nccl",
        world_size=16,
        hosts=2,
        device_name="NVIDIA H100 80GB HBM3",
        links=(LinkMeasurement(op="all_reduce", scope="intra-node", busbw_bytes_per_s=50e9),),
    )
    cal = Calibration(source="cluster.json", gpu_id="nvidia-h100-sxm", fabric=fabric)
    kw = dict(
        model=get_preset("llama-2-13b"), task="pretrain", gpu="amd-instinct-mi300x", gpus=8, zero_stage=0
    )
    assert _best(catalog, **kw, calibration=cal).speed.step_time_s == _best(catalog, **kw).speed.step_time_s
    warnings = plan(PlanRequest(**kw, calibration=cal), catalog).warnings
    assert any("nccl on NVIDIA H100 80GB HBM3" in w and "AMD Instinct MI300X" in w for w in warnings)
    cpu = cal.model_copy(
        update={"fabric": fabric.model_copy(update={"backend": "gloo", "device_kind": "cpu"})}
    )
    h100 = dict(kw, gpu="nvidia-h100-sxm")
    assert (
        _best(catalog, **h100, calibration=cpu).speed.step_time_s == _best(catalog, **h100).speed.step_time_s
    )


def test_a_calibrated_mfu_replaces_the_table_for_its_gpu_only(catalog):
    cal = Calibration(source="run.json", gpu_id="nvidia-a100-sxm-80gb", mfu=0.30)
    kw = dict(model=get_preset("llama-2-7b"), task="pretrain", gpus=8, calibration=cal)
    a100 = _best(catalog, **kw, gpu="nvidia-a100-sxm-80gb").speed
    h100 = _best(catalog, **kw, gpu="nvidia-h100-sxm").speed
    assert "run.json" in a100.efficiency_source and "run.json" not in h100.efficiency_source
    assert a100.mfu < 0.31


def test_efficiencies_depend_on_architecture_precision_and_engine():
    def eff(arch, dtype, key="16-bit", engine=None):
        return resolve_efficiency(arch, False, dtype, key, engine, None, None, None)

    assert architecture_key("Ampere (GA102)") == "Ampere"
    assert eff("Ampere", "bf16").mfu > eff("Hopper", "bf16").mfu  # published A100 runs reach more
    assert eff("Hopper", "fp8").mfu * 2 / eff("Hopper", "bf16").mfu == pytest.approx(1.28, rel=0.02)
    from gpu_advisor.core.precision import Engine

    assert (
        eff("Ampere", "fp16", "gguf-q4", Engine.LLAMA_CPP).bandwidth
        < eff("Ampere", "fp16", "16-bit", Engine.LLAMA_CPP).bandwidth
    )
    assert "no measurement" in eff("Turing", "fp16").mfu_source


def test_zero3_gathered_layers_are_tensor_parallel_shards_too():
    req = PlanRequest(model=get_preset("llama-3-70b"), task="pretrain", seq_len=4096, grad_checkpointing=True)
    for tp in (2, 4, 8):
        z1 = estimate_memory(req, Parallelism(tensor=tp, data=64, zero_stage=1)).total_bytes
        z3 = estimate_memory(req, Parallelism(tensor=tp, data=64, zero_stage=3)).total_bytes
        assert z3 < z1


def test_gradient_accumulation_keeps_gradients_at_the_start_of_backward():
    base = dict(model=get_preset("llama-2-7b"), task="finetune", seq_len=2048, batch_size=4)
    one = estimate_memory(PlanRequest(**base), device=Device.CPU)
    four = estimate_memory(PlanRequest(**base, grad_accumulation_steps=4), device=Device.CPU)
    assert one.phase == four.phase == "backward"
    assert four.components.gradients == pytest.approx(2 * base["model"].total_params(), rel=0.01)
    assert four.total_bytes > one.total_bytes


def test_chunked_cross_entropy_saves_the_fp32_logits():
    base = dict(model=get_preset("llama-3-8b"), task="lora", seq_len=4096, batch_size=2)
    full = estimate_memory(PlanRequest(**base), device=Device.CPU).components.activations
    chunked = estimate_memory(PlanRequest(**base, loss="chunked"), device=Device.CPU).components.activations
    # b s V = 1.05e9 logits: 12 B of fp32 tensors each, against one of eight chunks
    assert full - chunked == pytest.approx(2 * 4096 * 128256 * 12 * 7 / 8, rel=0.01)


def test_qlora_8b_fits_one_rtx_4090_as_torchtune_runs_it(catalog):
    # torchtune README: Llama 3.1 8B QLoRA on 1 x RTX 4090 at 7.4 GiB peak (batch 2, packed 2,048).
    best = _best(
        catalog,
        model=get_preset("llama-3-8b"),
        task="qlora",
        gpu="nvidia-rtx-4090",
        seq_len=2048,
        batch_size=2,
        grad_checkpointing=True,
        loss="chunked",
    )
    assert best.count == 1 and best.fits


def test_nf4_inference_keeps_embeddings_in_16_bit():
    model = get_preset("llama-3-8b")
    req = PlanRequest(model=model, task="inference", precision="nf4")
    weights = estimate_memory(req, device=Device.CPU).components.weights
    emb = model.embedding_params()
    assert weights == pytest.approx(2 * emb + (model.total_params() - emb) * 4.127 / 8, rel=1e-6)


def test_small_decode_steps_pay_the_engines_overhead(catalog):
    kw = dict(model=get_preset("gpt2-small"), task="inference", gpu="nvidia-a100-sxm-80gb")
    hf = _best(catalog, **kw, engine="hf-generate").speed
    trt = _best(catalog, **kw, engine="tensorrt-llm").speed
    assert hf.decode_s_per_token >= 12 * 0.0012  # 12 layers of eager host time
    assert trt.decode_s_per_token < hf.decode_s_per_token / 5
