"""Per-call overhead of a generated wrapper on a tiny input: validation + dispatch + launch.
Goal: under 30 us. Reported in parts: the whole call (3 kernel launches on the cpu backend), the
wrapper alone (checks, allocation, launch plan; launches stubbed out), and one launch of a
one-block kernel through the host backend."""

from __future__ import annotations

import numpy as np
from common import machine, median_seconds

from codegen.runtime import host
from codegen.runtime.launches import watch
from generated import Scope, fused_batch_norm_grad_v3

REPEAT = 500


def per_call(fn) -> float:
    return median_seconds(lambda: [fn() for _ in range(REPEAT)], repeats=9) / REPEAT


def main() -> None:
    scope = Scope("cpu")
    x = np.ones((1, 1, 1, 2), np.float32)
    c = np.ones(2, np.float32)
    empty = np.zeros(0, np.float32)

    def call() -> object:
        return fused_batch_norm_grad_v3(x, x, c, c, c, empty, scope=scope)

    whole = per_call(call)
    with watch(scope.backend, lambda *args, **kwargs: None):  # (declared: no plan replay either)
        wrapper = per_call(call)
    module = host.load_module('extern "C" __global__ void touch(float* x) { if (threadIdx.x == 0) x[0] = 1.f; }')
    touch = module.get_function("touch")
    one_launch = per_call(lambda: touch((1,), (32,), (x,)))
    print(f"machine: {machine()}")
    print(f"FusedBatchNormGradV3 on [1, 1, 1, 2], cpu backend: {whole * 1e6:.1f} us per call (3 kernel launches)")
    print(f"  wrapper alone (checks, allocation, launch plan; launches stubbed): {wrapper * 1e6:.1f} us")
    print(f"  one launch of a 1-block, 32-thread kernel through the host backend: {one_launch * 1e6:.1f} us")


if __name__ == "__main__":
    main()
