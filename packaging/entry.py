"""The bundle's entry point: the same `main` as the `gpu-advisor` console script."""

import multiprocessing
import sys

from gpu_advisor.__main__ import main

if __name__ == "__main__":
    # DataLoader workers started with "spawn" (macOS, Windows) re-run this file: let them be workers.
    multiprocessing.freeze_support()
    sys.exit(main())
