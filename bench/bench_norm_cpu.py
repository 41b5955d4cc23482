"""LayerNorm, LayerNormGrad, Softmax and SoftmaxGrad on the cpu backend against PyTorch CPU at the
same thread count (2: OPGEN_HOST_THREADS=2, torch.set_num_threads(2)), medians. Goal: within 2x.

Besides the cpu launch plan (one thread per block: _common.cuh's host form walks each row in
vectorised loops), each op also runs under the GPU's launch plan on the host (Scope("cpu",
launch_plan="cuda"): blocks of up to 1024 threads, the same host form, so the other threads only
wait at the barriers that hand a row's results over), and with the building blocks in their GPU
form (Scope("cpu", kernel_form="gpu"), OPGEN_GPU_FORM: threads stride the row and reduce with warp
shuffles, as a plain CUDA kernel would): how far the emulation gets from a kernel written without
the building blocks.

    python bench/bench_norm_cpu.py [--quick]     (--quick: no GPU-form runs, which take seconds)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

os.environ.setdefault("OPGEN_HOST_THREADS", "2")

import numpy as np
from common import machine, median_seconds

from generated import Scope, layer_norm, layer_norm_grad, softmax, softmax_grad


def row(name: str, plans: Mapping[str, Callable[[], object]], torch_fn: Callable[[], object], repeats: int) -> str:
    t_torch = median_seconds(torch_fn, repeats=repeats)
    parts = []
    for plan, fn in plans.items():
        fn()  # the first call loads (or compiles) the scope's modules
        t = median_seconds(fn, repeats=repeats if plan != "gpu form" else 3, warmup=1)
        parts.append(f"{plan} {t * 1e3:.1f} ms ({t / t_torch:.2f}x)")
    return f"| {name} | {t_torch * 1e3:.1f} ms | " + " | ".join(parts) + " |"


def bench_layer_norm(torch: Any, rng: np.random.Generator, rows: int, d: int, quick: bool) -> None:
    cpu, cuda_plan = Scope("cpu"), Scope("cpu", launch_plan="cuda")
    x = rng.standard_normal((rows, d), dtype=np.float32)
    dy = rng.standard_normal((rows, d), dtype=np.float32)
    g, b = rng.standard_normal(d, dtype=np.float32), rng.standard_normal(d, dtype=np.float32)
    xt, gt, bt, dyt = (torch.from_numpy(a) for a in (x, g, b, dy))
    fwd = layer_norm(x, g, b, scope=cpu)
    plans = {"cpu plan": lambda: layer_norm(x, g, b, scope=cpu),
             "cuda plan": lambda: layer_norm(x, g, b, scope=cuda_plan)}
    grad_plans = {"cpu plan": lambda: layer_norm_grad(dy, x, fwd.mean, fwd.rstd, g, scope=cpu),
                  "cuda plan": lambda: layer_norm_grad(dy, x, fwd.mean, fwd.rstd, g, scope=cuda_plan)}
    if not quick:
        gpu = Scope("cpu", kernel_form="gpu")
        plans["gpu form"] = lambda: layer_norm(x, g, b, scope=gpu)
        grad_plans["gpu form"] = lambda: layer_norm_grad(dy, x, fwd.mean, fwd.rstd, g, scope=gpu)
    xr, gr, br = (t.clone().requires_grad_() for t in (xt, gt, bt))
    yr = torch.nn.functional.layer_norm(xr, (d,), gr, br)
    print(row(f"LayerNorm [{rows}, {d}]", plans,
              lambda: torch.nn.functional.layer_norm(xt, (d,), gt, bt), 9))
    print(row(f"LayerNormGrad [{rows}, {d}] (dx, dgamma, dbeta)", grad_plans,
              lambda: torch.autograd.grad(yr, (xr, gr, br), dyt, retain_graph=True), 9))


def main() -> None:
    import torch

    quick = "--quick" in sys.argv
    torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    cpu, cuda_plan = Scope("cpu"), Scope("cpu", launch_plan="cuda")
    print(f"machine: {machine()}; torch {torch.__version__}, 2 threads each")
    print("| op, float32 | PyTorch | cpu plan | cuda plan on the host | " + ("" if quick else "GPU form on the host |"))
    for rows, d in ((4096, 1024), (4096, 8192)):
        bench_layer_norm(torch, rng, rows, d, quick)
    x = rng.standard_normal((4096, 4096), dtype=np.float32)
    dy = rng.standard_normal((4096, 4096), dtype=np.float32)
    xt, dyt = torch.from_numpy(x), torch.from_numpy(dy)
    y = softmax(x, scope=cpu).y
    yt = torch.from_numpy(y)
    plans = {"cpu plan": lambda: softmax(x, scope=cpu), "cuda plan": lambda: softmax(x, scope=cuda_plan)}
    grad_plans = {"cpu plan": lambda: softmax_grad(y, dy, scope=cpu),
                  "cuda plan": lambda: softmax_grad(y, dy, scope=cuda_plan)}
    if not quick:
        gpu = Scope("cpu", kernel_form="gpu")
        plans["gpu form"] = lambda: softmax(x, scope=gpu)
        grad_plans["gpu form"] = lambda: softmax_grad(y, dy, scope=gpu)
    print(row("Softmax [4096, 4096]", plans, lambda: torch.softmax(xt, -1), 9))
    print(row("SoftmaxGrad [4096, 4096]", grad_plans,
              lambda: torch._softmax_backward_data(dyt, yt, -1, torch.float32), 9))
    x16 = x.astype(np.float16)
    print(row("Softmax [4096, 4096] float16", {"cpu plan": lambda: softmax(x16, scope=cpu)},
              lambda: torch.softmax(torch.from_numpy(x16), -1), 9))


if __name__ == "__main__":
    main()
