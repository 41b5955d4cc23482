"""Lanes in the emulation runtime's batches (emu/rt/batch.cpp): a bidirectional recurrent loop shaped
as the drop-in LSTM's (T steps; per step and direction a [32, 256] x [256, 1024] GEMM, then a gate
kernel over [32, 256]) run as one batch, two ways:

  plain: per step the two GEMMs (each split over the pool at two BLAS threads) and one launch over
         both directions (grid [64, 2]): three pool hand-offs a step, as the cpu plans run it today;
  lanes: the same records, each direction a lane (its launch the direction's half of the grid, a block
         range): the lanes side by side on the caller and a helper, one hand-off for the whole loop.

Prints per call: wall time (median), the process's CPU time (all threads), the pool's wakes; and checks
the two ways give the same bits. Usage: python bench/bench_lanes_rt.py [--steps 50] [--reps 30]"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import struct
import time

import numpy as np

from codegen.runtime import host
from codegen.runtime.host import blas, pack
from codegen.runtime.host.libraries import _RUNTIME
from codegen.runtime.host.queue import run_batch

KERNEL = r"""
extern "C" __global__ void gate(float* h, const float* g, long long n) {  // per direction blockIdx.y
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float* gd = g + blockIdx.y * n * 4;
  float* hd = h + blockIdx.y * n;
  float s = 1.0f / (1.0f + expf(-gd[4 * i + 2]));
  hd[i] = tanhf(gd[4 * i] + gd[4 * i + 1]) * s + 0.5f * tanhf(gd[4 * i + 3]);
}
"""

B, H = 32, 256


def _blas_threads(n: int) -> None:
    found = blas.find()
    functions = found.thread_count_functions() if found is not None else None
    if functions is None:
        raise SystemExit("needs NumPy's OpenBLAS (its thread-count functions)")
    functions[1](n)


def _batch(gate: object, steps: int, laned: bool, h: np.ndarray, g: np.ndarray, w: np.ndarray,
           keep: list) -> tuple[bytes, int]:
    found = blas.find()
    assert found is not None
    n = B * H
    blocks = (n + 127) // 128
    records = []

    def cfg(lo: int, hi: int) -> int:
        c = pack._LaunchCfg()
        c.grid[:] = (blocks, 2, 1)
        c.block[:] = (128, 1, 1)
        c.nworkers, c.stack_size = 2, 64 * 1024
        c.block_lo, c.block_hi = lo, hi
        keep.append(c)
        return ctypes.addressof(c)

    whole, halves = cfg(0, 0), (cfg(0, blocks), cfg(blocks, 2 * blocks))
    desc = found.desc(np.dtype(np.float32), B, 4 * H, H, False, False, 0, 0, 0, 0)
    keep.append(desc)
    gemm_fmt = pack.BATCH_LANE_RECORD + "Q8x" * 3
    gate_fmt = pack.BATCH_LANE_RECORD + "Q8xQ8xq8x"
    for _ in range(steps):
        for d in (0, 1):
            records.append(struct.pack(gemm_fmt, blas.gemm_address(), ctypes.addressof(desc), 3, d + 1 if laned else 0,
                                       0, h[d].ctypes.data, w[d].ctypes.data, g[d].ctypes.data))
        for d in ((0, 1) if laned else (None,)):
            address = halves[d] if d is not None else whole
            records.append(struct.pack(gate_fmt, gate._launch_addr, address, 3, d + 1 if d is not None else 0, 0,
                                       h.ctypes.data, g.ctypes.data, n))
    return b"".join(records), len(records)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    gate = host.load_module(KERNEL, name_hint="bench_lanes_rt").get_function("gate")
    _blas_threads(2)
    wakes_fn = _RUNTIME["lib"].opgen_rt_pool_wakes
    wakes_fn.restype = ctypes.c_uint64
    call = run_batch()
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((2, H, 4 * H)) / 16).astype(np.float32)
    finals = {}
    err = ctypes.create_string_buffer(4096)
    for laned in (False, True, False, True):  # interleaved rounds
        keep: list = []
        h = np.zeros((2, B, H), np.float32)
        g = np.zeros((2, B, 4 * H), np.float32)
        blob, count = _batch(gate, args.steps, laned, h, g, w, keep)
        walls, cpus, wakes = [], [], []
        for _ in range(args.reps):
            h[:] = 0.1
            w0, c0, k0 = time.perf_counter(), time.process_time(), wakes_fn()
            done = call(blob, count, None, 0, err, len(err))
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
            wakes.append(wakes_fn() - k0)
            assert done == count, err.value
        name = "lanes" if laned else "plain"
        finals.setdefault(name, h.tobytes())
        assert finals[name] == h.tobytes()
        print(f"{name}: wall median {statistics.median(walls) * 1e3:.2f} ms (min {min(walls) * 1e3:.2f}), "
              f"CPU median {statistics.median(cpus) * 1e3:.2f} ms, wakes/call {statistics.median(wakes):.0f}",
              flush=True)
    print("same bits:", finals["plain"] == finals["lanes"])


if __name__ == "__main__":
    main()
