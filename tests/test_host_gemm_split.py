"""A GEMM step where the process's BLAS runs several threads (emu/rt/gemm.cpp): it runs with one BLAS
thread, a large one split over the emulation pool by whole rows or columns, so that the BLAS's own
workers, which spin for a while after every threaded call, do not hold the cores the pool's kernel
launches need between a recurrent op's per-step products. Checked: the results (poisoned output,
float64 NumPy reference) are bit for bit those of one BLAS thread at the shapes the drop-in LSTM and
GRU run; a large product uses the pool and a small one does not, and a product of one row or one
column (a matrix-vector product) runs in fixed parts over the pool; the BLAS's thread count is what it
was after the call; at one BLAS thread the pool is not used."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from codegen.runtime.host import blas
from codegen.runtime.host.libraries import _RUNTIME

FOUND = blas.find()


THREADS = FOUND.thread_count_functions() if FOUND is not None else None  # the BLAS's (get, set)
pytestmark = pytest.mark.skipif(THREADS is None, reason="needs NumPy's OpenBLAS (its thread-count functions)")


@contextmanager
def blas_threads(n: int) -> Iterator[None]:
    assert THREADS is not None
    get, put = THREADS
    before = get()
    put(n)
    try:
        yield
    finally:
        put(before)


def _blas_threads_now() -> int:
    assert THREADS is not None
    return int(THREADS[0]())


def _wakes() -> int:
    blas.gemm_function()  # (loads the runtime)
    fn = _RUNTIME["lib"].opgen_rt_pool_wakes
    fn.restype = ctypes.c_uint64
    return int(fn())


def _gemm(dtype: Any, m: int, n: int, k: int, trans_a: bool, trans_b: bool, beta: int,
          seed: int = 0) -> tuple[Any, Any, Any, Any]:
    """(a, b, out before, out after) of one product at offsets 3, 5 and 7 through opgen_rt_gemm."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(3 + m * k).astype(dtype)
    b = rng.standard_normal(5 + k * n).astype(dtype)
    before = rng.standard_normal(7 + m * n + 2).astype(dtype) if beta else np.full(7 + m * n + 2, np.nan, dtype)
    out = before.copy()
    assert blas.run(a, b, out, m, n, k, trans_a, trans_b, beta, 3, 5, 7)
    return a, b, before, out


def _check_against_numpy(dtype: Any, m: int, n: int, k: int, trans_a: bool, trans_b: bool, beta: int,
                         got: tuple[Any, Any, Any, Any]) -> None:
    a, b, before, out = got
    a64 = a[3:].astype(np.float64).reshape((k, m) if trans_a else (m, k))
    b64 = b[5:].astype(np.float64).reshape((n, k) if trans_b else (k, n))
    lhs, rhs = (a64.T if trans_a else a64), (b64.T if trans_b else b64)
    exact = lhs @ rhs + (before[7:7 + m * n].astype(np.float64).reshape(m, n) if beta else 0)
    scale = np.abs(lhs) @ np.abs(rhs) + (np.abs(before[7:7 + m * n]).astype(np.float64).reshape(m, n) if beta else 0)
    result = out[7:7 + m * n].astype(np.float64).reshape(m, n)
    assert not np.isnan(result).any(), "a part of the product was left unwritten"
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert (np.abs(result - exact) <= tol * scale).all()
    np.testing.assert_array_equal(out[:7], before[:7])  # NaN == NaN here: untouched
    np.testing.assert_array_equal(out[7 + m * n:], before[7 + m * n:])


# The drop-in LSTM's products (T = 50, B = 32, I = H = 256, bidirectional; gate width 1024, its bias
# gradients 1ᵀ·dG a row times a matrix), a split by columns whose last part is not a multiple of 64 wide,
# and a matrix times a column in parts by rows, the last one short.
SHAPES = [(32, 1024, 256, False, True), (32, 256, 1024, False, False), (1600, 1024, 512, False, True),
          (1024, 256, 1600, True, False), (1600, 512, 1024, False, False), (40, 1100, 100, False, False),
          (1, 1024, 1600, False, False), (1300, 1, 700, True, False)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[:3])) + "".join(
    t for t, on in zip(("tA", "tB"), s[3:], strict=True) if on))
@pytest.mark.parametrize("beta", [0, 1])
def test_a_split_product_is_one_blas_threads_bit_for_bit(dtype: Any, shape: tuple, beta: int) -> None:
    m, n, k, trans_a, trans_b = shape
    with blas_threads(1):
        wakes = _wakes()
        one = _gemm(dtype, m, n, k, trans_a, trans_b, beta)
        assert _wakes() == wakes, "a product at one BLAS thread woke the pool"
    with blas_threads(2):
        wakes = _wakes()
        two = _gemm(dtype, m, n, k, trans_a, trans_b, beta)
        assert _wakes() > wakes, "a large product at two BLAS threads was not split over the pool"
        assert _blas_threads_now() == 2, "the BLAS's thread count was not put back"
    _check_against_numpy(dtype, m, n, k, trans_a, trans_b, beta, two)
    assert two[3].tobytes() == one[3].tobytes()


def test_a_small_product_is_not_split() -> None:
    with blas_threads(2):
        wakes = _wakes()
        got = _gemm(np.float32, 64, 64, 64, False, False, 0)
        assert _wakes() == wakes
        assert _blas_threads_now() == 2
    _check_against_numpy(np.float32, 64, 64, 64, False, False, 0, got)
