"""The command-line face: plan, catalog, bench, monitor, compare, report, doctor.

One module per command family (`plan`, `catalog`, `bench` for bench/monitor/compare, `report`); this
one builds the parser and runs a command. Bad input exits with code 2 and one line naming the field;
never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from gpu_advisor.core.errors import UserInputError

GUI_FLAGS = {"--self-test"}
EXIT_USAGE = 2


CliError = UserInputError  # raised by every subcommand for input the user can fix: one line, exit 2


# ---- entry ---------------------------------------------------------------------------------------
class OneLineParser(argparse.ArgumentParser):
    """argparse with the project's error style: one line naming the problem and where help is,
    instead of an 18-line usage block (subcommand parsers inherit it)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="gpu-advisor",
        description="Plan which GPUs to buy or rent for ML training and inference, then check the plan "
        "on real hardware. With no arguments the desktop app starts.",
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="open the app headless, plan a preset, run a short CPU workload, exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from gpu_advisor.cli import bench, catalog, doctor, plan, report, trace

    plan.add_parser(sub)
    trace.add_parser(sub)
    catalog.add_parser(sub)
    bench.add_parsers(sub)
    report.add_parser(sub)
    doctor.add_parser(sub)
    return parser


def run_cli(argv: Sequence[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(list(argv))
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from gpu_advisor.cli.signals import exit_code_for, terminate_like_interrupt

    terminate_like_interrupt()  # a file being written when SIGTERM comes is cleaned up, not left
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"gpu-advisor {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (signals.Terminated)
        print("interrupted", file=sys.stderr)
        return exit_code_for(exc)
    except BrokenPipeError:
        # The reader went away (`gpu-advisor plan --json | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
