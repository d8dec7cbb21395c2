"""Published measurements the engine is held against, and the engine's figure for each.

Every entry names its source (paper and table, or repository and file) and the published setup (model,
GPUs, layout, batch, recipe), which becomes a plan request with the default assumptions; the engine's
figure is read off the plan. `sets_default` marks the measurements a default efficiency was taken from:
they are shown beside the others but do not count as independent checks. `known_miss` names the cause of
a measurement the engine is known to miss (outside its tolerance): it stays in, is counted as a miss in the
README's table, and the test asserts it still misses, so a model that fixes it must drop the mark.
tests/core/test_published.py asserts each within its tolerance; scripts/method_table.py prints them
in the README's table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .architecture import ModelSpec
from .catalog import Catalog
from .estimates import TrainingSpeed
from .layout import Parallelism
from .memory import Device, OptimizerImpl, estimate_memory
from .presets import get_preset
from .recommend import plan
from .request import Assumptions, PlanRequest
from .result import Option

SPEED_TOLERANCE = 0.25
MEMORY_TOLERANCE = 0.10
GIB = 2**30

FOUNDRY = "mosaicml/llm-foundry scripts/train/benchmarking/README.md"
TRTLLM = "NVIDIA/TensorRT-LLM docs/source/performance.md"


def _gpt(
    name: str, hidden: int, layers: int, heads: int, vocab: int = 50368, untied: bool = False
) -> ModelSpec:
    """A GPT-style model without dropout (MPT, GPT-3, GPT-J shapes): GELU MLP of 4h, learned positions."""
    return ModelSpec(
        name=name,
        family="gpt2",
        n_layers=layers,
        hidden_size=hidden,
        n_heads=heads,
        ffn_size=4 * hidden,
        vocab_size=vocab,
        max_positions=2048,
        dropout=False,
        tied_embeddings=not untied,
        source="published shape",
    )


MPT_760M = _gpt("MPT-760M", 1536, 24, 12)
MPT_1B = _gpt("MPT-1B", 2048, 24, 16)
MPT_3B = _gpt("MPT-3B", 2560, 32, 32)
MPT_7B = _gpt("MPT-7B", 4096, 32, 32)
MPT_13B = _gpt("MPT-13B", 5120, 40, 40)
MPT_30B = _gpt("MPT-30B", 7168, 48, 64)
MPT_70B = _gpt("MPT-70B", 8192, 80, 64)
GPT3_175B = _gpt("GPT-3 175B", 12288, 96, 96, vocab=51200)
BLOOM_176B = _gpt("BLOOM 176B", 14336, 70, 112, vocab=250880)
MT_NLG_530B = _gpt("MT-NLG 530B", 20480, 105, 128, vocab=50272)
GPTJ_6B = _gpt("GPT-J 6B", 4096, 28, 16, vocab=50400, untied=True)
LLAMA_32_3B = ModelSpec(
    name="Llama 3.2 3B",
    family="llama",
    n_layers=28,
    hidden_size=3072,
    n_heads=24,
    n_kv_heads=8,
    ffn_size=8192,
    vocab_size=128256,
    max_positions=131072,
    tied_embeddings=True,
    source="meta-llama/Llama-3.2-3B config.json",
)
# LitGPT's resource tables' smaller models: GELU MLPs of 4h without dropout, untied heads. phi-1.5 runs
# attention and MLP in parallel off one LayerNorm; both use rotary positions, which the gpt2 family's
# learned positions (2,048 x h, under 0.6 % of the weights) stand in for.
PHI_15 = ModelSpec(
    name="phi-1.5",
    family="gpt2",
    n_layers=24,
    hidden_size=2048,
    n_heads=32,
    ffn_size=8192,
    vocab_size=51200,
    dropout=False,
    tied_embeddings=False,
    norms_per_layer=1,
    source="microsoft/phi-1_5 config.json",
)
STABLELM_ALPHA_3B = ModelSpec(
    name="StableLM Alpha 3B",
    family="gpt2",
    n_layers=16,
    hidden_size=4096,
    n_heads=32,
    ffn_size=16384,
    vocab_size=50688,
    dropout=False,
    tied_embeddings=False,
    source="stabilityai/stablelm-base-alpha-3b config.json",
)


@dataclass(frozen=True)
class Published:
    """One published measurement and how to ask the engine for the same figure."""

    key: str
    kind: str  # "training throughput", "training at scale", "GPU-hours", "fine-tuning memory", ...
    what: str
    published: float
    unit: str
    source: str
    engine_figure: Callable[[Catalog], float]
    tolerance: float = SPEED_TOLERANCE
    sets_default: bool = False
    known_miss: str = ""  # the cause, where the engine is known to miss this measurement


def _best(req: PlanRequest, catalog: Catalog) -> Option:
    """The plan's first option for the recipe the publication used: every knob locked, so the
    planner's recipe search (core/recipe.py) changes nothing the paper fixed."""
    as_published = req.model_copy(
        update={
            "grad_checkpointing": bool(req.grad_checkpointing),
            "batch_size": req.batch_size,
            "grad_accumulation_steps": req.grad_accumulation_steps,
            "loss": req.loss,
        }
    )
    return plan(as_published, catalog).options[0]


def _train(model: ModelSpec, gpu: str, gpus: int, seq: int, micro: int, **kw) -> Callable[[Catalog], Option]:
    def run(catalog: Catalog) -> Option:
        req = PlanRequest(
            model=model, task="pretrain", gpu=gpu, gpus=gpus, seq_len=seq, batch_size=micro, **kw
        )
        return _best(req, catalog)

    return run


def _mt_nlg_or_bloom(
    model: ModelSpec, gpus: int, tp: int, pp: int, micro: int, batch: int, zero_stage: int
) -> Callable[[Catalog], Option]:
    """A Megatron-DeepSpeed run on A100 80GB: DeepSpeed's plain 1F1B pipeline, full recomputation, and
    Megatron's fused softmax over materialised scores (these runs predate flash attention)."""
    dp = gpus // (tp * pp)
    return _train(
        model,
        "nvidia-a100-sxm-80gb",
        gpus,
        2048,
        micro,
        grad_accumulation_steps=batch // (dp * micro),
        grad_checkpointing=True,
        tensor_parallel=tp,
        pipeline_parallel=pp,
        zero_stage=zero_stage,
        framework="megatron-deepspeed",
        attention="eager",
        assumptions=Assumptions(pipeline_interleaved=False),
    )


def _tokens_per_gpu(run: Callable[[Catalog], Option]) -> Callable[[Catalog], float]:
    return lambda catalog: (lambda o: o.speed.tokens_per_s / o.count)(run(catalog))


def _model_tflops_per_gpu(run: Callable[[Catalog], Option]) -> Callable[[Catalog], float]:
    return lambda catalog: (lambda o: o.speed.tokens_per_s / o.count * o.speed.flops_per_token / 1e12)(
        run(catalog)
    )


def _training_speed(option: Option) -> TrainingSpeed:
    """The speed of an option a training run planned (the figures below are published for training)."""
    if option.training is None:
        raise TypeError(f"{option.count} × {option.gpu} is an inference option: no training speed")
    return option.training


def _hardware_tflops_per_gpu(run: Callable[[Catalog], Option]) -> Callable[[Catalog], float]:
    return lambda catalog: (
        lambda o: o.speed.tokens_per_s / o.count * _training_speed(o).hardware_flops_per_token / 1e12
    )(run(catalog))


def _gpu_hours(run: Callable[[Catalog], Option]) -> Callable[[Catalog], float]:
    def hours(catalog: Catalog) -> float:
        option = run(catalog)
        gpu_hours = _training_speed(option).gpu_hours
        if gpu_hours is None:
            raise ValueError(f"{option.count} × {option.gpu}: no GPU-hours without a token budget")
        return gpu_hours

    return hours


def _foundry(
    key: str,
    table: str,
    model: ModelSpec,
    gpu: str,
    gpus: int,
    seq: int,
    micro: int,
    accumulation: int,
    recomputation: bool,
    tokens_per_s_per_gpu: float,
    precision: str = "bf16",
    pure_bf16: bool = False,
) -> Published:
    """One row of llm-foundry's MPT benchmark tables: FSDP FULL_SHARD over every GPU, tokens/s per GPU.
    `pure_bf16` is the tables' "bf16 PURE" mode (bf16 weights and optimizer state, no fp32 master)."""
    recipe = "recomputation" if recomputation else "no recomputation"
    mode = "pure bf16" if pure_bf16 else precision
    return Published(
        key,
        "training throughput",
        f"{model.name}, {gpus} x {table}, FSDP, seq {seq:,}, micro-batch {micro} x {accumulation}, "
        f"{mode}, {recipe}",
        tokens_per_s_per_gpu,
        "tokens/s/GPU",
        f"{FOUNDRY}, '{table}' table",
        _tokens_per_gpu(
            _train(
                model,
                gpu,
                gpus,
                seq,
                micro,
                precision=precision,
                grad_accumulation_steps=accumulation,
                grad_checkpointing=recomputation,
                mixed_precision=not pure_bf16,
                zero_stage=3,
                tensor_parallel=1,
            )
        ),
    )


def _serve(
    model: ModelSpec, gpu: str, tp: int, users: int, prompt: int, output: int, precision: str, engine: str
):
    def run(catalog: Catalog) -> Option:
        req = PlanRequest(
            model=model,
            task="inference",
            precision=precision,
            gpu=gpu,
            gpus=tp,
            tensor_parallel=tp,
            users=users,
            prompt_tokens=prompt,
            output_tokens=output,
            engine=engine,
        )
        return _best(req, catalog)

    return run


def _first_token_ms(run) -> Callable[[Catalog], float]:
    return lambda catalog: run(catalog).speed.prefill_s * 1e3


def _static_batch_tokens_per_gpu(run, batch: int, output: int) -> Callable[[Catalog], float]:
    """A static batch (TensorRT-LLM's gptSessionBenchmark): every prompt prefilled, then `output` decode
    steps at the full batch; output tokens per second per GPU."""

    def figure(catalog: Catalog) -> float:
        o = run(catalog)
        total_s = batch * o.speed.prefill_s + output * o.speed.decode_s_per_token
        return batch * output / total_s / o.count

    return figure


def _trt_static_batch(
    key: str,
    table: str,
    model: ModelSpec,
    gpu: str,
    tp: int,
    batch: int,
    prompt: int,
    output: int,
    tok_s: float,
) -> Published:
    """One row of TensorRT-LLM's 'Peak Throughput' tables (gptSessionBenchmark, a static batch): output
    tokens per second per GPU. FP8 (weights and KV cache) on H100 and L40S, FP16 on A100."""
    precision = "fp16" if "A100" in table else "fp8"
    name, version = table.split(" (")
    gpus = f"{tp} x {'A100 80GB' if name == 'A100' else name}" + (f" (TP {tp})" if tp > 1 else "")
    return Published(
        key,
        "serving throughput",
        f"{model.name}, {gpus}, {precision.upper()}, batch {batch}, {prompt:,} + {output:,} tokens",
        tok_s,
        "tokens/s/GPU",
        f"{TRTLLM}, 'Peak Throughput' {name} table ({version}",
        _static_batch_tokens_per_gpu(
            _serve(model, gpu, tp, batch, prompt, output, precision, "tensorrt-llm"), batch, output
        ),
    )


def _batch_latency_ms(
    model: ModelSpec, gpu: str, tp: int, batch: int, prompt: int, output: int, precision: str
) -> Callable[[Catalog], float]:
    """One batch of requests from first prompt to last token (vLLM's benchmark_latency.py): the batch's
    prompts prefilled together (the engine's prefill of batch x prompt tokens), then `output` decode
    steps at the full batch."""
    decode = _serve(model, gpu, tp, batch, prompt, output, precision, "vllm")
    prefill = _serve(model, gpu, tp, 1, batch * prompt, 1, precision, "vllm")

    def figure(catalog: Catalog) -> float:
        return (prefill(catalog).speed.prefill_s + output * decode(catalog).speed.decode_s_per_token) * 1e3

    return figure


def _tokens_per_s_per_user(run) -> Callable[[Catalog], float]:
    return lambda catalog: run(catalog).speed.tokens_per_s_per_user


def _ms_per_token(run) -> Callable[[Catalog], float]:
    return lambda catalog: run(catalog).speed.decode_s_per_token * 1e3


def _torchtune_3b_gib(**recipe) -> Callable[[Catalog], float]:
    """torchtune's Llama 3.2 3B full fine-tune table: batch 2, packed 4,096-token sequences, bf16 weights
    and AdamW state (no fp32 master), fused AdamW, one A100. "Peak memory active" counts tensors only, so
    the engine's figure is its live-tensor total (no CUDA context, no allocator slack)."""

    def figure(_catalog: Catalog) -> float:
        req = PlanRequest(
            model=LLAMA_32_3B,
            task="finetune",
            precision="bf16",
            seq_len=4096,
            batch_size=2,
            mixed_precision=False,
            **recipe,
        )
        return (
            estimate_memory(
                req, Parallelism(), device=Device.CPU, optimizer_impl=OptimizerImpl.FUSED
            ).total_bytes
            / GIB
        )

    return figure


LITGPT_TABLES = (
    "Lightning-AI/litgpt tutorials/resource-tables.md (commit 8641822, 1 x A100-SXM4-40GB, "
    "--precision bf16-true), 'Finetuning with LoRA on 1 GPU', Max GPU RAM"
)
LITGPT_HUB = (
    "Lightning-AI/litgpt config_hub/finetune/README.md (bf16-true, Alpaca2k, max_seq_length 512, "
    "1 x A10G), Peak memory"
)
# LitGPT's rows are planned with its stack (--framework litgpt, core/litgpt_memory.py): its LoRA block's
# saved tensors per operation, Fabric's fp32 logits, and for QLoRA what bitsandbytes 0.41-0.42 keeps:
# MatMul4Bit kept each 4-bit linear's input on ctx (removed by bitsandbytes PR #1270, 2024-07-16), which
# backward does not release, so LitGPT's loop, which holds the last step's logits until the next forward
# returns, keeps the previous step's inputs too; bnb.nf4 has no double quantisation and quantises the
# head, which each 128-token chunk dequantises (fp16, then a bf16 copy). The resource tables force the
# longest example first (finetune/lora.py, get_batch(..., longest_seq_ix if iter_num == 0)) and draw
# the rest at random from Alpaca, most far shorter: their peak is that first step's, with no previous
# step held, so their QLoRA figure leaves that buffer out. The config hub's runs pad every micro-batch
# of 2 to its longest example cut at 512 tokens (Alpaca2k): consecutive full-length steps, as the plan.
PREVIOUS_STEP_PART = "the previous step's kept 4-bit inputs, alive through the next forward"


def _litgpt_lora_gb(
    model: ModelSpec, task: str, micro: int, seq: int, rank: int, first_step: bool
) -> Callable[[Catalog], float]:
    """LitGPT's LoRA recipe (--framework litgpt): r on query and value, dropout 0.05, bf16-true (weights,
    adapters and torch AdamW's state in bf16; QLoRA's PagedAdamW in fp32), no checkpointing,
    micro-batches padded to their longest example (Alpaca's longest: 1,304 Llama 2, 1,044 phi-1.5, 1,034
    StableLM tokens; or max_seq_length 512), the head in 128-token chunks. Peak memory is
    torch.cuda.max_memory_allocated() / 1e9: tensors only, so the engine's figure is its live-tensor
    total (torch.optim.AdamW's foreach step on CUDA). `first_step`: the run peaks at its first step (the
    longest example first), where no previous step's graph is held."""

    def figure(_catalog: Catalog) -> float:
        req = PlanRequest(
            model=model,
            task=task,
            precision="bf16",
            seq_len=seq,
            batch_size=micro,
            mixed_precision=False,
            loss="chunked",
            framework="litgpt",
            assumptions=Assumptions(lora_rank=rank),
        )
        est = estimate_memory(req, Parallelism(), device=Device.CPU, optimizer_impl=OptimizerImpl.FOREACH)
        held = sum(p.bytes for p in est.stack_parts if p.name == PREVIOUS_STEP_PART) if first_step else 0
        return (est.total_bytes - held) / 1e9

    return figure


def _litgpt(
    key: str,
    model: ModelSpec,
    task: str,
    micro: int,
    seq: int,
    rank: int,
    gb: float,
    known_miss: str = "",
) -> Published:
    """One row of LitGPT's memory tables: the resource tables (seq = Alpaca's longest example, A100 40GB,
    the longest example first) or the config hub (seq = max_seq_length 512, A10G)."""
    hub = seq == 512
    quant = "QLoRA (bnb.nf4)" if task == "qlora" else "LoRA"
    gpu = "A10G" if hub else "A100 40GB"
    where = (
        f"row {key.removeprefix('litgpt-hub-' + task + '-')}/{task}.yaml"
        if hub
        else (f"row {model.name}, {'bnb.nf4' if task == 'qlora' else 'None'}, {micro}")
    )
    return Published(
        key,
        "fine-tuning memory",
        f"{model.name} {quant} r {rank} (query, value), LitGPT bf16-true, 1 x {gpu}, micro-batch {micro} x "
        f"{seq:,} tokens",
        gb,
        "GB",
        f"{LITGPT_HUB if hub else LITGPT_TABLES}, {where}",
        _litgpt_lora_gb(model, task, micro, seq, rank, first_step=not hub),
        MEMORY_TOLERANCE,
        known_miss=known_miss,
    )


def _model_state_bytes_per_param(
    model: ModelSpec, framework: str, dp: int, zero: int
) -> Callable[[Catalog], float]:
    """Weights + gradients + optimizer state per parameter on one GPU of a bf16 mixed-precision AdamW
    pretraining run of `model` over `dp` data-parallel GPUs (the stack's buffers included)."""

    def figure(_catalog: Catalog) -> float:
        req = PlanRequest(model=model, task="pretrain", precision="bf16", framework=framework)
        c = estimate_memory(req, Parallelism(data=dp, zero_stage=zero), device=Device.CPU).components
        return (c.weights + c.gradients + c.optimizer) / model.total_params()

    return figure


def published() -> tuple[Published, ...]:
    """Every published measurement the engine is checked against."""
    l2_7b, l2_70b, l3_8b = get_preset("llama-2-7b"), get_preset("llama-2-70b"), get_preset("llama-3-8b")
    l2_13b, mistral = get_preset("llama-2-13b"), get_preset("mistral-7b")
    l3_70b, l405, mixtral = (
        get_preset("llama-3-70b"),
        get_preset("llama-3.1-405b"),
        get_preset("mixtral-8x7b"),
    )
    a100, h100, h200 = "nvidia-a100-sxm-80gb", "nvidia-h100-sxm", "nvidia-h200-sxm"
    a100_40, l40s = "nvidia-a100-sxm-40gb", "nvidia-l40s"
    fsdp = {"zero_stage": 3, "tensor_parallel": 1}
    # Llama 3's Table 4 layout (TP 8 x PP 16, ZeRO-1, seq 8,192, micro-batch 1) at 16,384 H100s
    llama3_table4 = {
        "tensor_parallel": 8,
        "pipeline_parallel": 16,
        "zero_stage": 1,
        "grad_accumulation_steps": 16,
    }
    return (
        # ---- training throughput at 8 GPUs ---------------------------------------------------------
        Published(
            "foundry-mpt7b-a100",
            "training throughput",
            "MPT-7B, 8 x A100 80GB, FSDP, seq 2,048, micro-batch 6 x 2, bf16, no recomputation",
            4641,
            "tokens/s/GPU",
            f"{FOUNDRY}, 'A100 80GB' table",
            _tokens_per_gpu(_train(MPT_7B, a100, 8, 2048, 6, grad_accumulation_steps=2, **fsdp)),
        ),
        Published(
            "foundry-mpt30b-a100",
            "training throughput",
            "MPT-30B, 8 x A100 80GB, FSDP, seq 2,048, micro-batch 3 x 21, bf16, recomputation",
            916,
            "tokens/s/GPU",
            f"{FOUNDRY}, 'A100 80GB' table",
            _tokens_per_gpu(
                _train(MPT_30B, a100, 8, 2048, 3, grad_accumulation_steps=21, grad_checkpointing=True, **fsdp)
            ),
        ),
        Published(
            "foundry-mpt7b-h100",
            "training throughput",
            "MPT-7B, 8 x H100 80GB, FSDP, seq 2,048, micro-batch 6, bf16, no recomputation",
            10643,
            "tokens/s/GPU",
            f"{FOUNDRY}, 'H100 80GB BF16' table",
            _tokens_per_gpu(_train(MPT_7B, h100, 8, 2048, 6, **fsdp)),
        ),
        Published(
            "foundry-mpt7b-h100-4k",
            "training throughput",
            "MPT-7B, 8 x H100 80GB, FSDP, seq 4,096, micro-batch 16 x 2, bf16, recomputation, fused loss",
            8611,
            "tokens/s/GPU",
            f"{FOUNDRY}, 'H100 80GB BF16' table",
            _tokens_per_gpu(
                _train(
                    MPT_7B,
                    h100,
                    8,
                    4096,
                    16,
                    grad_accumulation_steps=2,
                    grad_checkpointing=True,
                    loss="chunked",
                    **fsdp,
                )
            ),
        ),
        Published(
            "foundry-mpt3b-h100-fp8",
            "training throughput",
            "MPT-3B, 8 x H100 80GB, FSDP, seq 2,048, micro-batch 10 x 6, FP8 (Transformer Engine)",
            30586,
            "tokens/s/GPU",
            f"{FOUNDRY}, 'H100 80GB FP8' table",
            _tokens_per_gpu(
                _train(MPT_3B, h100, 8, 2048, 10, precision="fp8", grad_accumulation_steps=6, **fsdp)
            ),
        ),
        Published(
            "torchtitan-llama3-8b-a100",
            "training throughput",
            "Llama 3 8B, 64 x A100 80GB, FSDP2, seq 8,192, micro-batch 1, selective recomputation",
            2904,
            "tokens/s/GPU",
            "pytorch/torchtitan docs/performance.md (2024), Llama 3 table",
            _tokens_per_gpu(_train(l3_8b, a100, 64, 8192, 1, grad_checkpointing=True, **fsdp)),
            sets_default=True,
        ),
        # More rows of the same llm-foundry tables: model size 760M to 70B, 8 to 128 GPUs, seq 512 to
        # 32,768, three GPUs. Every row of these tables that was tried is here except three long-sequence
        # rows the engine reads 25-37 % too fast (README, "The engine's figures next to the published ones").
        _foundry("foundry-mpt1b-a100", "A100 80GB", MPT_1B, a100, 8, 2048, 14, 4, False, 20513),
        _foundry("foundry-mpt3b-a100", "A100 80GB", MPT_3B, a100, 8, 2048, 10, 2, False, 10811),
        _foundry("foundry-mpt7b-a100-8k", "A100 80GB", MPT_7B, a100, 8, 8192, 8, 2, True, 3206),
        _foundry("foundry-mpt7b-a100-32k", "A100 80GB", MPT_7B, a100, 8, 32768, 2, 2, True, 1672),
        _foundry("foundry-mpt13b-a100", "A100 80GB", MPT_13B, a100, 8, 2048, 2, 3, False, 2262),
        _foundry("foundry-mpt13b-a100-4k", "A100 80GB", MPT_13B, a100, 8, 4096, 10, 3, True, 2060),
        _foundry(
            "foundry-mpt70b-a100", "A100 80GB", MPT_70B, a100, 64, 2048, 8, 4, True, 410, pure_bf16=True
        ),
        _foundry("foundry-mpt760m-h100", "H100 80GB BF16", MPT_760M, h100, 16, 2048, 24, 1, False, 68551),
        _foundry("foundry-mpt1b-h100", "H100 80GB BF16", MPT_1B, h100, 64, 2048, 20, 1, False, 44402),
        _foundry("foundry-mpt3b-h100-8k", "H100 80GB BF16", MPT_3B, h100, 8, 8192, 3, 6, False, 16578),
        _foundry("foundry-mpt13b-h100", "H100 80GB BF16", MPT_13B, h100, 64, 2048, 2, 1, False, 4800),
        _foundry("foundry-mpt30b-h100", "H100 80GB BF16", MPT_30B, h100, 32, 2048, 14, 3, True, 2308),
        _foundry("foundry-mpt70b-h100", "H100 80GB BF16", MPT_70B, h100, 64, 2048, 8, 4, True, 1039),
        _foundry("foundry-mpt1b-h100-fp8", "H100 80GB FP8", MPT_1B, h100, 8, 512, 56, 4, False, 70315, "fp8"),
        _foundry(
            "foundry-mpt7b-a100-40gb",
            "A100 40GB",
            MPT_7B,
            a100_40,
            128,
            2048,
            18,
            1,
            True,
            3623,
            pure_bf16=True,
        ),
        _foundry(
            "foundry-mpt30b-a100-40gb",
            "A100 40GB",
            MPT_30B,
            a100_40,
            128,
            2048,
            6,
            1,
            True,
            865,
            pure_bf16=True,
        ),
        _foundry(
            "foundry-mpt70b-a100-40gb",
            "A100 40GB",
            MPT_70B,
            a100_40,
            128,
            2048,
            4,
            1,
            True,
            376,
            pure_bf16=True,
        ),
        # ---- training at several hundred GPUs or more ---------------------------------------------
        Published(
            "megatron-gpt3-1536",
            "training at scale",
            "GPT-3 175B, 1,536 x A100 80GB, TP 8 x PP 16 x DP 12, batch 1,536, seq 2,048, full recomputation "
            "(hardware FLOPs, recomputation counted)",
            153,
            "TFLOP/s/GPU",
            "Narayanan et al. 2021, 'Efficient Large-Scale Language Model Training on GPU Clusters' "
            "(arXiv 2104.04473), Table 1",
            _hardware_tflops_per_gpu(
                _train(
                    GPT3_175B,
                    a100,
                    1536,
                    2048,
                    1,
                    grad_accumulation_steps=128,
                    grad_checkpointing=True,
                    tensor_parallel=8,
                    pipeline_parallel=16,
                    zero_stage=0,
                    attention="eager",  # Megatron-LM 2021: fused softmax over materialised scores
                )
            ),
        ),
        Published(
            "llama3-405b-8k",
            "training at scale",
            "Llama 3 405B, 8,192 x H100, TP 8 x PP 16 x DP 64, seq 8,192, 16M tokens per batch (model FLOPs)",
            430,
            "TFLOP/s/GPU",
            "Llama 3 paper (Dubey et al. 2024, arXiv 2407.21783), Table 4",
            _model_tflops_per_gpu(
                _train(l405, h100, 8192, 8192, 1, **(llama3_table4 | {"grad_accumulation_steps": 32}))
            ),
        ),
        Published(
            "llama3-405b-16k",
            "training at scale",
            "Llama 3 405B, 16,384 x H100, TP 8 x PP 16 x DP 128, seq 8,192, 16M tokens per batch (model FLOPs)",
            400,
            "TFLOP/s/GPU",
            "Llama 3 paper (Dubey et al. 2024, arXiv 2407.21783), Table 4",
            _model_tflops_per_gpu(_train(l405, h100, 16384, 8192, 1, **llama3_table4)),
        ),
        # Megatron-DeepSpeed (--framework megatron-deepspeed, DeepSpeed's plain 1F1B pipeline): BLOOM
        # sets the stack's MFU factor, MT-NLG checks it at 2,240 to 3,360 GPUs.
        Published(
            "bloom-176b-384",
            "training at scale",
            "BLOOM 176B, 384 x A100 80GB, Megatron-DeepSpeed, TP 4 x PP 12 x DP 8, ZeRO-1, micro-batch 2, "
            "batch 2,048, seq 2,048, full recomputation (hardware FLOPs)",
            150,
            "TFLOP/s/GPU",
            "bigscience.notion.site, 'BigScience 176B Model' (2022), 'training throughput: about 150 TFLOPs'",
            _hardware_tflops_per_gpu(_mt_nlg_or_bloom(BLOOM_176B, 384, 4, 12, 2, 2048, zero_stage=1)),
            sets_default=True,
        ),
        *(
            Published(
                f"mt-nlg-530b-{gpus}",
                "training at scale",
                f"MT-NLG 530B, {gpus:,} x A100 80GB, Megatron-DeepSpeed, TP 8 x PP 35 x DP {gpus // 280}, "
                "micro-batch 1 (assumed), batch 1,920, seq 2,048, full recomputation (hardware FLOPs)",
                tflops,
                "TFLOP/s/GPU",
                "Smith et al. 2022, 'Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B' "
                "(arXiv 2201.11990), section 2.4: 60.1, 50.2 and 44.4 s per iteration",
                _hardware_tflops_per_gpu(_mt_nlg_or_bloom(MT_NLG_530B, gpus, 8, 35, 1, 1920, zero_stage=1)),
            )
            for gpus, tflops in ((2240, 126), (2800, 121), (3360, 113))
        ),
        # ---- GPU-hours -----------------------------------------------------------------------------
        Published(
            "llama2-7b-hours",
            "GPU-hours",
            "Llama 2 7B, 2T tokens, seq 4,096, A100 80GB (2,048 GPUs, layout chosen by the planner)",
            184320,
            "GPU-hours",
            "Llama 2 paper (Touvron et al. 2023, arXiv 2307.09288), Table 2",
            _gpu_hours(_train(l2_7b, a100, 2048, 4096, 1, grad_checkpointing=True, train_tokens=2e12)),
        ),
        Published(
            "llama2-70b-hours",
            "GPU-hours",
            "Llama 2 70B, 2T tokens, seq 4,096, A100 80GB (2,048 GPUs, layout chosen by the planner)",
            1720320,
            "GPU-hours",
            "Llama 2 paper (Touvron et al. 2023, arXiv 2307.09288), Table 2",
            _gpu_hours(_train(l2_70b, a100, 2048, 4096, 1, grad_checkpointing=True, train_tokens=2e12)),
        ),
        Published(
            "llama31-405b-hours",
            "GPU-hours",
            "Llama 3.1 405B, 15.6T tokens, H100 80GB, the Table 4 layout at 16,384 GPUs",
            30.84e6,
            "GPU-hours",
            "meta-llama Llama 3.1 model card, 'Training Factors'; tokens: Llama 3 paper section 3",
            _gpu_hours(_train(l405, h100, 16384, 8192, 1, train_tokens=15.6e12, **llama3_table4)),
        ),
        # ---- peak fine-tuning memory ----------------------------------------------------------------
        Published(
            "torchtune-3b-chunked",
            "fine-tuning memory",
            "Llama 3.2 3B full fine-tune, bf16 weights and AdamW state, batch 2 x 4,096, chunked cross-entropy",
            42.9,
            "GiB",
            "pytorch/torchtune README.md, 'Optimization flags' table (+ Chunked Cross Entropy)",
            _torchtune_3b_gib(loss="chunked"),
            MEMORY_TOLERANCE,
        ),
        Published(
            "torchtune-3b-full-loss",
            "fine-tuning memory",
            "Llama 3.2 3B full fine-tune as above with the full cross-entropy (torch.compile)",
            51.0,
            "GiB",
            "pytorch/torchtune README.md, 'Optimization flags' table (+ Compile)",
            _torchtune_3b_gib(loss="full"),
            MEMORY_TOLERANCE,
        ),
        Published(
            "torchtune-3b-checkpointing",
            "fine-tuning memory",
            "Llama 3.2 3B full fine-tune as above, chunked cross-entropy and activation checkpointing",
            24.9,
            "GiB",
            "pytorch/torchtune README.md, 'Optimization flags' table (+ Activation Checkpointing)",
            _torchtune_3b_gib(loss="chunked", grad_checkpointing=True),
            MEMORY_TOLERANCE,
        ),
        # ---- LoRA and QLoRA peak memory, LitGPT (a second stack beside torchtune's) -------------------
        _litgpt("litgpt-lora-phi15-mb1", PHI_15, "lora", 1, 1044, 8, 4.82),
        _litgpt("litgpt-lora-phi15-mb2", PHI_15, "lora", 2, 1044, 8, 6.76),
        _litgpt("litgpt-lora-phi15-mb4", PHI_15, "lora", 4, 1044, 8, 10.68),
        _litgpt("litgpt-lora-stablelm3b-mb1", STABLELM_ALPHA_3B, "lora", 1, 1034, 8, 9.69),
        _litgpt("litgpt-lora-stablelm3b-mb2", STABLELM_ALPHA_3B, "lora", 2, 1034, 8, 12.10),
        _litgpt("litgpt-lora-stablelm3b-mb4", STABLELM_ALPHA_3B, "lora", 4, 1034, 8, 16.92),
        _litgpt("litgpt-qlora-phi15-mb1", PHI_15, "qlora", 1, 1044, 8, 3.78),
        _litgpt("litgpt-qlora-stablelm3b-mb1", STABLELM_ALPHA_3B, "qlora", 1, 1034, 8, 6.35),
        _litgpt("litgpt-lora-llama2-7b-mb1", l2_7b, "lora", 1, 1304, 8, 21.30),
        _litgpt("litgpt-lora-llama2-7b-mb2", l2_7b, "lora", 2, 1304, 8, 29.07),
        _litgpt("litgpt-lora-llama2-13b-mb1", l2_13b, "lora", 1, 1304, 8, 38.12),
        _litgpt("litgpt-qlora-llama2-7b-mb1", l2_7b, "qlora", 1, 1304, 8, 14.14),
        _litgpt("litgpt-qlora-llama2-13b-mb1", l2_13b, "qlora", 1, 1304, 8, 23.14),
        _litgpt("litgpt-hub-lora-llama-2-7b", l2_7b, "lora", 2, 512, 32, 19.77),
        _litgpt("litgpt-hub-lora-llama-3-8b", l3_8b, "lora", 1, 512, 32, 19.73),
        _litgpt("litgpt-hub-lora-mistral-7b", mistral, "lora", 2, 512, 32, 20.66),
        _litgpt("litgpt-hub-qlora-llama-2-7b", l2_7b, "qlora", 2, 512, 32, 13.68),
        _litgpt("litgpt-hub-qlora-llama-3-8b", l3_8b, "qlora", 2, 512, 32, 17.41),
        _litgpt("litgpt-hub-qlora-mistral-7b", mistral, "qlora", 2, 512, 32, 14.29),
        # ---- a training stack's buffers (core/stack_memory.py takes its formulas from these) -------------
        Published(
            "megatron-optim-bf16",
            "model-state memory",
            "Megatron-Core, bf16 params and fp32 grads, non-distributed optimizer: bytes per parameter",
            18,
            "B/param",
            "NVIDIA/Megatron-LM README.md, 'Distributed Optimizer' table",
            _model_state_bytes_per_param(l2_7b, "megatron-core", 8, 0),
            MEMORY_TOLERANCE,
            sets_default=True,
        ),
        Published(
            "megatron-distopt-bf16-dp8",
            "model-state memory",
            "Megatron-Core, bf16 params and fp32 grads, distributed optimizer over d = 8: 6 + 12/d",
            7.5,
            "B/param",
            "NVIDIA/Megatron-LM README.md, 'Distributed Optimizer' table",
            _model_state_bytes_per_param(l2_7b, "megatron-core", 8, 1),
            MEMORY_TOLERANCE,
            sets_default=True,
        ),
        # ---- first-token latency -----------------------------------------------------------------------
        Published(
            "trt-llama7b-a100-ttft",
            "first-token latency",
            "LLaMA 7B, 1 x A100 80GB, FP16, batch 1, 2,048-token prompt",
            133,
            "ms",
            f"{TRTLLM}, 'Low Latency' A100 table (v0.5)",
            _first_token_ms(_serve(l2_7b, a100, 1, 1, 2048, 1, "fp16", "tensorrt-llm")),
            sets_default=True,
        ),
        Published(
            "trt-gptj-a100-ttft",
            "first-token latency",
            "GPT-J 6B, 1 x A100 80GB, FP16, batch 1, 2,048-token prompt",
            129,
            "ms",
            f"{TRTLLM}, 'Low Latency' A100 table (v0.5)",
            _first_token_ms(_serve(GPTJ_6B, a100, 1, 1, 2048, 1, "fp16", "tensorrt-llm")),
        ),
        Published(
            "trt-gptj-h100-ttft",
            "first-token latency",
            "GPT-J 6B, 1 x H100, FP8, batch 1, 2,048-token prompt",
            29,
            "ms",
            f"{TRTLLM}, 'Low Latency' H100 table (v0.5)",
            _first_token_ms(_serve(GPTJ_6B, h100, 1, 1, 2048, 1, "fp8", "tensorrt-llm")),
        ),
        Published(
            "trt-llama70b-a100-ttft",
            "first-token latency",
            "LLaMA 70B, 4 x A100 80GB (TP 4), FP16, batch 1, 2,048-token prompt",
            377,
            "ms",
            f"{TRTLLM}, 'Low Latency' A100 table (v0.5)",
            _first_token_ms(_serve(l2_70b, a100, 4, 1, 2048, 1, "fp16", "tensorrt-llm")),
        ),
        Published(
            "trt-llama70b-h100-ttft",
            "first-token latency",
            "LLaMA 70B, 4 x H100 (TP 4), FP8, batch 1, 2,048-token prompt",
            109,
            "ms",
            f"{TRTLLM}, 'Low Latency' H100 table (v0.5)",
            _first_token_ms(_serve(l2_70b, h100, 4, 1, 2048, 1, "fp8", "tensorrt-llm")),
        ),
        # ---- serving throughput and decode speed --------------------------------------------------------
        Published(
            "trt-llama7b-a100-throughput",
            "serving throughput",
            "LLaMA 7B, 1 x A100 80GB, FP16, batch 60, 128 + 2,048 tokens",
            1928,
            "tokens/s/GPU",
            f"{TRTLLM}, 'Peak Throughput' A100 table (v0.6.1)",
            _static_batch_tokens_per_gpu(
                _serve(l2_7b, a100, 1, 60, 128, 2048, "fp16", "tensorrt-llm"), 60, 2048
            ),
            sets_default=True,
        ),
        Published(
            "trt-llama7b-h100-throughput",
            "serving throughput",
            "LLaMA 7B, 1 x H100, FP8 (weights and KV cache), batch 112, 128 + 2,048 tokens",
            6818,
            "tokens/s/GPU",
            f"{TRTLLM}, 'Peak Throughput' H100 table (v0.6.1)",
            _static_batch_tokens_per_gpu(
                _serve(l2_7b, h100, 1, 112, 128, 2048, "fp8", "tensorrt-llm"), 112, 2048
            ),
        ),
        Published(
            "trt-gptj-h100-throughput",
            "serving throughput",
            "GPT-J 6B, 1 x H100, FP8, batch 120, 128 + 2,048 tokens",
            8011,
            "tokens/s/GPU",
            f"{TRTLLM}, 'Peak Throughput' H100 table (v0.6.1)",
            _static_batch_tokens_per_gpu(
                _serve(GPTJ_6B, h100, 1, 120, 128, 2048, "fp8", "tensorrt-llm"), 120, 2048
            ),
        ),
        Published(
            "trt-llama7b-l40s-throughput",
            "serving throughput",
            "LLaMA 7B, 1 x L40S, FP8, batch 64, 128 + 2,048 tokens",
            1622,
            "tokens/s/GPU",
            f"{TRTLLM}, 'Peak Throughput' L40S table (v0.5)",
            _static_batch_tokens_per_gpu(
                _serve(l2_7b, "nvidia-l40s", 1, 64, 128, 2048, "fp8", "tensorrt-llm"), 64, 2048
            ),
        ),
        # The rest of those tables' rows (static-batch sweeps over batch and prompt/output lengths). Every
        # row tried is here except the misses the README lists (Llama 70B with 2,048 output tokens, GPT-J
        # at batch 1,024); the A100 rows at TP > 1 are left out because that table's unit (per GPU or in
        # all) is not stated.
        *(
            _trt_static_batch(f"trt-{key}", table, model, gpu, tp, batch, prompt, output, tok_s)
            for key, table, model, gpu, tp, batch, prompt, output, tok_s in (
                ("gptj-h100-2k-128", "H100 (v0.6.1)", GPTJ_6B, h100, 1, 64, 2048, 128, 2551),
                ("gptj-h100-2k-2k", "H100 (v0.6.1)", GPTJ_6B, h100, 1, 64, 2048, 2048, 3327),
                ("llama7b-h100-128-128", "H100 (v0.6.1)", l2_7b, h100, 1, 768, 128, 128, 19694),
                ("llama7b-h100-2k-128", "H100 (v0.6.1)", l2_7b, h100, 1, 80, 2048, 128, 2244),
                ("llama7b-h100-2k-2k", "H100 (v0.6.1)", l2_7b, h100, 1, 48, 2048, 2048, 2740),
                ("llama70b-h100-128-128", "H100 (v0.6.1)", l2_70b, h100, 2, 1024, 128, 128, 2657),
                ("llama70b-h100-2k-128", "H100 (v0.6.1)", l2_70b, h100, 2, 96, 2048, 128, 306),
                ("gptj-l40s-128-128", "L40S (v0.5)", GPTJ_6B, l40s, 1, 64, 128, 128, 3630),
                ("gptj-l40s-128-2k", "L40S (v0.5)", GPTJ_6B, l40s, 1, 64, 128, 2048, 1859),
                ("gptj-l40s-2k-128", "L40S (v0.5)", GPTJ_6B, l40s, 1, 32, 2048, 128, 616),
                ("gptj-l40s-2k-2k", "L40S (v0.5)", GPTJ_6B, l40s, 1, 32, 2048, 2048, 757),
                ("llama7b-l40s-128-128", "L40S (v0.5)", l2_7b, l40s, 1, 64, 128, 128, 3240),
                ("llama7b-l40s-2k-128", "L40S (v0.5)", l2_7b, l40s, 1, 32, 2048, 128, 581),
                ("llama7b-l40s-2k-2k", "L40S (v0.5)", l2_7b, l40s, 1, 16, 2048, 2048, 531),
                ("gptj-a100-128-128", "A100 (v0.6.1)", GPTJ_6B, a100, 1, 512, 128, 128, 6374),
                ("gptj-a100-2k-128", "A100 (v0.6.1)", GPTJ_6B, a100, 1, 60, 2048, 128, 670),
                ("llama7b-a100-128-128", "A100 (v0.6.1)", l2_7b, a100, 1, 384, 128, 128, 5586),
                ("llama7b-a100-2k-128", "A100 (v0.6.1)", l2_7b, a100, 1, 52, 2048, 128, 591),
            )
        ),
        Published(
            "trt-gptj-l40s-ttft",
            "first-token latency",
            "GPT-J 6B, 1 x L40S, FP8, batch 1, 2,048-token prompt",
            71,
            "ms",
            f"{TRTLLM}, 'Low Latency' L40S table (v0.5)",
            _first_token_ms(_serve(GPTJ_6B, l40s, 1, 1, 2048, 1, "fp8", "tensorrt-llm")),
        ),
        Published(
            "trt-gptj-l40s-ttft-short",
            "first-token latency",
            "GPT-J 6B, 1 x L40S, FP8, batch 1, 128-token prompt",
            12,
            "ms",
            f"{TRTLLM}, 'Low Latency' L40S table (v0.5)",
            _first_token_ms(_serve(GPTJ_6B, l40s, 1, 1, 128, 1, "fp8", "tensorrt-llm")),
        ),
        Published(
            "vllm-llama3-70b-h200",
            "serving latency",
            "Llama 3 70B, 4 x H200 (TP 4), bf16, batch 8, 32 + 128 tokens, end to end",
            2077.5,
            "ms",
            "vLLM performance benchmark, buildkite vllm/performance-benchmark build 9515, latency_llama70B_tp4",
            _batch_latency_ms(l3_70b, h200, 4, 8, 32, 128, "bf16"),
        ),
        Published(
            "vllm-mixtral-h200",
            "serving latency",
            "Mixtral 8x7B, 2 x H200 (TP 2), bf16, batch 8, 32 + 128 tokens, end to end",
            1917.4,
            "ms",
            "vLLM performance benchmark, buildkite vllm/performance-benchmark build 9515, latency_mixtral8x7B_tp2",
            _batch_latency_ms(mixtral, h200, 2, 8, 32, 128, "bf16"),
        ),
        Published(
            "vllm-llama3-8b-h200",
            "serving latency",
            "Llama 3.1 8B, 1 x H200, bf16, batch 8, 32 + 128 tokens, end to end",
            833.4,
            "ms",
            "vLLM performance benchmark, buildkite vllm/performance-benchmark build 9515, latency_llama8B_tp1",
            _batch_latency_ms(l3_8b, h200, 1, 8, 32, 128, "bf16"),
            sets_default=True,
        ),
        # vLLM on ROCm: batch 1 and 256 set vLLM's fp8 GEMM efficiency on CDNA 3 (their difference, see
        # resources/efficiencies.json); the batches between are the checks.
        *(
            Published(
                f"vllm-llama31-405b-mi300x-b{batch}",
                "serving latency",
                f"Llama 3.1 405B FP8, 8 x MI300X (TP 8), vLLM, batch {batch}, 128 + 128 tokens, end to end",
                seconds * 1e3,
                "ms",
                "Oracle Cloud Infrastructure blog, 'Serving Llama 3.1 405B model with AMD MI300X GPUs' "
                "(2024), latency table (vLLM benchmark_latency.py)",
                _batch_latency_ms(l405, "amd-instinct-mi300x", 8, batch, 128, 128, "fp8"),
                sets_default=batch in (1, 256),
            )
            for batch, seconds in (
                (1, 3.530),
                (4, 3.734),
                (16, 4.375),
                (32, 5.130),
                (64, 6.919),
                (128, 10.340),
                (256, 17.750),
            )
        ),
        Published(
            "llamacpp-3090-f16",
            "decode speed",
            "LLaMA 7B F16, 1 x RTX 3090, llama-bench tg128",
            48.52,
            "tokens/s",
            "ggml-org/llama.cpp pull request #4766 (JohannesGaessler's RTX 3090 table)",
            _tokens_per_s_per_user(_serve(l2_7b, "nvidia-rtx-3090", 1, 1, 1, 128, "fp16", "llama.cpp")),
        ),
        Published(
            "llamacpp-4090-f16",
            "decode speed",
            "LLaMA 7B F16, 1 x RTX 4090, llama-bench tg128",
            61.03,
            "tokens/s",
            "ggml-org/llama.cpp pull request #4766 (ggerganov's RTX 4090 run)",
            _tokens_per_s_per_user(_serve(l2_7b, "nvidia-rtx-4090", 1, 1, 1, 128, "fp16", "llama.cpp")),
            sets_default=True,
        ),
        Published(
            "hf-llama2-7b-a10",
            "decode speed",
            "Llama-2-7B fp16, 1 x A10, Hugging Face generate(), batch 1",
            34,
            "ms/token",
            "InternLM/lmdeploy issue #210 (HF transformers baseline on a single A10)",
            _ms_per_token(_serve(l2_7b, "nvidia-a10", 1, 1, 20, 267, "fp16", "hf-generate")),
        ),
    )


def engine_figure(entry: Published, catalog: Catalog) -> float:
    return entry.engine_figure(catalog)


def error(entry: Published, catalog: Catalog) -> float:
    """(engine - published) / published."""
    return (entry.engine_figure(catalog) - entry.published) / entry.published
