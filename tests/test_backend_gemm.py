"""backend.gemm: out[m, n] (+)= op(a)·op(b) over flat C-contiguous buffers at element offsets.

Checked against float64 NumPy on the cpu backend (CI), on the cuda backend's direct cuBLAS path
over a stand-in CuPy (CI) and, where CuPy and a GPU are present, on the cuda backend (the same
cases, marked gpu). The output buffer is poisoned with NaN (beta 0 must
overwrite every element of the window, beta 1 must add to what is there) and elements outside the
window must stay untouched.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fake_cupy
import numpy as np
import pytest

from codegen.runtime.cpu import CpuBackend

# rtol/atol relative to the scale of the exact result (sum of |terms| per element).
TOL = {"float64": 1e-12, "float32": 1e-5, "float16": 2e-3}
DTYPES = list(TOL)


@pytest.fixture(params=["cpu", "fake-cuda-cublas", pytest.param("cuda", marks=pytest.mark.gpu)])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """The cpu backend; the cuda backend's direct cuBLAS path on a stand-in CuPy whose cuBLAS is
    column-major NumPy (the row-major → column-major mapping, checked in CI); the real cuda
    backend where a GPU is present."""
    if request.param == "cpu":
        yield CpuBackend()
    elif request.param == "fake-cuda-cublas":
        fake = fake_cupy.install(monkeypatch, tmp_path, fake_cupy.FakeCublas())
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # a failed self-check would fall back to matmul
            yield fake.backend
    else:
        from codegen.runtime.cuda import cuda_backend

        yield cuda_backend(0)


def host(value: Any) -> np.ndarray:
    return value.get() if hasattr(value, "__cuda_array_interface__") else np.asarray(value)


def flat(backend: Any, data: np.ndarray) -> Any:
    """A device buffer holding a copy of `data` (the cpu backend adopts NumPy arrays without one)."""
    return backend.adopt("gemm-test", "buffer", np.array(data, copy=True))


def reference(a: np.ndarray, b: np.ndarray, m: int, n: int, k: int, trans_a: bool, trans_b: bool,
              a_offset: int, b_offset: int) -> tuple[np.ndarray, np.ndarray]:
    """(exact op(a)·op(b) in float64, Σ|terms| per element: the scale of rounding errors)."""
    a64 = a.astype(np.float64)[a_offset:a_offset + m * k].reshape((k, m) if trans_a else (m, k))
    b64 = b.astype(np.float64)[b_offset:b_offset + k * n].reshape((n, k) if trans_b else (k, n))
    lhs, rhs = (a64.T if trans_a else a64), (b64.T if trans_b else b64)
    return lhs @ rhs, np.abs(lhs) @ np.abs(rhs)


def run(backend: Any, dtype: str, m: int, n: int, k: int, trans_a: bool = False, trans_b: bool = False,
        beta: int = 0, a_offset: int = 0, b_offset: int = 0, out_offset: int = 0, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(a_offset + m * k + 3).astype(dtype)
    b = rng.standard_normal(b_offset + k * n + 2).astype(dtype)
    size = out_offset + m * n + 4
    before = rng.standard_normal(size).astype(dtype) if beta else np.full(size, np.nan, dtype)
    out = flat(backend, before)
    backend.gemm(flat(backend, a), flat(backend, b), out, m, n, k, trans_a, trans_b, beta,
                 a_offset, b_offset, out_offset)
    got = host(out)
    exact, scale = reference(a, b, m, n, k, trans_a, trans_b, a_offset, b_offset)
    window = slice(out_offset, out_offset + m * n)
    if beta:
        exact = exact + before[window].astype(np.float64).reshape(m, n)
        scale = scale + np.abs(before[window].astype(np.float64)).reshape(m, n)
    result = got[window].astype(np.float64).reshape(m, n)
    assert not np.isnan(result).any(), "gemm left elements of the output window unwritten"
    tol = TOL[dtype]
    err = np.abs(result - exact)
    limit = tol * (scale + 1e-30) + (np.abs(exact) * tol if dtype == "float16" else 0)
    assert (err <= limit).all(), f"max error {err.max():.3g}, worst ratio {(err / (limit + 1e-300)).max():.3g}"
    outside = np.concatenate([got[:out_offset], got[out_offset + m * n:]])
    expected_outside = np.concatenate([before[:out_offset], before[out_offset + m * n:]])
    np.testing.assert_array_equal(outside, expected_outside)  # NaN == NaN here: untouched


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trans_a", [False, True], ids=["a", "aT"])
@pytest.mark.parametrize("trans_b", [False, True], ids=["b", "bT"])
def test_transposes(backend: Any, dtype: str, trans_a: bool, trans_b: bool) -> None:
    run(backend, dtype, 5, 7, 3, trans_a, trans_b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta", [0, 1])
def test_offsets(backend: Any, dtype: str, beta: int) -> None:
    run(backend, dtype, 4, 6, 5, beta=beta, a_offset=7, b_offset=3, out_offset=11, seed=1)
    run(backend, dtype, 3, 2, 9, True, True, beta=beta, a_offset=1, b_offset=13, out_offset=2, seed=2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_beta_one_accumulates(backend: Any, dtype: str) -> None:
    run(backend, dtype, 6, 5, 4, beta=1, seed=3)
    run(backend, dtype, 6, 5, 4, True, False, beta=1, seed=4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_larger_and_odd(backend: Any, dtype: str) -> None:
    run(backend, dtype, 33, 65, 47, False, True, beta=0, out_offset=5, seed=5)
    run(backend, dtype, 17, 1, 129, True, False, beta=1, a_offset=3, seed=6)


def test_gru_style_split_product(backend: Any) -> None:
    """[x | h]·w as x·w[:I] + h·w[I:] (how GRUBlockCell avoids the concatenation)."""
    rng = np.random.default_rng(7)
    batch, inp, cell = 3, 4, 5
    x = rng.standard_normal((batch, inp)).astype(np.float32)
    h = rng.standard_normal((batch, cell)).astype(np.float32)
    w = rng.standard_normal((inp + cell, 2 * cell)).astype(np.float32)
    out = flat(backend, np.full((batch, 2 * cell), np.nan, np.float32))
    xd, hd, wd = flat(backend, x), flat(backend, h), flat(backend, w)
    backend.gemm(xd, wd, out, batch, 2 * cell, inp, False, False, 0)
    backend.gemm(hd, wd, out, batch, 2 * cell, cell, False, False, 1, 0, inp * 2 * cell, 0)
    expected = np.concatenate([x, h], axis=1).astype(np.float64) @ w.astype(np.float64)
    np.testing.assert_allclose(host(out), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("beta", [0, 1])
def test_k_zero(backend: Any, beta: int) -> None:
    start = np.arange(6, dtype=np.float32)
    out = flat(backend, start if beta else np.full(6, np.nan, np.float32))
    empty = flat(backend, np.zeros(0, np.float32))
    backend.gemm(empty, empty, out, 2, 3, 0, False, False, beta)
    np.testing.assert_array_equal(host(out), start if beta else np.zeros(6, np.float32))


def test_m_or_n_zero_touches_nothing(backend: Any) -> None:
    out = flat(backend, np.full(4, 7, np.float32))
    a = flat(backend, np.ones(6, np.float32))
    backend.gemm(a, a, out, 0, 2, 3, False, False, 0)
    backend.gemm(a, a, out, 2, 0, 3, False, False, 0)
    np.testing.assert_array_equal(host(out), np.full(4, 7, np.float32))


@pytest.mark.parametrize("which", ["a", "b", "out"])
def test_window_past_the_buffer_raises(backend: Any, which: str) -> None:
    a = flat(backend, np.ones(6, np.float32))
    b = flat(backend, np.ones(6, np.float32))
    out = flat(backend, np.zeros(4, np.float32))
    offsets = {"a": (1, 0, 0), "b": (0, 1, 0), "out": (0, 0, 1)}[which]
    with pytest.raises(ValueError, match="does not fit in a buffer"):
        backend.gemm(a, b, out, 2, 2, 3, False, False, 0, *offsets)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta", [0, 1])
def test_a_strided_batch_is_each_product_at_its_strides(backend: Any, dtype: str, beta: int) -> None:
    """batch products in one call, product i at each offset plus i times its stride: a shared a
    (stride 0, as CudnnRNNV3's input projection of both directions), b and out further on each
    time, against the products one by one; the elements between and after the windows untouched."""
    rng = np.random.default_rng(8)
    m, n, k, batch = 3, 5, 4, 3
    a_offset, b_offset, out_offset, b_stride, out_stride = 2, 1, 4, n * k + 3, m * n + 2
    a = rng.standard_normal(a_offset + m * k).astype(dtype)
    b = rng.standard_normal(b_offset + (batch - 1) * b_stride + n * k + 1).astype(dtype)
    size = out_offset + (batch - 1) * out_stride + m * n + 2
    before = rng.standard_normal(size).astype(dtype) if beta else np.full(size, np.nan, dtype)
    out = flat(backend, before)
    backend.gemm(flat(backend, a), flat(backend, b), out, m, n, k, False, True, beta, a_offset, b_offset, out_offset,
                 batch, 0, b_stride, out_stride)
    got, expected = host(out).astype(np.float64), before.astype(np.float64)
    for i in range(batch):
        exact, scale = reference(a, b, m, n, k, False, True, a_offset, b_offset + i * b_stride)
        window = slice(out_offset + i * out_stride, out_offset + i * out_stride + m * n)
        if beta:
            exact, scale = exact + expected[window].reshape(m, n), scale + np.abs(expected[window]).reshape(m, n)
        err = np.abs(got[window].reshape(m, n) - exact)
        assert (err <= TOL[dtype] * (scale + np.abs(exact))).all(), f"product {i}: max error {err.max():.3g}"
        expected[window] = got[window]  # (checked: the rest must be untouched)
    np.testing.assert_array_equal(got, expected)  # NaN == NaN here


def test_a_strided_batch_past_the_buffer_raises(backend: Any) -> None:
    """The last product of a batch must fit too (its first does here)."""
    a, b = flat(backend, np.ones(6, np.float32)), flat(backend, np.ones(6, np.float32))
    out = flat(backend, np.zeros(6, np.float32))
    with pytest.raises(ValueError, match="does not fit in a buffer"):
        backend.gemm(a, b, out, 2, 1, 3, False, False, 0, 0, 0, 0, 2, 0, 0, 5)


class _NoStridedBatch(fake_cupy.FakeCublas):
    """A cuBLAS binding whose strided batch fails (an older CuPy without gemmStridedBatchedEx, say)."""

    def gemmStridedBatchedEx(self, *args: int) -> None:
        raise AttributeError("module 'cublas' has no attribute 'gemmStridedBatchedEx'")


def test_without_the_strided_batch_a_batch_runs_product_by_product(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    """The direct path stays on (single cuBLAS calls, one per product), with a warning naming why;
    the results are the products'."""
    cublas = _NoStridedBatch()
    backend = fake_cupy.install(monkeypatch, tmp_path, cublas).backend
    a, b = np.arange(12, dtype=np.float32), np.arange(16, dtype=np.float32)
    out = flat(backend, np.full(8, np.nan, np.float32))
    with pytest.warns(RuntimeWarning, match="strided batch disabled for float32 .*product by product"):
        backend.gemm(flat(backend, a), flat(backend, b), out, 2, 2, 3, False, True, 0, 0, 0, 0, 2, 6, 8, 4)
    expected = [a[6 * i:6 * i + 6].reshape(2, 3) @ b[8 * i:8 * i + 6].reshape(2, 3).T for i in range(2)]
    np.testing.assert_allclose(host(out), np.concatenate([e.ravel() for e in expected]))
    assert cublas.calls[-2:] == ["sgemm", "sgemm"]
