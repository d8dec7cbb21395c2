"""`gpu-advisor bench --distributed` (one rank, under torchrun) and `bench --nproc N` (torchrun started
here): the flags, and the run handed to gpu_advisor.bench.distributed. Nothing here imports torch;
the rank's code loads it when the run starts.

A failed run prints one line `gpu-advisor bench: error: ...` naming the rank and host and exits with 1.
Under torchrun only one rank prints it (the lowest rank that did not cause it); the launcher prints its
own summary after it.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from gpu_advisor.cli.fields import flag_error, given_flags
from gpu_advisor.cli.signals import exit_code_for
from gpu_advisor.core.errors import UserInputError

EXIT_FAILED = 1

_FLAGS = {
    "device": "--device",
    "timeout_s": "--timeout",
    "max_message_bytes": "--max-message",
    "op_budget_s": "--duration",
    "phases": "--phases",
    "ops": "--collectives",
    "interval_s": "--interval",
}


def add_arguments(p: argparse.ArgumentParser, parse_size) -> None:
    """The cluster flags on `bench`'s parser (`parse_size`: the size parser `--memory-cap` uses)."""
    g = p.add_argument_group(
        "cluster (torch.distributed)",
        "Collectives, point-to-point links and data-parallel scaling over several processes: NCCL with "
        "one GPU per process, gloo on CPUs.",
    )
    g.add_argument(
        "--distributed",
        action="store_true",
        help="run as one rank of a cluster run started by torchrun (one or many nodes)",
    )
    g.add_argument("--nproc", type=int, metavar="N", help="start torchrun with N processes on this machine")
    g.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="bound on every collective and wait for another rank (default 120 s)",
    )
    g.add_argument("--max-message", type=parse_size, metavar="SIZE", help="largest collective message")
    g.add_argument(
        "--collectives",
        metavar="LIST",
        help="subset of all_reduce,all_gather,reduce_scatter,broadcast",
    )
    g.add_argument("--phases", metavar="LIST", help="subset of collectives,p2p,scaling")
    g.add_argument(
        "--toy",
        action="store_true",
        help="tiny sizes and budgets: checks a setup in seconds, numbers mean little",
    )


def wants_cluster(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "distributed", False) or getattr(args, "nproc", None) is not None)


def options_from_args(args: argparse.Namespace):
    """DistributedOptions from the flags; UserInputError names the flag."""
    from pydantic import ValidationError

    from gpu_advisor.bench.distributed.options import DistributedOptions, parse_device

    fields = given_flags(args, _FLAGS)
    if args.device is not None:
        try:
            fields["device"] = parse_device(args.device)  # parsed, in place of the flag's text
        except ValueError as exc:
            raise UserInputError(f"--device: {exc}") from None
    fields["mode"] = "toy" if args.toy else "quick" if args.quick else "full"
    try:
        return DistributedOptions.model_validate(fields)
    except ValidationError as exc:
        raise flag_error(exc, _FLAGS) from None


def cmd_cluster(args: argparse.Namespace, *, progress_printer, check_output_path) -> int:
    """Run the cluster benchmark as a rank (--distributed) or as the launcher (--nproc)."""
    if args.distributed and args.nproc is not None:
        raise UserInputError(
            "--nproc starts torchrun, which runs --distributed on each rank: give one of them"
        )
    for flag, value in (("--workloads", args.workloads), ("--model", args.model)):
        if value is not None:
            raise UserInputError(f"{flag}: not used by a cluster run (it measures links and DDP scaling)")
    options = options_from_args(args)
    check_output_path(args.json)
    if args.nproc is not None:
        return _launch(options, args, progress_printer())
    return _rank(options, args, progress_printer())


def _launch(options, args: argparse.Namespace, show) -> int:
    from gpu_advisor.bench.distributed.errors import DistributedRunFailed
    from gpu_advisor.bench.distributed.launcher import max_local_ranks, run_local
    from gpu_advisor.wording.distributed import render_cluster

    if args.nproc < 2:
        raise UserInputError("--nproc: a cluster run needs at least 2 processes")
    if args.nproc > max_local_ranks():
        raise UserInputError(f"--nproc: at most {max_local_ranks()} on this machine (one per CPU core)")
    try:
        report = run_local(options, args.nproc, json_path=args.json, on_progress=show)
    except DistributedRunFailed as exc:
        _clear_progress()
        print(f"gpu-advisor bench: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: run_local has stopped every rank
        _clear_progress()
        print("\ninterrupted: every rank was stopped", file=sys.stderr)
        return exit_code_for(exc)
    _clear_progress()
    print(render_cluster(report))
    if args.json:
        print(f"\nResults written to {args.json}")
    return 0


def _rank(options, args: argparse.Namespace, show) -> int:
    from gpu_advisor.bench.distributed.environment import RankEnv
    from gpu_advisor.bench.distributed.errors import DistributedRunFailed
    from gpu_advisor.bench.distributed.events import run_dir_from_env

    # torchrun stops ranks with SIGTERM and expects them gone: the default action, not an exception
    # that would wait for a collective blocked on a dead peer.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    env = RankEnv.from_environ()  # NotUnderLauncher: one line, exit 2
    launched_here = run_dir_from_env() is not None  # the --nproc launcher prints everything
    from gpu_advisor.bench.distributed.worker import run_rank

    try:
        report = run_rank(
            options,
            json_path=args.json,
            on_progress=show if env.rank == 0 and not launched_here else None,
            env=env,
        )
    except DistributedRunFailed as exc:
        # One line for the whole run: from the lowest rank not to blame (every rank when none could
        # ask the others).
        blamed = set(exc.culprits) if exc.culprits is not None else set(range(env.world_size))
        survivors = sorted(set(range(env.world_size)) - blamed)
        if not launched_here and (not survivors or env.rank == survivors[0]):
            _clear_progress()
            print(f"gpu-advisor bench: error: {exc}", file=sys.stderr)
        sys.stderr.flush()
        sys.stdout.flush()
        # The process group may be wedged on a dead peer: do not wait for its destructors.
        os._exit(EXIT_FAILED)
    if report is not None and not launched_here:
        from gpu_advisor.wording.distributed import render_cluster

        _clear_progress()
        print(render_cluster(report))
        if args.json:
            print(f"\nResults written to {args.json}")
    return 0


def _clear_progress() -> None:
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[2K")
        sys.stderr.flush()
