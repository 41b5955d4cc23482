"""Correctness tests for GRUBlockCell and GRUBlockCellGrad (cpu emulation backend), and for the
weight-gradient helper opgen_ops.gru_block_cell_weight_grads.

The ops are compared against an independent float64 NumPy reference (tests/reference/gru.py),
the whole gradient (the op's d_x, d_h_prev and, through the helper, d_w_ru, d_w_c, d_b_ru, d_b_c)
against central differences of the reference forward, and a 10-step unrolled GRU run with the ops
(backpropagation through time with the grad op and the helper) against central differences of the
reference sequence loss; where PyTorch is installed, also against the same cell written with torch
ops and differentiated by autograd. Every test asks the runtime to poison outputs with NaN before the kernels
run, so an output element that no kernel or GEMM writes fails the comparisons (which check for NaN).
"""

from __future__ import annotations

import re
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from messages import assert_message, shape_texts
from reference.gru import gru_forward, gru_grad, gru_sequence_loss

from generated import (
    GRUBlockCell,
    GRUBlockCellGrad,
    Scope,
    gru_block_cell,
    gru_block_cell_grad,
)
from opgen_ops import gru as gru_helpers
from opgen_ops import gru_block_cell_weight_grads

# TensorFlow has deprecated both ops, so every call warns; the warning is asserted once below.
pytestmark = pytest.mark.filterwarnings("ignore:GRUBlockCell.* is deprecated:DeprecationWarning")

PROJECT = Path(__file__).resolve().parent.parent
FWD, GRAD = "GRUBlockCell", "GRUBlockCellGrad"
FORWARD_FIELDS = ("r", "u", "c", "h")
GRAD_FIELDS = ("d_x", "d_h_prev", "d_c_bar", "d_r_bar_u_bar")
WEIGHT_FIELDS = ("d_w_ru", "d_w_c", "d_b_ru", "d_b_c")

# ---------------------------------------------------------------------------------------------
# Tolerances: atol is a factor times the tensor's scale (max |expected|, at least 1).
#
# float32: the products round to float32 with K = I + H (or 2H) terms, about K·2^-24 relative
# to Σ|terms| at worst; the gate functions are Lipschitz (σ' ≤ 1/4, tanh' ≤ 1) and the
# elementwise kernels add a few ulp. 1e-5 leaves room for K in the hundreds.
#
# float16: the op works as TensorFlow's half kernels do: every product result, gate and gradient
# is stored in float16 (half an ulp is 2^-11 ≈ 4.9e-4 relative), NumPy's float16 products round
# as they go, and gradients chain three such steps, so a few ulp of the largest value:
# 1e-2·scale for the forward outputs (which are within [-1, 1] or so) and 2e-2·scale for the
# gradients. Indexing or formula errors are O(scale), far above either.
# ---------------------------------------------------------------------------------------------
TOL = {"float32": (1e-5, 1e-5), "float16": (5e-3, 5e-3)}
GRAD_TOL = {"float32": (1e-5, 1e-5), "float16": (5e-3, 5e-3)}

# (B, I, H): odd sizes on purpose, the smallest, H a multiple of 4 (runs of 4 adjacent elements
# per thread) or not (one element at a time), I+H a multiple of 4 or not, several blocks.
SIZES = [
    pytest.param(1, 1, 1, id="B1-I1-H1"),
    pytest.param(3, 5, 7, id="B3-I5-H7"),
    pytest.param(2, 7, 3, id="B2-I7-H3"),
    pytest.param(1, 1, 9, id="B1-I1-H9"),
    pytest.param(6, 1, 1, id="B6-I1-H1"),
    pytest.param(4, 8, 12, id="B4-I8-H12"),
    pytest.param(5, 3, 8, id="B5-I3-H8"),
    pytest.param(13, 33, 100, id="B13-I33-H100"),  # 1300 cells: 256 threads, several passes
    pytest.param(7, 40, 301, id="B7-I40-H301"),
]
DTYPES = ["float32", "float16"]


@pytest.fixture(autouse=True)
def _poison_outputs(monkeypatch):
    """Have the cpu runtime fill every output (and scratch buffer) with NaN before the kernels."""
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")


@pytest.fixture
def scope():
    return Scope(device="cpu")


def _rng(*key) -> np.random.Generator:
    """A generator seeded from the test's parameters: reproducible, different per case."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _f64(a) -> np.ndarray:
    return np.asarray(a).astype(np.float64)


def _mag(*arrays) -> float:
    m = 1.0
    for a in arrays:
        a = _f64(a)
        if a.size:
            m = max(m, float(np.abs(a).max()))
    return m


def _inputs(rng, b, i, h, dtype="float32"):
    """x, h_prev, w_ru, w_c, b_ru, b_c in dtype: weights scaled so that the pre-activations are
    O(1) (the gates neither saturate nor stay linear), biases with both signs."""
    dt = np.dtype(dtype)
    scale = 1.5 / np.sqrt(max(i + h, 1))
    x = rng.normal(0.0, 1.0, (b, i)).astype(dt)
    h_prev = rng.uniform(-1.0, 1.0, (b, h)).astype(dt)
    w_ru = (rng.normal(0.0, 1.0, (i + h, 2 * h)) * scale).astype(dt)
    w_c = (rng.normal(0.0, 1.0, (i + h, h)) * scale).astype(dt)
    b_ru = rng.normal(0.0, 0.5, 2 * h).astype(dt)
    b_c = rng.normal(0.0, 0.5, h).astype(dt)
    return x, h_prev, w_ru, w_c, b_ru, b_c


def _assert_written(name: str, a) -> None:
    assert not np.isnan(_f64(a)).any(), f"{name}: NaN elements (an output element was never written?)"


def _assert_close(name, actual, expected, *, rtol, atol, dtype) -> None:
    actual_arr = np.asarray(actual)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual_arr.shape == expected.shape, f"{name}: shape {actual_arr.shape}, expected {expected.shape}"
    assert actual_arr.dtype == np.dtype(dtype), f"{name}: dtype {actual_arr.dtype}, expected {dtype}"
    _assert_written(name, actual_arr)
    np.testing.assert_allclose(_f64(actual_arr), expected, rtol=rtol, atol=atol * _mag(expected), err_msg=name)


def _snapshot(*arrays):
    return [(a.shape, a.dtype, a.tobytes()) for a in arrays]


def _weight_grads_of(x, h_prev, r, g):
    return dict(zip(WEIGHT_FIELDS, gru_block_cell_weight_grads(x, h_prev, r, g.d_r_bar_u_bar, g.d_c_bar),
                    strict=True))


# ---------------------------------------------------------------------------------------------
# Forward and gradient against the float64 reference
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("b", "i", "h"), SIZES)
def test_forward_matches_reference(scope, b, i, h, dtype):
    args = _inputs(_rng("forward", b, i, h, dtype), b, i, h, dtype)
    before = _snapshot(*args)
    out = gru_block_cell(*args, scope=scope)
    ref = gru_forward(*args)
    rtol, atol = TOL[dtype]
    for name in FORWARD_FIELDS:
        _assert_close(name, getattr(out, name), ref[name], rtol=rtol, atol=atol, dtype=dtype)
    assert _snapshot(*args) == before, "the op modified its inputs"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("b", "i", "h"), SIZES)
def test_grad_matches_reference(scope, b, i, h, dtype):
    rng = _rng("grad", b, i, h, dtype)
    x, h_prev, w_ru, w_c, b_ru, b_c = _inputs(rng, b, i, h, dtype)
    fw = gru_block_cell(x, h_prev, w_ru, w_c, b_ru, b_c, scope=scope)
    d_h = rng.normal(0.0, 1.0, (b, h)).astype(dtype)
    args = (x, h_prev, w_ru, w_c, b_ru, b_c, fw.r, fw.u, fw.c, d_h)
    before = _snapshot(*args)
    g = gru_block_cell_grad(*args, scope=scope)
    assert _snapshot(*args) == before, "the op modified its inputs"
    ref = gru_grad(x, h_prev, w_ru, w_c, fw.r, fw.u, fw.c, d_h)  # at the op's own r, u, c
    rtol, atol = GRAD_TOL[dtype]
    for name in GRAD_FIELDS:
        _assert_close(name, getattr(g, name), ref[name], rtol=rtol, atol=atol, dtype=dtype)
    weights = _weight_grads_of(x, h_prev, fw.r, g)
    for name in WEIGHT_FIELDS:  # from the op's (rounded) d_r_bar_u_bar and d_c_bar
        _assert_close(name, weights[name], ref[name], rtol=rtol, atol=atol, dtype=dtype)


def test_medium_case_and_grid_stride(scope):
    """Several blocks and several grid-stride passes: 300 × 1024 cells (5 blocks, runs of 4
    adjacent elements, each thread visiting 60 rows) and 100 × 1051 (2 blocks, one element at a
    time since H is odd)."""
    for b, i, h in ((300, 3, 1024), (100, 2, 1051)):
        rng = _rng("medium", b, i, h)
        args = _inputs(rng, b, i, h)
        out = gru_block_cell(*args, scope=scope)
        ref = gru_forward(*args)
        for name in FORWARD_FIELDS:
            _assert_close(name, getattr(out, name), ref[name], rtol=1e-5, atol=2e-5, dtype="float32")
        d_h = rng.normal(0.0, 1.0, (b, h)).astype(np.float32)
        g = gru_block_cell_grad(*args, out.r, out.u, out.c, d_h, scope=scope)
        gref = gru_grad(args[0], args[1], args[2], args[3], out.r, out.u, out.c, d_h)
        for name in GRAD_FIELDS:
            _assert_close(name, getattr(g, name), gref[name], rtol=1e-4, atol=2e-5, dtype="float32")


@pytest.mark.parametrize(("b", "i", "h"), [(0, 3, 4), (2, 0, 4), (2, 3, 0), (0, 0, 0)])
def test_empty_dimensions(scope, b, i, h):
    """B, I or H of 0: empty outputs, or (I = 0) a cell without input; nothing divides by zero."""
    args = _inputs(_rng("empty", b, i, h), b, i, h)
    out = gru_block_cell(*args, scope=scope)
    ref = gru_forward(*args)
    for name in FORWARD_FIELDS:
        _assert_close(name, getattr(out, name), ref[name], rtol=1e-5, atol=1e-5, dtype="float32")
    d_h = np.ones((b, h), np.float32)
    g = gru_block_cell_grad(*args, out.r, out.u, out.c, d_h, scope=scope)
    gref = gru_grad(args[0], args[1], args[2], args[3], out.r, out.u, out.c, d_h)
    for name in GRAD_FIELDS:
        _assert_close(name, getattr(g, name), gref[name], rtol=1e-5, atol=1e-5, dtype="float32")
    weights = _weight_grads_of(args[0], args[1], out.r, g)
    for name in WEIGHT_FIELDS:
        _assert_close(name, weights[name], gref[name], rtol=1e-5, atol=1e-5, dtype="float32")


def _torch_gru_block_cell(torch, x, h_prev, w_ru, w_c, b_ru, b_c):
    """GRUBlockCell written with PyTorch tensor ops (reset before the product, as TensorFlow's
    cell): autograd then gives an independent gradient for every input and pre-activation."""
    hidden = h_prev.shape[1]
    ru_bar = torch.cat([x, h_prev], 1) @ w_ru + b_ru
    ru_bar.retain_grad()
    ru = torch.sigmoid(ru_bar)
    r, u = ru[:, :hidden], ru[:, hidden:]
    c_bar = torch.cat([x, r * h_prev], 1) @ w_c + b_c
    c_bar.retain_grad()
    c = torch.tanh(c_bar)
    return ru_bar, c_bar, r, u, c, u * h_prev + (1 - u) * c


@pytest.mark.parametrize(("b", "i", "h"), [(4, 3, 5), (1, 1, 1), (7, 9, 6)])
def test_forward_and_gradient_match_pytorch_autograd(scope, b, i, h):
    torch = pytest.importorskip("torch")
    args = _inputs(_rng("torch", b, i, h), b, i, h, "float64")
    d_h = _rng("torch d_h", b, i, h).standard_normal((b, h))
    leaves = [torch.tensor(a, requires_grad=True) for a in args]
    ru_bar, c_bar, r, u, c, out_h = _torch_gru_block_cell(torch, *leaves)
    out_h.backward(torch.tensor(d_h))
    f32 = [a.astype(np.float32) for a in args]
    fw = gru_block_cell(*f32, scope=scope)
    for name, want in (("r", r), ("u", u), ("c", c), ("h", out_h)):
        _assert_close(name, getattr(fw, name), want.detach().numpy(), rtol=1e-5, atol=1e-5, dtype="float32")
    g = gru_block_cell_grad(*f32, fw.r, fw.u, fw.c, d_h.astype(np.float32), scope=scope)
    expected = {"d_x": leaves[0].grad, "d_h_prev": leaves[1].grad, "d_c_bar": c_bar.grad,
                "d_r_bar_u_bar": ru_bar.grad}
    for name, want in expected.items():
        _assert_close(name, getattr(g, name), want.numpy(), rtol=1e-4, atol=2e-5, dtype="float32")
    weights = _weight_grads_of(f32[0], f32[1], fw.r, g)
    for name, leaf in zip(WEIGHT_FIELDS, leaves[2:], strict=True):
        _assert_close(name, weights[name], leaf.grad.numpy(), rtol=1e-4, atol=2e-5, dtype="float32")


def test_gpu_launch_sizes_give_the_same_results(scope, monkeypatch):
    """The specs' `by: backend` lets give a GPU many blocks: the same kernels under those launch
    sizes (the cpu backend posing as cuda) still cover every element exactly once."""
    b, i, h = 9, 5, 300  # 2700 cells: 3 blocks on the GPU sizes, 1 on the cpu sizes
    monkeypatch.setattr(scope.backend, "name", "cuda")
    args = _inputs(_rng("gpu sizes"), b, i, h)
    out = gru_block_cell(*args, scope=scope)
    ref = gru_forward(*args)
    for name in FORWARD_FIELDS:
        _assert_close(name, getattr(out, name), ref[name], rtol=1e-5, atol=1e-5, dtype="float32")
    d_h = _rng("gpu sizes d_h").standard_normal((b, h)).astype(np.float32)
    g = gru_block_cell_grad(*args, out.r, out.u, out.c, d_h, scope=scope)
    gref = gru_grad(args[0], args[1], args[2], args[3], out.r, out.u, out.c, d_h)
    for name in GRAD_FIELDS:
        _assert_close(name, getattr(g, name), gref[name], rtol=1e-4, atol=2e-5, dtype="float32")


def test_class_api(scope):
    """create() with the scope first, output accessors, and output_tuple()."""
    args = _inputs(_rng("class"), 2, 3, 4)
    op = GRUBlockCell.create(scope, *args)
    ref = gru_forward(*args)
    for name in FORWARD_FIELDS:
        _assert_close(name, getattr(op, name), ref[name], rtol=1e-5, atol=1e-5, dtype="float32")
    d_h = np.ones((2, 4), np.float32)
    g = GRUBlockCellGrad.create(scope, *args, op.r, op.u, op.c, d_h)
    assert g.output_tuple()._fields == GRAD_FIELDS
    gref = gru_grad(args[0], args[1], args[2], args[3], op.r, op.u, op.c, d_h)
    for name in GRAD_FIELDS:
        _assert_close(name, getattr(g, name), gref[name], rtol=1e-5, atol=1e-5, dtype="float32")


def test_gate_functions_are_accurate(scope):
    """σ and tanh as the kernels compute them (tanh from one expf, a Taylor series near 0) are
    within a few float32 ulp of the float64 functions, over ±12, tiny values, ±inf and NaN.
    With I = H = 1, x = v, h_prev = 0, w_ru = [[1, 1], [0, 0]], w_c = [[1], [0]] and zero biases,
    r = u = σ(v) and c = tanh(v) row by row (the products are exact)."""
    tiny = np.geomspace(1e-30, 1.0, 2001)
    v = np.concatenate([np.linspace(-12.0, 12.0, 24001), tiny, -tiny,
                        [0.0, 0.2499999, 0.25, 0.2500001, 30.0, -30.0, 100.0, -100.0, np.inf, -np.inf]])
    v = v.astype(np.float32)
    n = v.size
    f32 = np.float32
    out = gru_block_cell(v[:, None], np.zeros((n, 1), f32), np.array([[1, 1], [0, 0]], f32),
                         np.array([[1], [0]], f32), np.zeros(2, f32), np.zeros(1, f32), scope=scope)
    v64 = v.astype(np.float64)
    with np.errstate(over="ignore"):
        expected = {"c": np.tanh(v64), "r": 1.0 / (1.0 + np.exp(-v64)), "u": 1.0 / (1.0 + np.exp(-v64))}
    for name, ulps in (("c", 4), ("r", 3), ("u", 3)):
        actual = _f64(getattr(out, name)[:, 0])
        ulp = np.spacing(np.abs(expected[name]).astype(np.float32)).astype(np.float64)
        err = np.abs(actual - expected[name]) / ulp
        err[expected[name] < 1e-37] = 0.0  # σ(−100) = 3.7e-44 underflows to 0 in float32: fine
        worst = int(np.argmax(err))
        assert err[worst] <= ulps, f"{name}({v[worst]}) = {actual[worst]}, expected {expected[name][worst]}"
    nan = gru_block_cell(np.full((1, 1), np.nan, f32), np.zeros((1, 1), f32), np.array([[1, 1], [0, 0]], f32),
                         np.array([[1], [0]], f32), np.zeros(2, f32), np.zeros(1, f32), scope=scope)
    assert all(np.isnan(getattr(nan, name)).all() for name in FORWARD_FIELDS), "NaN must propagate"


def test_saturated_gates_stay_finite(scope):
    """Pre-activations of ±60 (σ and tanh saturate; e^60 overflows nothing in float): finite."""
    b, i, h = 3, 2, 5
    x = np.full((b, i), 20.0, np.float32) * np.array([1, -1], np.float32)
    h_prev = np.ones((b, h), np.float32)
    w_ru = np.full((i + h, 2 * h), 3.0, np.float32)
    w_c = -np.full((i + h, h), 3.0, np.float32)
    b_ru, b_c = np.full(2 * h, 60.0, np.float32), np.full(h, -60.0, np.float32)
    out = gru_block_cell(x, h_prev, w_ru, w_c, b_ru, b_c, scope=scope)
    ref = gru_forward(x, h_prev, w_ru, w_c, b_ru, b_c)
    for name in FORWARD_FIELDS:
        _assert_close(name, getattr(out, name), ref[name], rtol=1e-6, atol=1e-6, dtype="float32")
    g = gru_block_cell_grad(x, h_prev, w_ru, w_c, b_ru, b_c, out.r, out.u, out.c, np.ones((b, h), np.float32),
                            scope=scope)
    for name in GRAD_FIELDS:
        assert np.isfinite(getattr(g, name)).all(), name


# ---------------------------------------------------------------------------------------------
# The gradient against central differences of the reference forward (float64)
# ---------------------------------------------------------------------------------------------
def _central_differences(loss, params: dict[str, np.ndarray], step: float = 1e-6) -> dict[str, np.ndarray]:
    """∂loss/∂p for every element of every float64 array in `params` (perturbed in place)."""
    grads = {}
    for name, p in params.items():
        g = np.empty_like(p)
        flat, gflat = p.reshape(-1), g.reshape(-1)
        for k in range(flat.size):
            keep = flat[k]
            flat[k] = keep + step
            up = loss()
            flat[k] = keep - step
            down = loss()
            flat[k] = keep
            gflat[k] = (up - down) / (2 * step)
        grads[name] = g
    return grads


@pytest.mark.parametrize(("b", "i", "h"), [(1, 1, 1), (3, 5, 7), (2, 4, 8)])
def test_gradient_matches_finite_differences(scope, b, i, h):
    """loss = Σ(w∘h): d_h = w; the op's gradients and the helper's weight gradients against
    central differences of the float64 reference forward at the same (float32) inputs."""
    rng = _rng("fd", b, i, h)
    x, h_prev, w_ru, w_c, b_ru, b_c = _inputs(rng, b, i, h)
    w = rng.normal(0.0, 1.0, (b, h)).astype(np.float32)
    fw = gru_block_cell(x, h_prev, w_ru, w_c, b_ru, b_c, scope=scope)
    g = gru_block_cell_grad(x, h_prev, w_ru, w_c, b_ru, b_c, fw.r, fw.u, fw.c, w, scope=scope)
    got = {"x": g.d_x, "h_prev": g.d_h_prev}
    got.update(zip(("w_ru", "w_c", "b_ru", "b_c"), gru_block_cell_weight_grads(x, h_prev, fw.r, g.d_r_bar_u_bar,
                                                                                g.d_c_bar), strict=True))

    params = {name: _f64(a) for name, a in (("x", x), ("h_prev", h_prev), ("w_ru", w_ru), ("w_c", w_c),
                                            ("b_ru", b_ru), ("b_c", b_c))}
    w64 = _f64(w)

    def loss() -> float:
        p = params
        return float((w64 * gru_forward(p["x"], p["h_prev"], p["w_ru"], p["w_c"], p["b_ru"], p["b_c"])["h"]).sum())

    fd = _central_differences(loss, params)
    for name, expected in fd.items():
        _assert_close(f"d_{name}", got[name], expected, rtol=1e-4, atol=1e-5, dtype="float32")


def test_unrolled_gru_backprop_through_time(scope):
    """A 10-step GRU run step by step with the ops; backpropagation through time with the grad op
    (d_h of step t = the loss's weight at t + d_h_prev of step t+1) and the helper (weight
    gradients summed over steps) matches central differences of the float64 reference sequence
    loss Σ_t Σ(w_t∘h_t) for every x_t, h_0 and every weight and bias."""
    steps, b, i, h = 10, 3, 4, 5
    rng = _rng("bptt")
    _x, h0, w_ru, w_c, b_ru, b_c = _inputs(rng, b, i, h)
    xs = rng.normal(0.0, 1.0, (steps, b, i)).astype(np.float32)
    loss_w = rng.normal(0.0, 1.0, (steps, b, h)).astype(np.float32)

    hs, cache = [h0], []
    for t in range(steps):
        fw = gru_block_cell(xs[t], hs[-1], w_ru, w_c, b_ru, b_c, scope=scope)
        cache.append(fw)
        hs.append(fw.h)
    d_xs = np.empty_like(xs)
    d_weights = [np.zeros_like(a, dtype=np.float64) for a in (w_ru, w_c, b_ru, b_c)]
    d_h = np.zeros((b, h), np.float32)
    for t in reversed(range(steps)):
        fw = cache[t]
        d_h = (d_h + loss_w[t]).astype(np.float32)
        g = gru_block_cell_grad(xs[t], hs[t], w_ru, w_c, b_ru, b_c, fw.r, fw.u, fw.c, d_h, scope=scope)
        for acc, part in zip(d_weights, gru_block_cell_weight_grads(xs[t], hs[t], fw.r, g.d_r_bar_u_bar, g.d_c_bar),
                             strict=True):
            acc += part
        d_xs[t] = g.d_x
        d_h = g.d_h_prev
    got = {"xs": d_xs, "h0": d_h, **dict(zip(("w_ru", "w_c", "b_ru", "b_c"), d_weights, strict=True))}

    params = {name: _f64(a) for name, a in (("xs", xs), ("h0", h0), ("w_ru", w_ru), ("w_c", w_c), ("b_ru", b_ru),
                                            ("b_c", b_c))}

    def loss() -> float:
        p = params
        return gru_sequence_loss(p["xs"], p["h0"], p["w_ru"], p["w_c"], p["b_ru"], p["b_c"], loss_w)

    fd = _central_differences(loss, params)
    for name, expected in fd.items():
        actual = np.asarray(got[name])
        _assert_close(f"d_{name}", actual, expected, rtol=1e-4, atol=2e-5, dtype=actual.dtype)
    # and the forward sequence itself
    h_ref = _f64(h0)
    for t in range(steps):
        h_ref = gru_forward(xs[t], h_ref, w_ru, w_c, b_ru, b_c)["h"]
        _assert_close(f"h_{t + 1}", hs[t + 1], h_ref, rtol=1e-5, atol=1e-5, dtype="float32")


# ---------------------------------------------------------------------------------------------
# Thread and block order
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("opgen_random_order", [1, 2], indirect=True)
def test_random_thread_and_block_order(scope, opgen_random_order):
    """The elementwise kernels have no dependencies between threads: any order gives the same."""
    b, i, h = 700, 6, 100  # 70000 cells: 2 blocks, runs of 4
    rng = _rng("order", opgen_random_order)
    args = _inputs(rng, b, i, h)
    out = gru_block_cell(*args, scope=scope)
    ref = gru_forward(*args)
    for name in FORWARD_FIELDS:
        _assert_close(name, getattr(out, name), ref[name], rtol=1e-5, atol=1e-5, dtype="float32")
    d_h = rng.normal(0.0, 1.0, (b, h)).astype(np.float32)
    g = gru_block_cell_grad(*args, out.r, out.u, out.c, d_h, scope=scope)
    gref = gru_grad(args[0], args[1], args[2], args[3], out.r, out.u, out.c, d_h)
    for name in GRAD_FIELDS:
        _assert_close(name, getattr(g, name), gref[name], rtol=1e-5, atol=1e-5, dtype="float32")


# ---------------------------------------------------------------------------------------------
# The weight-gradient helper
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_weight_grads_helper_matches_reference(dtype):
    b, i, h = 4, 3, 5
    rng = _rng("helper", dtype)
    x, h_prev, w_ru, w_c, b_ru, b_c = _inputs(rng, b, i, h, dtype)
    ref_fw = gru_forward(x, h_prev, w_ru, w_c, b_ru, b_c)
    r, u, c = (ref_fw[k].astype(dtype) for k in ("r", "u", "c"))
    d_h = rng.normal(0.0, 1.0, (b, h)).astype(dtype)
    ref = gru_grad(x, h_prev, w_ru, w_c, r, u, c, d_h)  # weight gradients written block by block
    got = gru_block_cell_weight_grads(x, h_prev, r, ref["d_r_bar_u_bar"].astype(dtype), ref["d_c_bar"].astype(dtype))
    expected = ref  # float16: d_r_bar_u_bar and d_c_bar rounded to float16 on the way in, within rtol
    rtol = {"float64": 1e-12, "float32": 1e-5, "float16": 1e-2}[dtype]
    for name, value in zip(WEIGHT_FIELDS, got, strict=True):
        assert isinstance(value, np.ndarray)
        _assert_close(name, value, expected[name], rtol=rtol, atol=rtol, dtype=dtype)
    shapes = [a.shape for a in got]
    assert shapes == [(i + h, 2 * h), (i + h, h), (2 * h,), (h,)]


def test_weight_grads_helper_uses_the_arrays_module(monkeypatch):
    """CuPy arrays are handled by CuPy (get_array_module); NumPy arrays when CuPy is missing."""
    calls = []

    class FakeCupy:
        @staticmethod
        def get_array_module(*arrays):
            calls.append(len(arrays))
            return np

    monkeypatch.setitem(sys.modules, "cupy", FakeCupy)
    assert gru_helpers._array_module(np.zeros(1)) is np
    assert calls == [1]
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    assert gru_helpers._array_module(np.zeros(1)) is np


def test_weight_grads_helper_on_cupy():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    except Exception as exc:  # noqa: BLE001 -- any driver failure means: no usable GPU
        pytest.skip(f"no usable CUDA driver: {exc}")
    b, i, h = 4, 3, 5
    rng = _rng("cupy")
    x, h_prev, *_ = _inputs(rng, b, i, h)
    r = rng.uniform(0, 1, (b, h)).astype(np.float32)
    d_rbu = rng.normal(0, 1, (b, 2 * h)).astype(np.float32)
    d_c = rng.normal(0, 1, (b, h)).astype(np.float32)
    on_gpu = gru_block_cell_weight_grads(*(cupy.asarray(a) for a in (x, h_prev, r, d_rbu, d_c)))
    on_cpu = gru_block_cell_weight_grads(x, h_prev, r, d_rbu, d_c)
    for name, g, c in zip(WEIGHT_FIELDS, on_gpu, on_cpu, strict=True):
        assert isinstance(g, cupy.ndarray), name
        np.testing.assert_allclose(cupy.asnumpy(g), c, rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize(("arg", "shape"), [("x", (4,)), ("h_prev", (3, 5)), ("r", (4, 6)),
                                            ("d_r_bar_u_bar", (4, 5)), ("d_c_bar", (4, 10))])
def test_weight_grads_helper_rejects_bad_shapes(arg, shape):
    b, i, h = 4, 3, 5
    kwargs = {"x": np.zeros((b, i), np.float32), "h_prev": np.zeros((b, h), np.float32),
              "r": np.zeros((b, h), np.float32), "d_r_bar_u_bar": np.zeros((b, 2 * h), np.float32),
              "d_c_bar": np.zeros((b, h), np.float32)}
    kwargs[arg] = np.zeros(shape, np.float32)
    with pytest.raises(ValueError) as ei:
        gru_block_cell_weight_grads(**kwargs)
    assert_message(ei, "gru_block_cell_weight_grads", arg, shape_texts(shape))


def test_weight_grads_helper_rejects_mixed_dtypes():
    b, i, h = 2, 3, 4
    args = [np.zeros(s, np.float32) for s in ((b, i), (b, h), (b, h), (b, 2 * h), (b, h))]
    args[4] = args[4].astype(np.float16)
    with pytest.raises(TypeError) as ei:
        gru_block_cell_weight_grads(*args)
    assert_message(ei, "gru_block_cell_weight_grads", "d_c_bar", "float16")


# ---------------------------------------------------------------------------------------------
# Bad input: raised before any kernel, naming the op, the argument and the offending value
# ---------------------------------------------------------------------------------------------
B_, I_, H_ = 2, 3, 4
FWD_NAMES = ("x", "h_prev", "w_ru", "w_c", "b_ru", "b_c")
GRAD_NAMES = (*FWD_NAMES, "r", "u", "c", "d_h")
# one wrong shape per argument (B=2, I=3, H=4); x, the first, binds B and I, so a wrong rank
BAD_SHAPES = {
    "x": (B_, I_, 1),
    "h_prev": (B_ + 1, H_),
    "w_ru": (I_ + H_, H_),
    "w_c": (I_ + H_ + 1, H_),
    "b_ru": (H_,),
    "b_c": (H_, 1),
    "r": (B_, H_ + 1),
    "u": (H_, B_),
    "c": (B_ * H_,),
    "d_h": (B_ + 1, H_),
}


def _good_args(names, dtype="float32"):
    x, h_prev, w_ru, w_c, b_ru, b_c = _inputs(_rng("bad"), B_, I_, H_, dtype)
    gates = np.full((B_, H_), 0.5, dtype)
    values = {"x": x, "h_prev": h_prev, "w_ru": w_ru, "w_c": w_c, "b_ru": b_ru, "b_c": b_c,
              "r": gates, "u": gates, "c": gates, "d_h": gates}
    return {n: values[n] for n in names}


def _call(op_name, kwargs, scope):
    if op_name == FWD:
        return gru_block_cell(*kwargs.values(), scope=scope)
    return gru_block_cell_grad(*kwargs.values(), scope=scope)


@pytest.mark.parametrize(("op_name", "names", "arg"),
                         [pytest.param(FWD, FWD_NAMES, a, id=f"{FWD}-{a}") for a in FWD_NAMES]
                         + [pytest.param(GRAD, GRAD_NAMES, a, id=f"{GRAD}-{a}") for a in GRAD_NAMES])
def test_rejects_wrong_shape(scope, op_name, names, arg):
    kwargs = _good_args(names)
    kwargs[arg] = np.zeros(BAD_SHAPES[arg], np.float32)
    with pytest.raises(ValueError) as ei:
        _call(op_name, kwargs, scope)
    assert_message(ei, op_name, arg, shape_texts(BAD_SHAPES[arg]))


def test_shape_error_shows_the_values_of_expression_dims(scope):
    kwargs = _good_args(FWD_NAMES)
    kwargs["w_ru"] = np.zeros((I_ + H_ - 1, 2 * H_), np.float32)
    with pytest.raises(ValueError) as ei:
        _call(FWD, kwargs, scope)
    assert (f"expected shape [input_size + cell_size = {I_ + H_}, 2*cell_size = {2 * H_}], "
            f"got [{I_ + H_ - 1}, {2 * H_}]") in str(ei.value)


@pytest.mark.parametrize(("op_name", "names", "arg", "dtype"),
                         [pytest.param(FWD, FWD_NAMES, a, d, id=f"{FWD}-{a}-{d}")
                          for a, d in (("x", "float64"), ("x", "int32"), ("h_prev", "float16"), ("w_ru", "float64"),
                                       ("w_c", "float16"), ("b_ru", "float64"), ("b_c", "float16"))]
                         + [pytest.param(GRAD, GRAD_NAMES, a, d, id=f"{GRAD}-{a}-{d}")
                            for a, d in (("x", "float64"), ("w_c", "float16"), ("r", "float16"), ("u", "float64"),
                                         ("c", "int32"), ("d_h", "float16"))])
def test_rejects_wrong_dtype(scope, op_name, names, arg, dtype):
    kwargs = _good_args(names)
    kwargs[arg] = kwargs[arg].astype(dtype)
    with pytest.raises(TypeError) as ei:
        _call(op_name, kwargs, scope)
    assert_message(ei, op_name, arg, dtype)


def test_rejects_non_array(scope):
    kwargs = _good_args(FWD_NAMES)
    kwargs["w_c"] = [[1.0, 2.0]]
    with pytest.raises(TypeError) as ei:
        _call(FWD, kwargs, scope)
    assert_message(ei, FWD, "w_c", "list")


def test_float16_binds_the_type_variable(scope):
    """All-float16 calls are accepted; a float32 argument among them is named with both dtypes."""
    kwargs = _good_args(GRAD_NAMES, "float16")
    g = _call(GRAD, kwargs, scope)
    assert all(np.asarray(a).dtype == np.float16 for a in g)
    kwargs["d_h"] = kwargs["d_h"].astype(np.float32)
    with pytest.raises(TypeError) as ei:
        _call(GRAD, kwargs, scope)
    assert_message(ei, GRAD, "d_h", "float32")
    assert "float16" in str(ei.value)


# ---------------------------------------------------------------------------------------------
# The reference pages
# ---------------------------------------------------------------------------------------------
def _page(snake: str) -> str:
    return (PROJECT / "generated" / "docs" / "rnn" / f"{snake}.md").read_text(encoding="utf-8")


def test_grad_page_states_deprecation_and_corrected_formulas():
    page = _page("gru_block_cell_grad")
    assert re.search(r"deprecated", page, re.IGNORECASE) and "TensorFlow" in page
    for formula in (
        "d_c_bar = d_h∘(1 − u)∘(1 − c∘c)",
        "d_u_bar = d_h∘(h_prev − c)∘u∘(1 − u)",
        "[d_x2 | d_hr] = d_c_bar·w_cᵀ",
        "d_r_bar = d_hr∘h_prev∘r∘(1 − r)",
        "[d_x1 | d_h1] = d_r_bar_u_bar·w_ruᵀ",
        "d_x = d_x1 + d_x2",
        "d_h_prev = d_h1 + d_hr∘r + d_h∘u",
        "d_w_ru = [x | h_prev]ᵀ·d_r_bar_u_bar",
        "d_w_c = [x | r∘h_prev]ᵀ·d_c_bar",
        "d_b_ru = Σ_batch d_r_bar_u_bar",
        "d_b_c = Σ_batch d_c_bar",
        "d_x1 = d_r_bar·w_r_xᵀ + d_u_bar·w_u_xᵀ",
        "d_h1 = d_r_bar·w_r_h_prevᵀ + d_u_bar·w_u_h_prevᵀ",
    ):
        assert formula in page, f"{formula!r} missing from the GRUBlockCellGrad page"
    # the public doc's mistakes are named
    for mistake in ("w_u_x (the page says w_r_x)", "w_u_h_prev (the page says w_r_h_prev)",
                    "+ d_h∘u\n(the page says + u)", "h_prev (the page says h)", "swapped"):
        assert mistake.replace("\n", " ") in page.replace("\n", " "), f"{mistake!r} missing"
    assert "Gradient of: [GRUBlockCell](gru_block_cell.md)" in page


@pytest.mark.filterwarnings("default")
@pytest.mark.parametrize("fn", [gru_block_cell, gru_block_cell_grad], ids=["GRUBlockCell", "GRUBlockCellGrad"])
def test_calls_warn_that_tensorflow_deprecated_the_op(fn):
    batch, inp, cell = 2, 3, 4
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, inp)).astype(np.float32)
    h_prev = rng.standard_normal((batch, cell)).astype(np.float32)
    w_ru = rng.standard_normal((inp + cell, 2 * cell)).astype(np.float32)
    w_c = rng.standard_normal((inp + cell, cell)).astype(np.float32)
    b_ru, b_c = np.zeros(2 * cell, np.float32), np.zeros(cell, np.float32)
    args = [x, h_prev, w_ru, w_c, b_ru, b_c]
    if fn is gru_block_cell_grad:
        args += [np.full((batch, cell), 0.5, np.float32)] * 4  # r, u, c, d_h
    with pytest.warns(DeprecationWarning, match=r"is deprecated: TensorFlow has deprecated GRUBlockCell"):
        fn(*args, scope=Scope("cpu"))


def test_forward_page_states_deprecation_and_formulas():
    page = _page("gru_block_cell")
    assert re.search(r"deprecated", page, re.IGNORECASE)
    for formula in ("[r_bar | u_bar] = [x | h_prev]·w_ru + b_ru", "c_bar = [x | r∘h_prev]·w_c + b_c",
                    "h = u∘h_prev + (1 − u)∘c"):
        assert formula in page, formula
    assert "Gradient op: [GRUBlockCellGrad](gru_block_cell_grad.md)" in page
