"""`gpu-advisor doctor`: what this machine offers, and with `--gpu` a check of every GPU-only path.

    gpu-advisor doctor                             # the machine, the torch build, whether CUDA works
    gpu-advisor doctor --gpu [--json FILE]         # NVML, CUDA events, pinned transfers, peak memory,
                                                   # matmul/bandwidth/decode against the catalogue

Exit codes of `--gpu`: 0 when every path worked, 1 when one failed, 2 (one line) where there is no GPU
to check or FILE cannot be written (checked before minutes of work, not after).
"""

from __future__ import annotations

import argparse

DEFAULT_REPORT = "gpu-doctor.json"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="say what this machine offers; --gpu checks every GPU-only path (budgeted for under four minutes)",
        description=__doc__.splitlines()[0],
    )
    p.add_argument(
        "--gpu",
        action="store_true",
        help="exercise NVML, CUDA timing, pinned transfers and peak memory on GPU 0 and write a report",
    )
    p.add_argument(
        "--json",
        default=DEFAULT_REPORT,
        metavar="FILE",
        help=f"where --gpu writes its report (JSON, default {DEFAULT_REPORT})",
    )
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    if not args.gpu:
        return _describe()
    from gpu_advisor.bench.doctor import run_doctor, write_doctor_report
    from gpu_advisor.cli.bench import check_output_path
    from gpu_advisor.wording.doctor import doctor_lines

    check_output_path(args.json)  # before minutes of work, not after
    report = run_doctor()  # NoGpu is a UserInputError: one line, exit 2
    print("\n".join(doctor_lines(report)))
    write_doctor_report(report, args.json)
    print(f"wrote {args.json}")
    return 1 if report.failed else 0


def _describe() -> int:
    """The machine in a few lines, and what `--gpu` would do with it."""
    from gpu_advisor.telemetry import describe_machine, hardware_summary

    machine = describe_machine()
    print(f"machine: {hardware_summary(machine)}")
    print(f"python: {machine.get('python_version')}, {machine.get('os')}")
    try:
        import torch
    except ImportError:
        print("torch: not installed (benchmarks cannot run; ./install.sh installs it)")
    else:
        build = f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU-only build"
        usable = "CUDA usable" if torch.cuda.is_available() else "CUDA not usable"
        print(f"torch: {torch.__version__} ({build}, {usable})")
    if machine.get("gpus"):
        print(
            "next: `gpu-advisor doctor --gpu` checks every GPU-only path on GPU 0 (budgeted for under four minutes)"
        )
    else:
        print("gpu: none that NVML sees here; `doctor --gpu` needs an NVIDIA GPU and its driver")
    return 0
