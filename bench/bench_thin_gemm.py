"""A GEMM step of one row (emu/rt/gemm.cpp's fixed kThinPart parts): the RNN backprop's bias gradients
1ᵀ·dG, [1, T·B] x [T·B, gate width], as the drop-in LSTM (gate width 1024) and GRU (768) run them at
T = 50, B = 32. Times, per product (median of --reps calls): the whole product through the BLAS's
cblas_sgemm on one thread (what the runtime ran before), and the runtime's opgen_rt_gemm at one and two
BLAS threads; and checks the runtime's results are the same bits at both thread counts.

    python bench/bench_thin_gemm.py [--reps 200]
"""

from __future__ import annotations

import argparse
import ctypes
from collections.abc import Callable

import numpy as np
from blas_core import loaded_core  # bench/ is the script folder
from common import machine, median_seconds

from codegen.runtime.host import blas

SHAPES = {"LSTM bias gradient": (1, 1024, 1600), "GRU bias gradient": (1, 768, 1600)}


def median_us(fn: Callable[[], object], reps: int) -> float:
    return median_seconds(fn, repeats=reps) * 1e6


def time_shape(name: str, m: int, n: int, k: int, cblas_sgemm: Callable[..., None], put: Callable[[int], None],
               reps: int) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(m * k).astype(np.float32)
    b = rng.standard_normal(k * n).astype(np.float32)
    out = np.empty(m * n, np.float32)
    row_major, no_trans = 101, 111
    put(1)
    whole = median_us(lambda: cblas_sgemm(row_major, no_trans, no_trans, m, n, k, 1.0, a.ctypes.data, k,
                                          b.ctypes.data, n, 0.0, out.ctypes.data, n), reps)
    results, figures = [], []
    for count in (1, 2):
        put(count)
        figures.append(median_us(lambda: blas.run(a, b, out, m, n, k, False, False, 0, 0, 0, 0), reps))
        results.append(out.tobytes())
    same = "same bits" if results[0] == results[1] else "BITS DIFFER"
    print(f"{name} [{m}, {k}] x [{k}, {n}]: cblas_sgemm whole, one thread {whole:.0f} us; opgen_rt_gemm one "
          f"BLAS thread {figures[0]:.0f} us ({whole / figures[0]:.1f}x faster), two {figures[1]:.0f} us "
          f"({whole / figures[1]:.1f}x); {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args()
    found = blas.find()
    threads = found.thread_count_functions() if found is not None else None
    if found is None or threads is None:
        raise SystemExit("needs NumPy's OpenBLAS (its cblas_sgemm and thread-count functions)")
    get, put = threads
    index = ctypes.c_int64 if found.int64 else ctypes.c_int32
    cblas_sgemm = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_int, ctypes.c_int, index, index, index,
                                   ctypes.c_float, ctypes.c_void_p, index, ctypes.c_void_p, index, ctypes.c_float,
                                   ctypes.c_void_p, index)(found.functions[0])
    print(f"machine: {machine()}; OpenBLAS {loaded_core()} kernels; float32, medians of {args.reps} calls")
    before = get()
    try:
        for name, (m, n, k) in SHAPES.items():
            time_shape(name, m, n, k, cblas_sgemm, put, args.reps)
    finally:
        put(before)


if __name__ == "__main__":
    main()
