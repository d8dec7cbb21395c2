"""`gpu-advisor doctor`: what this machine offers, and with `--gpu` a check of every GPU-only path.

    gpu-advisor doctor                             # the machine, each GPU, the torch build, whether
                                                   # torch can use the GPU
    gpu-advisor doctor --gpu [--json FILE]         # NVML or AMD SMI, CUDA events, pinned transfers,
                                                   # peak memory, matmul/bandwidth/decode against the
                                                   # catalogue

Exit codes of `--gpu`: 0 when every path worked, 1 when one failed, 2 (one line) where there is no GPU
to check or FILE cannot be written (checked before minutes of work, not after).
"""

from __future__ import annotations

import argparse
from typing import Any

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
        help="exercise NVML or AMD SMI, CUDA timing, pinned transfers and peak memory on GPU 0 and write a report",
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


def gpu_lines(gpus: list[dict[str, Any]]) -> list[str]:
    """One line per GPU as its library numbers them: name, memory, power limit, UUID, PCI address."""
    from gpu_advisor.telemetry.gpu_source import library_label
    from gpu_advisor.wording.gpu_facts import gpu_facts

    if not gpus:
        return []
    first = gpus[0]
    versions = gpu_facts(first, ("driver_version", "cuda_driver_version"))
    library = library_label(first.get("backend"))
    lines = [f"gpus (through {library}{', ' if versions else ''}{', '.join(versions)}):"]
    for gpu in gpus:
        parts = [str(gpu.get("name") or "unknown GPU")]
        parts += gpu_facts(
            gpu, ("memory_total_bytes", "power_limit_w", "mig_mode", "uuid", "pci_bus_id", "error")
        )
        lines.append(f"  GPU {gpu.get('index')}: {', '.join(parts)}")
    return lines


def _describe() -> int:
    """The machine in a few lines, and what `--gpu` would do with it."""
    from gpu_advisor.telemetry import describe_machine, hardware_summary
    from gpu_advisor.telemetry.machine import CPU_MODE_PREFIX

    machine = describe_machine()
    gpus = machine.get("gpus") or []
    print(f"machine: {hardware_summary(machine)}")
    for line in gpu_lines(gpus):
        print(line)
    print(f"python: {machine.get('python_version')}, {machine.get('os')}")
    try:
        import torch
    except ImportError:
        print("torch: not installed (benchmarks cannot run; ./install.sh installs it)")
    else:
        hip = getattr(torch.version, "hip", None)
        build = (
            f"CUDA {torch.version.cuda}" if torch.version.cuda else f"ROCm {hip}" if hip else "CPU-only build"
        )
        usable = "GPU usable" if torch.cuda.is_available() else "no GPU usable"
        print(f"torch: {torch.__version__} ({build}, {usable} through torch.cuda)")
    if gpus:
        print(
            "next: `gpu-advisor doctor --gpu` checks every GPU-only path on GPU 0 (budgeted for under four minutes)"
        )
    else:
        status = str(machine.get("gpu_status") or "")
        reason = (
            status.removeprefix(f"{CPU_MODE_PREFIX} (").removesuffix(")")
            if status.startswith(CPU_MODE_PREFIX)
            else status
        )
        print(f"gpu: none found: {reason}")
        print(
            "next: `doctor --gpu` needs an NVIDIA GPU with its driver, or an AMD GPU with ROCm and the amdsmi "
            "package (README, AMD GPUs)"
        )
    return 0
