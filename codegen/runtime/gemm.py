"""The backends' GEMM step over flat row-major buffers, written once: each backend passes its own
matmul (numpy.matmul on the cpu, cupy.matmul, i.e. cuBLAS, on the GPU)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

# The cpu backend's h·Rᵀ (an RNN's recurrent step: a few rows against a wide weight matrix stored
# row-major) is computed as R·hᵀ and transposed into place for at most NARROW_ROWS rows against at
# least NARROW_MIN_WORK weights: OpenBLAS's AVX-512 (SkylakeX) kernels run that product 1.2-2.3x
# faster, its AVX2 (Haswell) kernels about as fast (0.8-1.07x, the copy included; bench/RESULTS.md,
# "issue 21 — the LSTM goals"). Below that size the extra copy costs more than it saves.
NARROW_ROWS = 64
NARROW_MIN_WORK = 1 << 16


def check_window(buffer: Any, offset: int, rows: int, cols: int) -> None:
    """A [rows, cols] matrix at an element offset must lie inside the buffer, so that a wrong
    launch plan raises instead of reading or writing past it."""
    if offset < 0 or offset + rows * cols > buffer.size:
        raise ValueError(f"gemm: a [{rows}, {cols}] matrix at offset {offset} does not fit in a buffer "
                         f"of {buffer.size} elements")


def matrix_view(buffer: Any, offset: int, shape: tuple[int, int]) -> Any:
    """A row-major [rows, cols] view of a flat buffer at an element offset, bounds-checked."""
    check_window(buffer, offset, *shape)
    return buffer.reshape(-1)[offset:offset + shape[0] * shape[1]].reshape(shape)


def gemm_into(matmul: Callable[..., Any], a: Any, b: Any, out: Any, m: int, n: int, k: int, trans_a: bool,
              trans_b: bool, beta: int, a_offset: int, b_offset: int, out_offset: int) -> None:
    """out[m, n] (+)= op(a)·op(b) (beta 1 adds, 0 overwrites) on views of the buffers: no copies of
    a or b. k == 0 is an empty sum."""
    if m == 0 or n == 0:
        return
    lhs = matrix_view(a, a_offset, (k, m) if trans_a else (m, k))
    rhs = matrix_view(b, b_offset, (n, k) if trans_b else (k, n))
    dst = matrix_view(out, out_offset, (m, n))
    lhs, rhs = (lhs.T if trans_a else lhs), (rhs.T if trans_b else rhs)
    if _narrow_times_transposed(matmul, m, n, k, trans_a, trans_b, dst):
        product = matmul(rhs.T, lhs.T)  # [n, m]: op(b)ᵀ·op(a)ᵀ, both operands as stored
        if beta:
            dst += product.T
        else:
            np.copyto(dst, product.T)
    elif k == 0:
        if not beta:
            dst.fill(0)
    elif beta:
        dst += matmul(lhs, rhs)
    else:
        matmul(lhs, rhs, out=dst)


def _narrow_times_transposed(matmul: Callable[..., Any], m: int, n: int, k: int, trans_a: bool, trans_b: bool,
                             dst: Any) -> bool:
    """Whether out = a·bᵀ is the narrow recurrent shape that NumPy's BLAS (float32/float64: the
    types it runs in BLAS) computes faster as (b·aᵀ)ᵀ."""
    return (matmul is np.matmul and trans_b and not trans_a and m <= NARROW_ROWS and n * k >= NARROW_MIN_WORK
            and dst.dtype in (np.float32, np.float64))
