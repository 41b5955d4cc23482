"""GRUBlockCell forward + GRUBlockCellGrad (float32) on the cpu backend, beside the same math in
vectorised NumPy measured in the same run. Sizes: B=64, I=H=512 and B=256, I=H=1024.
Goal: the cpu backend within 1.3x of NumPy.

Both sides run the same matrix products through NumPy's BLAS (the cpu backend's GEMM steps are
NumPy matmuls), so the ratio measures the generated elementwise kernels under the host
emulation, the launch plan and the wrapper's checks against NumPy's elementwise passes. The
weight gradients (opgen_ops.gru_block_cell_weight_grads) are NumPy on both sides and are
timed on their own."""

from __future__ import annotations

import statistics
import warnings

import numpy as np
from common import machine, median_seconds

from generated import Scope, gru_block_cell, gru_block_cell_grad
from opgen_ops import gru_block_cell_weight_grads

SIZES = ((64, 512, 512), (256, 1024, 1024))


def sigmoid(v: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-v))


def numpy_forward(x, h_prev, w_ru, w_c, b_ru, b_c):
    hidden = h_prev.shape[1]
    ru_bar = np.concatenate([x, h_prev], axis=1) @ w_ru + b_ru
    r, u = sigmoid(ru_bar[:, :hidden]), sigmoid(ru_bar[:, hidden:])
    c = np.tanh(np.concatenate([x, r * h_prev], axis=1) @ w_c + b_c)
    return r, u, c, u * h_prev + (1 - u) * c


def numpy_grad(x, h_prev, w_ru, w_c, r, u, c, d_h):
    n_in = x.shape[1]
    d_c_bar = d_h * (1 - u) * (1 - c * c)
    d_u_bar = d_h * (h_prev - c) * u * (1 - u)
    d_xh2 = d_c_bar @ w_c.T
    d_hr = d_xh2[:, n_in:]
    d_r_bar_u_bar = np.concatenate([d_hr * h_prev * r * (1 - r), d_u_bar], axis=1)
    d_xh1 = d_r_bar_u_bar @ w_ru.T
    d_x = d_xh1[:, :n_in] + d_xh2[:, :n_in]
    d_h_prev = d_xh1[:, n_in:] + d_hr * r + d_h * u
    return d_x, d_h_prev, d_c_bar, d_r_bar_u_bar


def interleaved_medians(op_fn, np_fn, rounds: int = 9, repeats: int = 5) -> tuple[float, float]:
    """Medians over rounds that alternate the two sides (each round: a median of `repeats`
    calls), so that load changes on a shared machine hit both sides alike."""
    op_times, np_times = [], []
    for _ in range(rounds):
        op_times.append(median_seconds(op_fn, repeats=repeats, warmup=1))
        np_times.append(median_seconds(np_fn, repeats=repeats, warmup=1))
    return statistics.median(op_times), statistics.median(np_times)


def bench_size(b: int, n_in: int, hidden: int, scope: Scope) -> list[str]:
    rng = np.random.default_rng(0)
    f32 = np.float32
    x = rng.standard_normal((b, n_in), f32)
    h_prev = rng.uniform(-1, 1, (b, hidden)).astype(f32)
    w_ru = (rng.standard_normal((n_in + hidden, 2 * hidden), f32) / np.sqrt(n_in + hidden)).astype(f32)
    w_c = (rng.standard_normal((n_in + hidden, hidden), f32) / np.sqrt(n_in + hidden)).astype(f32)
    b_ru, b_c = rng.standard_normal(2 * hidden, f32), rng.standard_normal(hidden, f32)
    d_h = rng.standard_normal((b, hidden), f32)
    fw = gru_block_cell(x, h_prev, w_ru, w_c, b_ru, b_c, scope=scope)
    r, u, c = fw.r, fw.u, fw.c

    def op_forward() -> object:
        return gru_block_cell(x, h_prev, w_ru, w_c, b_ru, b_c, scope=scope)

    def op_grad() -> object:
        return gru_block_cell_grad(x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h, scope=scope)

    def op_both() -> object:
        out = op_forward()
        return gru_block_cell_grad(x, h_prev, w_ru, w_c, b_ru, b_c, out.r, out.u, out.c, d_h, scope=scope)

    def np_both() -> object:
        rr, uu, cc, _ = numpy_forward(x, h_prev, w_ru, w_c, b_ru, b_c)
        return numpy_grad(x, h_prev, w_ru, w_c, rr, uu, cc, d_h)

    g = op_grad()
    pairs = (
        ("forward", op_forward, lambda: numpy_forward(x, h_prev, w_ru, w_c, b_ru, b_c)),
        ("gradient", op_grad, lambda: numpy_grad(x, h_prev, w_ru, w_c, r, u, c, d_h)),
        ("forward+gradient", op_both, np_both),
    )
    lines = []
    for what, op_fn, np_fn in pairs:
        t_op, t_np = interleaved_medians(op_fn, np_fn)
        lines.append(f"B={b} I={n_in} H={hidden} f32 {what:<17}: cpu backend {t_op * 1e3:7.2f} ms, "
                     f"numpy {t_np * 1e3:7.2f} ms, ratio {t_op / t_np:.2f}")
    t_w = median_seconds(lambda: gru_block_cell_weight_grads(x, h_prev, r, g.d_r_bar_u_bar, g.d_c_bar), repeats=21)
    lines.append(f"B={b} I={n_in} H={hidden} f32 weight grads (helper, NumPy): {t_w * 1e3:.2f} ms")
    return lines


def main() -> None:
    warnings.simplefilter("ignore", DeprecationWarning)  # TensorFlow deprecated the ops
    scope = Scope("cpu")
    print(f"machine: {machine()}, NumPy {np.__version__}")
    for size in SIZES:
        for line in bench_size(*size, scope):
            print(line)


if __name__ == "__main__":
    main()
