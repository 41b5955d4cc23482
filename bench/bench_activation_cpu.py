#!/usr/bin/env python3
"""An erf-based activation over a large array on the cpu backend (issue 21 item 4): a user activation
library with GELU, x·Φ(x) = 0.5·x·(1 + erf(x/√2)), applied to 4M floats by Activation::run (the run
form: the vocab expression's vector twin, vm::erf kLanes at a time) and, as before this change, by
the scalar call per element (the C library's erff), by runs of 8 and of 32 values, against PyTorch's
erf-based GELU (torch.nn.functional.gelu, approximate="none") on the same data, 2 threads each,
medians over interleaved rounds.

    python bench/bench_activation_cpu.py [--rounds 5] [--n 4194304]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

PROJECT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(PROJECT), str(PROJECT / "tests")]

import vector_math_cases  # type: ignore[import-not-found]  # noqa: E402 -- renders a library into a kernel head
from common import machine, median_seconds  # noqa: E402 -- bench/ is the script folder

from codegen.runtime import host  # noqa: E402
from codegen.vocab import load_activations  # noqa: E402

THREADS = 2
VOCAB = """\
activations:
  - name: gelu
    formula: "x·Φ(x)"
    c: "0.5f * x * (1.0f + erff(x * 0.70710678118654752f))"
"""
KERNEL = """
// y = gelu(x) over blockIdx.x's share of n: by Activation::run in runs of R (run = R: 8 or 32), or
// one call per element (run = 0: the scalar form).
template <int R>
__device__ long long by_runs(const opgen::act::Activation& f, const float* x, float* y, long long j, long long end) {
  for (; j + R <= end; j += R) {
    float v[R];
    for (int q = 0; q < R; ++q) v[q] = x[j + q];
    f.run(v);
    for (int q = 0; q < R; ++q) y[j + q] = v[q];
  }
  return j;
}
extern "C" __global__ void gelu(const float* x, float* y, long long n, int run) {
  const opgen::act::Activation f{opgen::act::kGelu};
  const long long per = (n + gridDim.x - 1) / gridDim.x, begin = blockIdx.x * per;
  const long long end = begin + per < n ? begin + per : n;
  long long j = begin;
  if (run == 8) j = by_runs<8>(f, x, y, j, end);
  if (run == 32) j = by_runs<32>(f, x, y, j, end);
  for (; j < end; ++j) y[j] = f(x[j]);
}
"""


def build() -> host.HostModule:
    with tempfile.TemporaryDirectory() as root:
        (Path(root) / "_vocab").mkdir()
        (Path(root) / "_vocab" / "activations.yaml").write_text(VOCAB, encoding="utf-8")
        library = load_activations(Path(root))
    return host.load_module(vector_math_cases.library_source(library) + KERNEL, (), name_hint="bench_gelu")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--n", type=int, default=1 << 22)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(THREADS)
    kernel = build().get_function("gelu")
    x = (np.random.default_rng(0).standard_normal(args.n) * 3).astype(np.float32)
    y = np.empty_like(x)
    xt = torch.from_numpy(x)

    def opgen_gelu(run: int) -> None:
        kernel((THREADS,), (1,), (x, y, np.int64(args.n), np.int32(run)))

    sides = {"scalar (before)": lambda: opgen_gelu(0), "runs of 8": lambda: opgen_gelu(8),
             "runs of 32": lambda: opgen_gelu(32), "torch gelu": lambda: torch.nn.functional.gelu(xt)}
    times: dict[str, list[float]] = {k: [] for k in sides}
    for _ in range(args.rounds):
        for name, fn in sides.items():
            times[name].append(median_seconds(fn, repeats=9, warmup=1))
    want = torch.nn.functional.gelu(xt.double()).numpy()
    print(f"{machine()}; n = {args.n}, {THREADS} threads, medians of {args.rounds} rounds")
    for run in (0, 8, 32):
        opgen_gelu(run)
        label = f"runs of {run}" if run else "scalar"
        print(f"{label}: max abs error vs float64 GELU {np.abs(y - want).max():.3g}")
    torch_ms = statistics.median(times["torch gelu"]) * 1e3
    for name, ts in times.items():
        ms = statistics.median(ts) * 1e3
        print(f"{name:18s} {ms:8.2f} ms  ({ms / torch_ms:.2f}x torch)")


if __name__ == "__main__":
    main()
