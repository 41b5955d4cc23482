"""A second package's first `import <pkg>.torch` on a fresh kernel cache, after a first package's:
what the C++ Autograd gate costs it. Two small user packages (tests/test_own_package.py's project:
Scale and ScaleGrad, namespaces gate_a_ops and gate_b_ops) are generated with the checkout's code,
then one child process imports the first package's torch module (it builds the gate and what both
share) and a second child the second's: its wall and CPU seconds (the child's and its compilers',
getrusage), whether its ops are gated, and how many host compiles it ran. With a gate per package
the second import compiles its own; with one gate library per PyTorch it loads the first's.
Usage: python bench/bench_torch_gate_second_package.py [--repo PATH] (the checkout whose code is
imported, this one by default). On a shared machine CPU seconds are the comparable figure."""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GENERATE = """
import sys
from pathlib import Path
sys.path.insert(0, "tests")
from test_own_package import generate, write_project
for name in ("a", "b"):
    generate(write_project(Path(sys.argv[1]) / name, f"gate_{name}_ops"))
"""

IMPORT = """
import importlib, sys, warnings
warnings.simplefilter("error", RuntimeWarning)  # (a library or gate that could not be built: not a measurement)
module = importlib.import_module(sys.argv[1] + ".torch")
from codegen.runtime.host.state import stats
print("gated", module.GATED, "runtime_compiles", stats["runtime_compiles"], "compiles", stats["compiles"])
"""


def child(repo: Path, env: dict[str, str], code: str, *args: str) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=1200)
    if done.returncode:
        raise SystemExit(f"the child failed ({done.returncode}):\n{done.stderr[-4000:]}")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    repo = args.repo.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        base = {k: v for k, v in os.environ.items() if not k.startswith("OPGEN_")}
        base.update(OPGEN_CACHE_DIR=str(root / "cache"), CUDA_VISIBLE_DEVICES="")
        child(repo, {**base, "PYTHONPATH": str(repo)}, GENERATE, str(root / "projects"))
        for name in ("a", "b"):
            env = {**base, "PYTHONPATH": os.pathsep.join([str(repo), str(root / "projects" / name)])}
            wall, cpu, said = child(repo, env, IMPORT, f"gate_{name}_ops")
            print(f"import gate_{name}_ops.torch  wall {wall:6.2f} s  cpu {cpu:6.2f} s  {said}", flush=True)


if __name__ == "__main__":
    main()
