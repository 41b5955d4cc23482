#!/usr/bin/env python3
"""GRUBlockCell forward + GRUBlockCellGrad on the cuda backend (issue 4), beside the same math in
PyTorch CUDA on the same GPU in the same run.

Sizes: B=64, I=H=512 and B=256, I=H=1024; float32 and float16. For each:

* the whole op (forward + gradient): "graph" = both ops captured once in a CUDA graph and replayed
  (GPU time), "eager" = one Python call of each (checks, allocation, launches included), medians
  of CUDA-event timings; the same two ways for PyTorch (matmuls + elementwise ops, no autograd,
  the formulas of OPS_REFERENCE §4) — goal: ours faster;
* each generated elementwise kernel on its own: CUDA events around each launch of an eager call,
  median over the repeats; bytes = the sizes of the kernel's array arguments (each read or
  written once: an upper bound where a kernel reads part of a buffer), against the
  device-to-device copy bandwidth measured in the same run — goal: ≥ 80% of copy. These tensors
  fit in L2 (50 MiB on an H100), so the bandwidth is L2's as much as DRAM's: the table says so.

    python bench/bench_gru_gpu.py [--markdown bench/gpu-gru.md] [--repeats 50] [--no-torch]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parent.parent
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

from gpu_timing import copy_bandwidth, cupy_or_reason, median_ms, torch_cuda, torch_median_ms  # noqa: E402 -- bench/ is the script folder

from codegen.runtime.kernels import symbol_parts  # noqa: E402

SIZES = ((64, 512, 512), (256, 1024, 1024))
DTYPES = ("float32", "float16")


def torch_forward(torch: Any, x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> tuple[Any, ...]:
    hidden = h_prev.shape[1]
    ru = torch.sigmoid(torch.cat([x, h_prev], 1) @ w_ru + b_ru)
    r, u = ru[:, :hidden], ru[:, hidden:]
    c = torch.tanh(torch.cat([x, r * h_prev], 1) @ w_c + b_c)
    return r, u, c, u * h_prev + (1 - u) * c


def torch_grad(torch: Any, x: Any, h_prev: Any, w_ru: Any, w_c: Any, r: Any, u: Any, c: Any,
               d_h: Any) -> tuple[Any, ...]:
    n_in = x.shape[1]
    d_c_bar = d_h * (1 - u) * (1 - c * c)
    d_u_bar = d_h * (h_prev - c) * u * (1 - u)
    d_xh2 = d_c_bar @ w_c.T
    d_hr = d_xh2[:, n_in:]
    d_r_bar_u_bar = torch.cat([d_hr * h_prev * r * (1 - r), d_u_bar], 1)
    d_xh1 = d_r_bar_u_bar @ w_ru.T
    return d_xh1[:, :n_in] + d_xh2[:, :n_in], d_xh1[:, n_in:] + d_hr * r + d_h * u, d_c_bar, d_r_bar_u_bar


class KernelTimer:
    """Wraps the backend's launch: CUDA events around every kernel launch, per entry point."""

    def __init__(self, cp: Any, backend: Any):
        self.cp, self.backend, self.original = cp, backend, backend.launch
        self.pending: list[tuple[str, Any, Any, int]] = []
        self.ms: dict[str, list[float]] = defaultdict(list)
        self.bytes: dict[str, int] = {}

    def __enter__(self) -> KernelTimer:
        def timed_launch(source: Any, symbol: str, grid: Any, block: Any, args: Any, shared_mem: int = 0) -> None:
            start, end = self.cp.cuda.Event(), self.cp.cuda.Event()
            start.record()
            self.original(source, symbol, grid, block, args, shared_mem)
            end.record()
            nbytes = sum(int(a.nbytes) for a in args if hasattr(a, "nbytes") and getattr(a, "ndim", 0) > 0)
            self.pending.append((symbol, start, end, nbytes))

        self.backend.launch = timed_launch
        self.backend.watched = True  # (declared: run_plan sends every launch through it, no graph replay)
        return self

    def collect(self) -> None:
        for symbol, start, end, nbytes in self.pending:
            end.synchronize()
            self.ms[symbol].append(self.cp.cuda.get_elapsed_time(start, end))
            self.bytes[symbol] = nbytes
        self.pending.clear()

    def __exit__(self, *exc: object) -> None:
        self.backend.launch = self.original
        del self.backend.watched


def bench_size(cp: Any, torch: Any, scope: Any, b: int, n_in: int, hidden: int, dtype: str, copy_gbps: float,
               repeats: int) -> list[str]:
    from generated import gru_block_cell, gru_block_cell_grad

    rng = cp.random.default_rng(0)

    def normal(*shape: int, scale: float = 1.0) -> Any:
        return (rng.standard_normal(shape, dtype=cp.float32) * scale).astype(dtype)

    x, h_prev, d_h = normal(b, n_in), normal(b, hidden, scale=0.5), normal(b, hidden)
    w_ru = normal(n_in + hidden, 2 * hidden, scale=(n_in + hidden) ** -0.5)
    w_c = normal(n_in + hidden, hidden, scale=(n_in + hidden) ** -0.5)
    b_ru, b_c = normal(2 * hidden), normal(hidden)

    def ours(_: int) -> Any:
        fw = gru_block_cell(x, h_prev, w_ru, w_c, b_ru, b_c, scope=scope)
        return fw, gru_block_cell_grad(x, h_prev, w_ru, w_c, b_ru, b_c, fw.r, fw.u, fw.c, d_h, scope=scope)

    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        keep = ours(0)
        stream.synchronize()
        eager_ms = median_ms(cp, stream, ours, repeats, 1)
        graph_ms, note = float("nan"), ""
        try:  # cuBLAS inside a capture needs a CuPy that supports it: report, keep the eager figures
            stream.begin_capture()
            keep = ours(0)  # alive while the graph is replayed
            graph = stream.end_capture()
            graph.launch(stream)
            stream.synchronize()
            graph_ms = median_ms(cp, stream, lambda _: graph.launch(stream), repeats, 1)
        except Exception as exc:  # noqa: BLE001
            note = f"graph capture failed: {type(exc).__name__}: {str(exc).splitlines()[0][:100]}"
            if stream.is_capturing():
                stream.end_capture()
            keep = ours(0)
        with KernelTimer(cp, scope.backend) as timer:
            for _ in range(repeats):
                ours(0)
                timer.collect()
    label = f"B={b} I={n_in} H={hidden} {dtype}"
    lines = [f"| {label} | forward + gradient (ours) | {graph_ms * 1e3:.1f} | {eager_ms * 1e3:.1f} | | | {note} |"]
    for symbol, times in sorted(timer.ms.items()):
        ms = statistics.median(times)
        gbps = timer.bytes[symbol] / (ms * 1e-3) / 1e9
        lines.append(f"| {label} | kernel `{symbol_parts(symbol)[1]}` | {ms * 1e3:.1f} | | {gbps:.0f} | "
                     f"{gbps / copy_gbps:.0%} | |")
    if torch is not None:
        lines += bench_torch(torch, label, keep, (x, h_prev, w_ru, w_c, b_ru, b_c, d_h), graph_ms, eager_ms,
                             repeats)
    return lines


def bench_torch(torch: Any, label: str, ours: Any, arrays: tuple[Any, ...], our_graph_ms: float,
                our_eager_ms: float, repeats: int) -> list[str]:
    x, h_prev, w_ru, w_c, b_ru, b_c, d_h = (torch.from_dlpack(a) for a in arrays)  # zero-copy views

    def call(_: int) -> Any:
        r, u, c, h = torch_forward(torch, x, h_prev, w_ru, w_c, b_ru, b_c)
        return (r, u, c, h), torch_grad(torch, x, h_prev, w_ru, w_c, r, u, c, d_h)

    with torch.no_grad():
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            call(0)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        stream = torch.cuda.current_stream()

        def timed(fn: Any) -> float:
            return torch_median_ms(torch, stream, fn, repeats)

        eager = timed(call)
        (_, _, _, h_ref), (d_x_ref, *_rest) = call(0)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            kept = call(0)
        torch.cuda.synchronize()
        replay = timed(lambda _: graph.replay())
        del kept
    fw, grad = ours
    check = max(float((torch.from_dlpack(o).float() - ref.float()).abs().max()) / max(float(ref.float().abs().max()),
                                                                                      1e-30)
                for o, ref in ((fw.h, h_ref), (grad.d_x, d_x_ref)))
    return [f"| {label} | forward + gradient (PyTorch) | {replay * 1e3:.1f} | {eager * 1e3:.1f} | | | "
            f"ours/PyTorch (graph) {our_graph_ms / replay:.2f}, (eager) {our_eager_ms / eager:.2f}; "
            f"h, d_x max rel. diff {check:.1e} |"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="GRUBlockCell + GRUBlockCellGrad on the GPU vs PyTorch")
    parser.add_argument("--markdown", type=Path, default=PROJECT / "bench" / "gpu-gru.md")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--no-torch", action="store_true")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", DeprecationWarning)  # TensorFlow deprecated the ops

    from codegen.runtime.scope import Scope

    cp = cupy_or_reason("bench_gru_gpu")
    if cp is None:
        return 2

    torch = None if args.no_torch else torch_cuda()
    scope = Scope("cuda")
    copy_gbps = copy_bandwidth(cp)
    header = (f"GPU: {scope.backend.device_name()}, device-to-device copy {copy_gbps:.0f} GB/s (read + write); "
              f"CuPy {cp.__version__}" + (f", torch {torch.__version__}" if torch is not None else ", torch: n/a"))
    print(header)
    rows = ["| size | what | graph µs | eager µs | GB/s | % of copy (goal ≥ 80%) | note |",
            "|---|---|---:|---:|---:|---:|---|"]
    for size in SIZES:
        for dtype in DTYPES:
            for line in bench_size(cp, torch, scope, *size, dtype, copy_gbps, args.repeats):
                print(line, flush=True)
                rows.append(line)
    table = "\n".join(rows)
    text = (f"# GRUBlockCell + GRUBlockCellGrad on the GPU\n\n{header}.\n\nMeasured {time.strftime('%Y-%m-%d %H:%M')} "
            f"by bench/bench_gru_gpu.py: medians of {args.repeats} CUDA-event timings. Kernel bandwidth counts each "
            f"array argument once; the working set fits in L2.\n\n{table}\n")
    args.markdown.parent.mkdir(parents=True, exist_ok=True)
    args.markdown.write_text(text, encoding="utf-8")
    print(f"\nwritten: {args.markdown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
