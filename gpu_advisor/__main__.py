"""`gpu-advisor` and `python -m gpu_advisor`: the GUI with no arguments, otherwise the CLI."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from gpu_advisor.cli import GUI_FLAGS, run_cli

    if not args or all(a in GUI_FLAGS for a in args):
        from gpu_advisor.app import run_gui

        return run_gui(args)
    return run_cli(args)


if __name__ == "__main__":
    sys.exit(main())
