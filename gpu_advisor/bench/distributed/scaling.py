"""Data-parallel scaling: the benchmark's training step alone on rank 0, then under
DistributedDataParallel on every rank, with and without its gradient all-reduce; and the same model
under fully_shard (FSDP2) (imports torch).

- World size 1: rank 0 trains the model alone, without DDP (what one device does), while the others wait.
- World size N: every rank trains its own batches under DDP; a step lasts as long as its slowest rank.
- No sync: the same N ranks inside DDP's `no_sync()`, which skips the all-reduce. The difference to
  the DDP step is the communication that backward did not hide.
- FSDP: parameters, gradients and optimizer state sharded over the N ranks; the state each rank holds
  is counted from its local shards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from gpu_advisor.bench.distributed.section import FsdpRecord, ScalingRecord
from gpu_advisor.bench.options import Sizes
from gpu_advisor.bench.stats import spread
from gpu_advisor.bench.timing import DeviceClock
from gpu_advisor.bench.training import LEARNING_RATE, SyntheticTokens
from gpu_advisor.bench.zoo import build_model, count_parameters, training_loss

BATCHES_IN_MEMORY = 4  # distinct batches cycled (no loader: input never limits the step here)


class LossModule(nn.Module):
    """The model with the loss inside forward, so that DDP and FSDP see the whole step."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, tokens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return training_loss(self.model, tokens, targets)


@dataclass
class Setup:
    sizes: Sizes
    device: torch.device
    rank: int
    world_size: int
    budget_s: float
    barrier: Callable[[str], None]  # over every rank, tolerant of long waits (liveness.barrier)

    @property
    def cuda(self) -> bool:
        return self.device.type == "cuda"


def _batches(setup: Setup) -> list[tuple[torch.Tensor, torch.Tensor]]:
    s = setup.sizes
    data = SyntheticTokens(
        s.train_model.vocab_size, s.train_seq, BATCHES_IN_MEMORY * s.train_batch, seed=setup.rank
    )
    out = []
    for b in range(BATCHES_IN_MEMORY):
        items = [data[b * s.train_batch + i] for i in range(s.train_batch)]
        tokens = torch.stack([t for t, _ in items]).to(setup.device)
        targets = torch.stack([t for _, t in items]).to(setup.device)
        out.append((tokens, targets))
    return out


def _autocast(setup: Setup) -> contextlib.AbstractContextManager[object]:
    # As the single-device training workload: fp32 on the CPU, bf16 autocast on GPUs.
    return torch.autocast("cuda", dtype=torch.bfloat16) if setup.cuda else contextlib.nullcontext()


def _stepper(module: nn.Module, setup: Setup) -> Callable[[int], None]:
    optimizer = torch.optim.AdamW(module.parameters(), lr=LEARNING_RATE)
    batches = _batches(setup)

    def step(i: int) -> None:
        tokens, targets = batches[i % len(batches)]
        optimizer.zero_grad(set_to_none=True)
        with _autocast(setup):
            loss = module(tokens, targets)
        loss.backward()
        optimizer.step()

    step.optimizer = optimizer  # type: ignore[attr-defined]
    return step


def _time_steps(step: Callable[[int], None], n: int, setup: Setup, warmup: int) -> list[float]:
    clock = DeviceClock(setup.device)
    for i in range(warmup):
        step(i)
    clock.sync()
    return [clock.time(lambda i=i: step(i))[1] for i in range(n)]


def _agreed_steps(warm_step_s: float, setup: Setup, group_max: Callable[[list[float]], list[float]]) -> int:
    (slowest,) = group_max([warm_step_s])
    s = setup.sizes
    return int(min(s.max_steps, max(s.min_steps, setup.budget_s / 3 / max(slowest, 1e-6))))


def _state_bytes(module: nn.Module, optimizer: torch.optim.Optimizer) -> int:
    """Bytes of parameters, gradients and optimizer state this rank holds (local shards under FSDP)."""

    def local(t: torch.Tensor) -> torch.Tensor:
        return t.to_local() if hasattr(t, "to_local") else t

    total = 0
    for p in module.parameters():
        total += local(p).numel() * p.element_size()
        if p.grad is not None:
            total += local(p.grad).numel() * p.grad.element_size()
    for state in optimizer.state.values():
        for v in state.values():
            if isinstance(v, torch.Tensor) and v.dim() > 0:
                total += local(v).numel() * v.element_size()
    return total


def run_scaling(
    setup: Setup, group_max: Callable[[list[float]], list[float]], *, fsdp: bool = True
) -> tuple[ScalingRecord | None, FsdpRecord | None]:
    """Rank 0 returns the records; the other ranks return (None, None)."""
    s = setup.sizes
    spec = s.train_model
    tokens_per_step = s.train_batch * s.train_seq
    warmup = max(2, s.warmup_steps)
    # 1. World size 1, rank 0 alone.
    single_s = _single_rank_step_s(setup, warmup) if setup.rank == 0 else None
    setup.barrier("the world-size-1 training baseline on rank 0")
    # 2. DDP at world size N, then the same without the all-reduce.
    ddp_run = _ddp(setup, group_max, warmup)
    if setup.cuda:
        torch.cuda.empty_cache()
    fsdp_record = (
        _run_fsdp(setup, group_max, ddp_run.steps, ddp_run.state_bytes)
        if fsdp and setup.world_size > 1
        else None
    )
    if setup.rank != 0:
        return None, fsdp_record
    assert single_s is not None
    t_sync = spread(ddp_run.synced_s).median
    t_free = spread(ddp_run.unsynced_s).median
    n_ranks = setup.world_size
    tps = [tokens_per_step / single_s, n_ranks * tokens_per_step / t_sync]
    record = ScalingRecord(
        world_sizes=[1, n_ranks],
        tokens_per_s=tps,
        efficiency=[1.0, tps[1] / (n_ranks * tps[0])],
        step_time_s=[single_s, t_sync],
        no_sync_step_time_s=[None, t_free],
        exposed_comm_fraction=[None, max(0.0, (t_sync - t_free) / t_sync)],
        model=spec.name,
        params=ddp_run.params,
        batch_size_per_rank=s.train_batch,
        seq_len=s.train_seq,
        precision="bf16 autocast" if setup.cuda else "fp32",
        gradient_bytes=ddp_run.gradient_bytes,
        steps=ddp_run.steps,
    )
    return record, fsdp_record


@dataclass(frozen=True, slots=True)
class _DdpRun:
    synced_s: list[float]  # per step, slowest rank
    unsynced_s: list[float]  # the same steps inside no_sync()
    steps: int
    params: int
    gradient_bytes: int
    state_bytes: int  # parameters + gradients + optimizer state on one rank, unsharded


def _ddp(setup: Setup, group_max: Callable[[list[float]], list[float]], warmup: int) -> _DdpRun:
    base = LossModule(build_model(setup.sizes.train_model, device=setup.device))
    ddp = DistributedDataParallel(base, device_ids=[setup.device.index] if setup.cuda else None)
    step = _stepper(ddp, setup)
    step(0)
    n = _agreed_steps(DeviceClock(setup.device).time(lambda: step(1))[1], setup, group_max)
    synced = group_max(_time_steps(step, n, setup, warmup))

    def no_sync_step(i: int) -> None:
        with ddp.no_sync():
            step(i)

    unsynced = group_max(_time_steps(no_sync_step, n, setup, warmup))
    return _DdpRun(
        synced_s=synced,
        unsynced_s=unsynced,
        steps=n,
        params=count_parameters(base),
        gradient_bytes=sum(p.numel() * p.element_size() for p in base.parameters() if p.requires_grad),
        state_bytes=_state_bytes(base, step.optimizer),  # type: ignore[attr-defined]
    )


def _single_rank_step_s(setup: Setup, warmup: int) -> float:
    """Median step time of the model trained by this rank alone, without DDP."""
    s = setup.sizes
    module = LossModule(build_model(s.train_model, device=setup.device))
    step = _stepper(module, setup)
    step(0)
    warm = DeviceClock(setup.device).time(lambda: step(1))[1]
    n = int(min(s.max_steps, max(s.min_steps, setup.budget_s / 3 / max(warm, 1e-6))))
    return spread(_time_steps(step, n, setup, warmup)).median


def _run_fsdp(
    setup: Setup, group_max: Callable[[list[float]], list[float]], n: int, unsharded_state: int
) -> FsdpRecord | None:
    from torch.distributed.fsdp import fully_shard

    spec = setup.sizes.train_model
    model = build_model(spec, device=setup.device)
    for block in model.blocks:
        fully_shard(block)
    root = LossModule(model)
    fully_shard(root)
    if setup.cuda:
        torch.cuda.reset_peak_memory_stats(setup.device)
    step = _stepper(root, setup)
    times = group_max(_time_steps(step, n, setup, max(2, setup.sizes.warmup_steps)))
    state = _state_bytes(root, step.optimizer)  # type: ignore[attr-defined]
    peak = int(torch.cuda.max_memory_allocated(setup.device)) if setup.cuda else None
    if setup.rank != 0:
        return None
    median = spread(times).median
    return FsdpRecord(
        world_size=setup.world_size,
        step_time_s=median,
        tokens_per_s=setup.world_size * setup.sizes.train_batch * setup.sizes.train_seq / median,
        state_bytes_per_rank=state,
        unsharded_state_bytes=unsharded_state,
        peak_memory_bytes=peak,
        model=spec.name,
    )
