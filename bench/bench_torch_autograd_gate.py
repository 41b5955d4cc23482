"""What a C++ Autograd kernel would save in grad mode (issue 32), measured before building one.

Through torch.ops.opgen with the package's stable-ABI library (OPGEN_TORCH_NATIVE=1), a grad-mode
call whose inputs need no grad still runs the op's Autograd-key kernel in Python
(codegen/runtime/torch_autograd.py): the stable ABI has no requires-grad getter and no redispatch
below autograd. This builds bench/torch_autograd_gate.cpp — an Autograd kernel for LayerNorm,
Softmax and FusedBatchNormGradV3 against PyTorch's own headers, redispatching below autograd in C++
when no graph is recorded — and prints:

* its compile cost: the compiler's user + sys CPU time (load-independent; wall beside it), the
  library's size;
* the per-call figures (tiny inputs, the calling thread's CPU time, best and median of the rounds)
  in grad mode with today's Python kernel, then with the C++ kernel loaded over it (the override is
  permanent in a process, so before and after run in that order), each beside the same call under
  torch.inference_mode() (no Autograd kernel at all: the floor);
* that a call whose input requires grad reaches the C++ kernel's graph branch (which the prototype
  refuses: the design hands it to Python's autograd, bench/RESULTS.md).

    python bench/bench_torch_autograd_gate.py [--rounds N]
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ["OPGEN_TORCH_NATIVE"] = "1"  # (read when generated.torch is imported)
os.environ.setdefault("OPGEN_HOST_THREADS", "1")

import numpy as np
import torch
from common import machine

import generated.torch  # noqa: F401  (registers torch.ops.opgen.*)

SOURCE = Path(__file__).resolve().parent / "torch_autograd_gate.cpp"


def build(out: Path) -> tuple[float, float]:
    """Compiles the gate into `out`: (compiler CPU seconds, wall seconds)."""
    root = Path(torch.__file__).resolve().parent
    cmd = [os.environ.get("CXX", "g++"), "-O2", "-std=c++17", "-shared", "-fPIC",
           f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}",
           "-isystem", str(root / "include"), "-isystem", str(root / "include/torch/csrc/api/include"),
           str(SOURCE), "-o", str(out), "-L", str(root / "lib"), "-ltorch_cpu", "-lc10"]
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, time.perf_counter() - start


def cases() -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((2, 8), dtype=np.float32))
    gamma, beta = torch.ones(8), torch.zeros(8)
    dy4 = torch.from_numpy(rng.standard_normal((1, 1, 1, 2), dtype=np.float32))
    t4 = [dy4, dy4.clone(), torch.ones(2), torch.zeros(2), torch.ones(2), torch.zeros(0)]
    ops = torch.ops.opgen
    return {"LayerNorm [2, 8]": lambda: ops.layer_norm(x, gamma, beta),
            "Softmax [2, 8]": lambda: ops.softmax(x),
            "FusedBatchNormGradV3 [1, 1, 1, 2]": lambda: ops.fused_batch_norm_grad_v3(*t4)}


def per_call(fn: Callable[[], object], inference: bool, rounds: int, repeat: int = 400) -> tuple[float, float]:
    """(best, median) µs per call over `rounds` rounds of `repeat` calls, the thread's CPU time."""
    figures = []
    with torch.inference_mode(inference):
        for _ in range(50):
            fn()
        for _ in range(rounds):
            start = time.thread_time()
            for _ in range(repeat):
                fn()
            figures.append((time.thread_time() - start) / repeat * 1e6)
    figures.sort()
    return figures[0], figures[len(figures) // 2]


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 9
    torch.set_num_threads(1)
    calls = cases()
    before = {op: (per_call(fn, False, rounds), per_call(fn, True, rounds)) for op, fn in calls.items()}
    with tempfile.TemporaryDirectory() as tmp:
        library = Path(tmp) / "torch_autograd_gate.so"
        cpu, wall = build(library)
        size = library.stat().st_size
        torch.ops.load_library(str(library))  # (PyTorch warns that it overrides the Python kernels)
    after = {op: (per_call(fn, False, rounds), per_call(fn, True, rounds)) for op, fn in calls.items()}
    print(f"machine: {machine()}; torch {torch.__version__} (1 thread), OPGEN_HOST_THREADS=1; load average "
          f"{os.getloadavg()[0]:.2f}; {rounds} rounds x 400 calls, the calling thread's CPU time")
    print(f"the gate's build: {cpu:.1f} s of compiler CPU (user + sys), {wall:.1f} s wall; {size // 1024} KiB")
    print("| op, torch.ops, no input requiring grad | grad mode, Python Autograd kernel | grad mode, C++ gate | "
          "saved | inference mode (before / after) |")
    print("|---|---|---|---|---|")
    for op in calls:
        (py, inf_before), (cxx, inf_after) = before[op], after[op]
        print(f"| {op} | {py[1]:.2f} ({py[0]:.2f}) µs | {cxx[1]:.2f} ({cxx[0]:.2f}) µs | {py[1] - cxx[1]:.2f} µs | "
              f"{inf_before[1]:.2f} / {inf_after[1]:.2f} µs |")
    x = torch.ones(2, 8, requires_grad=True)
    try:
        torch.ops.opgen.softmax(x)
        print("a call with an input requiring grad: NOT taken by the gate (check the registration)")
    except RuntimeError as e:
        print(f"a call with an input requiring grad reaches the gate's graph branch: {str(e).splitlines()[0]}")


if __name__ == "__main__":
    main()
