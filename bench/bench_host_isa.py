"""The cpu backend's two builds side by side (issue 21 item 6): kernels compiled for the baseline
target (SSE2) and for x86-64-v3 (AVX2, FMA), each on a backend of its own in this one process
(CpuBackend(isa=...)), with PyTorch CPU on the same data. CPU time of the calling thread at one
thread on every side (OPGEN_HOST_THREADS=1, one BLAS and one PyTorch thread): the time other
processes take from a loaded machine does not count. Interleaved rounds; min and median per call.

Ops: FusedBatchNormGradV3 32x64x56x56 (NCHW, NHWC), LayerNorm and its gradient [4096, 1024],
Softmax and its gradient [4096, 4096] (float32; Softmax float16 too), CudnnRNNV3 + BackpropV3 LSTM
and GRU (T=50, B=32, I=H=256, 2 layers, bidirectional; bench_cudnn_rnn.py's cases).

    python bench/bench_host_isa.py [--rounds 3] [--skip-rnn]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # (before NumPy loads: OpenBLAS sizes its pool then)
os.environ["OPGEN_HOST_THREADS"] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
from bench_cudnn_rnn import MODES, Mode, ours_step, setup, torch_step  # noqa: E402
from common import cpu_seconds, machine  # noqa: E402

from codegen.runtime import host_isa  # noqa: E402
from codegen.runtime.cpu import CpuBackend  # noqa: E402
from generated import (  # noqa: E402
    Scope,
    fused_batch_norm_grad_v3,
    fused_batch_norm_v3,
    layer_norm,
    layer_norm_grad,
    softmax,
    softmax_grad,
)

Call = Callable[[], object]
Case = tuple[str, Callable[[Scope], Call], Call]  # name, the op on a scope, PyTorch's


def scope_for(isa: str) -> Scope:
    scope = Scope("cpu")
    scope.backend = CpuBackend(isa=isa)
    return scope


def batch_norm_cases(torch: Any, rng: np.random.Generator) -> list[Case]:
    cases: list[Case] = []
    for fmt in ("NCHW", "NHWC"):
        shape = (32, 64, 56, 56) if fmt == "NCHW" else (32, 56, 56, 64)
        x, dy = rng.standard_normal(shape, dtype=np.float32), rng.standard_normal(shape, dtype=np.float32)
        scale = rng.uniform(0.5, 2, 64).astype(np.float32)
        zeros, ones = np.zeros(64, np.float32), np.ones(64, np.float32)
        fwd = fused_batch_norm_v3(x, scale, zeros, zeros, ones, epsilon=1e-3, data_format=fmt, scope=Scope("cpu"))
        rs1, rs2, rs3 = fwd.reserve_space_1, fwd.reserve_space_2, fwd.reserve_space_3
        xt, dyt = torch.from_numpy(x), torch.from_numpy(dy)
        if fmt == "NHWC":  # the same memory as PyTorch's channels-last NCHW
            xt, dyt = xt.permute(0, 3, 1, 2), dyt.permute(0, 3, 1, 2)
        w, mean_t, invstd_t = torch.from_numpy(scale), torch.from_numpy(rs1), torch.from_numpy(1 / np.sqrt(rs2 + 1e-3))

        def ours(scope: Scope, fmt: Any = fmt, x: Any = x, dy: Any = dy, scale: Any = scale, rs: Any = (rs1, rs2, rs3)
                 ) -> Call:
            return lambda: fused_batch_norm_grad_v3(dy, x, scale, *rs, epsilon=1e-3, data_format=fmt, scope=scope)

        def theirs(xt: Any = xt, dyt: Any = dyt, w: Any = w, m: Any = mean_t, s: Any = invstd_t) -> object:
            return torch.ops.aten.native_batch_norm_backward(dyt, xt, w, None, None, m, s, True, 1e-3, [True] * 3)

        cases.append((f"FusedBatchNormGradV3 {fmt} {list(shape)}", ours, theirs))
    return cases


def norm_cases(torch: Any, rng: np.random.Generator) -> list[Case]:
    rows, d = 4096, 1024
    x, dy = rng.standard_normal((rows, d), dtype=np.float32), rng.standard_normal((rows, d), dtype=np.float32)
    g, b = rng.standard_normal(d, dtype=np.float32), rng.standard_normal(d, dtype=np.float32)
    xt, gt, bt, dyt = (torch.from_numpy(a) for a in (x, g, b, dy))
    fwd = layer_norm(x, g, b, scope=Scope("cpu"))
    xr, gr, br = (t.clone().requires_grad_() for t in (xt, gt, bt))
    yr = torch.nn.functional.layer_norm(xr, (d,), gr, br)
    s = rng.standard_normal((4096, 4096), dtype=np.float32)
    sdy = rng.standard_normal((4096, 4096), dtype=np.float32)
    sy = softmax(s, scope=Scope("cpu")).y
    s16 = s.astype(np.float16)
    st, sdyt, syt, s16t = (torch.from_numpy(a) for a in (s, sdy, sy, s16))
    return [
        (f"LayerNorm [{rows}, {d}]", lambda sc: lambda: layer_norm(x, g, b, scope=sc),
         lambda: torch.nn.functional.layer_norm(xt, (d,), gt, bt)),
        (f"LayerNormGrad [{rows}, {d}]", lambda sc: lambda: layer_norm_grad(dy, x, fwd.mean, fwd.rstd, g, scope=sc),
         lambda: torch.autograd.grad(yr, (xr, gr, br), dyt, retain_graph=True)),
        ("Softmax [4096, 4096]", lambda sc: lambda: softmax(s, scope=sc), lambda: torch.softmax(st, -1)),
        ("SoftmaxGrad [4096, 4096]", lambda sc: lambda: softmax_grad(sy, sdy, scope=sc),
         lambda: torch._softmax_backward_data(sdyt, syt, -1, torch.float32)),
        ("Softmax [4096, 4096] float16", lambda sc: lambda: softmax(s16, scope=sc), lambda: torch.softmax(s16t, -1)),
    ]


def rnn_cases(torch: Any) -> list[Case]:
    steps, batch, size = 50, 32, 256
    lengths = np.full(batch, steps, np.int32)
    cases: list[Case] = []
    for mode in MODES:
        module, params, x, h0, c0, dy, dh, dc = setup(torch, mode, steps, batch, size, "cpu", lengths)
        a = [t.numpy() for t in (x, h0, c0, params, dy, dh, dc)]

        def ours(scope: Scope, mode: Mode = mode, a: Any = a) -> Call:
            return ours_step(scope, mode, a[0], a[1], a[2], a[3], lengths, a[4], a[5], a[6])

        cases.append((f"CudnnRNNV3 + BackpropV3 {mode.upper()} T={steps} B={batch} I=H={size}", ours,
                      torch_step(torch, module, mode, x, h0, c0, dy, dh, dc, None)))
    return cases


def measure(case: Case, scopes: dict[str, Scope], rounds: int, repeats: int) -> dict[str, tuple[float, float]]:
    """side → (min, median of the rounds' medians) in seconds; sides: the builds and torch."""
    _, ours, theirs = case
    calls: dict[str, Call] = {isa: ours(scope) for isa, scope in scopes.items()}
    calls["torch"] = theirs
    for fn in calls.values():
        fn()  # compile or load the modules, warm up
    lows: dict[str, list[float]] = {side: [] for side in calls}
    mids: dict[str, list[float]] = {side: [] for side in calls}
    for _ in range(rounds):
        for side, fn in calls.items():
            lo, mid = cpu_seconds(fn, repeats=repeats, warmup=1)
            lows[side].append(lo)
            mids[side].append(mid)
    return {side: (min(lows[side]), statistics.median(mids[side])) for side in calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-rnn", action="store_true")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    missing = host_isa.host_missing_v3()
    if missing:
        raise SystemExit(f"this CPU lacks {', '.join(missing)} of x86-64-v3: there is only the baseline build here")
    scopes = {isa: scope_for(isa) for isa in (host_isa.BASELINE, host_isa.X86_64_V3)}
    rng = np.random.default_rng(0)
    cases = batch_norm_cases(torch, rng) + norm_cases(torch, rng) + ([] if args.skip_rnn else rnn_cases(torch))
    print(f"machine: {machine()}; torch {torch.__version__}; one thread each side, CPU ms per call, "
          f"min / median of {args.rounds} rounds' medians")
    print("| op | PyTorch | baseline build | x86-64-v3 build | v3 / baseline | v3 / PyTorch |")
    print("|---|---|---|---|---|---|")
    for case in cases:
        repeats = 3 if case[0].startswith("CudnnRNN") else 15
        t = measure(case, scopes, args.rounds, repeats)
        base, v3, ref = t[host_isa.BASELINE], t[host_isa.X86_64_V3], t["torch"]

        def fmt(v: tuple[float, float]) -> str:
            return f"{v[0] * 1e3:.2f} / {v[1] * 1e3:.2f}"

        print(f"| {case[0]} | {fmt(ref)} | {fmt(base)} | {fmt(v3)} | {v3[0] / base[0]:.2f} | {v3[0] / ref[0]:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
