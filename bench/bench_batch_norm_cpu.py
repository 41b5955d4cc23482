"""Batch-norm gradient (training, float32, N=32 C=64 H=W=56) on the cpu backend, beside the same
math in vectorised NumPy and PyTorch CPU (`aten.native_batch_norm_backward`, when installed),
measured in the same run. Goal (issue 21): NCHW within 1.0x of PyTorch CPU.

    python bench/bench_batch_norm_cpu.py              wall-time medians, 2 threads each side
    python bench/bench_batch_norm_cpu.py --cpu-time   CPU time of the calling thread, one thread each
                                                      side (min / median of 30): fair on a loaded machine

OPGEN_HOST_ISA=baseline measures the baseline build (the header line names the build).
"""

from __future__ import annotations

import argparse
import os
from typing import Any, Literal

import numpy as np
from common import cpu_seconds, machine, median_seconds

from codegen.runtime import host
from generated import Scope, fused_batch_norm_grad_v3, fused_batch_norm_v3

N, C, H, W = 32, 64, 56, 56
EPS = 1e-3
Format = Literal["NHWC", "NCHW"]
FORMATS: tuple[Format, ...] = ("NHWC", "NCHW")


def numpy_grad(dy: np.ndarray, x: np.ndarray, scale: np.ndarray, mean: np.ndarray, var: np.ndarray,
               axes: tuple[int, ...], shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    r = (1.0 / np.sqrt(var + EPS)).reshape(shape)
    xc = x - mean.reshape(shape)
    m = x.size / scale.size
    doffset = dy.sum(axis=axes)
    dscale_raw = (dy * xc).sum(axis=axes)
    dx = scale.reshape(shape) * r * (dy - doffset.reshape(shape) / m - xc * r * r * dscale_raw.reshape(shape) / m)
    return dx, dscale_raw * r.reshape(-1), doffset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu-time", action="store_true", help="CPU time at one thread each side")
    args = parser.parse_args()
    threads = 1 if args.cpu_time else 2
    os.environ["OPGEN_HOST_THREADS"] = str(threads)  # (read at each launch batch)
    rng = np.random.default_rng(0)
    scope = Scope("cpu")
    print(f"machine: {machine()}; cpu backend build: {host.describe_isa()}")
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:
        torch = None  # type: ignore[assignment]
    for fmt in FORMATS:
        print(bench_format(fmt, rng, scope, torch, args.cpu_time))


def bench_format(fmt: Format, rng: np.random.Generator, scope: Scope, torch: Any, cpu_time: bool = False) -> str:
    shape = (N, H, W, C) if fmt == "NHWC" else (N, C, H, W)
    axes = (0, 1, 2) if fmt == "NHWC" else (0, 2, 3)
    bshape = (1, 1, 1, C) if fmt == "NHWC" else (1, C, 1, 1)
    x = rng.standard_normal(shape, dtype=np.float32)
    dy = rng.standard_normal(shape, dtype=np.float32)
    scale = rng.uniform(0.5, 2, C).astype(np.float32)
    zeros, ones = np.zeros(C, np.float32), np.ones(C, np.float32)
    fwd = fused_batch_norm_v3(x, scale, zeros, zeros, ones, epsilon=EPS, data_format=fmt, scope=scope)
    rs1, rs2, rs3 = fwd.reserve_space_1, fwd.reserve_space_2, fwd.reserve_space_3

    def ours() -> object:
        return fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, rs3, epsilon=EPS, data_format=fmt, scope=scope)

    if cpu_time:
        lo, mid = cpu_seconds(ours)
        line = (f"{fmt} grad train f32 {N}x{C}x{H}x{W}, CPU ms at 1 thread (min/median): cpu backend "
                f"{lo * 1e3:.2f}/{mid * 1e3:.2f}")
        if torch is not None:
            t_lo, t_mid = cpu_seconds(torch_grad_of(torch, fmt, x, dy, scale, rs1, rs2))
            line += f", torch {t_lo * 1e3:.2f}/{t_mid * 1e3:.2f}, ratio cpu/torch (min) {lo / t_lo:.2f}"
        return line
    t_op = median_seconds(ours, repeats=9)
    t_np = median_seconds(lambda: numpy_grad(dy, x, scale, rs1, rs2, axes, bshape), repeats=9)
    line = f"{fmt} grad train f32 {N}x{C}x{H}x{W}: cpu backend {t_op * 1e3:.1f} ms, numpy {t_np * 1e3:.1f} ms"
    if torch is not None:
        t_torch = median_seconds(torch_grad_of(torch, fmt, x, dy, scale, rs1, rs2), repeats=9)
        line += f", torch {t_torch * 1e3:.1f} ms, ratio cpu/torch {t_op / t_torch:.2f}"
    return line


def torch_grad_of(torch: Any, fmt: Format, x: np.ndarray, dy: np.ndarray, scale: np.ndarray, rs1: np.ndarray,
                  rs2: np.ndarray) -> Any:
    """PyTorch's batch-norm backward on the same data, NCHW or channels-last (a function of no arguments)."""
    xt = torch.from_numpy(x if fmt == "NCHW" else np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
    dyt = torch.from_numpy(np.ascontiguousarray(dy if fmt == "NCHW" else dy.transpose(0, 3, 1, 2)))
    if fmt == "NHWC":
        xt = xt.contiguous(memory_format=torch.channels_last)
        dyt = dyt.contiguous(memory_format=torch.channels_last)
    w = torch.from_numpy(scale)
    mean_t, invstd_t = torch.from_numpy(rs1), torch.from_numpy(1 / np.sqrt(rs2 + EPS))

    def torch_grad() -> object:
        return torch.ops.aten.native_batch_norm_backward(dyt, xt, w, None, None, mean_t, invstd_t, True, EPS,
                                                         [True, True, True])

    return torch_grad

if __name__ == "__main__":
    main()
