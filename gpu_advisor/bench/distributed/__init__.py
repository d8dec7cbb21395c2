"""Scale-out benchmark on torch.distributed: collectives, point-to-point links and data-parallel
scaling across the GPUs of one machine or many (NCCL), or across CPU processes (gloo).

No torch at import time. Start it under torchrun (`gpu-advisor bench --distributed`, one process per
GPU on each node), or let `run_local` start torchrun on this machine (`gpu-advisor bench --nproc N`):

    from gpu_advisor.bench.distributed import DistributedOptions, run_local
    outcome = run_local(DistributedOptions(device="cpu", mode="quick"), nproc=2,
                        on_progress=..., stop=threading.Event())   # -> LocalRun with .report
    report.distributed   # the `distributed` section of the gpu-advisor/bench@1 file

Modules: options (what to run), conventions (nccl-tests' algbw/busbw), section (the results section),
environment (torchrun's variables, device, process group), liveness (heartbeats, barriers, who died),
collectives / p2p / scaling (the measurements, torch), worker (one rank), assemble (rank 0's report),
launcher (torchrun on this machine), events (ranks -> launcher), failures (one-line explanations),
calibrate (a results file -> core.calibration.Calibration for the planner).
"""

from __future__ import annotations

from gpu_advisor.bench.distributed.errors import DistributedRunFailed, NotUnderLauncher
from gpu_advisor.bench.distributed.options import DistributedOptions

__all__ = ["DistributedOptions", "DistributedRunFailed", "NotUnderLauncher"]
