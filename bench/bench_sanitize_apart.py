"""CPU per sanitized launch with the launch's arrays copied apart (host_sanitize.BuffersApart: copies
with red zones between them, written back after) and with the arrays as given (what the sanitize build
did before), interleaved round by round; the same launch reading x and b through a pointer table
(host.pointer_table: its arrays copied apart too, the table's copy repointed); and the copies' own cost
(BuffersApart + copy_back) alone.
Process CPU time (the sanitized launch runs on one worker thread): a loaded shared machine still
compares the two fairly. A grid-stride kernel over three float32 arrays, at three sizes.

    PYTHONPATH=. OPGEN_HOST_THREADS=1 python bench/bench_sanitize_apart.py"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from common import machine

from codegen.runtime import host, host_sanitize

SOURCE = r"""
extern "C" __global__ void axpb(const float* x, const float* b, float* y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + b[i];
}
extern "C" __global__ void axpb_table(const float* const* xb, float* y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * xb[0][i] + xb[1][i];
}
"""
SIZES = (1_000, 100_000, 1_000_000)
ROUNDS = 5


class AsGiven:
    """The arrays as the caller gave them (the sanitize build before BuffersApart)."""

    def __init__(self, pointer_params: Sequence[int], args: Sequence[Any], names: Sequence[str] = ()) -> None:
        self.args = list(args)
        self.moved: list[tuple[int, int]] = []
        self.targets: list[tuple[str, np.ndarray]] = []
        self.bounds = (0, 0)

    def copy_back(self) -> None:
        pass


def cpu(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    print(machine())
    module = host.load_module(SOURCE, name_hint="bench_sanitize_apart", sanitize=True)
    kernel, through_table = module.get_function("axpb"), module.get_function("axpb_table")
    apart = host_sanitize.BuffersApart
    print("| elements | launch, copies apart (ms) | launch, as given (ms) | through a pointer table (ms) "
          "| copies alone (ms) | rounds |")
    print("|---|---|---|---|---|---|")
    for n in SIZES:
        rng = np.random.default_rng(n)
        x, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        y = np.empty(n, np.float32)
        args = (x, b, y, np.float32(2.0), np.int32(n))
        grid = (min(1024, (n + 255) // 256),)

        launch = functools.partial(kernel, grid, (256,), args)
        tabled = functools.partial(through_table, grid, (256,), (host.pointer_table([x, b]), y, np.float32(2.0),
                                                                 np.int32(n)))
        copies = functools.partial(lambda a: apart([0, 1, 2], a).copy_back(), args)
        launch()
        np.testing.assert_array_equal(y, np.float32(2.0) * x + b)  # written back
        y[:] = np.nan
        tabled()
        np.testing.assert_array_equal(y, np.float32(2.0) * x + b)
        figures: dict[str, list[float]] = {"apart": [], "given": [], "table": []}
        for _ in range(ROUNDS):
            figures["table"].append(cpu(tabled, 3))
            for name, stand_in in (("apart", apart), ("given", AsGiven)):
                host_sanitize.BuffersApart = stand_in  # type: ignore[misc, assignment]
                try:
                    figures[name].append(cpu(launch, 3))
                finally:
                    host_sanitize.BuffersApart = apart  # type: ignore[misc]
        alone = cpu(copies, 20)
        print(f"| {n:,} | {statistics.median(figures['apart']) * 1e3:.2f} | "
              f"{statistics.median(figures['given']) * 1e3:.2f} | {statistics.median(figures['table']) * 1e3:.2f} | "
              f"{alone * 1e3:.3f} | {ROUNDS} |")


if __name__ == "__main__":
    main()
