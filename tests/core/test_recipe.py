"""The planner searches the training recipe (issue 26): what the user set is a lock, what they left
open is the planner's, and a global batch holds replicas x micro-batch x accumulation."""

from __future__ import annotations

import json

import pytest

from gpu_advisor.cli import run_cli
from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.presets import get_preset, resolve_model
from gpu_advisor.core.recipe import DEFAULT_DEADLINE_DAYS, RECIPE_KEYS
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.units import format_duration, format_usd


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(user_file=None)


def _plan(catalog, **kw):
    return plan(PlanRequest(**kw), catalog)


QLORA = dict(model=get_preset("llama-3-8b"), task="qlora", seq_len=2048, batch_size=4, purchase="buy")


def test_qlora_on_a_5090_the_planner_turns_checkpointing_on_so_one_card_does_what_the_literal_recipe_needs_eight_for(
    catalog,
):
    """The issue's example: the recipe as given (checkpointing off) needs 8 RTX 5090s in 4 desktops;
    left open, the planner turns checkpointing on and one card fits, and the headline says both."""
    literal = _plan(catalog, gpu="nvidia-rtx-5090", grad_checkpointing=False, **QLORA).best
    chosen = _plan(catalog, gpu="nvidia-rtx-5090", **QLORA)
    best = chosen.best
    assert literal.count > 1
    assert best.count == 1
    assert best.recipe["grad_checkpointing"] is True
    assert best.recipe_source["grad_checkpointing"] == "planner"
    assert chosen.recommendation.reason.startswith("With gradient checkpointing (the planner's choice)")
    assert f"would need {literal.count} GPUs" in chosen.recommendation.reason


def test_qlora_bought_on_the_consumer_tier_is_one_5090_with_the_planners_checkpointing_as_it_trains_cheapest(
    catalog,
):
    """The issue's example as typed (`--tier consumer --buy`, no GPU named): one RTX 5090 with the
    planner's checkpointing. Two RTX 5070 Tis cost $101 less to buy but have no sourced power draw and
    train a quarter fewer tokens per second on tensor parallel 2 over PCIe, so they do not lead; the
    batch of 4 the user set stays 4 and is marked as theirs."""
    result = _plan(catalog, tier="consumer", **QLORA)
    best = result.best
    assert (best.gpu_id, best.count, best.machines) == ("nvidia-rtx-5090", 1, 1)
    assert best.recipe["grad_checkpointing"] is True and best.recipe_source["grad_checkpointing"] == "planner"
    assert best.recipe["micro_batch"] == 4 and best.recipe_source["micro_batch"] == "user"
    two_cards = next(o for o in result.options if o.gpu_id == "nvidia-rtx-5070-ti")
    assert two_cards.cost.purchase_usd < best.cost.purchase_usd and two_cards.rank_usd is None
    assert "no sourced power draw" in two_cards.note


def test_no_grad_checkpointing_is_a_lock_no_option_turns_it_on(catalog):
    result = _plan(catalog, tier="consumer", grad_checkpointing=False, **QLORA)
    assert result.options
    for option in result.options:
        assert option.recipe["grad_checkpointing"] is False
        assert option.recipe_source["grad_checkpointing"] == "user"


def test_a_micro_batch_the_user_gave_stays_as_given_and_is_marked_theirs(catalog):
    result = _plan(catalog, tier="consumer", **QLORA)
    for option in result.options:
        assert option.recipe["micro_batch"] == 4
        assert option.recipe_source["micro_batch"] == "user"


def test_every_option_of_a_7b_fine_tune_with_global_batch_64_keeps_64_sequences_per_step(catalog):
    result = _plan(
        catalog,
        model=get_preset("llama-2-7b"),
        task="finetune",
        gpu="nvidia-a100-sxm-80gb",
        gpus=8,
        global_batch=64,
    )
    assert result.options
    for option in result.options:
        r = option.recipe
        assert option.layout.data * r["micro_batch"] * r["grad_accum"] == r["global_batch"] == 64
        assert option.recipe_source["global_batch"] == "user"


def test_405b_on_16384_h100s_at_the_papers_global_batch_finds_a_model_parallel_layout_near_400_tflops(
    catalog,
):
    """Llama 3 (Dubey et al. 2024, section 3.3): 16,384 H100s at about 400 TFLOP/s per GPU with TP 8 and
    PP 16. Pure data parallelism cannot hold a 2,048-sequence batch on 16,384 GPUs; the search must
    find model parallelism, and the throughput must land within 30 % of the paper."""
    result = _plan(
        catalog,
        model=get_preset("llama-3.1-405b"),
        task="pretrain",
        seq_len=8192,
        global_batch=2048,
        gpu="nvidia-h100-sxm",
        gpus=16384,
    )
    best = result.best
    r = best.recipe
    assert best.layout.data * r["micro_batch"] * r["grad_accum"] == 2048
    assert best.layout.tensor * best.layout.pipeline > 1
    tflops = best.speed.tokens_per_s / best.count * best.speed.flops_per_token / 1e12
    assert tflops == pytest.approx(400, rel=0.30)


def test_a_1b_pretrain_with_the_micro_batch_left_open_costs_at_most_70_percent_of_micro_batch_1(catalog):
    """At micro-batch 1 a 1B model's step is short and fixed per-step costs weigh; the planner's larger
    micro-batch should cut the job's cost (issue 26: $400 against $219)."""
    kw = dict(model=resolve_model(params="1B"), task="pretrain", train_tokens=20e9, max_hours=168)
    locked = _plan(catalog, batch_size=1, **kw).best
    open_ = _plan(catalog, **kw).best
    assert open_.recipe_source["micro_batch"] == "planner"
    assert open_.cost.job_cloud_usd <= 0.70 * locked.cost.job_cloud_usd


def test_a_1b_pretrain_at_micro_batch_1_is_host_bound_its_kernel_launches_outlast_the_gpus_work(catalog):
    """The step's largest term names the bound: on an H100 at micro-batch 1 each micro-batch's host
    launches (about 50 ms) outlast its 30 ms of compute, so the plan says host-bound, not
    compute-bound. On the H100 because a slower card's compute hides the same launches."""
    kw = dict(
        model=resolve_model(params="1B"),
        task="pretrain",
        train_tokens=20e9,
        max_hours=168,
        gpu="nvidia-h100-sxm",
    )
    locked = _plan(catalog, batch_size=1, **kw).best
    assert locked.speed.bound == "host"
    # The step's terms show the host's time beyond the GPU's work (host 50 ms = compute 30 ms + 20 ms).
    terms = {t.name: t.seconds for t in locked.speed.terms}
    assert terms["host overhead"] > 0.5 * terms["compute"]
    assert _plan(catalog, **kw).best.speed.bound != "host"  # micro-batch 8 gives the GPU enough work


def test_a_locked_micro_batch_1_gets_what_else_to_change_with_its_cost_and_time_not_only_gpu_count(catalog):
    """Suggestions name changes that cut cost and time, not only the GPU count: a larger micro-batch
    where the user locked 1, and CUDA graphs / torch.compile against the host-bound step (on the H100,
    where micro-batch 1 is host-bound)."""
    kw = dict(
        model=resolve_model(params="1B"),
        task="pretrain",
        train_tokens=20e9,
        max_hours=168,
        gpu="nvidia-h100-sxm",
    )
    result = _plan(catalog, batch_size=1, **kw)
    best = result.best
    micro = next(s for s in result.suggestions if s.startswith("Raise the micro-batch"))
    graphs = next(s for s in result.suggestions if "CUDA graphs" in s)
    cost = f"instead of {format_usd(best.rank_usd)} and {format_duration(best.speed.time_to_train_s)}"
    assert cost in micro and cost in graphs
    # The micro-batch the suggestion names is the planner's own pick with the knob open, at its cost
    # (the accumulation as the locked plan has it: a locked micro-batch applies no published batch).
    open_ = _plan(catalog, grad_accumulation_steps=result.best.recipe["grad_accum"], **kw).best
    assert micro.startswith(f"Raise the micro-batch to {open_.recipe['micro_batch']} (you set 1): ")
    assert micro.split(":")[1].strip().startswith(format_usd(open_.rank_usd))
    # The count reads as the card and the headline write it: "1 × NVIDIA H100 SXM", not "1 x".
    assert f"({open_.count} × {open_.gpu}, " in micro


def test_plan_json_gives_every_training_option_a_recipe_and_who_chose_each_knob(capsys):
    args = ["plan", "--model", "llama-3-8b", "--task", "qlora", "--batch-size", "4", "--tier", "consumer"]
    assert run_cli([*args, "--no-grad-checkpointing", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for option in data["options"]:
        assert set(option["recipe"]) == set(RECIPE_KEYS) == set(option["recipe_source"])
        assert set(option["recipe_source"].values()) <= {"user", "planner"}
        assert option["recipe"]["grad_checkpointing"] is False
        assert option["recipe_source"]["micro_batch"] == "user"
    assert data["inputs"]["recipe_open"] == ["grad_accumulation_steps", "loss"]


def test_a_global_batch_not_a_multiple_of_the_micro_batch_is_refused_naming_the_field():
    with pytest.raises(ValueError, match="global_batch"):
        PlanRequest(model=get_preset("llama-2-7b"), task="finetune", batch_size=4, global_batch=6)


def test_a_15t_token_70b_pretrain_without_a_deadline_is_planned_to_finish_within_the_default_not_34_years(
    catalog,
):
    """The issue's example: on the fewest H100s that fit, 15T tokens take decades; without a deadline
    the plan is paced to the stated default duration, named in the assumptions and a warning."""
    kw = dict(
        model=get_preset("llama-3-70b"),
        task="pretrain",
        seq_len=8192,
        grad_checkpointing=True,
        train_tokens=15e12,
        gpu="nvidia-h100-sxm",
    )
    result = _plan(catalog, **kw)
    assert result.best.speed.time_to_train_s <= DEFAULT_DEADLINE_DAYS * 86400 < 365 * 86400
    assert "default_deadline" in result.assumptions
    assert any("No deadline given" in w for w in result.warnings)
    assert result.request.max_hours is None  # the user's request is kept as given
    # the frontier: each doubling halves the time; the recommended scale is on it, a smaller one is slower
    counts = [p.count for p in result.frontier]
    assert result.best.count in counts and counts == sorted(counts)
    times = [p.time_to_train_s for p in result.frontier]
    assert times == sorted(times, reverse=True)


def test_the_cli_prints_the_time_cost_frontier_for_a_budget_without_deadline(capsys):
    args = [
        "plan",
        "--model",
        "llama-3-70b",
        "--task",
        "pretrain",
        "--seq-len",
        "8192",
        "--grad-checkpointing",
    ]
    assert run_cli([*args, "--train-tokens", "15e12", "--gpu", "nvidia-h100-sxm"]) == 0
    out = capsys.readouterr().out
    assert "Time and cost by scale (NVIDIA H100 SXM" in out and "recommended" in out


def test_a_plan_longer_than_a_year_warns(catalog):
    """The same job on a fixed 16 GPUs takes decades: the plan says so."""
    result = _plan(
        catalog,
        model=get_preset("llama-3-70b"),
        task="pretrain",
        seq_len=8192,
        grad_checkpointing=True,
        train_tokens=15e12,
        gpu="nvidia-h100-sxm",
        gpus=16,
    )
    assert any("more than a year" in w for w in result.warnings)


def test_without_a_global_batch_the_published_one_for_the_size_is_applied_and_every_option_holds_it(catalog):
    """No --global-batch: the planner applies the batch published runs of that size used (4M tokens per
    step above 20B parameters: 512 sequences of 8,192 tokens), as its own choice, with the source."""
    result = _plan(
        catalog,
        model=get_preset("llama-3-70b"),
        task="pretrain",
        seq_len=8192,
        gpu="nvidia-h100-sxm",
        gpus=256,
    )
    assert result.options
    for option in result.options:
        r = option.recipe
        assert option.layout.data * r["micro_batch"] * r["grad_accum"] == r["global_batch"] == 512
        assert option.recipe_source["global_batch"] == "planner"
    held = result.assumptions["global_batch"]
    assert held.startswith("none given: 512 sequences of 8192 tokens per step") and "Touvron" in held
    assert result.request.global_batch is None  # the request shown is the user's


def test_an_accumulation_the_user_set_keeps_the_batch_per_replica_theirs_so_no_default_is_applied(catalog):
    result = _plan(
        catalog,
        model=get_preset("llama-2-7b"),
        task="finetune",
        gpu="nvidia-a100-sxm-80gb",
        gpus=8,
        batch_size=2,
        grad_accumulation_steps=4,
    )
    for option in result.options:
        assert option.recipe["grad_accum"] == 4 and option.recipe["micro_batch"] == 2
        assert option.recipe["global_batch"] == option.layout.data * 8
    assert result.assumptions["global_batch"].startswith("none given, and none applied")


def _fastest_locked(catalog, key, **kw):
    """The best option of each recipe the planner tries (checkpointing off and on, micro-batches 1 to
    8), each planned with that recipe locked: the best of these by `key`."""
    options = []
    for checkpointing in (False, True):
        for micro in (1, 2, 4, 8):
            result = _plan(catalog, grad_checkpointing=checkpointing, batch_size=micro, **kw)
            if result.best is not None:
                options.append(result.best)
    return min(options, key=key)


def test_with_a_global_batch_each_layout_is_screened_at_its_own_accumulation_so_the_open_405b_is_its_fastest_recipe(
    catalog,
):
    """At 2,048 sequences on 16,384 H100s, a layout of 1,024 replicas runs 1 micro-batch of 2 per step
    and one of 512 replicas 1 of 4: the search must time each at that, not at 2,048 / micro-batch as if
    there were one replica (which made a deep pipeline's bubble look spread over 512 micro-batches).
    Left open, the planner's recipe is then as fast as the fastest recipe locked by hand."""
    kw = dict(
        model=get_preset("llama-3.1-405b"),
        task="pretrain",
        seq_len=8192,
        global_batch=2048,
        gpu="nvidia-h100-sxm",
        gpus=16384,
    )
    fastest = _fastest_locked(catalog, lambda o: -o.speed.tokens_per_s, **kw)
    chosen = _plan(catalog, **kw).best
    assert chosen.speed.tokens_per_s >= fastest.speed.tokens_per_s / 1.01
    assert chosen.layout.data * chosen.recipe["micro_batch"] * chosen.recipe["grad_accum"] == 2048


def test_checkpointing_with_a_larger_micro_batch_is_tried_even_where_the_recipe_without_it_leads(catalog):
    """Llama 2 13B pre-training on L4s to a 72 h deadline at 1,024 sequences per step: with
    checkpointing, micro-batch 2 is cheaper than 1 and than any recipe without it. The search stops
    raising a group's micro-batch when the last one did not lead its own group, not when another group
    leads: the open plan costs no more than the cheapest recipe locked by hand."""
    kw = dict(
        model=get_preset("llama-2-13b"),
        task="pretrain",
        train_tokens=1e11,
        max_hours=72,
        global_batch=1024,
        gpu="nvidia-l4",
    )
    cheapest = _fastest_locked(catalog, lambda o: o.rank_usd, **kw)
    chosen = _plan(catalog, **kw).best
    assert chosen.rank_usd <= cheapest.rank_usd * 1.001


LOCKED_ACCUM = dict(
    model=get_preset("llama-2-7b"),
    task="finetune",
    seq_len=4096,
    gpu="nvidia-a100-sxm-80gb",
    gpus=8,
    global_batch=64,
    grad_accumulation_steps=4,
)


def test_a_locked_accumulation_under_a_global_batch_is_kept_by_the_micro_batch_times_replicas_it_leaves(
    catalog,
):
    """Accumulation 4 of 64 sequences leaves 16 per step: 8 replicas at micro-batch 2, or 4 (TP 2) at 4.
    The planner chooses among those; it never keeps a layout at 32 sequences, which misses the batch
    and used to leave the plan without an answer."""
    result = _plan(catalog, **LOCKED_ACCUM)
    assert result.best is not None
    for option in result.options:
        recipe = option.recipe
        assert (recipe["grad_accum"], recipe["global_batch"]) == (4, 64), option.gpu
        assert option.layout.data * recipe["micro_batch"] * 4 == 64
        assert option.recipe_source["grad_accum"] == "user"


def test_a_locked_accumulation_no_layout_can_keep_is_explained_in_the_answer_not_a_traceback(catalog):
    """Micro-batch 1 and accumulation 4 locked, 64 sequences: 16 replicas, which 8 GPUs cannot hold.
    The answer names the lock and the replicas; the three tiers say why they have nothing."""
    result = _plan(catalog, batch_size=1, **LOCKED_ACCUM)
    assert result.recommendation.gpu is None
    assert "16 data-parallel replicas" in result.recommendation.reason
    assert "accumulation of 4" in result.recommendation.reason
    assert all(tier.reason for tier in result.tiers)


def test_a_global_batch_not_a_multiple_of_a_locked_accumulation_is_refused_naming_the_field():
    """10 sequences at accumulation 4 (or 16 at micro-batch 4 x accumulation 8): no replica count keeps it."""
    model = get_preset("llama-2-7b")
    with pytest.raises(ValueError, match=r"global_batch: 10 sequences .* accumulation \(4\)"):
        PlanRequest(model=model, task="finetune", grad_accumulation_steps=4, global_batch=10)
    with pytest.raises(ValueError, match=r"micro-batch x accumulation \(32\)"):
        PlanRequest(model=model, task="finetune", batch_size=4, grad_accumulation_steps=8, global_batch=16)
    assert (
        PlanRequest(model=model, task="finetune", grad_accumulation_steps=4, global_batch=64).global_batch
        == 64
    )
