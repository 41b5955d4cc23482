"""The ops of examples/cpu_speed, written with the CPU-speed loop helpers (kernels/_loops.cuh; issue
33, item 5), against PyTorch CPU in the same run at the same thread count (2: OPGEN_HOST_THREADS=2,
torch.set_num_threads(2)), float32, the cpu plan. Goals: within 1.5x of the peer.

- DepthwiseConv2d [32, 64, 56, 56], 3x3, stride 1, padding 1 against F.conv2d(groups=64) (oneDNN's
  mkldnn_convolution on NCHW input; also on a channels_last copy of the input, a line below the table);
- DepthwiseConv2dGrad (the input's and the filter's gradients) against aten.convolution_backward,
  what autograd calls for that F.conv2d (the backward alone, no forward);
- TopK k=8 over [4096, 1024] against torch.topk.

Each op is also timed as written without the helpers (bench/cpu_speed_naive/: the same device
functions as plain per-element loops), to show what the helpers buy. The example is generated into a
temporary folder twice (its own templates; the naive ones searched first). Every figure is the median
over interleaved rounds (the best round in brackets), each round's the median of 3 calls: the
machine's noise falls on every column alike.

--cpu-time times the calling thread's CPU time instead, with both sides on 1 thread
(OPGEN_HOST_THREADS=1, torch.set_num_threads(1)): the time other processes take from a shared,
loaded machine then does not count (common.cpu_seconds).

    python bench/bench_cpu_helpers.py [--rounds N] [--cpu-time]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from common import cpu_seconds, machine, median_seconds

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "cpu_speed"
NAIVE = Path(__file__).resolve().parent / "cpu_speed_naive"
GOAL = 1.5


def generate(root: Path, package: str, templates: list[Path]) -> Any:
    """examples/cpu_speed's specs generated into root/package with these template folders, imported."""
    sys.path.insert(0, str(REPO))
    from codegen.cli import main as opgen

    flags = [a for t in templates for a in ("--templates", str(t))]
    with contextlib.redirect_stdout(io.StringIO()):  # its list of files written
        status = opgen(["generate", "--specs", str(EXAMPLE / "specs"), *flags, "--out", str(root / package),
                        "--package", package, "--torch-namespace", package])
    if status != 0:
        raise SystemExit(f"opgen generate failed ({status})")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(package)


def cases(torch: Any, ops: Any, naive: Any) -> list[tuple[str, dict[str, Callable[[], object]]]]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 64, 56, 56), dtype=np.float32)
    w = rng.standard_normal((64, 1, 3, 3), dtype=np.float32)
    dy = rng.standard_normal(x.shape, dtype=np.float32)
    rows = rng.standard_normal((4096, 1024), dtype=np.float32)
    xt, wt, dyt, rt = (torch.from_numpy(a) for a in (x, w, dy, rows))
    x_cl = xt.contiguous(memory_format=torch.channels_last)  # oneDNN's blocked depthwise path wants NHWC
    F = torch.nn.functional
    return [
        ("DepthwiseConv2d [32, 64, 56, 56]", {
            "PyTorch": lambda: F.conv2d(xt, wt, padding=1, groups=64),
            "helpers": lambda: ops.depthwise_conv2d(x, w, scope="cpu"),
            "naive": lambda: naive.depthwise_conv2d(x, w, scope="cpu"),
            "PyTorch channels_last": lambda: F.conv2d(x_cl, wt, padding=1, groups=64)}),
        ("DepthwiseConv2dGrad [32, 64, 56, 56]", {
            "PyTorch": lambda: torch.ops.aten.convolution_backward(dyt, xt, wt, None, [1, 1], [1, 1], [1, 1], False,
                                                                   [0, 0], 64, [True, True, False]),
            "helpers": lambda: ops.depthwise_conv2d_grad(dy, x, w, scope="cpu"),
            "naive": lambda: naive.depthwise_conv2d_grad(dy, x, w, scope="cpu")}),
        ("TopK k=8 [4096, 1024]", {
            "PyTorch": lambda: torch.topk(rt, 8),
            "helpers": lambda: ops.top_k(rows, k=8, scope="cpu"),
            "naive": lambda: naive.top_k(rows, k=8, scope="cpu")}),
    ]


def check(torch: Any, ops: Any, naive: Any) -> None:
    """The timed ops compute what their peers do (a benchmark of wrong results proves nothing)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 8, 13, 21), dtype=np.float32)
    w = rng.standard_normal((8, 1, 3, 3), dtype=np.float32)
    want = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=1, groups=8).numpy()
    rows = rng.standard_normal((16, 300), dtype=np.float32)
    top = torch.topk(torch.from_numpy(rows), 8)
    for m in (ops, naive):
        np.testing.assert_allclose(m.depthwise_conv2d(x, w, scope="cpu").y, want, rtol=1e-5, atol=1e-5)
        got = m.top_k(rows, k=8, scope="cpu")
        assert np.array_equal(got.values, top.values.numpy()) and np.array_equal(got.indices, top.indices.numpy())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cpu-time", action="store_true", help="the calling thread's CPU time, 1 thread each")
    args = parser.parse_args()
    threads = 1 if args.cpu_time else 2
    os.environ["OPGEN_HOST_THREADS"] = str(threads)
    import torch

    torch.set_num_threads(threads)
    with tempfile.TemporaryDirectory() as tmp:
        ops = generate(Path(tmp), "cpu_speed_ops", [EXAMPLE / "templates"])
        naive = generate(Path(tmp), "naive_cpu_speed_ops", [NAIVE, EXAMPLE / "templates"])
        check(torch, ops, naive)
        load_before = os.getloadavg()[0]
        table = cases(torch, ops, naive)
        for _, fns in table:
            for fn in fns.values():
                fn()  # compiled and warm before the first round
        samples: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.rounds):
            for name, fns in table:
                for key, fn in fns.items():
                    seconds = cpu_seconds(fn, 3, 0)[1] if args.cpu_time else median_seconds(fn, 3, 0)
                    samples.setdefault((name, key), []).append(seconds)
        print(f"machine: {machine()}; torch {torch.__version__} ({torch.get_num_threads()} threads, oneDNN "
              f"{'on' if torch.backends.mkldnn.is_available() else 'off'}), "
              f"OPGEN_HOST_THREADS={os.environ['OPGEN_HOST_THREADS']}")
        clock = "CPU time of the calling thread" if args.cpu_time else "wall clock"
        print(f"load average before {load_before:.2f}, after {os.getloadavg()[0]:.2f}; {args.rounds} interleaved "
              f"rounds x 3 calls, {clock}; each figure: median of the rounds (best round)")
        print(f"| op, float32, cpu plan | PyTorch | with the helpers | / PyTorch (goal ≤ {GOAL}) | naive loops "
              "| / PyTorch |")
        print("|---|---|---|---|---|---|")
        for name, _ in table:
            med = {k: statistics.median(samples[name, k]) * 1e3 for k in ("PyTorch", "helpers", "naive")}
            best = {k: min(samples[name, k]) * 1e3 for k in ("PyTorch", "helpers", "naive")}
            print(f"| {name} | {med['PyTorch']:.1f} ({best['PyTorch']:.1f}) ms | {med['helpers']:.1f} "
                  f"({best['helpers']:.1f}) ms | {med['helpers'] / med['PyTorch']:.2f}x "
                  f"({best['helpers'] / best['PyTorch']:.2f}x) | {med['naive']:.1f} ({best['naive']:.1f}) ms | "
                  f"{med['naive'] / med['PyTorch']:.2f}x ({best['naive'] / best['PyTorch']:.2f}x) |")
        for name, fns in table:  # a peer on another layout: what PyTorch reaches when the caller can choose it
            for key in fns.keys() - {"PyTorch", "helpers", "naive"}:
                t = statistics.median(samples[name, key]) * 1e3
                print(f"{name}, {key} (the input converted beforehand): {t:.1f} ({min(samples[name, key]) * 1e3:.1f}) "
                      f"ms; the helpers' {statistics.median(samples[name, 'helpers']) * 1e3:.1f} ms are "
                      f"{statistics.median(samples[name, 'helpers']) / statistics.median(samples[name, key]):.2f}x it")


if __name__ == "__main__":
    main()
