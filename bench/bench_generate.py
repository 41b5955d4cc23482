"""`opgen generate` (into a fresh folder, and again with nothing to write) and `opgen check`:
wall time of the whole command, as a user runs it. Goal: under 2 s each."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import machine

ROOT = Path(__file__).resolve().parent.parent


def wall(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "codegen", *args], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    fresh, again, check = [], [], []
    for _ in range(5):
        with tempfile.TemporaryDirectory() as tmp:
            fresh.append(wall(["generate", "--out", tmp]))
            again.append(wall(["generate", "--out", tmp]))
        check.append(wall(["check"]))
    print(f"machine: {machine()}")
    print(f"opgen generate (fresh folder): median {statistics.median(fresh):.2f} s")
    print(f"opgen generate (up to date):   median {statistics.median(again):.2f} s")
    print(f"opgen check:                   median {statistics.median(check):.2f} s")


if __name__ == "__main__":
    main()
