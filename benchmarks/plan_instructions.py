"""Instructions per plan() call, counted by valgrind's callgrind: a measure of plan()'s cost that does
not depend on what else the machine runs (benchmarks/plan_speed.py gives the wall and CPU times).

For each request of plan_speed.py whose name contains one of the arguments (all without arguments),
runs Python under callgrind twice, planning once to warm the caches and then 0 or 10 more times, and
prints (instructions of the second - of the first) / 10. The hash seed is fixed: string hashes
change the layout of dicts and sets, and with it the count by about 1%.
Needs valgrind. Run: PYTHONPATH=TREE .venv/bin/python benchmarks/plan_instructions.py [405b 70b ...]
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPEATS = 10
_CHILD = """
import sys
sys.path.insert(0, {bench!r})
from plan_speed import REQUESTS
from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import plan
from gpu_advisor.core.request import PlanRequest
kw = REQUESTS[{name!r}]
req = PlanRequest(**{{**kw, "model": get_preset(kw["model"])}})
catalog = default_catalog()
plan(req, catalog)
for _ in range({repeats}):
    plan(req, catalog)
"""


def _instructions(name: str, repeats: int) -> int:
    code = _CHILD.format(bench=str(Path(__file__).resolve().parent), name=name, repeats=repeats)
    env = os.environ | {"PYTHONHASHSEED": "0"}
    done = subprocess.run(
        # -P: no current directory on sys.path, so gpu_advisor comes from PYTHONPATH (the tree measured)
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-P", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    match = re.search(r"Collected : (\d+)", done.stderr)
    if match is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(match.group(1))


def main(words: list[str]) -> int:
    from plan_speed import REQUESTS

    import gpu_advisor

    names = [n for n in REQUESTS if not words or any(w in n for w in words)]
    print(f"gpu_advisor from {Path(gpu_advisor.__file__).parent}")
    print(f"{'request':<50} {'instructions per plan':>22}")
    for name in names:
        per_plan = (_instructions(name, REPEATS) - _instructions(name, 0)) // REPEATS
        print(f"{name:<50} {per_plan:>22,}", flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main(sys.argv[1:]))
