"""Dispatch overhead of torch.ops.opgen.* over calling the wrapper directly (issue 14: goal <= 10 us
per call on CPU). The same tiny FusedBatchNormGradV3 (launches stubbed out, so only the Python
path is timed) called four ways, interleaved: the wrapper with NumPy arrays; the wrapper with torch
tensors (views in and out); torch.ops.opgen with tensors that do not require grad (the dispatcher,
then the same path); and with tensors that require grad (autograd's setup_context added)."""

from __future__ import annotations

import statistics

import numpy as np
import torch
from common import machine, median_seconds

import generated.torch  # noqa: F401  (registers torch.ops.opgen.*)
from codegen.runtime.launches import watch
from generated import Scope, fused_batch_norm_grad_v3

REPEAT = 400
ROUNDS = 7


def per_call(fn) -> float:
    return median_seconds(lambda: [fn() for _ in range(REPEAT)], repeats=3, warmup=1) / REPEAT


def main() -> None:
    torch.set_num_threads(2)
    scope = Scope("cpu")
    x = np.ones((1, 1, 1, 2), np.float32)
    c = np.ones(2, np.float32)
    empty = np.zeros(0, np.float32)
    tx, tc, tempty = torch.from_numpy(x), torch.from_numpy(c), torch.from_numpy(empty)
    op = torch.ops.opgen.fused_batch_norm_grad_v3
    ways = {
        "wrapper, NumPy": lambda: fused_batch_norm_grad_v3(x, x, c, c, c, empty, scope=scope),
        "wrapper, torch": lambda: fused_batch_norm_grad_v3(tx, tx, tc, tc, tc, tempty),
        "torch.ops.opgen": lambda: op(tx, tx, tc, tc, tc, tempty),
    }
    samples: dict[str, list[float]] = {name: [] for name in ways}
    with watch(scope.backend, lambda *args, **kwargs: None):  # the Python path only
        for _ in range(ROUNDS):  # interleaved, so the machine's noise falls on every way alike
            for name, fn in ways.items():
                samples[name].append(per_call(fn))
    med = {name: statistics.median(v) for name, v in samples.items()}
    base = med["wrapper, NumPy"]
    print(f"machine: {machine()}, torch {torch.__version__}, threads {torch.get_num_threads()}")
    for name, value in med.items():
        print(f"{name:18s} {value * 1e6:7.1f} us/call  (+{(value - base) * 1e6:5.1f} us over the NumPy wrapper)")
    overhead = (med["torch.ops.opgen"] - base) * 1e6
    over_torch = (med["torch.ops.opgen"] - med["wrapper, torch"]) * 1e6
    print(f"torch.ops.opgen over the wrapper: {overhead:.1f} us with NumPy arrays, {over_torch:.1f} us with the same "
          f"tensors (goal <= 10 us)")


if __name__ == "__main__":
    main()
