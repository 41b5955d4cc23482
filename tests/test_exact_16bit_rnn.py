"""Exact 16-bit outputs of the RNN ops (issue 21 item 2; float16, the one 16-bit type they take):
GRUBlockCell, GRUBlockCellGrad, DmlRnn, CudnnRNNV3, CudnnRNNBackpropV3 and the cudnn params
helpers, bit for bit (tests/test_exact_16bit.py has the conversions and the other ops).

Their GEMM steps write 16-bit results that the float32 specialization keeps unrounded, so the
inputs make every product exact in float16 (dyadic values with few bits, or one ±1 per row or
column of a weight matrix), and the 16-bit outputs are compared with the float32 op's on the same
values; what a kernel computes from a value it stored in 16 bits is checked against the kernel's
float arithmetic on that stored value (NumPy's float32 + − ×, which round as the kernels' float
operations do: the host build does not contract them into FMAs), or against a second float32
run that is fed the stored value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from exact16 import SCOPES, assert_rounded_once, make_scope, upcast
from reference.rounding import rne_half_bits

pytestmark = [pytest.mark.filterwarnings("ignore:GRUBlockCell.*is deprecated:DeprecationWarning"),
              pytest.mark.usefixtures("opgen_poison")]  # (opgen's pytest plugin) an element no kernel writes is NaN


@pytest.fixture(params=SCOPES[:2])
def scope(request: pytest.FixtureRequest) -> Any:
    return make_scope(request.param)


def _dyadic(rng: np.random.Generator, shape: tuple[int, ...], step: float, steps: int) -> np.ndarray:
    """Multiples of step in [-steps·step, steps·step], as float16 (exact)."""
    return (rng.integers(-steps, steps + 1, shape) * step).astype(np.float16)


def _one_per_row(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """[rows, cols] with one ±1 per row: each product with it is one exact term, whose rounding is
    the rounding of the other factor (also where that one is subnormal)."""
    m = np.zeros((rows, cols), np.float16)
    m[np.arange(rows), rng.integers(0, cols, rows)] = rng.choice(np.array([-1, 1], np.float16), rows)
    return m


def _assert_exact_in_half(a: np.ndarray, b: np.ndarray, what: str) -> None:
    """a·b (float64) is representable in float16: the op's 16-bit GEMM result is exact."""
    p = a.astype(np.float64) @ b.astype(np.float64)
    assert np.array_equal(p.astype(np.float16).astype(np.float64), p), f"{what}: the product is not exact in float16"


def _f32(a: Any) -> np.ndarray:
    return np.asarray(a).astype(np.float32)


def _rounded(v: np.ndarray) -> np.ndarray:
    """float32 values rounded to float16 and back (what a 16-bit store keeps)."""
    return rne_half_bits(v).view(np.float16).astype(np.float32)


GRU_SIZES = [(9, 5, 8), (7, 5, 6), (3, 5, 40)]  # (batch, input, cell): runs of 4, cell by cell, a host run of 32


@pytest.mark.parametrize("sizes", GRU_SIZES, ids=str)
def test_gru_block_cell(scope: Any, sizes: tuple[int, int, int]) -> None:
    from generated import gru_block_cell

    b, i, h = sizes
    rng = np.random.default_rng(sizes)
    x, h_prev = _dyadic(rng, (b, i), 0.25, 4), _dyadic(rng, (b, h), 0.25, 4)
    w_ru, w_c = _dyadic(rng, (i + h, 2 * h), 0.125, 4), _dyadic(rng, (i + h, h), 0.125, 4)
    b_ru, b_c = rng.standard_normal(2 * h).astype(np.float16), rng.standard_normal(h).astype(np.float16)
    _assert_exact_in_half(np.hstack([x, h_prev]), w_ru, "[x | h_prev]·w_ru")
    _assert_exact_in_half(x, w_c[:i], "x·w_c")
    # c_bar = x·w_c[:I] alone (r∘h_prev gets zero weights): r, u and c as the float32 op's, and h
    # from the stored u and c
    w_c[i:] = 0
    out = gru_block_cell(x, h_prev, w_ru, w_c, b_ru, b_c, scope=scope)
    twin = gru_block_cell(*(_f32(a) for a in (x, h_prev, w_ru, w_c, b_ru, b_c)), scope=scope)
    for name in ("r", "u", "c"):
        assert_rounded_once(getattr(out, name), getattr(twin, name), "float16", f"gru_block_cell.{name}")
    uv, cv, hp = _f32(out.u), _f32(out.c), _f32(h_prev)
    assert_rounded_once(out.h, uv * hp + (np.float32(1) - uv) * cv, "float16", "gru_block_cell.h")
    # c_bar = (r∘h_prev)·I, the 16-bit r∘h_prev itself: c must be tanh(rh + b_c) of the rh the
    # kernel's float product rounds to, which a float32 run takes as its x (x·I, exact)
    w_c2 = np.vstack([np.zeros((i, h), np.float16), np.eye(h, dtype=np.float16)])
    out = gru_block_cell(x, h_prev, w_ru, w_c2, b_ru, b_c, scope=scope)
    rh = _rounded(_f32(out.r) * hp)
    probe_w_c = np.vstack([np.eye(h, dtype=np.float32), np.zeros((h, h), np.float32)])
    probe_w_ru = np.zeros((2 * h, 2 * h), np.float32)
    probe = gru_block_cell(rh, hp, probe_w_ru, probe_w_c, _f32(b_ru), _f32(b_c), scope=scope)
    assert_rounded_once(out.c, probe.c, "float16", "gru_block_cell.c (from the stored r∘h_prev)")


@pytest.mark.parametrize("sizes", GRU_SIZES, ids=str)
def test_gru_block_cell_grad(scope: Any, sizes: tuple[int, int, int]) -> None:
    from generated import gru_block_cell_grad

    b, i, h = sizes
    rng = np.random.default_rng((2, *sizes))
    x, h_prev = _dyadic(rng, (b, i), 0.25, 4), rng.standard_normal((b, h)).astype(np.float16)
    w_ru, w_c = _one_per_row(rng, i + h, 2 * h), _one_per_row(rng, i + h, h)
    b_ru, b_c = rng.standard_normal(2 * h).astype(np.float16), rng.standard_normal(h).astype(np.float16)
    r, u = rng.uniform(0.05, 0.95, (2, b, h)).astype(np.float16)
    c, d_h = rng.uniform(-0.95, 0.95, (b, h)).astype(np.float16), rng.standard_normal((b, h)).astype(np.float16)
    args = (x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h)
    out = gru_block_cell_grad(*args, scope=scope)
    twin = gru_block_cell_grad(*(_f32(a) for a in args), scope=scope)
    # from the inputs alone: d_c_bar and d_u_bar as the float32 op's
    assert_rounded_once(out.d_c_bar, twin.d_c_bar, "float16", "gru_block_cell_grad.d_c_bar")
    assert_rounded_once(out.d_r_bar_u_bar[:, h:], twin.d_r_bar_u_bar[:, h:], "float16", "d_u_bar")
    # from the stored gradients through the exact products [d_x2 | d_hr] = d_c_bar·w_cᵀ and
    # [d_x1 | d_h1] = [d_r_bar | d_u_bar]·w_ruᵀ
    rv, uv, hp, dh = _f32(r), _f32(u), _f32(h_prev), _f32(d_h)
    d_xh2 = _f32(out.d_c_bar) @ _f32(w_c).T
    d_hr = d_xh2[:, i:]
    assert_rounded_once(out.d_r_bar_u_bar[:, :h], d_hr * hp * rv * (np.float32(1) - rv), "float16", "d_r_bar")
    d_xh1 = _f32(out.d_r_bar_u_bar) @ _f32(w_ru).T
    assert_rounded_once(out.d_x, d_xh1[:, :i] + d_xh2[:, :i], "float16", "gru_block_cell_grad.d_x")
    assert_rounded_once(out.d_h_prev, d_xh1[:, i:] + d_hr * rv + dh * uv, "float16", "gru_block_cell_grad.d_h_prev")


DML_ACTIVATIONS = ["tanh", "sigmoid", "softplus", "elu", "scaled_tanh", "softsign", "hard_sigmoid", "leaky_relu"]


@pytest.mark.parametrize("hidden", [8, 10, 40])  # 40: a run of 32 (the host form's) and a tail
def test_dml_rnn(scope: Any, hidden: int) -> None:
    from generated import dml_rnn

    rng = np.random.default_rng(hidden)
    steps, batch, inputs = 5, 3, 5
    for k, first in enumerate(DML_ACTIVATIONS):
        acts = [first, DML_ACTIVATIONS[(k + 3) % len(DML_ACTIVATIONS)]]
        x, w = _dyadic(rng, (1, steps, batch, inputs), 0.25, 4), _dyadic(rng, (1, 2, hidden, inputs), 0.125, 4)
        bias = rng.standard_normal((1, 1, 2, 2 * hidden)).astype(np.float16)
        lengths = np.array([[[[steps, 2, 0]]]], np.uint32)
        _assert_exact_in_half(x[0].reshape(-1, inputs), w[0, 0].T, "X·Wᵀ")
        # every step, both directions, lengths: no recurrence (R = 0), so each state is
        # f(X_t·Wᵀ + biases) as in float32
        r0 = np.zeros((1, 2, hidden, hidden), np.float16)
        args: tuple[Any, ...] = (x, w, r0, bias, None, lengths)
        out = dml_rnn(*args, direction="bidirectional", activations=acts, scope=scope)
        twin = dml_rnn(*(upcast(a) for a in args), direction="bidirectional", activations=acts, scope=scope)
        for name in ("output_sequence", "output_single"):
            assert_rounded_once(getattr(out, name), getattr(twin, name), "float16", f"dml_rnn.{name} ({acts})")
        # one step from a given state through the recurrence: H_{-1}·Rᵀ exact
        h0, r = _dyadic(rng, (1, 2, batch, hidden), 0.25, 4), _dyadic(rng, (1, 2, hidden, hidden), 0.125, 4)
        _assert_exact_in_half(h0[0, 0], r[0, 0].T, "H·Rᵀ")
        args = (x[:, :1], w, r, bias, h0, None)
        out = dml_rnn(*args, direction="bidirectional", activations=acts, scope=scope)
        twin = dml_rnn(*(upcast(a) for a in args), direction="bidirectional", activations=acts, scope=scope)
        assert_rounded_once(out.output_sequence, twin.output_sequence, "float16", f"dml_rnn, one step ({acts})")


CUDNN_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}
CUDNN_H, CUDNN_I = 11, 5  # 11 hidden units: a run of 8 and a tail of 3 in the host form


def _cudnn_params(w: np.ndarray, r: np.ndarray, b_w: np.ndarray, b_r: np.ndarray) -> np.ndarray:
    """The opaque params of one layer (opgen_ops/cudnn_rnn.py: the canonical weights in
    order, then the biases) from w [D, G, H, I], r [D, G, H, H], b_w and b_r [D, G, H]."""
    weights = [np.concatenate([w[d].ravel(), r[d].ravel()]) for d in range(w.shape[0])]
    biases = [np.concatenate([b_w[d].ravel(), b_r[d].ravel()]) for d in range(w.shape[0])]
    return np.concatenate(weights + biases).astype(np.float16)


def _cudnn(fn: Any, mode: str, *args: Any, scope: Any) -> Any:
    return fn(*args, rnn_mode=mode, direction="bidirectional", scope=scope)


def _cudnn_forward(mode: str, x: np.ndarray, h0: np.ndarray, c0: np.ndarray, parts: tuple[np.ndarray, ...],
                   lengths: np.ndarray, scope: Any) -> tuple[Any, Any]:
    """CudnnRNNV3 in float16 and, on the same values, in float32."""
    from generated import cudnn_rnn_v3

    args = (x, h0, c0, _cudnn_params(*parts), lengths)
    return (_cudnn(cudnn_rnn_v3, mode, *args, scope=scope),
            _cudnn(cudnn_rnn_v3, mode, *(upcast(a) for a in args), scope=scope))


def _cudnn_inputs(rng: np.random.Generator, mode: str, steps: int, batch: int) -> tuple[Any, ...]:
    """x, h0, c0 and (w, r, b_w, b_r) whose products x·Wᵀ and h0·Rᵀ are exact in float16."""
    g, h, i = CUDNN_GATES[mode], CUDNN_H, CUDNN_I
    x, h0 = _dyadic(rng, (steps, batch, i), 0.25, 4), _dyadic(rng, (2, batch, h), 0.25, 4)
    c0 = rng.standard_normal((2, batch, h)).astype(np.float16) if mode == "lstm" else np.zeros(0, np.float16)
    w, r = _dyadic(rng, (2, g, h, i), 0.125, 4), _dyadic(rng, (2, g, h, h), 0.125, 4)
    b_w, b_r = rng.standard_normal((2, 2, g, h)).astype(np.float16)
    _assert_exact_in_half(x.reshape(-1, i), w[0].reshape(-1, i).T, "x·Wᵀ")
    _assert_exact_in_half(h0[0], r[0].reshape(-1, h).T, "h0·Rᵀ")
    return x, h0, c0, (w, r, b_w, b_r)


def _saturate(parts: tuple[np.ndarray, ...], gate: int, bias: float) -> tuple[np.ndarray, ...]:
    """The weights with one gate's pre-activation the constant 2·bias: σ(40) = 1 and tanh(0) = 0
    exactly in float."""
    w, r, b_w, b_r = (p.copy() for p in parts)
    w[:, gate], r[:, gate], b_w[:, gate], b_r[:, gate] = 0, 0, bias, bias
    return w, r, b_w, b_r


@pytest.mark.parametrize("mode", ["rnn_relu", "rnn_tanh"])
def test_cudnn_rnn_simple_modes(scope: Any, mode: str) -> None:
    """Four steps, both directions, lengths 4, 2, 1: with R = 0 every state is act(x·Wᵀ + biases)."""
    rng = np.random.default_rng(len(mode))
    x, h0, c0, (w, r, b_w, b_r) = _cudnn_inputs(rng, mode, 4, 3)
    out, twin = _cudnn_forward(mode, x, h0, c0, (w, 0 * r, b_w, b_r), np.array([4, 2, 1], np.int32), scope)
    for name in ("output", "output_h", "reserve_space"):
        assert_rounded_once(getattr(out, name), getattr(twin, name), "float16", f"cudnn_rnn_v3 {mode}: {name}")


def test_cudnn_rnn_gru(scope: Any) -> None:
    """One step from h0 through R (exact): r, u, n, h and what the gradient keeps."""
    rng = np.random.default_rng(3)
    x, h0, c0, parts = _cudnn_inputs(rng, "gru", 1, 3)
    out, twin = _cudnn_forward("gru", x, h0, c0, parts, np.array([1, 1, 1], np.int32), scope)
    for name in ("output", "output_h", "reserve_space"):
        assert_rounded_once(getattr(out, name), getattr(twin, name), "float16", f"cudnn_rnn_v3 gru: {name}")


def test_cudnn_rnn_lstm(scope: Any) -> None:
    """One step. h = o∘tanh(c as stored): (a) with f = 1 and g = 0, c = c0 exactly, so h, the gates
    and what the gradient keeps are as in float32; (b) with every gate live, c is; (c) with o = 1,
    h is tanh of the stored c, which a float32 run given that c as c0 (f = 1, g = 0) computes."""
    rng = np.random.default_rng(4)
    x, h0, c0, parts = _cudnn_inputs(rng, "lstm", 1, 3)
    ones = np.array([1, 1, 1], np.int32)
    fixed_c = _saturate(_saturate(parts, 1, 20.0), 2, 0.0)
    out, twin = _cudnn_forward("lstm", x, h0, c0, fixed_c, ones, scope)
    for name in ("output", "output_h", "reserve_space"):
        assert_rounded_once(getattr(out, name), getattr(twin, name), "float16", f"cudnn_rnn_v3 lstm (a): {name}")
    assert_rounded_once(out.output_c, twin.output_c, "float16", "cudnn_rnn_v3 lstm (a): output_c", telling=False)
    out, twin = _cudnn_forward("lstm", x, h0, c0, parts, ones, scope)
    assert_rounded_once(out.output_c, twin.output_c, "float16", "cudnn_rnn_v3 lstm (b): output_c")
    open_o = _saturate(parts, 3, 20.0)
    out, _ = _cudnn_forward("lstm", x, h0, c0, open_o, ones, scope)
    _, probe = _cudnn_forward("lstm", x, h0, out.output_c, _saturate(_saturate(open_o, 1, 20.0), 2, 0.0), ones, scope)
    for name in ("output", "output_h"):
        assert_rounded_once(getattr(out, name), getattr(probe, name), "float16", f"cudnn_rnn_v3 lstm (c): {name}")


def _one_per_column(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    return np.ascontiguousarray(_one_per_row(rng, cols, rows).T)


def _signs(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.choice(np.array([-1, 1], np.float16), shape)


def _one_backward_step(rng: np.random.Generator, mode: str, x: np.ndarray, h0: np.ndarray, params: np.ndarray,
                       scope: Any, c0: np.ndarray | None = None, **attrs: Any) -> tuple[Any, Any, dict[str, Any]]:
    """CudnnRNNBackpropV3 after one float16 forward step of one sequence in both directions, in
    float16 and in float32 on the same values, the float32 op given the float16 forward's reserve
    space (so that both start from the stored activations and states). c0: lstm's initial cell
    state (random, h0's shape, when not given). Returns both and the float16 backward's inputs."""
    from generated import cudnn_rnn_backprop_v3, cudnn_rnn_v3

    kw = {"rnn_mode": mode, "direction": "bidirectional", "scope": scope, **attrs}
    if c0 is None:
        c0 = rng.standard_normal(h0.shape).astype(np.float16) if mode == "lstm" else np.zeros(0, np.float16)
    lengths = np.array([1], np.int32)
    fw = cudnn_rnn_v3(x, h0, c0, params, lengths, **kw)
    # dh + dy: magnitudes apart, so that their float sum (rnn_relu's gradient) needs more bits
    dy = rng.standard_normal(fw.output.shape).astype(np.float16)
    dh = (rng.standard_normal(fw.output_h.shape) * 0.3).astype(np.float16)
    dc = rng.standard_normal(fw.output_c.shape).astype(np.float16)
    args = (x, h0, c0, params, lengths, fw.output, fw.output_h, fw.output_c, dy, dh, dc, fw.reserve_space,
            fw.host_reserved)
    out, twin = cudnn_rnn_backprop_v3(*args, **kw), cudnn_rnn_backprop_v3(*(upcast(a) for a in args), **kw)
    return out, twin, {"output_h_backprop": dh, "reserve_space": fw.reserve_space}


def _recurrent_weights(rng: np.random.Generator, mode: str, g: int, h: int) -> np.ndarray:
    """R with one ±1 per column (dh_prev = dG·R, one exact term); zero for gru, whose dh_prev is
    dh∘u (stored) + dG·R, two terms: R = 0 leaves the one stored term."""
    r = np.stack([_one_per_column(rng, g * h, h).reshape(g, h, h) for _ in range(2)])
    return 0 * r if mode == "gru" else r


@pytest.mark.parametrize("mode", ["rnn_relu", "rnn_tanh", "lstm", "gru"])
def test_cudnn_rnn_backprop(scope: Any, mode: str) -> None:
    """One step: every product of the backward is one exact term per element (W, the forward
    direction's, with one ±1 per column; the other direction's W zero, since input_backprop sums
    the directions' products; x and h0 ±1; one row for the weight and bias gradients)."""
    rng = np.random.default_rng(len(mode) + 10)
    g, h, i = CUDNN_GATES[mode], 27, 32  # runs of 8 and a tail; 32 input gradients
    w = np.stack([_one_per_column(rng, g * h, i).reshape(g, h, i), np.zeros((g, h, i), np.float16)])
    b_w, b_r = rng.standard_normal((2, 2, g, h)).astype(np.float16)
    params = _cudnn_params(w, _recurrent_weights(rng, mode, g, h), b_w, b_r)
    out, twin, _ = _one_backward_step(rng, mode, _signs(rng, (1, 1, i)), _signs(rng, (2, 1, h)), params, scope)
    names = ["input_backprop", "input_h_backprop", "params_backprop"] + ["input_c_backprop"] * (mode == "lstm")
    for name in names:
        assert_rounded_once(getattr(out, name), getattr(twin, name), "float16", f"cudnn_rnn_backprop_v3 {mode}: {name}")


@pytest.mark.parametrize("mode", ["rnn_tanh", "lstm", "gru"])
def test_cudnn_rnn_backprop_skip_input(scope: Any, mode: str) -> None:
    """skip_input: the input's gradient is the sum of the gates' stored gradients (the input side,
    which the bias gradients of this one step return exactly), the forward direction's rounded to
    float16 before the backward direction's are added to it."""
    rng = np.random.default_rng(len(mode) + 20)
    g, h = CUDNN_GATES[mode], 27
    r = _recurrent_weights(rng, mode, g, h)
    b_w, b_r = rng.standard_normal((2, 2, g, h)).astype(np.float16)
    params = np.concatenate([r.ravel()] + [np.concatenate([b_w[d].ravel(), b_r[d].ravel()]) for d in range(2)])
    out, twin, _ = _one_backward_step(rng, mode, _signs(rng, (1, 1, h)), _signs(rng, (2, 1, h)), params, scope,
                                      input_mode="skip_input")
    assert_rounded_once(out.params_backprop, twin.params_backprop, "float16", f"skip_input {mode}: params_backprop")
    biases = _f32(out.params_backprop)[r.size:].reshape(2, 2, g, h)  # [direction, W|R side, gate, unit]
    s = np.zeros(h, np.float32)
    for q in range(g):
        s = s + biases[0, 0, q]
    s = _rounded(s)  # the forward direction's sum, stored
    for q in range(g):
        s = s + biases[1, 0, q]
    assert_rounded_once(out.input_backprop.reshape(h), s, "float16", f"skip_input {mode}: input_backprop")


def test_cudnn_rnn_dropout_layer_input(scope: Any) -> None:
    """Two layers, training with dropout 0.25: the second layer's input in the reserve space is the
    first layer's stored output times the float 1/(1 − 0.25) where the mask keeps it, rounded once."""
    from generated import cudnn_rnn_v3

    rng = np.random.default_rng(30)
    steps, batch, h, i, dropout = 4, 3, CUDNN_H, CUDNN_I, 0.25
    x, h0 = _dyadic(rng, (steps, batch, i), 0.25, 4), _dyadic(rng, (4, batch, h), 0.25, 4)
    w0, w1 = _dyadic(rng, (2, h, i), 0.125, 4), _dyadic(rng, (2, h, 2 * h), 0.125, 4)
    r = _dyadic(rng, (4, h, h), 0.125, 4)
    biases = rng.standard_normal((4, 2, h)).astype(np.float16)
    params = np.concatenate([w0[0].ravel(), r[0].ravel(), w0[1].ravel(), r[1].ravel(), w1[0].ravel(), r[2].ravel(),
                             w1[1].ravel(), r[3].ravel(), biases.ravel()])
    lengths = np.array([4, 2, 1], np.int32)
    out = cudnn_rnn_v3(x, h0, np.zeros(0, np.float16), params, lengths, rnn_mode="rnn_tanh",
                       direction="bidirectional", dropout=dropout, seed=5, seed2=7, scope=scope)
    reserve = _f32(out.reserve_space)
    rows, width, slots = steps * batch, 2 * h, (steps + 1) * batch * h  # a pseudo-layer: its h slots
    layer_input = reserve[4 * slots: 4 * slots + rows * width].reshape(steps, batch, 2, h)
    mask = reserve[4 * slots + rows * width: 4 * slots + 2 * rows * width].reshape(steps, batch, 2, h)
    scale = np.float32(1) / (np.float32(1) - np.float32(dropout))
    want = np.zeros_like(layer_input)
    for d in range(2):
        hs = reserve[d * slots: (d + 1) * slots].reshape(steps + 1, batch, h)  # slot t + 1 − d: after time t
        state = hs[1:] if d == 0 else hs[:-1]
        valid = (np.arange(steps)[:, None] < lengths[None, :])[:, :, None]
        want[:, :, d] = np.where(valid, state, np.float32(0)) * np.where(mask[:, :, d] != 0, scale, np.float32(0))
    assert np.any(mask == 0) and np.any(mask != 0)
    got = out.reserve_space[4 * slots: 4 * slots + rows * width].reshape(steps, batch, 2, h)
    assert_rounded_once(got, want, "float16", "cudnn_rnn_v3: the dropped-out layer input")


def test_cudnn_rnn_backprop_projection(scope: Any) -> None:
    """lstm with a projection (h = P·m), one step: the gradient reaching m, dh + dy, is stored
    before dm = dhp·P; with f = o = 1, g = 0 and c0 = ±20 (tanh = ±1 exactly), m = ±1, so P's
    gradient dhp⊗m and every other product are one exact term per element."""
    rng = np.random.default_rng(40)
    g, h, hp, i = 4, 27, 19, 32
    w = np.stack([_one_per_column(rng, g * h, i).reshape(g, h, i), np.zeros((g, h, i), np.float16)])
    r = np.stack([_one_per_column(rng, g * h, hp).reshape(g, h, hp) for _ in range(2)])
    proj = np.zeros((2, hp, h), np.float16)  # one ±1 per row and at most one per column
    for d in range(2):
        proj[d, np.arange(hp), rng.permutation(h)[:hp]] = _signs(rng, (hp,))
    b_w, b_r = rng.standard_normal((2, 2, g, h)).astype(np.float16)
    w, r, b_w, b_r = _saturate(_saturate(_saturate((w, r, b_w, b_r), 1, 20.0), 3, 20.0), 2, 0.0)
    weights = [np.concatenate([w[d].ravel(), r[d].ravel(), proj[d].ravel()]) for d in range(2)]
    params = np.concatenate(weights + [np.concatenate([b_w[d].ravel(), b_r[d].ravel()]) for d in range(2)])
    c0 = (_signs(rng, (2, 1, h)) * np.float16(20)).astype(np.float16)
    out, twin, _ = _one_backward_step(rng, "lstm", _signs(rng, (1, 1, i)), _signs(rng, (2, 1, hp)), params, scope,
                                      num_proj=hp, c0=c0)
    assert_rounded_once(out.params_backprop, twin.params_backprop, "float16", "lstm projection: params_backprop")
    # with the gates held, only g's gradient is nonzero and its weights are zero (input_backprop and
    # input_h_backprop are 0), and dc·f = dc: exact, yet checked
    for name in ("input_backprop", "input_h_backprop", "input_c_backprop"):
        assert_rounded_once(getattr(out, name), getattr(twin, name), "float16", f"lstm projection: {name}",
                            telling=False)


def test_cudnn_rnn_backprop_layer_below(scope: Any) -> None:
    """Two rnn_tanh layers trained with dropout 0.25, one step: the gradient reaching the first
    layer's output is the second layer's input gradient (exact: dG₂·W₂ with one ±1 per column, the
    backward direction's W₂ zero) times the stored dropout mask, rounded once; the first layer's
    gate gradients, (dh + that)·(1 − h²) from the stored h, are its bias gradients."""
    rng = np.random.default_rng(50)
    h, i = 27, 5
    w0 = _dyadic(rng, (2, h, i), 0.125, 4)
    w1 = np.stack([_one_per_column(rng, h, 2 * h), np.zeros((h, 2 * h), np.float16)])
    r = _dyadic(rng, (4, h, h), 0.125, 4)
    biases = rng.standard_normal((4, 2, h)).astype(np.float16)
    weights = np.concatenate([w0[0].ravel(), r[0].ravel(), w0[1].ravel(), r[1].ravel(), w1[0].ravel(), r[2].ravel(),
                              w1[1].ravel(), r[3].ravel()])
    params = np.concatenate([weights, biases.ravel()])
    x, h0 = _dyadic(rng, (1, 1, i), 0.25, 4), _dyadic(rng, (4, 1, h), 0.25, 4)
    out, _, given = _one_backward_step(rng, "rnn_tanh", x, h0, params, scope, dropout=0.25, seed=3, seed2=4)
    bias_grads = _f32(out.params_backprop)[weights.size:].reshape(4, 2, h)  # [pseudo-layer, W|R side, unit]
    reserve, slots = _f32(given["reserve_space"]), 2 * h  # a pseudo-layer's h slots: steps + 1 = 2 of them
    mask = reserve[4 * slots + 2 * h: 4 * slots + 4 * h]  # the second layer's input's dropout mask
    assert np.any(mask == 0) and np.any(mask != 0)
    below = _rounded((bias_grads[2, 0] @ _f32(w1[0])) * mask)  # dG₂ of the forward direction = its bias gradient
    dh = _f32(given["output_h_backprop"])
    for d in range(2):
        state = reserve[d * slots + (1 - d) * h: d * slots + (2 - d) * h]  # slot t + 1 − d, t = 0
        want = (dh[d, 0] + below[d * h:(d + 1) * h]) * (np.float32(1) - state * state)
        assert_rounded_once(out.params_backprop[weights.size + d * 2 * h: weights.size + d * 2 * h + h], want,
                            "float16", f"two layers: the first layer's gate gradients, direction {d}")


def test_cudnn_rnn_params_helpers_copy_bits() -> None:
    """CudnnRNNCanonicalToParamsV2 and CudnnRNNParamsToCanonicalV2 move float16 values without a
    conversion: every bit pattern (subnormals, infinities, NaN payloads) comes back as it went."""
    from generated import cudnn_rnn_canonical_to_params_v2, cudnn_rnn_params_to_canonical_v2
    from opgen_ops.cudnn_rnn import params_layout

    layout = params_layout("gru", 2, 5, 3, "bidirectional")
    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    rng = np.random.default_rng(60)
    weights = [rng.choice(every, r.shape) for r in layout.weights]
    biases = [rng.choice(every, r.shape) for r in layout.biases]
    kw: dict[str, Any] = {"rnn_mode": "gru", "direction": "bidirectional", "scope": "cpu"}
    params = cudnn_rnn_canonical_to_params_v2(2, 5, 3, weights, biases, **kw).params
    assert np.array_equal(params.view(np.uint16),
                          np.concatenate([a.ravel() for a in weights + biases]).view(np.uint16))
    back = cudnn_rnn_params_to_canonical_v2(2, 5, 3, params, num_params_weights=len(weights),
                                            num_params_biases=len(biases), **kw)
    for got, want in zip(list(back.weights) + list(back.biases), weights + biases, strict=True):
        assert got.dtype == np.float16 and np.array_equal(got.view(np.uint16), want.view(np.uint16))
