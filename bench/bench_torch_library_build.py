"""The first `import generated.torch` on a cold kernel cache (it builds the package's native PyTorch
library: codegen/runtime/torch_library.py) and a warm one after it: wall and CPU seconds of a child
process each (CPU: the child's and its compilers', getrusage), and what the child compiled (the host
backend's stats). Usage: python bench/bench_torch_library_build.py [--repo PATH] [--cache DIR]
(--repo: the checkout whose code is imported, this one by default; --cache: an empty folder to use,
a temporary one by default). On a shared machine CPU seconds are the comparable figure."""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import warnings
warnings.simplefilter("error", RuntimeWarning)  # (a library that could not be built: not a measurement)
import generated.torch
from codegen.runtime.host.state import stats
from codegen.runtime import torch_library
print("built", [p.name for p in torch_library._BUILT.values()], "runtime_compiles", stats["runtime_compiles"],
      "compiles", stats["compiles"])
"""


def run(repo: Path, cache: Path) -> tuple[float, float, str]:
    env = dict(os.environ, OPGEN_CACHE_DIR=str(cache), PYTHONPATH=str(repo))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=900)
    if done.returncode:
        raise SystemExit(f"the import failed ({done.returncode}):\n{done.stderr[-4000:]}")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--cache", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="opgen-bench-cache-") as tmp:
        cache = args.cache or Path(tmp)
        for what in ("cold", "warm"):
            wall, cpu, said = run(args.repo.resolve(), cache)
            print(f"{what}: wall {wall:.1f} s, cpu {cpu:.1f} s; {said}", flush=True)


if __name__ == "__main__":
    main()
