"""The backends' GEMM step over flat row-major buffers, written once: each backend passes its own
matmul (numpy.matmul on the cpu, cupy.matmul, i.e. cuBLAS, on the GPU)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple


class GemmSizes(NamedTuple):
    """A GEMM step's sizes, in the order of a recorded plan's (plan.Gemm.sizes) and of gemm_into's
    arguments after the buffers: out[m, n] (+)= op(a)·op(b) (beta 1 adds, 0 overwrites) at element
    offsets, a strided batch of `batch` products (batch_offsets)."""

    m: int
    n: int
    k: int
    trans_a: bool
    trans_b: bool
    beta: int
    a_offset: int = 0
    b_offset: int = 0
    out_offset: int = 0
    batch: int = 1
    a_stride: int = 0
    b_stride: int = 0
    out_stride: int = 0


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


def batch_offsets(a_offset: int, b_offset: int, out_offset: int, batch: int = 1, a_stride: int = 0,
                  b_stride: int = 0, out_stride: int = 0) -> Iterator[tuple[int, int, int]]:
    """The (a, b, out) offsets of each product of a strided batch, in order: product i at each
    offset plus i times its stride (element offsets, or byte addresses with byte strides). The
    backends that have no batched call (NumPy, the cpu's BLAS, the replay's records) run these one by
    one; cuBLAS runs the batch in one call, else these (cublas_gemm.DirectGemm._call)."""
    if batch < 0:
        raise ValueError(f"gemm: a batch of {batch} products")
    for i in range(batch):
        yield a_offset + i * a_stride, b_offset + i * b_stride, out_offset + i * out_stride


def gemm_into(matmul: Callable[..., Any], a: Any, b: Any, out: Any, m: int, n: int, k: int, trans_a: bool,
              trans_b: bool, beta: int, a_offset: int, b_offset: int, out_offset: int, batch: int = 1,
              a_stride: int = 0, b_stride: int = 0, out_stride: int = 0) -> None:
    """out[m, n] (+)= op(a)·op(b) (beta 1 adds, 0 overwrites) on views of the buffers: no copies of
    a or b. k == 0 is an empty sum. A strided batch runs product by product (batch_offsets)."""
    if batch != 1:
        for offsets in batch_offsets(a_offset, b_offset, out_offset, batch, a_stride, b_stride, out_stride):
            gemm_into(matmul, a, b, out, m, n, k, trans_a, trans_b, beta, *offsets)
        return
    if m == 0 or n == 0:
        return
    lhs = matrix_view(a, a_offset, (k, m) if trans_a else (m, k))
    rhs = matrix_view(b, b_offset, (n, k) if trans_b else (k, n))
    dst = matrix_view(out, out_offset, (m, n))
    lhs, rhs = (lhs.T if trans_a else lhs), (rhs.T if trans_b else rhs)
    if k == 0:
        if not beta:
            dst.fill(0)
    elif beta:
        dst += matmul(lhs, rhs)
    else:
        matmul(lhs, rhs, out=dst)
