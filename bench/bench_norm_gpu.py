#!/usr/bin/env python3
"""LayerNorm(Grad), Softmax(Grad) and BiasAdd(Grad) on the cuda backend beside PyTorch on the same
GPU in the same run (the GPU check's short benchmark of these ops; issue 18).

Each row: the median of CUDA-event times around one eager call (argument checks, allocation and
launches included) over `--repeats` calls, rotating over enough input sets that they do not all
sit in L2; PyTorch's call (torch.nn.functional.layer_norm and its autograd backward, torch.softmax
and its backward, x + bias and the bias gradient's sum) timed the same way on the same data
(zero-copy through DLPack), and the ratio ours / PyTorch. Bandwidth: the least bytes each call
must move (inputs read once, outputs written once) over our time, and that as a share of the copy
bandwidth measured in the same run: each shape's first row times PyTorch copying a tensor of the
shape into another (`dst.copy_(src)`: one read, one write).

`--rounds R` runs each row's pair R times, ours then PyTorch's in turn (interleaved: a clock or
thermal drift lands on both), and prints the medians and the spread of the ratio over the rounds.
`--shape ROWSxD` (repeatable) picks the shapes; issue 35's goals are at [512, 65536]:

    python bench/bench_norm_gpu.py [--repeats 30] [--rounds 1] [--shape 512x65536] [--markdown FILE] [--quick]
    python bench/bench_norm_gpu.py --shape 512x65536 --rounds 5 --repeats 30   # issue 35's figures
    python bench/bench_norm_gpu.py --device cpu --quick   # the plumbing, on the cpu backend (no GPU)
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

PROJECT = Path(__file__).resolve().parent.parent
for folder in (PROJECT, PROJECT / "bench"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from common import machine, median_seconds  # noqa: E402

L2_BYTES = 64 << 20  # rotate input sets until they exceed this (H100: 50 MB, H200: 60 MB)


class Timer:
    """Medians of one call's time: CUDA events on the GPU, the host clock on the cpu backend."""

    def __init__(self, device: str, torch: Any) -> None:
        self.device, self.torch = device, torch
        if device == "cuda":
            import cupy

            self.cp = cupy

    def median_ms(self, fn: Callable[[int], object], repeats: int, sets: int, *, torch_stream: bool) -> float:
        """fn's median time in ms, after two warm-up calls; on the GPU, CUDA events on CuPy's current
        stream (ours) or torch's (`torch_stream`: the peer's)."""
        if self.device != "cuda":
            return _host_median(fn, repeats, sets)
        from gpu_timing import median_ms, torch_median_ms

        for i in range(2):
            fn(i % sets)
        if torch_stream:
            return torch_median_ms(self.torch, self.torch.cuda.current_stream(), fn, repeats, sets)
        return median_ms(self.cp, self.cp.cuda.get_current_stream(), fn, repeats, sets)


def _host_median(fn: Callable[[int], object], repeats: int, sets: int) -> float:
    """Median ms on the host clock, the calls rotating over the input sets."""
    calls = itertools.count()
    return 1e3 * median_seconds(lambda: fn(next(calls) % sets), repeats=repeats, warmup=1)


def _sets(nbytes: int, quick: bool) -> int:
    return 1 if quick else max(1, min(8, -(-L2_BYTES // max(1, nbytes))))


def run(device: str, repeats: int, quick: bool, rounds: int = 1,
        shapes: list[tuple[int, int]] | None = None) -> list[str]:
    import torch

    from codegen.runtime.scope import Scope

    bench = ShapeBench(device, Scope(device), Timer(device, torch), repeats, quick, rounds)
    if not shapes:
        shapes = [(256, 1024), (64, 4100)] if quick else [(8192, 1024), (4096, 4100), (512, 65536)]
    for dtype in (np.float32, np.float16):
        for rows, d in shapes:
            bench.shape(rows, d, np.dtype(dtype))
    return bench.rows


class ShapeBench:
    """The six ops on one [rows, D] shape and dtype, ours beside PyTorch; the table's rows."""

    def __init__(self, device: str, scope: Any, timer: Timer, repeats: int, quick: bool, rounds: int = 1) -> None:
        import torch

        self.torch, self.device, self.scope, self.timer = torch, device, scope, timer
        self.repeats, self.quick, self.rounds = repeats, quick, rounds
        self.copy_gbs = float("nan")  # the shape's copy bandwidth (its first row)
        self.rng = np.random.default_rng(0)
        self.rows: list[str] = []

    def put(self, a: np.ndarray) -> Any:
        if self.device == "cuda":
            import cupy

            return cupy.asarray(a)
        return a

    def tensor(self, a: Any) -> Any:
        return self.torch.from_dlpack(a) if self.device == "cuda" else self.torch.from_numpy(np.asarray(a))

    def row(self, name: str, nbytes: int, ours: Callable[[int], object], peer: Callable[[int], object],
            sets: int) -> None:
        ours_ms, peer_ms = [], []
        for _ in range(self.rounds):  # interleaved: ours, then the peer, in every round
            ours_ms.append(self.timer.median_ms(ours, self.repeats, sets, torch_stream=False))
            peer_ms.append(self.timer.median_ms(peer, self.repeats, sets, torch_stream=True))
        t_ours, t_peer = float(np.median(ours_ms)), float(np.median(peer_ms))
        ratios = [o / p for o, p in zip(ours_ms, peer_ms, strict=True)]
        spread = f" ({min(ratios):.2f}–{max(ratios):.2f})" if self.rounds > 1 else ""
        gbs = nbytes / (t_ours * 1e-3) / 1e9
        self.rows.append(f"| {name} | {t_ours * 1e3:.1f} | {t_peer * 1e3:.1f} | {float(np.median(ratios)):.2f}{spread} "
                         f"| {gbs:.0f} | {100 * gbs / self.copy_gbs:.0f} % |")
        print(self.rows[-1], flush=True)

    def copy_row(self, label: str, size: int, sets: int, xt: list[Any]) -> None:
        """PyTorch's copy of the shape (one read, one write): the bandwidth the other rows of the
        shape are measured against."""
        dst = [t.clone() for t in xt]
        ms = [self.timer.median_ms(lambda i: dst[i].copy_(xt[i]), self.repeats, sets, torch_stream=True)
              for _ in range(self.rounds)]
        t = float(np.median(ms))
        self.copy_gbs = 2 * size / (t * 1e-3) / 1e9
        self.rows.append(f"| copy (PyTorch) {label} | | {t * 1e3:.1f} | | {self.copy_gbs:.0f} | 100 % |")
        print(self.rows[-1], flush=True)

    def shape(self, rows: int, d: int, dtype: np.dtype) -> None:
        from generated import bias_add, bias_add_grad, layer_norm, layer_norm_grad, softmax, softmax_grad

        torch, scope = self.torch, self.scope
        tdt = getattr(torch, dtype.name)
        size = rows * d * dtype.itemsize
        sets = _sets(2 * size, self.quick)
        xs = [self.put(self.rng.standard_normal((rows, d)).astype(dtype)) for _ in range(sets)]
        dys = [self.put(self.rng.standard_normal((rows, d)).astype(dtype)) for _ in range(sets)]
        g, b = (self.put(self.rng.standard_normal(d).astype(dtype)) for _ in range(2))
        xt, dyt = [self.tensor(a) for a in xs], [self.tensor(a) for a in dys]
        gt, bt = self.tensor(g), self.tensor(b)
        label = f"[{rows}, {d}] {dtype.name}"
        self.copy_row(label, size, sets, xt)
        self.row(f"LayerNorm {label}", 2 * size, lambda i: layer_norm(xs[i], g, b, scope=scope),
                 lambda i: torch.nn.functional.layer_norm(xt[i], (d,), gt, bt), sets)
        stats = [layer_norm(x, g, b, scope=scope) for x in xs]
        leaves = [(t.clone().requires_grad_(), gt.clone().requires_grad_(), bt.clone().requires_grad_()) for t in xt]
        outs = [torch.nn.functional.layer_norm(x, (d,), gg, bb) for x, gg, bb in leaves]
        self.row(f"LayerNormGrad {label}", 3 * size,
                 lambda i: layer_norm_grad(dys[i], xs[i], stats[i].mean, stats[i].rstd, g, scope=scope),
                 lambda i: torch.autograd.grad(outs[i], leaves[i], dyt[i], retain_graph=True), sets)
        self.row(f"Softmax {label}", 2 * size, lambda i: softmax(xs[i], scope=scope),
                 lambda i: torch.softmax(xt[i], -1), sets)
        ys = [softmax(x, scope=scope).y for x in xs]
        yt = [self.tensor(y) for y in ys]
        self.row(f"SoftmaxGrad {label}", 3 * size, lambda i: softmax_grad(ys[i], dys[i], scope=scope),
                 lambda i: torch._softmax_backward_data(dyt[i], yt[i], -1, tdt), sets)
        self.row(f"BiasAdd {label}", 2 * size, lambda i: bias_add(xs[i], g, scope=scope),
                 lambda i: xt[i] + gt, sets)
        self.row(f"BiasAddGrad {label}", size, lambda i: bias_add_grad(dys[i], scope=scope),
                 lambda i: dyt[i].sum(0, dtype=torch.float32).to(tdt), sets)


def _shape(text: str) -> tuple[int, int]:
    """ROWSxD, both positive."""
    try:
        rows, d = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a shape is ROWSxD (512x65536), got {text!r}") from None
    if rows < 1 or d < 1:
        raise argparse.ArgumentTypeError(f"a shape's sizes must be positive, got {text!r}")
    return rows, d


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="small shapes, one input set")
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=1, help="interleaved rounds per row (medians, spread)")
    parser.add_argument("--shape", type=_shape, action="append", default=None, metavar="ROWSxD",
                        help="a shape to run (repeatable; default: the three standard shapes)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    if args.device == "cuda":
        from gpu_timing import cupy_or_reason, torch_cuda

        if cupy_or_reason("bench_norm_gpu") is None:
            return 2
        if torch_cuda() is None:
            print("bench_norm_gpu: PyTorch with CUDA is not importable: no peer to measure against", file=sys.stderr)
            return 2
    import torch

    from codegen.runtime.scope import Scope

    backend = Scope(args.device).backend
    where = backend.describe() if hasattr(backend, "describe") else f"cpu backend ({machine()})"
    header = [f"{where}; PyTorch {torch.__version__}; medians of {args.repeats} eager calls, "
              f"{time.strftime('%Y-%m-%d')}; {args.rounds} interleaved round(s)", "",
              "| op, shape, dtype | ours µs | PyTorch µs | ours/PyTorch (spread) | ours GB/s (least bytes) | of copy |",
              "|---|---:|---:|---:|---:|---:|"]
    print("\n".join(header), flush=True)
    rows = run(args.device, args.repeats, args.quick, args.rounds, args.shape)
    if args.markdown is not None:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text("# LayerNorm, Softmax, BiasAdd vs PyTorch\n\n" + "\n".join(header + rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
