"""The native plan runner on the cpu (codegen/runtime/native/run_plan_cpu.h) against the Python
plan runner (codegen/runtime/plan.py run_plan, replayed as the cpu backend's native batches), per
call of LayerNorm [2, 8] float32 (issue 32): the same recorded plan, kernels and buffers.

- python: `run_plan(backend, kernels, plan, values, buffers)` and the backend's flush, as a wrapper
  calls them (a replay: one dict lookup, the buffer table bound, one batch into the runtime);
- native, through ctypes: one `opgen_native_run_plan` call per run (the values and buffers
  marshalled by ctypes each time, which a generated driver does not do);
- native, in C: `repeat` runs in one ctypes call, per run (what a generated driver pays for
  run_plan: the recording's lookup, the table, one batch into the runtime);
- kernels: the batch's own execution (codegen/runtime/host/batch_timing.py: the logged batch run
  again, less as many empty batches), the floor under both.

Each figure is the median of interleaved rounds (the best round in brackets). The emulation runs on
OPGEN_HOST_THREADS=1 unless the environment says otherwise (bench_host_overhead.py says why).

    python bench/bench_native_run_plan_cpu.py [--quick]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OPGEN_HOST_THREADS", "1")

import numpy as np

PROJECT = Path(__file__).resolve().parent.parent
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

from common import machine  # noqa: E402

from codegen.runtime import native_cpu  # noqa: E402
from codegen.runtime.host.batch_timing import record_batches, replayer  # noqa: E402
from codegen.runtime.plan import run_plan  # noqa: E402
from codegen.runtime.scope import Scope, backend_of  # noqa: E402
from generated.norm import layer_norm as module  # noqa: E402


def per_call(fn: Callable[[], None], calls: int) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / calls


def main() -> None:
    quick = "--quick" in sys.argv
    rounds, repeat = (5, 2000) if quick else (15, 20000)
    plan, kernels = module._PLAN, module._KERNELS
    backend = backend_of(Scope("cpu"), "LayerNorm")
    runner = native_cpu.load([plan], "bench-layer-norm")
    runner.bind(kernels, plan, backend)
    x = np.random.default_rng(0).standard_normal((2, 8)).astype(np.float32)
    values = ("float32", 2, 1, 2, 8, 1e-5)  # as the wrapper computes them for [2, 8] on the cpu plan
    buffers = (x, None, None, np.empty_like(x), np.empty(2, np.float32), np.empty(2, np.float32))

    def python() -> None:
        for _ in range(repeat):
            run_plan(backend, kernels, plan, values, buffers)
            backend.flush()

    def native_ctypes() -> None:
        for _ in range(repeat):
            runner.run_plan(plan.op, values, buffers)

    def native_c() -> None:
        runner.run_plan(plan.op, values, buffers, repeat=repeat)

    python()
    native_c()
    with record_batches() as log:
        run_plan(backend, kernels, plan, values, buffers)
    kernels_pass, crossings_pass = replayer(log)

    def kernel_floor() -> None:
        for _ in range(repeat):
            kernels_pass()

    def crossings() -> None:
        for _ in range(repeat):
            crossings_pass()

    paths = {"python run_plan": python, "native, through ctypes": native_ctypes, "native, in C": native_c,
             "kernels (with ctypes)": kernel_floor, "empty batches (ctypes)": crossings}
    samples: dict[str, list[float]] = {name: [] for name in paths}
    for _ in range(rounds):
        for name, fn in paths.items():
            samples[name].append(per_call(fn, repeat) * 1e6)
    kernels_us = statistics.median(samples["kernels (with ctypes)"]) - statistics.median(
        samples["empty batches (ctypes)"])
    print(f"LayerNorm [2, 8] float32, cpu; {machine()}; OPGEN_HOST_THREADS={os.environ['OPGEN_HOST_THREADS']}")
    print("| path | µs per call (best) | less the kernels |")
    print("|---|---|---|")
    for name in ("python run_plan", "native, through ctypes", "native, in C"):
        median = statistics.median(samples[name])
        print(f"| {name} | {median:.2f} ({min(samples[name]):.2f}) | {median - kernels_us:.2f} |")
    print(f"| kernels' own execution | {kernels_us:.2f} | |")


if __name__ == "__main__":
    main()
