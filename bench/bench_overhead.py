"""Per-call overhead of a generated wrapper on a tiny input: validation + dispatch + launch.
Goal: under 30 us. Also shows the validation alone (an input rejected at the last check)."""

from __future__ import annotations

import numpy as np
from common import machine, median_seconds

from generated import Scope, fused_batch_norm_grad_v3


def main() -> None:
    scope = Scope("cpu")
    x = np.ones((1, 1, 1, 2), np.float32)
    c = np.ones(2, np.float32)
    empty = np.zeros(0, np.float32)
    fused_batch_norm_grad_v3(x, x, c, c, c, empty, scope=scope)  # compile / load the kernels

    def call() -> object:
        return fused_batch_norm_grad_v3(x, x, c, c, c, empty, scope=scope)

    per_call = median_seconds(lambda: [call() for _ in range(200)], repeats=9) / 200
    xe = np.ones((0, 1, 1, 2), np.float32)  # empty: checks and allocation, launches skipped

    def checks_only() -> object:
        return fused_batch_norm_grad_v3(xe, xe, c, c, c, empty, scope=scope)

    checks = median_seconds(lambda: [checks_only() for _ in range(200)], repeats=9) / 200
    print(f"machine: {machine()}")
    print(f"FusedBatchNormGradV3 on [1, 1, 1, 2]: {per_call * 1e6:.1f} us per call (2 kernel launches)")
    print(f"  of which checks + allocation (empty input, no launch): {checks * 1e6:.1f} us")


if __name__ == "__main__":
    main()
