"""Correctness tests for FusedBatchNormV3 and FusedBatchNormGradV3 (cpu emulation backend).

The ops are compared against an independent float64 NumPy reference (tests/reference/batch_norm.py),
against central differences of that reference (for the gradient), and against PyTorch where it
is installed. Every test asks the runtime to poison outputs with NaN before the kernels run, so
an output element that a kernel never writes fails the comparison (and the explicit NaN checks).
"""

from __future__ import annotations

import zlib
from collections import namedtuple

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from messages import assert_message, shape_texts
from reference.batch_norm import RANKS, bn_forward, bn_grad, channel_axis, to_rows

from generated import (
    FusedBatchNormGradV3,
    FusedBatchNormV3,
    Scope,
    fused_batch_norm_grad_v3,
    fused_batch_norm_v3,
)

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - optional
    ml_dtypes = None

FORWARD_FIELDS = ("y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2",
                  "reserve_space_3")
GRAD_FIELDS = ("x_backprop", "scale_backprop", "offset_backprop", "reserve_space_4", "reserve_space_5")

EPS = 1e-3  # epsilon of most tests; the defaults and other values have tests of their own

# ---------------------------------------------------------------------------------------------
# Tolerances.
#
# Outputs of type T (y, x_backprop) are rounded to T at the end, so their error is dominated by
# that last rounding: half an ulp is 2^-24 (float32), 2^-11 ≈ 4.9e-4 (float16) and 2^-8 ≈ 3.9e-3
# (bfloat16) relative to the value. The absolute tolerance is a factor times the magnitude of
# the tensor (max |expected|, at least 1), so that elements near zero (which are the difference
# of larger terms) are judged on the tensor's scale rather than on their own. float16 gets
# 5e-3·scale (≈ 10 ulp of the largest element: room for a few float32→half roundings of
# intermediates) and bfloat16 3e-2·scale (≈ 8 ulp); indexing or formula errors are O(scale).
#
# Outputs of type U (float32 statistics and gradient sums) are computed in float32 from inputs
# that are exactly representable whatever T is, so they get float32 tolerances for every T.
# The sums over m elements get an absolute tolerance relative to Σ|terms| per channel (the
# scale of float32 accumulation error), the means relative to max |x|.
# ---------------------------------------------------------------------------------------------
T_TOL = {  # (rtol, atol factor) for y / x_backprop
    "float32": (1e-4, 2e-5),
    "float16": (5e-3, 5e-3),
    "bfloat16": (3e-2, 3e-2),
}
U_RTOL, U_ATOL = 1e-4, 1e-5

BF16_SKIP = pytest.mark.skipif(ml_dtypes is None,
                               reason="numpy has no bfloat16 without the ml_dtypes package")
DTYPES = [
    pytest.param("float32", id="float32"),
    pytest.param("float16", id="float16"),
    pytest.param("bfloat16", id="bfloat16", marks=BF16_SKIP),
]
TRAINING = [pytest.param(True, id="training"), pytest.param(False, id="inference")]

# (N, spatial dims, C): odd sizes on purpose. m = elements per channel.
CASES_4D = [
    (2, (3, 4), 5),    # distinct dims, so a confused layout cannot pass; m = 24
    (1, (7, 9), 1),    # N = 1, C = 1, H·W = 63
    (3, (7, 9), 3),    # m = 189: under one 256-thread block, not a multiple of anything nice
    (2, (13, 11), 2),  # m = 286: just over one 256-thread block
    (4, (8, 8), 2),    # m = 256: exactly one block
    (2, (1, 1), 3),    # m = 2
    (1, (1, 1), 3),    # m = 1: Bessel divides by max(m − 1, 1) = 1, σ² = 0
    (3, (5, 7), 17),   # channels-first gradient, cpu plan: a block per channel (grad_channels), rows of 35
    (2, (6, 6), 16),   # its smallest C: rows of 36 = 2 runs of 16 and 4 more
]
CASES_5D = [
    (2, (3, 4, 5), 3),  # m = 120
    (1, (2, 7, 9), 1),  # m = 126, C = 1
    (2, (1, 2, 3), 4),  # m = 12
    (2, (2, 3, 3), 16),  # rows of 18 (channels-first: grad_channels)
]


def _layout_params():
    params = []
    for formats, cases in ((("NHWC", "NCHW"), CASES_4D), (("NDHWC", "NCDHW"), CASES_5D)):
        for fmt in formats:
            for n, spatial, c in cases:
                dims = "x".join(str(d) for d in spatial)
                params.append(pytest.param(fmt, n, spatial, c, id=f"{fmt}-N{n}-S{dims}-C{c}"))
    return params


LAYOUTS = _layout_params()


# ---------------------------------------------------------------------------------------------
# Fixtures and helpers
# ---------------------------------------------------------------------------------------------
pytestmark = pytest.mark.usefixtures("opgen_poison")  # (opgen's pytest plugin) an element no kernel writes is NaN


@pytest.fixture(params=["cpu launch sizes", "cuda launch sizes"])
def scope(request, monkeypatch):
    """The cpu backend under its own launch sizes and, posing as cuda, under the GPU's (the specs'
    `by: backend` lets): chunked elementwise passes and 32-thread reductions, then grid-stride
    passes, 256-thread blocks and many splits, so both kernel paths are checked here."""
    scope = Scope(device="cpu")
    if request.param == "cuda launch sizes":
        monkeypatch.setattr(scope.backend, "name", "cuda")
    return scope


def _np_dtype(name: str):
    if name == "bfloat16":
        if ml_dtypes is None:
            pytest.skip("numpy has no bfloat16 without the ml_dtypes package")
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def _rng(*key) -> np.random.Generator:
    """A generator seeded from the test's parameters: reproducible, different per case."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _shape(data_format: str, n: int, spatial: tuple[int, ...], c: int) -> tuple[int, ...]:
    assert len(spatial) == RANKS[data_format] - 2
    return (n, c, *spatial) if data_format.startswith("NC") else (n, *spatial, c)


def _reduce_axes(data_format: str) -> tuple[int, ...]:
    ax = channel_axis(data_format) % RANKS[data_format]
    return tuple(i for i in range(RANKS[data_format]) if i != ax)


def _f64(a) -> np.ndarray:
    return np.asarray(a).astype(np.float64)


def _f32(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).astype(np.float32)


def _mag(*arrays) -> float:
    """Scale of a tensor for absolute tolerances: max |value| over the arrays, at least 1."""
    m = 1.0
    for a in arrays:
        a = _f64(a)
        if a.size:
            m = max(m, float(np.abs(a).max()))
    return m


def _inputs(rng, data_format, n, spatial, c, dtype_name, *, x_mean=0.5, x_std=1.5):
    """x in T; scale (with both signs), offset, mean, variance (> 0) in float32."""
    dt = _np_dtype(dtype_name)
    x = rng.normal(x_mean, x_std, _shape(data_format, n, spatial, c)).astype(dt)
    scale = _f32(rng.uniform(0.5, 2.0, c) * rng.choice([-1.0, 1.0], c))
    offset = _f32(rng.normal(0.0, 1.0, c))
    mean = _f32(rng.normal(0.3, 0.5, c))
    variance = _f32(rng.uniform(0.5, 2.0, c))
    return x, scale, offset, mean, variance


def _assert_written(name: str, a) -> None:
    assert not np.isnan(_f64(a)).any(), f"{name}: NaN elements (an output element was never written?)"


def _assert_all_written(out) -> None:
    for name, value in zip(type(out)._fields, out, strict=True):
        _assert_written(name, value)


def _assert_close(name, actual, expected, *, rtol, atol, dtype=None) -> None:
    actual_arr = np.asarray(actual)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual_arr.shape == expected.shape, f"{name}: shape {actual_arr.shape}, expected {expected.shape}"
    if dtype is not None:
        assert actual_arr.dtype == np.dtype(dtype), f"{name}: dtype {actual_arr.dtype}, expected {dtype}"
    _assert_written(name, actual_arr)
    np.testing.assert_allclose(_f64(actual_arr), expected, rtol=rtol, atol=atol, err_msg=name)


def _check_forward(out, ref, x, dtype_name) -> None:
    """Compare every forward output with the reference (shapes, dtypes, values, all written)."""
    rtol, atol = T_TOL[dtype_name]
    _assert_close("y", out.y, ref["y"], rtol=rtol, atol=atol * _mag(ref["y"]), dtype=_np_dtype(dtype_name))
    for name in ("batch_mean", "reserve_space_1"):
        _assert_close(name, getattr(out, name), ref[name], rtol=U_RTOL,
                      atol=U_ATOL * _mag(x, ref[name]), dtype=np.float32)
    for name in ("batch_variance", "reserve_space_2"):
        _assert_close(name, getattr(out, name), ref[name], rtol=U_RTOL,
                      atol=U_ATOL * _mag(ref[name]), dtype=np.float32)
    rs3 = np.asarray(out.reserve_space_3)
    assert rs3.shape == (0,), f"reserve_space_3: shape {rs3.shape}, expected (0,)"
    assert rs3.dtype == np.float32
    _assert_all_written(out)


def _sum_scales(dy, x, rs1, rs2, epsilon, data_format) -> tuple[float, float]:
    """Σ|terms| of scale_backprop and offset_backprop (max over channels, at least 1)."""
    dy_rows, x_rows = to_rows(dy, data_format), to_rows(x, data_format)
    r = 1.0 / np.sqrt(_f64(rs2) + epsilon)
    s_terms = np.abs(dy_rows * (x_rows - _f64(rs1)) * r).sum(axis=0)
    o_terms = np.abs(dy_rows).sum(axis=0)
    return _mag(s_terms), _mag(o_terms)


def _check_grad(g, ref, *, dy, x, rs1, rs2, epsilon, data_format, dtype_name) -> None:
    """Compare every gradient output with `ref` (a bn_grad dict or finite differences)."""
    rtol, atol = T_TOL[dtype_name]
    _assert_close("x_backprop", g.x_backprop, ref["x_backprop"], rtol=rtol,
                  atol=atol * _mag(ref["x_backprop"]), dtype=_np_dtype(dtype_name))
    s_mag, o_mag = _sum_scales(dy, x, rs1, rs2, epsilon, data_format)
    _assert_close("scale_backprop", g.scale_backprop, ref["scale_backprop"], rtol=U_RTOL,
                  atol=U_ATOL * s_mag, dtype=np.float32)
    _assert_close("offset_backprop", g.offset_backprop, ref["offset_backprop"], rtol=U_RTOL,
                  atol=U_ATOL * o_mag, dtype=np.float32)
    for name in ("reserve_space_4", "reserve_space_5"):
        a = np.asarray(getattr(g, name))
        assert a.shape == (0,), f"{name}: shape {a.shape}, expected (0,)"
        assert a.dtype == np.float32
    _assert_all_written(g)


def _train_reserve_spaces(x, scale, offset, mean, variance, *, epsilon, data_format):
    """Batch mean and biased variance of x from the reference, rounded to float32 (grad inputs)."""
    fw = bn_forward(x, scale, offset, mean, variance, epsilon=epsilon, data_format=data_format,
                    is_training=True)
    return _f32(fw["reserve_space_1"]), _f32(fw["reserve_space_2"])


def _snapshot(*arrays):
    return [(np.asarray(a).shape, np.asarray(a).dtype, np.asarray(a).tobytes()) for a in arrays]


# ---------------------------------------------------------------------------------------------
# Forward and gradient against the reference, every layout × mode × dtype
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize(("data_format", "n", "spatial", "c"), LAYOUTS)
def test_forward_matches_reference(scope, data_format, n, spatial, c, is_training, dtype):
    rng = _rng("forward", data_format, n, spatial, c, is_training, dtype)
    x, scale, offset, mean, variance = _inputs(rng, data_format, n, spatial, c, dtype)
    before = _snapshot(x, scale, offset, mean, variance)
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=EPS, exponential_avg_factor=1.0,
                              data_format=data_format, is_training=is_training, scope=scope)
    ref = bn_forward(x, scale, offset, mean, variance, epsilon=EPS, exponential_avg_factor=1.0,
                     data_format=data_format, is_training=is_training)
    _check_forward(out, ref, x, dtype)
    assert _snapshot(x, scale, offset, mean, variance) == before, "the op modified its inputs"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize(("data_format", "n", "spatial", "c"), LAYOUTS)
def test_grad_matches_reference(scope, data_format, n, spatial, c, is_training, dtype):
    rng = _rng("grad", data_format, n, spatial, c, is_training, dtype)
    x, scale, offset, mean, variance = _inputs(rng, data_format, n, spatial, c, dtype)
    dy = rng.normal(0.0, 1.0, x.shape).astype(x.dtype)
    if is_training:
        rs1, rs2 = _train_reserve_spaces(x, scale, offset, mean, variance, epsilon=EPS,
                                         data_format=data_format)
    else:
        rs1, rs2 = mean, variance
    rs3 = np.zeros(0, np.float32)
    before = _snapshot(dy, x, scale, rs1, rs2, rs3)
    g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, rs3, epsilon=EPS, data_format=data_format,
                                 is_training=is_training, scope=scope)
    ref = bn_grad(dy, x, scale, rs1, rs2, epsilon=EPS, data_format=data_format, is_training=is_training)
    _check_grad(g, ref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=EPS, data_format=data_format,
                dtype_name=dtype)
    assert _snapshot(dy, x, scale, rs1, rs2, rs3) == before, "the op modified its inputs"


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_medium_case_forward_and_grad(scope, data_format, is_training, dtype):
    """N=4, C=5, H=W=33: 21780 elements, m = 4356 per channel (17 blocks of 256, not a multiple)."""
    n, spatial, c = 4, (33, 33), 5
    rng = _rng("medium", data_format, is_training, dtype)
    x, scale, offset, mean, variance = _inputs(rng, data_format, n, spatial, c, dtype)
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format,
                              is_training=is_training, scope=scope)
    ref = bn_forward(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format,
                     is_training=is_training)
    _check_forward(out, ref, x, dtype)

    dy = rng.normal(0.0, 1.0, x.shape).astype(x.dtype)
    rs1, rs2 = _f32(ref["reserve_space_1"]), _f32(ref["reserve_space_2"])
    g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, np.zeros(0, np.float32), epsilon=EPS,
                                 data_format=data_format, is_training=is_training, scope=scope)
    gref = bn_grad(dy, x, scale, rs1, rs2, epsilon=EPS, data_format=data_format, is_training=is_training)
    _check_grad(g, gref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=EPS, data_format=data_format,
                dtype_name=dtype)


@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize(("channels_last", "channels_first", "spatial"),
                         [("NHWC", "NCHW", (5, 7)), ("NDHWC", "NCDHW", (3, 4, 5))])
def test_data_formats_agree(scope, channels_last, channels_first, spatial, is_training):
    """The same data in N...C and NC... layouts gives the same (transposed) results."""
    rng = _rng("formats", channels_last, is_training)
    x, scale, offset, mean, variance = _inputs(rng, channels_last, 2, spatial, 3, "float32")
    dy = _f32(rng.normal(size=x.shape))
    to_first = (0, x.ndim - 1, *range(1, x.ndim - 1))
    to_last = (0, *range(2, x.ndim), 1)
    x_cf, dy_cf = np.ascontiguousarray(x.transpose(to_first)), np.ascontiguousarray(dy.transpose(to_first))

    kw = {"epsilon": EPS, "is_training": is_training, "scope": scope}
    a = fused_batch_norm_v3(x, scale, offset, mean, variance, data_format=channels_last, **kw)
    b = fused_batch_norm_v3(x_cf, scale, offset, mean, variance, data_format=channels_first, **kw)
    _assert_close("y", np.asarray(b.y).transpose(to_last), _f64(a.y), rtol=1e-4, atol=1e-5 * _mag(a.y))
    for name in FORWARD_FIELDS[1:5]:
        _assert_close(name, getattr(b, name), _f64(getattr(a, name)), rtol=1e-4, atol=1e-6 * _mag(x))

    ga = fused_batch_norm_grad_v3(dy, x, scale, a.reserve_space_1, a.reserve_space_2, a.reserve_space_3,
                                  data_format=channels_last, **kw)
    gb = fused_batch_norm_grad_v3(dy_cf, x_cf, scale, a.reserve_space_1, a.reserve_space_2,
                                  a.reserve_space_3, data_format=channels_first, **kw)
    _assert_close("x_backprop", np.asarray(gb.x_backprop).transpose(to_last), _f64(ga.x_backprop),
                  rtol=1e-4, atol=1e-5 * _mag(ga.x_backprop))
    s_mag, o_mag = _sum_scales(dy, x, a.reserve_space_1, a.reserve_space_2, EPS, channels_last)
    _assert_close("scale_backprop", gb.scale_backprop, _f64(ga.scale_backprop), rtol=1e-4, atol=1e-5 * s_mag)
    _assert_close("offset_backprop", gb.offset_backprop, _f64(ga.offset_backprop), rtol=1e-4, atol=1e-5 * o_mag)


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data_format=st.sampled_from(sorted(RANKS)), is_training=st.booleans(),
       n=st.integers(1, 3), c=st.integers(1, 6), dims=st.lists(st.integers(1, 6), min_size=3, max_size=3),
       seed=st.integers(0, 2**32 - 1))
def test_random_shapes_forward_and_grad(data_format, is_training, n, c, dims, seed):
    scope = Scope(device="cpu")
    spatial = tuple(dims[: RANKS[data_format] - 2])
    rng = np.random.default_rng(seed)
    x, scale, offset, mean, variance = _inputs(rng, data_format, n, spatial, c, "float32")
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format,
                              is_training=is_training, scope=scope)
    ref = bn_forward(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format,
                     is_training=is_training)
    _check_forward(out, ref, x, "float32")
    dy = _f32(rng.normal(size=x.shape))
    rs1, rs2 = _f32(ref["reserve_space_1"]), _f32(ref["reserve_space_2"])
    g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, np.zeros(0, np.float32), epsilon=EPS,
                                 data_format=data_format, is_training=is_training, scope=scope)
    gref = bn_grad(dy, x, scale, rs1, rs2, epsilon=EPS, data_format=data_format, is_training=is_training)
    _check_grad(g, gref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=EPS, data_format=data_format,
                dtype_name="float32")


# ---------------------------------------------------------------------------------------------
# Attributes: exponential_avg_factor, epsilon, defaults
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("factor", [0.0, 0.25, 0.9])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW", "NCDHW"])
def test_exponential_avg_factor_training(scope, data_format, factor):
    spatial = (3, 5) if RANKS[data_format] == 4 else (2, 3, 5)
    rng = _rng("avg", data_format, factor)
    x, scale, offset, mean, variance = _inputs(rng, data_format, 2, spatial, 4, "float32")
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=EPS, exponential_avg_factor=factor,
                              data_format=data_format, is_training=True, scope=scope)
    ref = bn_forward(x, scale, offset, mean, variance, epsilon=EPS, exponential_avg_factor=factor,
                     data_format=data_format, is_training=True)
    _check_forward(out, ref, x, "float32")
    # Independently of the reference: running averages of the batch statistics, while y and the
    # reserve spaces use the batch statistics themselves.
    axes = _reduce_axes(data_format)
    x64 = _f64(x)
    mu, var_b, var_u = x64.mean(axis=axes), x64.var(axis=axes), x64.var(axis=axes, ddof=1)
    tol = {"rtol": 1e-4, "atol": 1e-5 * _mag(x)}
    _assert_close("batch_mean", out.batch_mean, (1 - factor) * _f64(mean) + factor * mu, **tol)
    _assert_close("batch_variance", out.batch_variance, (1 - factor) * _f64(variance) + factor * var_u, **tol)
    _assert_close("reserve_space_1", out.reserve_space_1, mu, **tol)
    _assert_close("reserve_space_2", out.reserve_space_2, var_b, **tol)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_exponential_avg_factor_ignored_in_inference(scope, data_format):
    rng = _rng("avg-inference", data_format)
    x, scale, offset, mean, variance = _inputs(rng, data_format, 2, (3, 5), 4, "float32")
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=EPS, exponential_avg_factor=0.5,
                              data_format=data_format, is_training=False, scope=scope)
    ref = bn_forward(x, scale, offset, mean, variance, epsilon=EPS, exponential_avg_factor=0.5,
                     data_format=data_format, is_training=False)
    _check_forward(out, ref, x, "float32")
    np.testing.assert_array_equal(out.batch_mean, mean)
    np.testing.assert_array_equal(out.batch_variance, variance)
    np.testing.assert_array_equal(out.reserve_space_1, mean)
    np.testing.assert_array_equal(out.reserve_space_2, variance)


@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize("epsilon", [1e-5, 1e-3, 0.5])
def test_epsilon_values(scope, epsilon, is_training):
    """Variances of about 1e-4, so that every epsilon changes the result."""
    data_format = "NCHW"
    rng = _rng("epsilon", epsilon, is_training)
    x, scale, offset, mean, variance = _inputs(rng, data_format, 2, (4, 5), 3, "float32",
                                               x_mean=0.2, x_std=0.01)
    variance = _f32(rng.uniform(1e-5, 1e-3, 3))
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=epsilon, data_format=data_format,
                              is_training=is_training, scope=scope)
    ref = bn_forward(x, scale, offset, mean, variance, epsilon=epsilon, data_format=data_format,
                     is_training=is_training)
    _check_forward(out, ref, x, "float32")

    dy = _f32(rng.normal(size=x.shape))
    rs1, rs2 = (_f32(ref["reserve_space_1"]), _f32(ref["reserve_space_2"])) if is_training else (mean, variance)
    g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, np.zeros(0, np.float32), epsilon=epsilon,
                                 data_format=data_format, is_training=is_training, scope=scope)
    gref = bn_grad(dy, x, scale, rs1, rs2, epsilon=epsilon, data_format=data_format, is_training=is_training)
    _check_grad(g, gref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=epsilon, data_format=data_format,
                dtype_name="float32")


def test_defaults(scope):
    """Defaults: epsilon 1e-4, exponential_avg_factor 1, data_format NHWC, is_training true.

    The variances are about 1e-4, so a wrong default epsilon shows.
    """
    rng = _rng("defaults")
    x, scale, offset, mean, variance = _inputs(rng, "NHWC", 2, (4, 5), 3, "float32", x_mean=0.2, x_std=0.01)
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, scope=scope)
    ref = bn_forward(x, scale, offset, mean, variance, epsilon=1e-4, exponential_avg_factor=1.0,
                     data_format="NHWC", is_training=True)
    _check_forward(out, ref, x, "float32")

    dy = _f32(rng.normal(size=x.shape))
    rs1, rs2 = _f32(ref["reserve_space_1"]), _f32(ref["reserve_space_2"])
    g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, np.zeros(0, np.float32), scope=scope)
    gref = bn_grad(dy, x, scale, rs1, rs2, epsilon=1e-4, data_format="NHWC", is_training=True)
    _check_grad(g, gref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=1e-4, data_format="NHWC",
                dtype_name="float32")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_zero_variance_channel(scope, data_format, dtype):
    """A constant channel (0.75, exact in every T) normalizes to `offset`; its variance is 0."""
    rng = _rng("constant", data_format, dtype)
    x, scale, offset, mean, variance = _inputs(rng, data_format, 2, (3, 5), 3, dtype)
    sel = [slice(None)] * 4
    sel[channel_axis(data_format)] = 0
    x[tuple(sel)] = 0.75
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format,
                              is_training=True, scope=scope)
    ref = bn_forward(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format, is_training=True)
    _check_forward(out, ref, x, dtype)
    assert float(np.asarray(out.batch_variance)[0]) == pytest.approx(0.0, abs=1e-6)
    assert float(np.asarray(out.reserve_space_2)[0]) == pytest.approx(0.0, abs=1e-6)

    dy = rng.normal(size=x.shape).astype(x.dtype)
    g = fused_batch_norm_grad_v3(dy, x, scale, out.reserve_space_1, out.reserve_space_2, out.reserve_space_3,
                                 epsilon=EPS, data_format=data_format, is_training=True, scope=scope)
    rs1, rs2 = _f32(ref["reserve_space_1"]), _f32(ref["reserve_space_2"])
    gref = bn_grad(dy, x, scale, rs1, rs2, epsilon=EPS, data_format=data_format, is_training=True)
    _check_grad(g, gref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=EPS, data_format=data_format,
                dtype_name=dtype)


# ---------------------------------------------------------------------------------------------
# Empty activations
# ---------------------------------------------------------------------------------------------
EMPTY = [
    pytest.param("NHWC", (0, 3, 4, 3), id="NHWC-N0"),
    pytest.param("NHWC", (2, 0, 4, 3), id="NHWC-H0"),
    pytest.param("NCHW", (0, 3, 4, 5), id="NCHW-N0"),
    pytest.param("NCHW", (2, 3, 4, 0), id="NCHW-W0"),
    pytest.param("NDHWC", (0, 2, 3, 4, 3), id="NDHWC-N0"),
    pytest.param("NCDHW", (2, 3, 0, 4, 5), id="NCDHW-D0"),
]


@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize(("data_format", "shape"), EMPTY)
def test_forward_empty_x(scope, data_format, shape, is_training):
    c = shape[channel_axis(data_format)]
    rng = _rng("empty-forward", data_format, shape, is_training)
    x = np.zeros(shape, np.float32)
    scale, offset = _f32(rng.uniform(0.5, 2, c)), _f32(rng.normal(size=c))
    mean, variance = _f32(rng.normal(size=c)), _f32(rng.uniform(0.5, 2, c))
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format,
                              is_training=is_training, scope=scope)
    assert tuple(type(out)._fields) == FORWARD_FIELDS
    assert np.asarray(out.y).shape == shape and np.asarray(out.y).dtype == np.float32
    for name in FORWARD_FIELDS[1:5]:
        a = np.asarray(getattr(out, name))
        assert a.shape == (c,) and a.dtype == np.float32, f"{name}: {a.shape} {a.dtype}"
        # m = 0 has no batch statistics; whatever the op reports must at least be written and finite.
        assert np.isfinite(a).all(), f"{name}: {a}"
    assert np.asarray(out.reserve_space_3).shape == (0,)
    if not is_training:
        for name, expected in (("batch_mean", mean), ("batch_variance", variance),
                               ("reserve_space_1", mean), ("reserve_space_2", variance)):
            np.testing.assert_array_equal(getattr(out, name), expected, err_msg=name)


@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize(("data_format", "shape"), EMPTY)
def test_grad_empty_x(scope, data_format, shape, is_training):
    c = shape[channel_axis(data_format)]
    rng = _rng("empty-grad", data_format, shape, is_training)
    x = np.zeros(shape, np.float32)
    dy = np.zeros(shape, np.float32)
    scale, rs1, rs2 = _f32(rng.uniform(0.5, 2, c)), _f32(rng.normal(size=c)), _f32(rng.uniform(0.5, 2, c))
    g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, np.zeros(0, np.float32), epsilon=EPS,
                                 data_format=data_format, is_training=is_training, scope=scope)
    assert tuple(type(g)._fields) == GRAD_FIELDS
    assert np.asarray(g.x_backprop).shape == shape and np.asarray(g.x_backprop).dtype == np.float32
    for name in ("scale_backprop", "offset_backprop"):
        a = np.asarray(getattr(g, name))
        assert a.shape == (c,) and a.dtype == np.float32, f"{name}: {a.shape} {a.dtype}"
        np.testing.assert_array_equal(a, np.zeros(c, np.float32), err_msg=name)
    assert np.asarray(g.reserve_space_4).shape == (0,)
    assert np.asarray(g.reserve_space_5).shape == (0,)


# ---------------------------------------------------------------------------------------------
# Reserve spaces
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("data_format", sorted(RANKS))
def test_reserve_space_2_is_biased_variance(scope, data_format):
    """m = 6, so the biased (÷m) and Bessel-corrected (÷(m−1)) variances differ by 20%."""
    spatial = (1, 3) if RANKS[data_format] == 4 else (1, 1, 3)
    rng = _rng("reserve", data_format)
    x, scale, offset, mean, variance = _inputs(rng, data_format, 2, spatial, 2, "float32")
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format,
                              is_training=True, scope=scope)
    axes = _reduce_axes(data_format)
    x64 = _f64(x)
    tol = {"rtol": 1e-5, "atol": 1e-6 * _mag(x)}
    _assert_close("reserve_space_1", out.reserve_space_1, x64.mean(axis=axes), dtype=np.float32, **tol)
    _assert_close("reserve_space_2", out.reserve_space_2, x64.var(axis=axes, ddof=0), dtype=np.float32, **tol)
    _assert_close("batch_mean", out.batch_mean, x64.mean(axis=axes), dtype=np.float32, **tol)
    _assert_close("batch_variance", out.batch_variance, x64.var(axis=axes, ddof=1), dtype=np.float32, **tol)
    np.testing.assert_allclose(_f64(out.batch_variance), _f64(out.reserve_space_2) * 6 / 5, rtol=1e-5)
    rs3 = np.asarray(out.reserve_space_3)
    assert rs3.shape == (0,) and rs3.dtype == np.float32


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize("data_format", sorted(RANKS))
def test_forward_reserve_spaces_feed_grad(scope, data_format, is_training, dtype):
    """End to end: the op's forward reserve spaces, fed to the op's grad, give the reference gradient."""
    spatial = (5, 7) if RANKS[data_format] == 4 else (2, 3, 5)
    rng = _rng("end-to-end", data_format, is_training, dtype)
    x, scale, offset, mean, variance = _inputs(rng, data_format, 3, spatial, 4, dtype)
    dy = rng.normal(size=x.shape).astype(x.dtype)
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format,
                              is_training=is_training, scope=scope)
    g = fused_batch_norm_grad_v3(dy, x, scale, out.reserve_space_1, out.reserve_space_2, out.reserve_space_3,
                                 epsilon=EPS, data_format=data_format, is_training=is_training, scope=scope)
    ref = bn_forward(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format,
                     is_training=is_training)
    rs1, rs2 = ref["reserve_space_1"], ref["reserve_space_2"]  # exact float64 statistics
    gref = bn_grad(dy, x, scale, rs1, rs2, epsilon=EPS, data_format=data_format, is_training=is_training)
    _check_grad(g, gref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=EPS, data_format=data_format,
                dtype_name=dtype)


# ---------------------------------------------------------------------------------------------
# The op's gradient against central differences of the reference forward (float64)
# ---------------------------------------------------------------------------------------------
def _central_diff(f, a, h: float) -> np.ndarray:
    """∂f/∂a by central differences, element by element; f maps a float64 array to a scalar."""
    a = np.array(a, dtype=np.float64)
    grad = np.empty_like(a)
    for idx in np.ndindex(a.shape):
        saved = a[idx]
        a[idx] = saved + h
        f_plus = f(a)
        a[idx] = saved - h
        f_minus = f(a)
        a[idx] = saved
        grad[idx] = (f_plus - f_minus) / (2.0 * h)
    return grad


@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize(("data_format", "spatial"),
                         [("NHWC", (2, 3)), ("NCHW", (2, 3)), ("NDHWC", (1, 2, 3)), ("NCDHW", (2, 1, 3))])
def test_grad_matches_finite_differences(scope, data_format, spatial, is_training):
    """L(x, scale, offset) = Σ w·y, with y from the float64 reference forward; dy = w."""
    rng = _rng("finite-differences", data_format, is_training)
    x, scale, offset, mean, variance = _inputs(rng, data_format, 2, spatial, 3, "float32")
    w = _f32(rng.normal(size=x.shape))
    w64 = _f64(w)

    def loss(xx, ss, oo):
        y = bn_forward(xx, ss, oo, mean, variance, epsilon=EPS, data_format=data_format,
                       is_training=is_training)["y"]
        return float((w64 * y).sum())

    h = 1e-5
    fd = {
        "x_backprop": _central_diff(lambda a: loss(a, scale, offset), x, h),
        "scale_backprop": _central_diff(lambda a: loss(x, a, offset), scale, h),
        "offset_backprop": _central_diff(lambda a: loss(x, scale, a), offset, h),
    }
    if is_training:
        rs1, rs2 = _train_reserve_spaces(x, scale, offset, mean, variance, epsilon=EPS,
                                         data_format=data_format)
    else:
        rs1, rs2 = mean, variance
    g = fused_batch_norm_grad_v3(w, x, scale, rs1, rs2, np.zeros(0, np.float32), epsilon=EPS,
                                 data_format=data_format, is_training=is_training, scope=scope)
    _assert_close("x_backprop", g.x_backprop, fd["x_backprop"], rtol=2e-4, atol=2e-5 * _mag(fd["x_backprop"]),
                  dtype=np.float32)
    s_mag, o_mag = _sum_scales(w, x, rs1, rs2, EPS, data_format)
    _assert_close("scale_backprop", g.scale_backprop, fd["scale_backprop"], rtol=2e-4, atol=2e-5 * s_mag,
                  dtype=np.float32)
    _assert_close("offset_backprop", g.offset_backprop, fd["offset_backprop"], rtol=2e-4, atol=2e-5 * o_mag,
                  dtype=np.float32)
    _assert_all_written(g)


# ---------------------------------------------------------------------------------------------
# PyTorch, where installed (float64 torch on the same float32 inputs)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize("momentum", [1.0, 0.3])
@pytest.mark.parametrize(("data_format", "spatial"), [("NCHW", (5, 7)), ("NCDHW", (2, 3, 5))])
def test_matches_torch(scope, data_format, spatial, momentum, is_training):
    """torch's `momentum` is exponential_avg_factor: running = (1 − m)·running + m·batch, where the
    running variance takes the unbiased batch variance and y the biased one, as here. In eval mode
    torch normalizes with the running statistics, like is_training=false."""
    torch = pytest.importorskip("torch")
    rng = _rng("torch", data_format, momentum, is_training)
    x, scale, offset, mean, variance = _inputs(rng, data_format, 3, spatial, 4, "float32")
    dy = _f32(rng.normal(size=x.shape))

    xt = torch.tensor(_f64(x), requires_grad=True)
    wt = torch.tensor(_f64(scale), requires_grad=True)
    bt = torch.tensor(_f64(offset), requires_grad=True)
    running_mean, running_var = torch.tensor(_f64(mean)), torch.tensor(_f64(variance))
    yt = torch.nn.functional.batch_norm(xt, running_mean, running_var, wt, bt, training=is_training,
                                        momentum=momentum, eps=EPS)
    yt.backward(torch.tensor(_f64(dy)))

    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=EPS, exponential_avg_factor=momentum,
                              data_format=data_format, is_training=is_training, scope=scope)
    y_ref = yt.detach().numpy()
    _assert_close("y", out.y, y_ref, rtol=1e-4, atol=2e-5 * _mag(y_ref), dtype=np.float32)
    tol = {"rtol": 1e-4, "atol": 1e-5 * _mag(x), "dtype": np.float32}
    _assert_close("batch_mean", out.batch_mean, running_mean.numpy(), **tol)
    _assert_close("batch_variance", out.batch_variance, running_var.numpy(), **tol)
    if is_training:
        dims = _reduce_axes(data_format)
        _assert_close("reserve_space_1", out.reserve_space_1, xt.detach().mean(dim=dims).numpy(), **tol)
        _assert_close("reserve_space_2", out.reserve_space_2,
                      torch.var(xt.detach(), dim=dims, correction=0).numpy(), **tol)

    g = fused_batch_norm_grad_v3(dy, x, scale, out.reserve_space_1, out.reserve_space_2, out.reserve_space_3,
                                 epsilon=EPS, data_format=data_format, is_training=is_training, scope=scope)
    dx_ref = xt.grad.numpy()
    _assert_close("x_backprop", g.x_backprop, dx_ref, rtol=1e-4, atol=2e-5 * _mag(dx_ref), dtype=np.float32)
    if is_training:
        dims = _reduce_axes(data_format)
        rs1 = xt.detach().mean(dim=dims).numpy()
        rs2 = torch.var(xt.detach(), dim=dims, correction=0).numpy()
    else:
        rs1, rs2 = mean, variance
    s_mag, o_mag = _sum_scales(dy, x, rs1, rs2, EPS, data_format)
    _assert_close("scale_backprop", g.scale_backprop, wt.grad.numpy(), rtol=1e-4, atol=1e-5 * s_mag,
                  dtype=np.float32)
    _assert_close("offset_backprop", g.offset_backprop, bt.grad.numpy(), rtol=1e-4, atol=1e-5 * o_mag,
                  dtype=np.float32)
    _assert_all_written(out)
    _assert_all_written(g)


# ---------------------------------------------------------------------------------------------
# API shape: create(), option shortcuts, Options, NamedTuples, OP_NAME, repr
# ---------------------------------------------------------------------------------------------
def _nchw_grad_inputs(is_training: bool):
    rng = _rng("api", is_training)
    x, scale, offset, mean, variance = _inputs(rng, "NCHW", 2, (3, 4), 5, "float32")
    dy = _f32(rng.normal(size=x.shape))
    if is_training:
        rs1, rs2 = _train_reserve_spaces(x, scale, offset, mean, variance, epsilon=EPS, data_format="NCHW")
    else:
        rs1, rs2 = mean, variance
    return dy, x, scale, offset, mean, variance, rs1, rs2, np.zeros(0, np.float32)


_GradAccessors = namedtuple("_GradAccessors", GRAD_FIELDS)


def _grad_accessors(op):
    """The output accessors of a created grad op, gathered into a NamedTuple for _check_grad."""
    return _GradAccessors(*(getattr(op, name) for name in GRAD_FIELDS))


def test_op_names():
    assert FusedBatchNormV3.OP_NAME == "FusedBatchNormV3"
    assert FusedBatchNormGradV3.OP_NAME == "FusedBatchNormGradV3"


def test_output_namedtuples(scope):
    dy, x, scale, offset, mean, variance, rs1, rs2, rs3 = _nchw_grad_inputs(True)
    out = fused_batch_norm_v3(x, scale, offset, mean, variance, data_format="NCHW", scope=scope)
    assert isinstance(out, tuple)
    assert tuple(type(out)._fields) == FORWARD_FIELDS
    assert len(out) == 6
    for i, name in enumerate(FORWARD_FIELDS):
        assert out[i] is getattr(out, name)
    y, *_rest = out  # unpacks like a tuple
    assert y is out.y

    g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, rs3, data_format="NCHW", scope=scope)
    assert isinstance(g, tuple)
    assert tuple(type(g)._fields) == GRAD_FIELDS
    for i, name in enumerate(GRAD_FIELDS):
        assert g[i] is getattr(g, name)


def test_grad_create_with_option_shortcuts(scope):
    dy, x, scale, _offset, _mean, _variance, rs1, rs2, rs3 = _nchw_grad_inputs(True)
    op = FusedBatchNormGradV3.create(scope, dy, x, scale, rs1, rs2, rs3,
                                     FusedBatchNormGradV3.data_format("NCHW"), FusedBatchNormGradV3.epsilon(1e-3))
    assert "FusedBatchNormGradV3" in repr(op)
    ref = bn_grad(dy, x, scale, rs1, rs2, epsilon=1e-3, data_format="NCHW", is_training=True)
    _check_grad(_grad_accessors(op), ref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=1e-3, data_format="NCHW",
                dtype_name="float32")
    # The same values as the functional form with the same attributes.
    g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, rs3, epsilon=1e-3, data_format="NCHW", scope=scope)
    for name in GRAD_FIELDS:
        np.testing.assert_array_equal(getattr(op, name), getattr(g, name), err_msg=name)


def test_grad_create_with_options_object(scope):
    dy, x, scale, _offset, _mean, _variance, rs1, rs2, rs3 = _nchw_grad_inputs(False)
    opts = FusedBatchNormGradV3.Options().data_format("NCHW").is_training(False)
    assert isinstance(opts, FusedBatchNormGradV3.Options)
    op = FusedBatchNormGradV3.create(scope, dy, x, scale, rs1, rs2, rs3, opts)
    assert "FusedBatchNormGradV3" in repr(op)
    ref = bn_grad(dy, x, scale, rs1, rs2, epsilon=1e-4, data_format="NCHW", is_training=False)
    _check_grad(_grad_accessors(op), ref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=1e-4, data_format="NCHW",
                dtype_name="float32")


def test_forward_create_with_options(scope):
    """FusedBatchNormV3 has the same create()/shortcut/Options surface as its gradient."""
    _dy, x, scale, offset, mean, variance, _rs1, _rs2, _rs3 = _nchw_grad_inputs(True)
    op = FusedBatchNormV3.create(scope, x, scale, offset, mean, variance,
                                 FusedBatchNormV3.data_format("NCHW"), FusedBatchNormV3.is_training(False))
    assert "FusedBatchNormV3" in repr(op)
    ref = bn_forward(x, scale, offset, mean, variance, epsilon=1e-4, data_format="NCHW", is_training=False)
    _assert_close("y", op.y, ref["y"], rtol=1e-4, atol=2e-5 * _mag(ref["y"]), dtype=np.float32)
    np.testing.assert_array_equal(op.batch_mean, mean)

    opts = (FusedBatchNormV3.Options().data_format("NCHW").epsilon(1e-2).exponential_avg_factor(0.5)
            .is_training(True))
    op = FusedBatchNormV3.create(scope, x, scale, offset, mean, variance, opts)
    ref = bn_forward(x, scale, offset, mean, variance, epsilon=1e-2, exponential_avg_factor=0.5,
                     data_format="NCHW", is_training=True)
    for name in FORWARD_FIELDS[:5]:
        expected = ref[name]
        atol = 2e-5 * _mag(expected, x)
        _assert_close(name, getattr(op, name), expected, rtol=1e-4, atol=atol, dtype=np.float32)


# ---------------------------------------------------------------------------------------------
# Bad input: raised before any kernel, naming the op, the argument and the offending value
# ---------------------------------------------------------------------------------------------
def _forward_inputs():
    rng = _rng("bad-forward")
    return _inputs(rng, "NHWC", 2, (3, 4), 3, "float32")


FWD = "FusedBatchNormV3"
GRAD = "FusedBatchNormGradV3"


@pytest.mark.parametrize(("data_format", "shape"), [
    pytest.param("NHWC", (2, 3, 3), id="rank3-NHWC"),
    pytest.param("NCHW", (2, 3, 1, 2, 2), id="rank5-NCHW"),
    pytest.param("NDHWC", (2, 4, 5, 3), id="rank4-NDHWC"),
])
def test_forward_rejects_wrong_rank(scope, data_format, shape):
    _x, scale, offset, mean, variance = _forward_inputs()
    x = np.zeros(shape, np.float32)
    with pytest.raises(ValueError) as ei:
        fused_batch_norm_v3(x, scale, offset, mean, variance, data_format=data_format, scope=scope)
    assert_message(ei, FWD, "x", shape_texts(shape))


@pytest.mark.parametrize("arg", ["scale", "offset", "mean", "variance"])
def test_forward_rejects_wrong_channel_length(scope, arg):
    x, scale, offset, mean, variance = _forward_inputs()  # C = 3
    kwargs = {"scale": scale, "offset": offset, "mean": mean, "variance": variance}
    kwargs[arg] = np.ones(4, np.float32)
    with pytest.raises(ValueError) as ei:
        fused_batch_norm_v3(x, kwargs["scale"], kwargs["offset"], kwargs["mean"], kwargs["variance"],
                            scope=scope)
    assert_message(ei, FWD, arg, shape_texts((4,)))


def test_forward_rejects_2d_scale(scope):
    x, _scale, offset, mean, variance = _forward_inputs()
    with pytest.raises(ValueError) as ei:
        fused_batch_norm_v3(x, np.ones((3, 1), np.float32), offset, mean, variance, scope=scope)
    assert_message(ei, FWD, "scale", shape_texts((3, 1)))


@pytest.mark.parametrize(("arg", "dtype"), [("x", "float64"), ("x", "int32"), ("scale", "float16"),
                                             ("variance", "float64")])
def test_forward_rejects_wrong_dtype(scope, arg, dtype):
    x, scale, offset, mean, variance = _forward_inputs()
    kwargs = {"x": x, "scale": scale, "offset": offset, "mean": mean, "variance": variance}
    kwargs[arg] = kwargs[arg].astype(dtype)
    with pytest.raises(TypeError) as ei:
        fused_batch_norm_v3(kwargs["x"], kwargs["scale"], kwargs["offset"], kwargs["mean"], kwargs["variance"],
                            scope=scope)
    assert_message(ei, FWD, arg, dtype)


@pytest.mark.parametrize(("attrs", "arg", "values", "errors"), [
    pytest.param({"data_format": "NCWH"}, "data_format", ("NCWH",), ValueError, id="data_format-NCWH"),
    pytest.param({"epsilon": "tiny"}, "epsilon", ("tiny", "str"), (TypeError, ValueError), id="epsilon-str"),
    pytest.param({"epsilon": -1.0}, "epsilon", ("-1",), ValueError, id="epsilon-negative"),
    pytest.param({"exponential_avg_factor": 1.5}, "exponential_avg_factor", ("1.5",), ValueError,
                 id="avg-factor-above-1"),
    pytest.param({"exponential_avg_factor": "half"}, "exponential_avg_factor", ("half", "str"),
                 (TypeError, ValueError), id="avg-factor-str"),
    pytest.param({"is_training": "yes"}, "is_training", ("yes", "str"), (TypeError, ValueError),
                 id="is_training-str"),
])
def test_forward_rejects_bad_attr(scope, attrs, arg, values, errors):
    x, scale, offset, mean, variance = _forward_inputs()
    with pytest.raises(errors) as ei:
        fused_batch_norm_v3(x, scale, offset, mean, variance, scope=scope, **attrs)
    assert_message(ei, FWD, arg, values)


def _grad_inputs():
    rng = _rng("bad-grad")
    x, scale, _offset, mean, variance = _inputs(rng, "NHWC", 2, (3, 4), 3, "float32")
    dy = _f32(rng.normal(size=x.shape))
    return dy, x, scale, mean, variance, np.zeros(0, np.float32)


def test_grad_rejects_mismatched_x_and_y_backprop(scope):
    dy, _x, scale, rs1, rs2, rs3 = _grad_inputs()  # dy: [2, 3, 4, 3]
    x = np.zeros((2, 3, 5, 3), np.float32)
    with pytest.raises(ValueError) as ei:
        fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, rs3, scope=scope)
    assert_message(ei, GRAD, ("x", "y_backprop"), shape_texts(x.shape) + shape_texts(dy.shape))


def test_grad_rejects_mismatched_channels(scope):
    dy, _x, scale, rs1, rs2, rs3 = _grad_inputs()
    x = np.zeros((2, 3, 4, 7), np.float32)
    with pytest.raises(ValueError) as ei:
        fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, rs3, scope=scope)
    assert_message(ei, GRAD, ("x", "y_backprop"), shape_texts(x.shape) + shape_texts(dy.shape))


def test_grad_rejects_wrong_rank(scope):
    _dy, x, scale, rs1, rs2, rs3 = _grad_inputs()
    dy = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(ValueError) as ei:
        fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, rs3, scope=scope)
    assert_message(ei, GRAD, "y_backprop", shape_texts(dy.shape))


@pytest.mark.parametrize("arg", ["scale", "reserve_space_1", "reserve_space_2"])
def test_grad_rejects_wrong_channel_length(scope, arg):
    dy, x, scale, rs1, rs2, rs3 = _grad_inputs()
    kwargs = {"scale": scale, "reserve_space_1": rs1, "reserve_space_2": rs2}
    kwargs[arg] = np.ones(4, np.float32)
    with pytest.raises(ValueError) as ei:
        fused_batch_norm_grad_v3(dy, x, kwargs["scale"], kwargs["reserve_space_1"], kwargs["reserve_space_2"],
                                 rs3, scope=scope)
    assert_message(ei, GRAD, arg, shape_texts((4,)))


@pytest.mark.parametrize(("arg", "dtype"), [("scale", "float16"), ("scale", "float64"),
                                             ("reserve_space_2", "float64")])
def test_grad_rejects_wrong_stat_dtype(scope, arg, dtype):
    dy, x, scale, rs1, rs2, rs3 = _grad_inputs()
    kwargs = {"scale": scale, "reserve_space_1": rs1, "reserve_space_2": rs2}
    kwargs[arg] = kwargs[arg].astype(dtype)
    with pytest.raises(TypeError) as ei:
        fused_batch_norm_grad_v3(dy, x, kwargs["scale"], kwargs["reserve_space_1"], kwargs["reserve_space_2"],
                                 rs3, scope=scope)
    assert_message(ei, GRAD, arg, dtype)


def test_grad_rejects_float64_activations(scope):
    dy, x, scale, rs1, rs2, rs3 = _grad_inputs()
    with pytest.raises(TypeError) as ei:
        fused_batch_norm_grad_v3(dy.astype(np.float64), x.astype(np.float64), scale, rs1, rs2, rs3, scope=scope)
    assert_message(ei, GRAD, ("y_backprop", "x"), "float64")


def test_grad_rejects_mixed_activation_dtypes(scope):
    """y_backprop and x share the type variable T."""
    dy, x, scale, rs1, rs2, rs3 = _grad_inputs()
    with pytest.raises(TypeError) as ei:
        fused_batch_norm_grad_v3(dy, x.astype(np.float16), scale, rs1, rs2, rs3, scope=scope)
    assert_message(ei, GRAD, ("y_backprop", "x"), ("float16", "float32"))


@pytest.mark.parametrize(("attrs", "arg", "values", "errors"), [
    pytest.param({"data_format": "NCWH"}, "data_format", ("NCWH",), ValueError, id="data_format-NCWH"),
    pytest.param({"epsilon": "tiny"}, "epsilon", ("tiny", "str"), (TypeError, ValueError), id="epsilon-str"),
    pytest.param({"is_training": "yes"}, "is_training", ("yes", "str"), (TypeError, ValueError),
                 id="is_training-str"),
])
def test_grad_rejects_bad_attr(scope, attrs, arg, values, errors):
    dy, x, scale, rs1, rs2, rs3 = _grad_inputs()
    with pytest.raises(errors) as ei:
        fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, rs3, scope=scope, **attrs)
    assert_message(ei, GRAD, arg, values)


def test_grad_create_rejects_bad_data_format(scope):
    """Whether the shortcut itself or create() checks the value, the error names all three."""
    dy, x, scale, rs1, rs2, rs3 = _grad_inputs()
    with pytest.raises(ValueError) as ei:
        FusedBatchNormGradV3.create(scope, dy, x, scale, rs1, rs2, rs3, FusedBatchNormGradV3.data_format("NCWH"))
    assert_message(ei, GRAD, "data_format", "NCWH")


# ---------------------------------------------------------------------------------------------
# Numerics (issue 20 items 1 and 2): the variance of shifted data and of data with outliers, and
# non-finite values, under both launch plans and the building blocks' GPU form on the emulator
# ---------------------------------------------------------------------------------------------
PLANS = ["cpu", "cuda", "gpu-form"]
PLANS_AND_FORMS = [*PLANS, "cpu-gpu-form"]  # each plan in each kernel form


@pytest.fixture
def plan_scope(request):
    """The cpu backend under launch plan request.param: "cpu", "cuda" (the GPU's launch sizes),
    "gpu-form" (the GPU's sizes, and kernels/_common.cuh's building blocks in their GPU form) or
    "cpu-gpu-form" (the cpu plan's sizes and kernels, their building blocks in the GPU form)."""
    form = "gpu" if request.param.endswith("gpu-form") else "host"
    return Scope("cpu", launch_plan="cpu" if request.param.startswith("cpu") else "cuda", kernel_form=form)


@pytest.mark.parametrize("plan_scope", ["gpu-form", "cpu-gpu-form"], indirect=True)
def test_the_gpu_form_here_is_the_backends_own(plan_scope):
    """The module the other GPU-form tests compile (one build per run, not a second of another key)."""
    from generated.nn import fused_batch_norm_v3 as module

    source = module._KERNELS
    assert plan_scope.backend.load(source).path == Scope("cpu", kernel_form="gpu").backend.load(source).path


def _set_in_channel(a: np.ndarray, data_format: str, c: int, k: int, value: float) -> None:
    """Element k of channel c (in memory order among the channel's elements) of `a` = value."""
    moved = np.moveaxis(a, channel_axis(data_format), -1)  # a view (reshape could copy)
    index = tuple(int(i) for i in np.unravel_index(k, moved.shape[:-1]))
    moved[(*index, c)] = value


def _one_channel_shape(data_format: str, n: int, h: int, w: int, c: int = 1) -> tuple[int, ...]:
    return (n, c, h, w) if data_format == "NCHW" else (n, h, w, c)


def _stats_close(out, x, data_format, *, rtol: float) -> None:
    """reserve_space_1/2 and batch_mean/variance against float64 statistics of the same x."""
    axes = _reduce_axes(data_format)
    x64 = _f64(x)
    mean, var = x64.mean(axis=axes), x64.var(axis=axes)
    m = x64.size // x64.shape[channel_axis(data_format)]
    spread = np.sqrt(var)  # the mean is judged on the data's spread as well as its own size
    np.testing.assert_allclose(_f64(out.reserve_space_1), mean, rtol=1e-6, atol=1e-6 * spread.max(),
                               err_msg="reserve_space_1")
    np.testing.assert_allclose(_f64(out.batch_mean), mean, rtol=1e-6, atol=1e-6 * spread.max(),
                               err_msg="batch_mean")
    np.testing.assert_allclose(_f64(out.reserve_space_2), var, rtol=rtol, err_msg="reserve_space_2")
    np.testing.assert_allclose(_f64(out.batch_variance), var * m / (m - 1), rtol=rtol, err_msg="batch_variance")


@pytest.mark.parametrize("plan_scope", PLANS, indirect=True)
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize(("n", "where", "loc", "std", "outlier"),
                         [(1, 0, 0.0, 10.0, 1e4), (1, 54_321, 0.0, 10.0, 1e4), (10, 0, 0.0, 10.0, 1e4),
                          (1, 0, 1e4, 1.0, 0.0)],
                         ids=["1e5-first", "1e5-middle", "1e6-first", "shifted-1e5-first-0"])
def test_variance_with_an_outlier(plan_scope, data_format, n, where, loc, std, outlier):
    """Issue 20 item 1: one channel of N·H·W values ~ N(0, 10²) with one value 1e4 (the channel's
    first element broke the shifted single pass: 1111.5 for 1e5 values against float64's 1100.0),
    or ~ N(1e4, 1) with a first element 0, beside two ordinary channels; within 1e-5 relative of
    float64."""
    rng = _rng("outlier", data_format, n, where, loc)
    shape = _one_channel_shape(data_format, n, 100, 1000, 3)
    x = _f32(rng.normal(loc, std, shape))
    _set_in_channel(x, data_format, 1, where, outlier)
    c = np.ones(3, np.float32)
    out = fused_batch_norm_v3(x, c, 0 * c, 0 * c, c, epsilon=EPS, data_format=data_format, scope=plan_scope)
    _stats_close(out, x, data_format, rtol=1e-5)


@pytest.mark.parametrize("plan_scope", PLANS_AND_FORMS, indirect=True)
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize(("loc", "std"),
                         [(1e4, 1.0), (-3e4, 2.0), (1e4, 1e-3), (1e19, 1e15), (1e-11, 1e-15), (0.0, 1e18)],
                         ids=["mean-1e4-std-1", "mean-minus-3e4-std-2", "mean-1e4-std-1e-3", "huge", "tiny", "wide"])
@pytest.mark.parametrize(("n", "h", "w"), [(2, 33, 35), (16, 64, 64)], ids=["small", "many-splits"])
def test_variance_of_shifted_and_scaled_data(plan_scope, data_format, loc, std, n, h, w):
    """Issue 20 item 1: data far from 0 compared with its spread (mean 1e4, std 1), huge, tiny and
    wide values: every statistic within 1e-5 relative of float64 (many splits: 64 Ki values a
    channel, so both plans merge several splits and every thread several runs). Issue 30 item 12:
    mean 1e4, std 1e-3, values a few float32 ulps (2⁻¹⁰) apart, where a run's rounded mean misses
    by about the spread, so the two-pass formula's correction Σ(v − mean)²/k is about the variance
    itself: dropping it fails here, on each plan in each kernel form."""
    rng = _rng("shifted", data_format, loc, std, n)
    x = _f32(rng.normal(loc, std, _one_channel_shape(data_format, n, h, w, 3)))
    c = np.ones(3, np.float32)
    out = fused_batch_norm_v3(x, c, 0 * c, 0 * c, c, epsilon=EPS, data_format=data_format, scope=plan_scope)
    _stats_close(out, x, data_format, rtol=1e-5)


@pytest.mark.parametrize("plan_scope", PLANS_AND_FORMS, indirect=True)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize(("data_format", "shape"), [("NCHW", (137, 16, 7, 9)), ("NHWC", (137, 7, 9, 16))])
def test_statistics_over_partial_runs(plan_scope, data_format, shape, dtype):
    """Issue 30 item 12: runs of values that end short, after a full run left other values where a
    run is gathered. 16 channels of m = 8631 values ~ N(2000, 1): on the cpu plan (32 threads, one
    split) channels-first rows of 63 values are gathered 256 at a time, so each thread's 270 (the
    last one's 261) end in a gather of 14 (5), not a multiple of a vector of 4, 8 or 16;
    channels-last each thread's 90 rows of a split are a group of 64 and one of 26 (16-bit values
    converted into a buffer first); on the GPU's plan the last split's rows end in a short run of
    kRun. A sum past a run's end takes in values left there: in the first pass it moves the run's
    mean hundreds of spreads away (the second pass's correction then leaves 1e-4 of the variance
    or more wrong), in the second it adds their deviations. Every statistic within 1e-5 of float64."""
    rng = _rng("partial-runs", data_format, dtype)
    x = rng.normal(2000.0, 1.0, shape).astype(_np_dtype(dtype))
    c = np.ones(16, np.float32)
    out = fused_batch_norm_v3(x, c, 0 * c, 0 * c, c, epsilon=EPS, data_format=data_format, scope=plan_scope)
    _stats_close(out, x, data_format, rtol=1e-5)


NON_FINITE = {"nan": [np.nan], "inf": [np.inf], "-inf": [-np.inf], "inf-and-minus-inf": [np.inf, -np.inf]}


@pytest.mark.parametrize("plan_scope", PLANS, indirect=True)
@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize("factor", [1.0, 0.3])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("values", list(NON_FINITE), ids=list(NON_FINITE))
@pytest.mark.parametrize("channels", [3, 17])  # NCHW on the cpu plan: three launches, or a block per channel
def test_non_finite_values_propagate_as_in_torch(plan_scope, data_format, values, factor, is_training, channels):
    """Issue 20 item 2: NaN or ±inf in one channel of x gave batch_variance = reserve_space_2 = 0
    (fmaxf(NaN, 0)) and y = −inf. As in PyTorch, in every output of the op and its gradient: the
    channel's mean is the sum's (±inf, or NaN), its variance NaN, its y, x_backprop and
    scale_backprop NaN, its offset_backprop finite; in inference only the elements of x that are
    not finite give NaN (and the gradient does not read x). The other channels are untouched."""
    torch = pytest.importorskip("torch")
    rng = _rng("non-finite", data_format, values, factor, is_training, channels)
    x, scale, offset, mean, variance = _inputs(rng, data_format, 2, (5, 67), channels, "float32")
    for k, v in enumerate(NON_FINITE[values]):
        _set_in_channel(x, data_format, 1, 17 + 101 * k, v)
    dy = _f32(rng.normal(size=x.shape))

    to_nchw = (lambda a: a) if data_format == "NCHW" else (lambda a: np.moveaxis(a, -1, 1))
    xt = torch.tensor(_f64(to_nchw(x)), requires_grad=True)
    wt = torch.tensor(_f64(scale), requires_grad=True)
    bt = torch.tensor(_f64(offset), requires_grad=True)
    running_mean, running_var = torch.tensor(_f64(mean)), torch.tensor(_f64(variance))
    yt = torch.nn.functional.batch_norm(xt, running_mean, running_var, wt, bt, training=is_training,
                                        momentum=factor, eps=EPS)
    yt.backward(torch.tensor(_f64(to_nchw(dy))))

    out = fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=EPS, exponential_avg_factor=factor,
                              data_format=data_format, is_training=is_training, scope=plan_scope)
    g = fused_batch_norm_grad_v3(dy, x, scale, out.reserve_space_1, out.reserve_space_2, out.reserve_space_3,
                                 epsilon=EPS, data_format=data_format, is_training=is_training, scope=plan_scope)

    def same(name, ours, theirs, atol=1e-4):
        np.testing.assert_allclose(_f64(ours), theirs, rtol=1e-4, atol=atol, equal_nan=True, err_msg=name)

    same("y", to_nchw(np.asarray(out.y)), yt.detach().numpy())
    same("batch_mean", out.batch_mean, running_mean.numpy())
    same("batch_variance", out.batch_variance, running_var.numpy())
    if is_training:
        dims = (0, 2, 3)
        same("reserve_space_1", out.reserve_space_1, xt.detach().mean(dim=dims).numpy())
        same("reserve_space_2", out.reserve_space_2, torch.var(xt.detach(), dim=dims, correction=0).numpy())
        assert np.isnan(_f64(out.reserve_space_2)[1]) and np.isnan(_f64(out.batch_variance)[1])
    same("x_backprop", to_nchw(np.asarray(g.x_backprop)), xt.grad.numpy(), atol=1e-3)
    same("scale_backprop", g.scale_backprop, wt.grad.numpy(), atol=1e-3)
    same("offset_backprop", g.offset_backprop, bt.grad.numpy(), atol=1e-3)
    assert np.isfinite(_f64(g.offset_backprop)).all()
    others = [k for k in range(channels) if k != 1]
    for name in ("y", "x_backprop"):  # the other channels' elements are all finite
        a = np.moveaxis(_f64(getattr(out if name == "y" else g, name)), channel_axis(data_format), -1)
        assert np.isfinite(a[..., others]).all(), name


@pytest.mark.parametrize("plan_scope", PLANS, indirect=True)
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("channels", [3, 16])
def test_non_finite_y_backprop_propagates_as_in_torch(plan_scope, data_format, channels):
    """A NaN in y_backprop makes the channel's x_backprop and both sums NaN (PyTorch's)."""
    rng = _rng("nan-dy", data_format, channels)
    x, scale, offset, mean, variance = _inputs(rng, data_format, 2, (3, 5), channels, "float32")
    dy = _f32(rng.normal(size=x.shape))
    _set_in_channel(dy, data_format, 1, 4, np.nan)
    rs1, rs2 = _train_reserve_spaces(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format)
    g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, np.zeros(0, np.float32), epsilon=EPS,
                                 data_format=data_format, scope=plan_scope)
    dx = np.moveaxis(_f64(g.x_backprop), channel_axis(data_format), -1)
    others = [k for k in range(channels) if k != 1]
    assert np.isnan(dx[..., 1]).all() and np.isfinite(dx[..., others]).all()
    assert np.isnan(_f64(g.scale_backprop)[1]) and np.isnan(_f64(g.offset_backprop)[1])
    assert np.isfinite(_f64(g.scale_backprop)[others]).all() and np.isfinite(_f64(g.offset_backprop)[others]).all()


# ---------------------------------------------------------------------------------------------
# The gradient's host loops: a block per channel (channels-first, grad_channels), full tiles of
# 32 channels (channels-last, tile_sums<32>)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("data_format", "shape", "kernels"), [
    ("NCHW", (2, 16, 3, 5), ["grad_channels"]),  # 16 channels, rows of 15: one launch
    ("NCDHW", (1, 20, 2, 1, 1), ["grad_channels"]),  # rows of 2
    ("NCHW", (2, 15, 3, 5), ["grad_partials_sliced", "grad_finalize", "grad_input"]),  # too few channels to share
    ("NCHW", (2, 16, 1, 1), ["grad_partials_sliced", "grad_finalize", "grad_input"]),  # rows of 1: tiles
    ("NHWC", (2, 3, 5, 16), ["grad_partials_sliced", "grad_finalize", "grad_input"]),
])
def test_the_cpu_plan_takes_a_block_per_channel_where_there_are_enough(data_format, shape, kernels):
    from codegen.runtime.launches import record_launches

    rng = _rng("plan", data_format, shape)
    c = shape[1] if data_format.startswith("NC") else shape[-1]
    x, dy = _f32(rng.normal(size=shape)), _f32(rng.normal(size=shape))
    rs1, rs2 = _f32(rng.normal(size=c)), _f32(rng.uniform(0.5, 2, c))
    scope = Scope("cpu")
    with record_launches(scope.backend) as launches:
        g = fused_batch_norm_grad_v3(dy, x, _f32(np.ones(c)), rs1, rs2, np.zeros(0, np.float32), epsilon=EPS,
                                     data_format=data_format, scope=scope)
    assert [launch.kernel for launch in launches] == kernels
    ref = bn_grad(dy, x, np.ones(c, np.float32), rs1, rs2, epsilon=EPS, data_format=data_format, is_training=True)
    _check_grad(g, ref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=EPS, data_format=data_format, dtype_name="float32")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize(("data_format", "n", "spatial", "c"), [
    ("NCHW", 8, (33, 37), 16),  # rows of 1221 = 76 runs of 16 and 5 more, 9768 values a channel
    ("NCDHW", 3, (4, 5, 9), 24),
    ("NHWC", 4, (9, 11), 70),  # two full tiles of 32 channels (tile_sums<32>) and one of 6
])
def test_gradient_matches_the_reference_on_larger_shapes(scope, data_format, n, spatial, c, is_training, dtype):
    """Data far from 0 (mean 40, std 3): dy·(x − μ) cancels, so the per-channel sums must hold."""
    rng = _rng("channel-blocks", data_format, n, spatial, c, is_training, dtype)
    x, scale, offset, mean, variance = _inputs(rng, data_format, n, spatial, c, dtype, x_mean=40.0, x_std=3.0)
    dy = rng.normal(0.5, 1.0, x.shape).astype(x.dtype)
    if is_training:
        rs1, rs2 = _train_reserve_spaces(x, scale, offset, mean, variance, epsilon=EPS, data_format=data_format)
    else:
        rs1, rs2 = mean, variance
    g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, np.zeros(0, np.float32), epsilon=EPS,
                                 data_format=data_format, is_training=is_training, scope=scope)
    ref = bn_grad(dy, x, scale, rs1, rs2, epsilon=EPS, data_format=data_format, is_training=is_training)
    _check_grad(g, ref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=EPS, data_format=data_format, dtype_name=dtype)


# ---------------------------------------------------------------------------------------------
# The GPU's plan of channels-last data whose rows fit a block (issue 35 item 2): one launch,
# grad_once, reading dy and x once; a row more takes the three launches
# ---------------------------------------------------------------------------------------------
PASSES = ["grad_partials", "grad_finalize", "grad_input"]


def _offset_view(a: np.ndarray) -> np.ndarray:
    """a's values in a view one element into a larger buffer (not aligned to a vector access)."""
    buffer = np.empty(a.size + 1, a.dtype)
    view = buffer[1:].reshape(a.shape)
    view[...] = a
    return view


def _far_grad_inputs(rng, data_format, shape, dtype, is_training, *, offset):
    """dy, x (far from 0: mean 40, std 3, so dy·(x − μ) cancels; in views one element into their
    buffers if offset), scale and the reserve spaces (x's batch statistics when training)."""
    dt, c = _np_dtype(dtype), shape[-1] if data_format.endswith("C") else shape[1]
    x = rng.normal(40.0, 3.0, shape).astype(dt)
    dy = rng.normal(0.5, 1.0, shape).astype(dt)
    if offset:
        x, dy = _offset_view(x), _offset_view(dy)
    scale = _f32(rng.uniform(0.5, 2.0, c) * rng.choice([-1.0, 1.0], c))
    if is_training:
        rs1, rs2 = _train_reserve_spaces(x, scale, 0 * scale, 0 * scale, 0 * scale + 1, epsilon=EPS,
                                          data_format=data_format)
    else:
        rs1, rs2 = _f32(rng.normal(40.0, 1.0, c)), _f32(rng.uniform(4.0, 16.0, c))
    return dy, x, scale, rs1, rs2


def test_the_once_variant_keeps_what_a_block_holds() -> None:
    from generated.nn import fused_batch_norm_grad_v3 as module

    # 16 warps × kOnceRows (24) rows a thread keeps in registers: nn/fused_batch_norm.cu's grad_once
    assert module._PLAN.params["once_max_rows"] == 16 * 24


@pytest.mark.parametrize("plan_scope", ["cuda", "gpu-form"], indirect=True)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize(("data_format", "shape", "kernels"), [
    ("NHWC", (2, 12, 16, 33), ["grad_once"]),  # m = 384 = once_max_rows: 16 warps of 24 rows; tiles of 32 and 1
    ("NHWC", (1, 1, 385, 33), PASSES),  # m = 385: a row more
    ("NDHWC", (2, 2, 2, 2, 70), ["grad_once"]),  # m = 16: a warp a row; tiles of 32, 32 and 6
    ("NHWC", (1, 1, 17, 5), ["grad_once"]),  # m = 17: warp 0 keeps 2 rows, the others 1
    ("NHWC", (1, 1, 15, 40), ["grad_once"]),  # m = 15: 15 warps
    ("NHWC", (7, 3, 5, 3), ["grad_once"]),  # m = 105: 7 rows for warps 0-8, 6 for the rest
    ("NCHW", (1, 4, 2, 3), PASSES),  # channels-first: never
])
def test_the_gpu_plan_reads_channels_last_rows_once_where_they_fit_a_block(plan_scope, data_format, shape, kernels,
                                                                             is_training, dtype):
    """Data far from 0 (mean 40, std 3: dy·(x − μ) cancels), inputs in views one element into their
    buffers, outputs poisoned; the launches recorded; a second call gives the same bits."""
    from codegen.runtime.launches import record_launches

    rng = _rng("once", data_format, shape, is_training, dtype)
    dy, x, scale, rs1, rs2 = _far_grad_inputs(rng, data_format, shape, dtype, is_training, offset=True)
    with record_launches(plan_scope.backend) as launches:
        g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, np.zeros(0, np.float32), epsilon=EPS,
                                     data_format=data_format, is_training=is_training, scope=plan_scope)
    assert [launch.kernel for launch in launches] == kernels
    ref = bn_grad(dy, x, scale, rs1, rs2, epsilon=EPS, data_format=data_format, is_training=is_training)
    _check_grad(g, ref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=EPS, data_format=data_format, dtype_name=dtype)
    again = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, np.zeros(0, np.float32), epsilon=EPS,
                                     data_format=data_format, is_training=is_training, scope=plan_scope)
    for name in ("x_backprop", "scale_backprop", "offset_backprop"):
        np.testing.assert_array_equal(np.asarray(getattr(again, name)).view(np.uint8),
                                      np.asarray(getattr(g, name)).view(np.uint8), err_msg=name)


@pytest.mark.parametrize(("launch_plan", "data_format", "shape", "kernels"), [
    ("cuda", "NHWC", (2, 12, 16, 33), ["grad_once"]),  # m = 384: one launch, its sums in shared memory
    ("cuda", "NDHWC", (2, 2, 2, 2, 70), ["grad_once"]),
    ("cuda", "NHWC", (1, 1, 385, 33), PASSES),
    ("cuda", "NCHW", (1, 4, 2, 3), PASSES),
    ("cpu", "NCHW", (2, 16, 3, 5), ["grad_channels"]),  # a block per channel, its sums in registers
    ("cpu", "NHWC", (2, 3, 5, 16), ["grad_partials_sliced", "grad_finalize", "grad_input"]),
])
def test_only_the_three_launches_get_the_partials_and_coefficients(monkeypatch, launch_plan, data_format, shape,
                                                                   kernels):
    """The scratch (partials [splits, C, 2], coeffs [3, C]) is what grad_partials* hands grad_finalize
    and grad_finalize hands grad_input: a plan of one launch (grad_once, grad_channels) allocates none."""
    from codegen.runtime.launches import record_launches

    monkeypatch.setenv("OPGEN_NATIVE", "0")  # the wrapper's own allocations
    scope = Scope("cpu", launch_plan=launch_plan)
    allocated: list[tuple[tuple[int, ...], str]] = []
    empty = scope.backend.empty

    def counted(shape, dtype):  # the backend's own empty, its requests noted
        allocated.append((tuple(shape), dtype))
        return empty(shape, dtype)

    monkeypatch.setattr(scope.backend, "empty", counted)
    rng = _rng("scratch", launch_plan, data_format, shape)
    dy, x, scale, rs1, rs2 = _far_grad_inputs(rng, data_format, shape, "float32", True, offset=False)
    with record_launches(scope.backend) as launches:
        g = fused_batch_norm_grad_v3(dy, x, scale, rs1, rs2, np.zeros(0, np.float32), epsilon=EPS,
                                     data_format=data_format, scope=scope)
    assert [launch.kernel for launch in launches] == kernels
    c = shape[-1] if data_format.endswith("C") else shape[1]
    assert allocated[:5] == [(shape, "float32"), ((c,), "float32"), ((c,), "float32"), ((0,), "float32"),
                             ((0,), "float32")]  # the outputs
    (partials, _), (coeffs, _) = allocated[5:]
    if len(kernels) == 1:
        assert (partials, coeffs) == ((0, c, 2), (0, c))
    else:
        assert partials[0] >= 1 and partials[1:] == (c, 2) and coeffs == (3, c)
    ref = bn_grad(dy, x, scale, rs1, rs2, epsilon=EPS, data_format=data_format, is_training=True)
    _check_grad(g, ref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=EPS, data_format=data_format, dtype_name="float32")


# ---------------------------------------------------------------------------------------------
# The GPU's three launches over 16-bit channels-last data (issue 35 item 2): a lane of grad_partials
# sums two adjacent channels (one 4-byte access per operand where aligned), in a block of half the
# threads, so each channel's sums keep the order of the float32 kernel's lane per channel
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("plan_scope", ["cuda", "gpu-form"], indirect=True)
@pytest.mark.parametrize("dtype", ["float16", pytest.param("bfloat16", marks=BF16_SKIP)])
@pytest.mark.parametrize("is_training", TRAINING)
@pytest.mark.parametrize("aligned", [True, False], ids=["aligned", "offset-view"])
@pytest.mark.parametrize(("data_format", "shape"), [
    ("NHWC", (1, 1, 385, 34)),  # m = 385: one split, a row past grad_once; even C, tiles of 32 and 2
    ("NHWC", (1, 5, 205, 33)),  # m = 1025: two splits, the second of one row; odd C (the last channel alone)
    ("NDHWC", (2, 2, 10, 20, 6)),  # m = 800: one tile of 6 channels
    ("NHWC", (1, 1, 400, 1)),  # C = 1: a lane with no partner
])
def test_grad_partials_pairs_channels_of_16_bit_rows_in_the_float32_order(plan_scope, data_format, shape, aligned,
                                                                          is_training, dtype):
    """Against float64; and bit for bit the float32 call on the same values (its sums), rounded once
    (x_backprop): the pairs add each channel's rows as the float32 kernel does, aligned or not. C = 34
    and 6 (even, not whole runs of 4) also take grad_input's pairs (one 4-byte load and store)."""
    from codegen.runtime.launches import record_launches

    rng = _rng("pairs", data_format, shape, is_training, dtype)
    dy, x, scale, rs1, rs2 = _far_grad_inputs(rng, data_format, shape, dtype, is_training, offset=not aligned)
    dt = _np_dtype(dtype)
    calls = {}
    for name, (a, b) in {"16-bit": (dy, x), "float32": (_f32(dy), _f32(x))}.items():
        with record_launches(plan_scope.backend) as launches:
            calls[name] = fused_batch_norm_grad_v3(a, b, scale, rs1, rs2, np.zeros(0, np.float32), epsilon=EPS,
                                                   data_format=data_format, is_training=is_training,
                                                   scope=plan_scope)
        blocks = {launch.kernel: launch.threads for launch in launches}
        assert list(blocks) == PASSES
        calls[name + " block"] = blocks["grad_partials"]
    assert calls["16-bit block"] * 2 == calls["float32 block"] == 256
    g, g32 = calls["16-bit"], calls["float32"]
    ref = bn_grad(dy, x, scale, rs1, rs2, epsilon=EPS, data_format=data_format, is_training=is_training)
    _check_grad(g, ref, dy=dy, x=x, rs1=rs1, rs2=rs2, epsilon=EPS, data_format=data_format, dtype_name=dtype)
    for name in ("scale_backprop", "offset_backprop"):
        np.testing.assert_array_equal(np.asarray(getattr(g, name)).view(np.uint32),
                                      np.asarray(getattr(g32, name)).view(np.uint32), err_msg=name)
    np.testing.assert_array_equal(np.asarray(g.x_backprop).view(np.uint16),
                                  np.asarray(g32.x_backprop).astype(dt).view(np.uint16), err_msg="x_backprop")
