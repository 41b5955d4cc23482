"""The cpu backend's strided-batch GEMM step (emu/rt/gemm.cpp): its products, independent, run at
once on the pool's threads (both directions of a bidirectional RNN's step), each on one BLAS thread,
so that the bits are those of each product alone on one BLAS thread, whatever OPGEN_HOST_THREADS.
The shape is the drop-in LSTM's per-step h·Rᵀ (B = 32, H = 256, both directions): large enough
for OpenBLAS to thread a product where it may."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from codegen.runtime.cpu import CpuBackend
from codegen.runtime.host import blas
from codegen.runtime.host.libraries import _RUNTIME, _runtime_api

M, N, K, BATCH = 32, 1024, 256, 2  # out[i] = h[i]·R[i]ᵀ: a [32, 256] by a [1024, 256] per direction

pytestmark = pytest.mark.skipif(blas.find() is None, reason="no BLAS found: the GEMM steps are NumPy's")


def _wakes() -> int:
    _runtime_api()
    fn = _RUNTIME["lib"].opgen_rt_pool_wakes
    fn.restype = ctypes.c_uint64
    return int(fn())


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """The BLAS on one thread (OpenBLAS's process-wide setting), for the reference products."""
    found = blas.find()
    assert found is not None
    names = [("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
             ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
             ("openblas_get_num_threads", "openblas_set_num_threads")]
    pair = next(((getattr(found.library, g), getattr(found.library, s)) for g, s in names
                 if hasattr(found.library, g) and hasattr(found.library, s)), None)
    if pair is None:
        pytest.skip("the BLAS has no thread-count control")
    get, set_ = pair
    get.restype = ctypes.c_int
    set_.argtypes = [ctypes.c_int]
    before = get()
    set_(1)
    try:
        yield
    finally:
        set_(before)


def _operands(beta: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(35)
    a = rng.standard_normal(BATCH * M * K + 5).astype(np.float32)
    b = rng.standard_normal(BATCH * N * K + 3).astype(np.float32)
    out = rng.standard_normal(BATCH * M * N + 7).astype(np.float32) if beta else np.full(BATCH * M * N + 7, np.nan,
                                                                                          np.float32)
    return a, b, out


def _batch(backend: CpuBackend, a: np.ndarray, b: np.ndarray, out: np.ndarray, beta: int) -> None:
    backend.gemm(a, b, out, M, N, K, False, True, beta, 5, 3, 7, BATCH, M * K, N * K, M * N)


@pytest.mark.parametrize("threads", ["1", "2"])
@pytest.mark.parametrize("beta", [0, 1])
def test_each_product_of_a_strided_batch_is_the_blas_on_one_thread(monkeypatch: pytest.MonkeyPatch, threads: str,
                                                                   beta: int) -> None:
    monkeypatch.setenv("OPGEN_HOST_THREADS", threads)
    a, b, out = _operands(beta)
    expected = out.copy()
    with _one_blas_thread():
        for i in range(BATCH):  # each product alone, in a step of its own
            assert blas.run(a, b, expected, M, N, K, False, True, beta, 5 + i * M * K, 3 + i * N * K, 7 + i * M * N)
    _batch(CpuBackend(), a, b, out, beta)
    np.testing.assert_array_equal(out, expected)  # every bit; the 7 elements before the windows untouched


def test_a_strided_batch_runs_its_products_on_the_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """With two launch threads the batch wakes the pool's helper once per step; with one, never;
    a single product (batch 1) never does."""
    backend = CpuBackend()
    a, b, out = _operands(0)
    monkeypatch.setenv("OPGEN_HOST_THREADS", "2")
    before = _wakes()
    for _ in range(3):
        _batch(backend, a, b, out, 0)
    assert _wakes() - before == 3
    before = _wakes()
    backend.gemm(a, b, out, M, N, K, False, True, 0, 0, 0, 0)
    assert _wakes() == before
    monkeypatch.setenv("OPGEN_HOST_THREADS", "1")
    _batch(backend, a, b, out, 0)
    assert _wakes() == before
