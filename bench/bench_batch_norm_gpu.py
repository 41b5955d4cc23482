#!/usr/bin/env python3
"""FusedBatchNormGradV3 on the cuda backend (issue 3), beside PyTorch's batch-norm backward on the
same GPU in the same run.

Configurations: N=256 C=64 H=W=112, N=32 C=256 H=W=28 and N=4 C=2048 H=W=7 (ResNet-50's last
stage: few rows, which NHWC reads once in one launch); NHWC and NCHW; float32 and float16; training
and inference. For each:

* "graph": the op's kernels captured once in a CUDA graph and replayed; the median of many replays
  timed with CUDA events: GPU time only, the number the bandwidth is computed from;
* "eager": CUDA events around one call of the Python function (argument checks, allocation and
  launches included): what a caller waits for when the GPU would otherwise be idle;
* achieved bandwidth: the minimum bytes (x and dy read once, x_backprop written once) over the
  graph time, against the device-to-device copy bandwidth measured in the same run (cudaMemcpyAsync
  of a 1 GiB buffer, bytes read + written);
* PyTorch: torch.ops.aten.native_batch_norm_backward on the same data (zero-copy through DLPack;
  channels_last for NHWC), timed the same two ways, when torch with CUDA is importable; its
  x_backprop is also compared with ours (max |ours − torch| / max |torch|).

Where one input set fits in L2, several sets are used in rotation so that repeats do not measure
the cache. The GPU's name comes from the device.

    python bench/bench_batch_norm_gpu.py [--markdown bench/gpu-batch-norm.md] [--repeats 50] [--quick]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

PROJECT = Path(__file__).resolve().parent.parent
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

from gpu_timing import copy_bandwidth, cupy_or_reason, median_ms, torch_cuda, torch_median_ms  # noqa: E402 -- bench/ is the script folder

# N, C, H, W. The last of each list has m = N·H·W = 196 rows, within FusedBatchNormGradV3's once_max_rows:
# channels-last (NHWC) takes the GPU plan's one-launch variant (grad_once), the others three launches.
SHAPES = [(256, 64, 112, 112), (32, 256, 28, 28), (4, 2048, 7, 7)]
QUICK_SHAPES = [(32, 64, 56, 56), (8, 256, 14, 14), (4, 2048, 7, 7)]
FORMATS = ["NHWC", "NCHW"]
DTYPES = ["float32", "float16"]
MODES = [True, False]  # is_training
EPS = 1e-3


@dataclass
class Row:
    shape: tuple[int, int, int, int]
    fmt: str
    dtype: str
    training: bool
    sets: int
    ours_graph_us: float
    ours_eager_us: float
    gbps: float
    copy_fraction: float
    torch_graph_us: float = math.nan
    torch_eager_us: float = math.nan
    check: float = math.nan
    note: str = ""


def physical(shape: tuple[int, int, int, int], fmt: str) -> tuple[int, int, int, int]:
    n, c, h, w = shape
    return (n, h, w, c) if fmt == "NHWC" else (n, c, h, w)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="FusedBatchNormGradV3 on the GPU vs PyTorch")
    parser.add_argument("--markdown", type=Path, default=PROJECT / "bench" / "gpu-batch-norm.md")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="smaller shapes (a smoke test)")
    parser.add_argument("--no-torch", action="store_true")
    args = parser.parse_args(argv)

    from codegen.runtime.scope import Scope

    cp = cupy_or_reason("bench_batch_norm_gpu")
    if cp is None:
        return 2

    from generated import fused_batch_norm_grad_v3

    torch = None if args.no_torch else torch_cuda()
    scope = Scope("cuda")
    backend = scope.backend
    gpu = backend.device_name()
    l2 = int(cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrL2CacheSize, backend.index))
    copy_gbps = copy_bandwidth(cp)
    header = (f"GPU: {gpu} (L2 {l2 / 2**20:.0f} MiB), device-to-device copy {copy_gbps:.0f} GB/s (read + write); "
              f"CuPy {cp.__version__}" + (f", torch {torch.__version__}" if torch is not None else ", torch: n/a"))
    print(header)
    rows: list[Row] = []
    for shape in QUICK_SHAPES if args.quick else SHAPES:
        for fmt in FORMATS:
            for dtype in DTYPES:
                for training in MODES:
                    row = bench_one(cp, torch, scope, fused_batch_norm_grad_v3, shape, fmt, dtype, training, l2,
                                    copy_gbps, args.repeats)
                    rows.append(row)
                    print(format_row(row), flush=True)
                    cp.get_default_memory_pool().free_all_blocks()
                    if torch is not None:
                        torch.cuda.empty_cache()
    table = markdown_table(rows)
    print()
    print(table)
    text = (f"# FusedBatchNormGradV3 on the GPU\n\n{header}.\n\n"
            f"Measured {time.strftime('%Y-%m-%d %H:%M')} by bench/bench_batch_norm_gpu.py: medians of "
            f"{args.repeats} CUDA-event timings after warm-up. graph = kernels replayed from a CUDA graph "
            f"(GPU time); eager = one Python call; GB/s = (x + dy + x_backprop bytes) / graph time.\n\n"
            f"{table}\n")
    args.markdown.parent.mkdir(parents=True, exist_ok=True)
    args.markdown.write_text(text, encoding="utf-8")
    print(f"\nwritten: {args.markdown}")
    return 0


def bench_one(cp: Any, torch: Any, scope: Any, op: Any, shape: tuple[int, int, int, int], fmt: str, dtype: str,
              training: bool, l2: int, copy_gbps: float, repeats: int) -> Row:
    n, c, h, w = shape
    elements = n * c * h * w
    itemsize = np.dtype(dtype).itemsize
    per_set = 2 * elements * itemsize  # x and dy
    sets = 1 if per_set > 2 * l2 else min(8, math.ceil(3 * l2 / per_set))
    pshape = physical(shape, fmt)
    rng = cp.random.default_rng(0)
    xs = [(rng.standard_normal(pshape, dtype=cp.float32) * 2 + 0.5).astype(dtype) for _ in range(sets)]
    dys = [rng.standard_normal(pshape, dtype=cp.float32).astype(dtype) for _ in range(sets)]
    scale = rng.uniform(0.5, 2, c, dtype=cp.float32)
    mean = rng.standard_normal(c, dtype=cp.float32) * 0.1 + 0.5
    var = rng.uniform(3.5, 4.5, c, dtype=cp.float32)  # about x's variance (2² = 4)
    rs3 = cp.zeros(0, cp.float32)

    def ours(i: int) -> Any:
        return op(dys[i], xs[i], scale, mean, var, rs3, epsilon=EPS, data_format=fmt, is_training=training,
                  scope=scope)

    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        for i in range(sets):
            ours(i)  # compile/load, fill the memory pool
        stream.synchronize()
        eager_ms = median_ms(cp, stream, ours, repeats, sets)
        graphs, keep = [], []
        for i in range(sets):
            stream.begin_capture()
            keep.append(ours(i))  # the outputs stay alive as long as the graph is replayed
            graphs.append(stream.end_capture())
        for g in graphs:
            g.launch(stream)
        stream.synchronize()
        graph_ms = median_ms(cp, stream, lambda i: graphs[i].launch(stream), repeats, sets)
    min_bytes = 3 * elements * itemsize
    gbps = min_bytes / (graph_ms * 1e-3) / 1e9
    row = Row(shape, fmt, dtype, training, sets, graph_ms * 1e3, eager_ms * 1e3, gbps, gbps / copy_gbps)
    if torch is not None:
        try:
            bench_torch(cp, torch, row, xs, dys, scale, mean, var, fmt, training, repeats, keep[0].x_backprop)
        except Exception as exc:  # noqa: BLE001 -- report, keep our numbers
            row.note = f"torch: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
    return row


def bench_torch(cp: Any, torch: Any, row: Row, xs: list[Any], dys: list[Any], scale: Any, mean: Any, var: Any,
                fmt: str, training: bool, repeats: int, ours_dx: Any) -> None:
    def nchw(a: Any) -> Any:
        t = torch.from_dlpack(a)  # zero-copy view of the CuPy array
        return t.permute(0, 3, 1, 2) if fmt == "NHWC" else t  # NHWC memory = channels_last NCHW view

    xs_t, dys_t = [nchw(x) for x in xs], [nchw(d) for d in dys]
    w_t, mean_t, var_t = torch.from_dlpack(scale), torch.from_dlpack(mean), torch.from_dlpack(var)
    invstd_t = torch.rsqrt(var_t + EPS)
    empty = torch.empty(0, device=w_t.device, dtype=torch.float32)
    sets = len(xs)

    def call(i: int) -> Any:
        # training: the saved batch mean and 1/sqrt(var + eps); inference: the running statistics, with
        # empty saved ones (what native_batch_norm returns in eval mode, and what autograd passes back)
        if training:
            return torch.ops.aten.native_batch_norm_backward(dys_t[i], xs_t[i], w_t, None, None, mean_t, invstd_t,
                                                             True, EPS, [True, True, True])
        return torch.ops.aten.native_batch_norm_backward(dys_t[i], xs_t[i], w_t, mean_t, var_t, empty, empty,
                                                         False, EPS, [True, True, True])

    with torch.no_grad():
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for i in range(sets):
                call(i)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        tstream = torch.cuda.current_stream()

        def timed(fn: Callable[[int], object]) -> float:
            return torch_median_ms(torch, tstream, fn, repeats, sets)

        row.torch_eager_us = timed(call) * 1e3
        dx = call(0)[0]
        ref = dx.permute(0, 2, 3, 1) if fmt == "NHWC" else dx
        ours = torch.from_dlpack(ours_dx)
        scale_ref = float(ref.float().abs().max())
        row.check = float((ours.float() - ref.float()).abs().max()) / max(scale_ref, 1e-30)
        graphs, keep = [], []
        for i in range(sets):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                keep.append(call(i))
            graphs.append(g)
        torch.cuda.synchronize()
        row.torch_graph_us = timed(lambda i: graphs[i].replay()) * 1e3


def label(row: Row) -> str:
    n, c, h, w = row.shape
    return f"{n}x{c}x{h}x{w} {row.fmt} {row.dtype} {'train' if row.training else 'infer'}"


def format_row(row: Row) -> str:
    ratio = row.ours_graph_us / row.torch_graph_us if row.torch_graph_us == row.torch_graph_us else math.nan
    return (f"{label(row):<36} graph {row.ours_graph_us:9.1f} us  eager {row.ours_eager_us:9.1f} us  "
            f"{row.gbps:7.0f} GB/s ({row.copy_fraction:5.1%} of copy)  torch graph {row.torch_graph_us:9.1f} us "
            f"eager {row.torch_eager_us:9.1f} us  ours/torch {ratio:5.2f}  dx check {row.check:.2g} {row.note}")


def markdown_table(rows: list[Row]) -> str:
    lines = ["| config | sets | ours graph µs | ours eager µs | GB/s | % of copy | torch graph µs | torch eager µs "
             "| ours/torch (graph) | dx vs torch | note |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        ratio = r.ours_graph_us / r.torch_graph_us if r.torch_graph_us == r.torch_graph_us else math.nan
        lines.append(f"| {label(r)} | {r.sets} | {r.ours_graph_us:.1f} | {r.ours_eager_us:.1f} | {r.gbps:.0f} | "
                     f"{r.copy_fraction:.1%} | {r.torch_graph_us:.1f} | {r.torch_eager_us:.1f} | {ratio:.2f} | "
                     f"{r.check:.2g} | {r.note} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
