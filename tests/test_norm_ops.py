"""LayerNorm, LayerNormGrad, Softmax and SoftmaxGrad (group norm, issue 15) on the cpu backend:
against the float64 references of tests/reference/norm.py and against PyTorch (F.layer_norm,
torch.softmax, autograd), with outputs poisoned (an element no kernel writes is NaN), under both
launch plans (Scope("cpu", launch_plan="cuda") runs the GPU's launch sizes) and with the building
blocks in their GPU form on the emulator (Scope("cpu", kernel_form="gpu"), OPGEN_GPU_FORM: warp
shuffles, Welford merges, strided rows), float16/bfloat16/float32, D = 1 to 65536, empty tensors and
odd shapes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from reference import norm as ref

from generated import Scope, layer_norm, layer_norm_grad, softmax, softmax_grad

ml_dtypes = pytest.importorskip("ml_dtypes")

DTYPES = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
# (rtol, atol relative to the output's scale): 16-bit outputs are rounded once at the end
TOL = {"float32": (2e-5, 2e-6), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}
PLANS = ["cpu", "cuda", "gpu-form"]


@pytest.fixture(autouse=True)
def poison(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")


@pytest.fixture
def scope(request: pytest.FixtureRequest) -> Iterator[Scope]:
    """The cpu backend under plan request.param: "cpu", "cuda" (the GPU's launch sizes), or
    "gpu-form" (the GPU's sizes, and _common.cuh's building blocks in their GPU form)."""
    plan = request.param
    if plan == "gpu-form":
        yield Scope("cpu", launch_plan="cuda", kernel_form="gpu")
    else:
        yield Scope("cpu", launch_plan=plan)


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, loc: float = 0.0) -> np.ndarray:
    return (rng.standard_normal(shape) * 2 + loc).astype(DTYPES[dtype])


def _close(got: np.ndarray, want: np.ndarray, dtype: str, what: str) -> None:
    rtol, atol = TOL[dtype]
    got64 = np.asarray(got).astype(np.float64)
    finite = want[np.isfinite(want)]
    scale = max(1.0, float(np.abs(finite).max())) if finite.size else 1.0
    np.testing.assert_allclose(got64, want, rtol=rtol, atol=atol * scale, err_msg=what)


LN_SHAPES = [(5, 33), (2, 3, 17), (7, 1), (64,), (3, 1000), (2, 65536), (0, 8), (3, 0), (1, 1), (2, 1, 3, 130)]


@pytest.mark.parametrize("scope", PLANS, indirect=True)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("shape", LN_SHAPES, ids=str)
def test_layer_norm_against_the_reference(scope: Scope, dtype: str, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng([len(shape), *shape])
    d = shape[-1]
    x = _data(rng, shape, dtype, loc=3.0)  # a mean away from 0: the variance must not cancel
    gamma, beta = _data(rng, (d,), dtype), _data(rng, (d,), dtype)
    for g, b in [(gamma, beta), (None, None), (gamma, None), (None, beta)]:
        out = layer_norm(x, g, b, epsilon=1e-3, scope=scope)
        y, mean, rstd = ref.layer_norm(x, g, b, 1e-3)
        assert out.y.dtype == x.dtype and out.mean.dtype == out.rstd.dtype == np.float32
        assert out.y.shape == shape and out.mean.shape == out.rstd.shape == shape[:-1]
        _close(out.y, y, dtype, f"y gamma={g is not None} beta={b is not None}")
        np.testing.assert_allclose(out.mean, mean, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(out.rstd, rstd, rtol=1e-4)


@pytest.mark.parametrize("scope", PLANS, indirect=True)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("shape", LN_SHAPES, ids=str)
def test_layer_norm_grad_against_the_reference(scope: Scope, dtype: str, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng([7, len(shape), *shape])
    d = shape[-1]
    x, dy, gamma = _data(rng, shape, dtype, loc=1.0), _data(rng, shape, dtype), _data(rng, (d,), dtype)
    fwd = layer_norm(x, epsilon=1e-5, scope=scope)
    for g in (gamma, None):
        out = layer_norm_grad(dy, x, fwd.mean, fwd.rstd, g, scope=scope)
        dx, dgamma, dbeta = ref.layer_norm_grad(dy, x, fwd.mean, fwd.rstd, g)
        assert out.dx.dtype == out.dgamma.dtype == out.dbeta.dtype == x.dtype
        assert out.dx.shape == shape and out.dgamma.shape == out.dbeta.shape == (d,)
        _close(out.dx, dx, dtype, f"dx gamma={g is not None}")
        _close(out.dgamma, dgamma, dtype, "dgamma")
        _close(out.dbeta, dbeta, dtype, "dbeta")


def test_the_layer_norm_grad_reference_is_the_forward_references_derivative() -> None:
    rng = np.random.default_rng(1)
    x, gamma, dy = rng.standard_normal((3, 6)), rng.standard_normal(6), rng.standard_normal((3, 6))
    _, mean, rstd = ref.layer_norm(x, gamma, None, 0.1)
    dx, dgamma, _ = ref.layer_norm_grad(dy, x, mean, rstd, gamma)
    h = 1e-6
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        plus, minus = ref.layer_norm(x + e, gamma, None, 0.1)[0], ref.layer_norm(x - e, gamma, None, 0.1)[0]
        np.testing.assert_allclose(((plus - minus) * dy).sum() / (2 * h), dx[i], rtol=1e-6, atol=1e-8)
    for j in range(6):
        e = np.zeros(6)
        e[j] = h
        plus, minus = ref.layer_norm(x, gamma + e, None, 0.1)[0], ref.layer_norm(x, gamma - e, None, 0.1)[0]
        np.testing.assert_allclose(((plus - minus) * dy).sum() / (2 * h), dgamma[j], rtol=1e-6)


# (2, 65536): the GPU form's two-read Softmax (a row beyond its register cache), the others its cached path
SM_CASES = [((4, 33), -1), ((4, 33), 0), ((2, 5, 3), 1), ((2, 5, 3), -3), ((3, 4, 1), 2), ((1000,), 0),
            ((3, 4100), 1), ((2, 65536), -1), ((2, 0, 3), 1), ((0, 5), -1), ((2, 3, 4, 5), 2), ((6, 1), -1),
            ((1, 7), 0)]


@pytest.mark.parametrize("scope", PLANS, indirect=True)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize(("shape", "axis"), SM_CASES, ids=str)
def test_softmax_and_its_gradient_against_the_reference(scope: Scope, dtype: str, shape: tuple[int, ...],
                                                        axis: int) -> None:
    rng = np.random.default_rng([len(shape), axis + 5, *shape])
    x, dy = _data(rng, shape, dtype, loc=10.0), _data(rng, shape, dtype)  # x ≫ 0: exp overflows without the max
    y = softmax(x, axis=axis, scope=scope).y
    assert y.dtype == x.dtype and y.shape == shape
    _close(y, ref.softmax(x, axis), dtype, "y")
    dx = softmax_grad(y, dy, axis=axis, scope=scope).dx
    assert dx.dtype == x.dtype and dx.shape == shape
    _close(dx, ref.softmax_grad(y, dy, axis), dtype, "dx")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_softmax_16bit_rows_kept_and_computed_again_agree(dtype: str) -> None:
    """The host form keeps a 16-bit row's first 4096 exponentials in float32 and computes the rest
    again: a row repeating with period 4096 gives the same bits on both sides of that seam."""
    period = np.random.default_rng(7).standard_normal(4096).astype(DTYPES[dtype])
    x = np.concatenate([period, period, period[:13]])[None].repeat(2, axis=0)
    y = softmax(x, scope="cpu").y.view(np.uint16)
    np.testing.assert_array_equal(y[:, :4096], y[:, 4096:8192])
    np.testing.assert_array_equal(y[:, :13], y[:, 8192:])


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_softmax_rows_on_either_exp_path_give_the_same_bits(dtype: str) -> None:
    """The host form takes vm::exp's shorter path for a row whose every x − max is at least −87
    (softmax.cu's host_row_max), the general one otherwise: the same rows with 16 -inf appended
    (each adds e^−inf = 0 to a partial sum, and sends the row down the general path) give the same
    bits in their first columns; a row reaching below −87 is still within the reference's tolerance."""
    rng = np.random.default_rng(34)
    rows = rng.uniform(-40, 40, (3, 256)).astype(DTYPES[dtype])
    padded = np.concatenate([rows, np.full((3, 16), -np.inf, rows.dtype)], axis=1)
    y, y_padded = softmax(rows, scope="cpu").y, softmax(padded, scope="cpu").y[:, :256]
    np.testing.assert_array_equal(y_padded.view(f"u{y.itemsize}"), y.view(f"u{y.itemsize}"))
    wide = np.linspace(-100, 0, 264, dtype=np.float32)[None].astype(DTYPES[dtype])
    _close(softmax(wide, scope="cpu").y, ref.softmax(wide, -1), dtype, "y")


def _special_rows(n: int) -> np.ndarray:
    """Rows as PyTorch treats them: finite, a -inf, a +inf, a NaN, all -inf, all +inf, -inf and +inf,
    and a first half of -inf (the GPU form's threads that see only -inf add nothing to the sum)."""
    rows = np.tile(np.linspace(-3, 3, n, dtype=np.float32), (8, 1))
    rows[1, 1] = -np.inf
    rows[2, n // 2] = np.inf
    rows[3, n - 1] = np.nan
    rows[4] = -np.inf
    rows[5] = np.inf
    rows[6, 0], rows[6, 1] = -np.inf, np.inf
    rows[7, : n // 2] = -np.inf
    return rows


@pytest.mark.parametrize("scope", PLANS, indirect=True)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("n", [2, 37, 300])
def test_softmax_of_infinities_and_nan_is_pytorchs(scope: Scope, dtype: str, n: int) -> None:
    torch = pytest.importorskip("torch")
    rows = _special_rows(n).astype(DTYPES[dtype])
    want = torch.softmax(torch.from_numpy(rows.astype(np.float32)), -1).numpy()
    for x, axis in [(rows, -1), (np.ascontiguousarray(rows.T), 0), (np.ascontiguousarray(rows.T)[None], 1)]:
        got = softmax(x, axis=axis, scope=scope).y.astype(np.float32)
        got_rows = np.moveaxis(got.reshape(x.shape), axis, -1).reshape(rows.shape)
        np.testing.assert_array_equal(np.isnan(got_rows), np.isnan(want), err_msg=f"axis {axis}")
        _close(got_rows, want.astype(np.float64), dtype, f"axis {axis}")
    assert np.isnan(want[4]).all() and want[1, 1] == 0  # PyTorch: all -inf is NaN, a -inf gives 0


@pytest.mark.parametrize("scope", PLANS, indirect=True)
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_rows_off_16_bytes_give_the_aligned_result(scope: Scope, dtype: str) -> None:
    """An offset view (every row's base one element past 16 bytes): the GPU form's scalar path of
    kernels/_rowvec.cuh, against the same values aligned."""
    rng = np.random.default_rng(35)
    shape = (3, 256)
    buf = _data(rng, (2 * shape[0] * shape[1] + 16,), dtype)
    start = (-buf.ctypes.data % 16) // buf.itemsize
    x = buf[start + 1:start + 1 + shape[0] * shape[1]].reshape(shape)
    dy = buf[start + 9 + x.size:start + 9 + 2 * x.size].reshape(shape)
    gamma = buf[start + 1:start + 1 + shape[1]]
    assert x.ctypes.data % 16 and dy.ctypes.data % 16 and gamma.ctypes.data % 16
    xa, dya, ga = x.copy(), dy.copy(), gamma.copy()
    for got, want in [(softmax(x, scope=scope).y, softmax(xa, scope=scope).y),
                      (softmax_grad(x, dy, scope=scope).dx, softmax_grad(xa, dya, scope=scope).dx),
                      (layer_norm(x, gamma, gamma, scope=scope).y, layer_norm(xa, ga, ga, scope=scope).y),
                      (layer_norm_grad(dy, x, np.zeros(3, np.float32), np.ones(3, np.float32), gamma,
                                       scope=scope).dx,
                       layer_norm_grad(dya, xa, np.zeros(3, np.float32), np.ones(3, np.float32), ga,
                                       scope=scope).dx)]:
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


# -- against PyTorch, and the torch ops' autograd ---------------------------------------------------
torch_only = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _torch() -> Any:
    torch = pytest.importorskip("torch")
    import generated.torch  # noqa: F401  (registers torch.ops.opgen.*)

    return torch


@torch_only
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_and_its_autograd_match_pytorch(dtype: str, affine: bool) -> None:
    torch = _torch()
    tdtype = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(3)
    x = (torch.randn(3, 5, 40, generator=gen) + 2).to(tdtype).requires_grad_()
    gamma = torch.randn(40, generator=gen).to(tdtype).requires_grad_() if affine else None
    beta = torch.randn(40, generator=gen).to(tdtype).requires_grad_() if affine else None
    dy = torch.randn(3, 5, 40, generator=gen).to(tdtype)
    y, mean, rstd = torch.ops.opgen.layer_norm(x, gamma, beta, epsilon=1e-4)
    inputs = [t for t in (x, gamma, beta) if t is not None]
    grads = torch.autograd.grad(y, inputs, dy)
    xf = x.detach().float().requires_grad_()
    gf = gamma.detach().float().requires_grad_() if affine else None
    bf = beta.detach().float().requires_grad_() if affine else None
    yf = torch.nn.functional.layer_norm(xf, (40,), gf, bf, 1e-4)
    want = torch.autograd.grad(yf, [t for t in (xf, gf, bf) if t is not None], dy.float())
    _, tmean, trstd = torch.native_layer_norm(xf.detach(), (40,), None, None, 1e-4)
    rtol, atol = TOL[dtype]
    torch.testing.assert_close(y.float(), yf.detach(), rtol=rtol, atol=atol * 4)
    torch.testing.assert_close(mean, tmean.squeeze(-1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(rstd, trstd.squeeze(-1), rtol=1e-5, atol=1e-5)
    for got, exp in zip(grads, want, strict=True):
        assert got.dtype == tdtype
        torch.testing.assert_close(got.float(), exp, rtol=rtol, atol=atol * max(1.0, float(exp.abs().max())))


@torch_only
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize(("shape", "axis"), [((4, 33), -1), ((2, 5, 3), 1), ((6, 2, 2), 0)])
def test_softmax_and_its_autograd_match_pytorch(dtype: str, shape: tuple[int, ...], axis: int) -> None:
    torch = _torch()
    tdtype = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(5)
    x = (torch.randn(*shape, generator=gen) * 3).to(tdtype).requires_grad_()
    dy = torch.randn(*shape, generator=gen).to(tdtype)
    y = torch.ops.opgen.softmax(x, axis=axis)
    (dx,) = torch.autograd.grad(y, [x], dy)
    xr = x.detach().float().requires_grad_()
    yr = torch.softmax(xr, axis)
    (dxr,) = torch.autograd.grad(yr, [xr], dy.float())
    rtol, atol = TOL[dtype]
    torch.testing.assert_close(y.float(), yr.detach(), rtol=rtol, atol=atol)
    assert dx.dtype == tdtype
    torch.testing.assert_close(dx.float(), dxr, rtol=rtol, atol=atol * max(1.0, float(dxr.abs().max())))


@torch_only
def test_float64_gradcheck_of_the_pytorch_ops_through_float32_kernels_is_close() -> None:
    """The backward is the gradient op: central differences of the forward agree (float32 kernels)."""
    torch = _torch()
    gen = torch.Generator().manual_seed(9)
    x = torch.randn(2, 7, generator=gen, requires_grad=True)
    gamma = torch.randn(7, generator=gen, requires_grad=True)
    dy = torch.randn(2, 7, generator=gen)
    y, _, _ = torch.ops.opgen.layer_norm(x, gamma, None)
    dx, dgamma = torch.autograd.grad(y, [x, gamma], dy)
    h = 1e-2
    x, gamma = x.detach(), gamma.detach()
    for t, g in ((x, dx), (gamma, dgamma)):
        for i in range(t.numel()):
            e = torch.zeros_like(t).view(-1)
            e[i] = h
            e = e.view(t.shape)
            args = (x + e, gamma) if t is x else (x, gamma + e)
            plus = torch.ops.opgen.layer_norm(*args, None)[0]
            args = (x - e, gamma) if t is x else (x, gamma - e)
            minus = torch.ops.opgen.layer_norm(*args, None)[0]
            fd = float(((plus - minus) * dy).sum()) / (2 * h)
            assert abs(fd - float(g.reshape(-1)[i])) < 2e-3 * max(1.0, abs(fd)), (t.shape, i, fd)


# -- errors ---------------------------------------------------------------------------------------
def test_errors_name_the_op_the_argument_and_the_values() -> None:
    x = np.zeros((2, 4), np.float32)
    with pytest.raises(ValueError, match=r"LayerNorm: .*epsilon.*0"):
        layer_norm(x, epsilon=0.0, scope="cpu")
    with pytest.raises(ValueError, match=r"LayerNorm: gamma: expected shape \[D=4\], got \[3\]"):
        layer_norm(x, np.ones(3, np.float32), scope="cpu")
    with pytest.raises(ValueError, match=r"Softmax: attr axis: expected a value in \[-2, 1\] for x of rank 2, got 2"):
        softmax(x, axis=2, scope="cpu")
    with pytest.raises(ValueError, match=r"SoftmaxGrad: dy: expected shape"):
        softmax_grad(x, np.zeros((2, 5), np.float32), scope="cpu")
    with pytest.raises(TypeError, match=r"LayerNormGrad: mean: expected dtype float32 \(S, as the accumulator of T\)"):
        layer_norm_grad(x, x, np.zeros(2, np.float16), np.zeros(2, np.float32), scope="cpu")
