"""Exercise every GPU-only path once and write one report of what worked (see gpu_advisor/bench/doctor.py).

Run on a machine with an NVIDIA GPU, after ./install.sh (which installs the CUDA build of torch):
    .venv/bin/python scripts/gpu_doctor.py [--json gpu-doctor.json]
Budgeted to stay under four minutes (not yet timed on a GPU). Exit code: 0 when every path worked, 1 when one failed,
2 (one line) where there is no GPU to check.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="gpu-doctor.json", metavar="FILE", help="the report (JSON)")
    args = parser.parse_args(argv)
    from gpu_advisor.bench.doctor import NoGpu, run_doctor, write_doctor_report
    from gpu_advisor.core.files import check_writable
    from gpu_advisor.wording.doctor import doctor_lines

    try:
        check_writable(args.json)  # before minutes of work, not after
        report = run_doctor()
    except NoGpu as exc:
        print(f"gpu doctor: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"gpu doctor: {args.json}: cannot write ({exc.strerror or exc})", file=sys.stderr)
        return 2
    print("\n".join(doctor_lines(report)))
    write_doctor_report(report, args.json)
    print(f"Report written to {args.json}")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
