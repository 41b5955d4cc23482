"""GEMM steps straight through cuBLAS, for the cuda backend.

A GEMM step through `cupy.matmul` builds nine CuPy array objects (a flat view, a window and a
reshape per operand) and goes through matmul's dispatch: tens of microseconds of Python per
product, which an RNN pays at every time step. Here a step is one call of CuPy's thin cuBLAS
wrapper on raw device pointers, on the current stream, and `beta` 1 accumulates in place.

Row-major C[m, n] = op(A)·op(B) is, in cuBLAS's column-major terms, Cᵀ[n, m] = op(B)ᵀ·op(A)ᵀ: a
row-major [r, c] matrix read column-major is its transpose, [c, r] with leading dimension c. So
cuBLAS gets B first and A second, each transposed exactly when the step says so. A strided batch
(the step's `batch` products, each offset moving by its stride) is one cublasGemmStridedBatchedEx
call, B's stride first likewise; where that call fails its own self-check (a binding without it, say),
a strided batch goes product by product through the single calls, with a warning.

The path checks itself once per dtype against cupy.matmul (CuPy's cuBLAS wrappers have changed
signatures between versions); a failure or mismatch turns it off for that dtype, with a warning,
and GEMM steps go through cupy.matmul as before.

cuBLAS takes 32-bit dimensions: a step with a dimension or leading dimension above 2**31-1 is a
ValueError that says so, never ctypes' OverflowError.

Stream capture: the calls go through `cublas_library` (cuBLAS by ctypes, handles of our own),
which cuBLAS lets run inside a capture: a user's capture around an op with GEMM steps records them,
and the backend's own graphs (cuda_graph.py: `bind_stream` before the capture, then `captured`)
capture them. Where that library does not load, CuPy's binding is used, which refuses calls during
any capture (NotImplementedError; cupy.matmul too): such a step is a CudaBackendError that says so.
The self-check (which copies to the host, not allowed in a capture) waits for a step outside one.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np

from codegen.runtime.checks import dtype_name
from codegen.runtime.cublas_library import CupyHandles, OwnHandles
from codegen.runtime.cuda_cache import CudaBackendError
from codegen.runtime.gemm import GemmSizes, batch_offsets, check_window

CUBLAS_OP_N, CUBLAS_OP_T = 0, 1
CUDA_R_32F, CUDA_R_64F, CUDA_R_16F = 0, 1, 2
CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_64F = 68, 70
#: per dtype: cuBLAS's data type and compute type for the strided batch (float16: float32 arithmetic)
_BATCH_TYPES = {"float32": (CUDA_R_32F, CUBLAS_COMPUTE_32F), "float64": (CUDA_R_64F, CUBLAS_COMPUTE_64F),
                "float16": (CUDA_R_16F, CUBLAS_COMPUTE_32F)}
CUBLAS_GEMM_DEFAULT = -1
CUBLAS_INT_MAX = 2**31 - 1  # cuBLAS's (non-64-bit API) dimensions are C ints
CAPTURE_MESSAGE = ("cuda backend: a GEMM step cannot be captured into a CUDA graph: cuBLAS could not be loaded "
                   "through ctypes, and CuPy's cuBLAS binding refuses calls during stream capture; run ops with "
                   "GEMM steps (GRU, DmlRnn, CudnnRNN) outside the capture")
SELF_CHECK_IN_CAPTURE = ("cuda backend: a GEMM step cannot be captured into a CUDA graph yet: the first {dtype} "
                         "GEMM step of this device checks cuBLAS once, copying to the host, which a capture "
                         "forbids; call the op once outside the capture first")

# host scalars for alpha and beta (cuBLAS's default pointer mode reads them from host memory): the
# arrays live as long as the module, and their addresses are looked up once
_SCALAR_ARRAYS = {name: (np.ones(1, name), np.zeros(1, name)) for name in ("float32", "float64")}
_SCALARS = {name: (one.ctypes.data, zero.ctypes.data) for name, (one, zero) in _SCALAR_ARRAYS.items()}


class Strided(NamedTuple):
    """A strided batch in cuBLAS's order: the count, then the strides of its A (the step's b), B
    (the step's a) and C."""

    batch: int
    a: int
    b: int
    c: int


ONE = Strided(1, 0, 0, 0)


def strided(s: GemmSizes) -> Strided:
    """A step's strided batch (its a, b and out strides) in cuBLAS's order."""
    return Strided(s.batch, s.b_stride, s.a_stride, s.out_stride)


def check_windows(a: Any, b: Any, out: Any, s: GemmSizes) -> None:
    """Every product of the step lies in its buffers (gemm.check_window; the first and the last of a
    strided batch: the offsets move linearly)."""
    m, n, k = s.m, s.n, s.k
    for i in {0, max(s.batch - 1, 0)}:
        check_window(a, s.a_offset + i * s.a_stride, *((k, m) if s.trans_a else (m, k)))
        check_window(b, s.b_offset + i * s.b_stride, *((n, k) if s.trans_b else (k, n)))
        check_window(out, s.out_offset + i * s.out_stride, m, n)


class ColumnMajorCall(NamedTuple):
    """cuBLAS gemm arguments (after the handle) for one row-major GEMM step."""

    transa: int
    transb: int
    m: int
    n: int
    k: int
    a: int  # device pointers
    lda: int
    b: int
    ldb: int
    c: int
    ldc: int


def column_major_call(a_ptr: int, b_ptr: int, c_ptr: int, itemsize: int, s: GemmSizes) -> ColumnMajorCall:
    """The cuBLAS call computing row-major out[m, n] = op(a)·op(b) (see the module docstring) for the
    step's first product."""
    m, n, k, trans_a, trans_b = s.m, s.n, s.k, s.trans_a, s.trans_b
    a_offset, b_offset, out_offset = s.a_offset, s.b_offset, s.out_offset
    call = ColumnMajorCall(
        transa=CUBLAS_OP_T if trans_b else CUBLAS_OP_N,
        transb=CUBLAS_OP_T if trans_a else CUBLAS_OP_N,
        m=n, n=m, k=k,
        a=b_ptr + b_offset * itemsize, lda=max(1, k if trans_b else n),
        b=a_ptr + a_offset * itemsize, ldb=max(1, m if trans_a else k),
        c=c_ptr + out_offset * itemsize, ldc=max(1, n))
    dims = {"m": m, "n": n, "k": k, "lda": call.lda, "ldb": call.ldb, "ldc": call.ldc}
    too_big = {name: value for name, value in dims.items() if value > CUBLAS_INT_MAX}
    if too_big:
        raise ValueError(f"cuda backend: GEMM step [m={m}, n={n}, k={k}]: cuBLAS takes dimensions of at most "
                         f"2**31-1 = {CUBLAS_INT_MAX}, got " + ", ".join(f"{n_}={v}" for n_, v in too_big.items()))
    return call


class DirectGemm:
    """GEMM steps of one device as single cuBLAS calls (float32, float64, float16 with float32
    accumulation), each dtype enabled once it has checked itself against `cp.matmul`."""

    def __init__(self, cp: Any, cublas: Any, handles: OwnHandles | CupyHandles) -> None:
        self._cp, self._cublas, self._handles = cp, cublas, handles
        self._ok: dict[str, bool] = {}
        self._batched: dict[str, bool] = {}  # per dtype: the strided batch in one call (its self-check passed)

    def run(self, a: Any, b: Any, out: Any, s: GemmSizes) -> bool:
        """Run the step and return True, or return False (nothing done) where this path does not
        apply: another dtype, a non-contiguous buffer, or a dtype whose self-check failed."""
        if a.dtype != out.dtype or b.dtype != out.dtype or not (
                a.flags.c_contiguous and b.flags.c_contiguous and out.flags.c_contiguous):
            return False
        dtype = dtype_name(out)  # memoised: numpy's dtype.name is slow
        ok = self._ok.get(dtype)
        if ok is None:
            if self._capturing():  # the self-check copies to the host: not now
                raise CudaBackendError(SELF_CHECK_IN_CAPTURE.format(dtype=dtype))
            ok = self._ok[dtype] = self._self_check(dtype)
        if not ok:
            return False
        self._step(dtype, a, b, out, s)
        return True

    def ready(self, dtype: str) -> bool:
        """Whether steps of `dtype` take this path, self-checking it now if not yet (outside any
        capture: the self-check copies to the host)."""
        ok = self._ok.get(dtype)
        if ok is None:
            ok = self._ok[dtype] = self._self_check(dtype)
        return ok

    def bind_stream(self, stream_ptr: int) -> None:
        """Point this thread's cuBLAS handle at `stream_ptr` (before a capture on that stream: CuPy's
        setStream refuses during capture, and `captured` calls then skip it)."""
        self._handles.bind(stream_ptr)

    def captured(self, a: Any, b: Any, out: Any, s: GemmSizes) -> None:
        """The step as one cuBLAS call on the stream the handle was bound to (`bind_stream`), which
        is capturing: no setStream. cuBLAS supports capture (our handles have their own workspace);
        CuPy's binding, where it is the fallback, sets the current stream itself and refuses, and
        the caller's capture then fails and is discarded. The dtype must be `ready`."""
        dtype = dtype_name(out)
        if not (self._ok.get(dtype) and a.dtype == out.dtype == b.dtype and a.flags.c_contiguous
                and b.flags.c_contiguous and out.flags.c_contiguous):
            raise CudaBackendError(f"{CAPTURE_MESSAGE} (a {dtype} step this path does not take)")
        self._step(dtype, a, b, out, s, set_stream=False)

    def _step(self, dtype: str, a: Any, b: Any, out: Any, s: GemmSizes, set_stream: bool = True) -> None:
        """The step, its windows checked, as one cuBLAS call (a strided batch's too, where it works)."""
        check_windows(a, b, out, s)
        call = column_major_call(a.data.ptr, b.data.ptr, out.data.ptr, out.itemsize, s)
        self._call(dtype, call, s.beta, strided(s), set_stream)

    def _capturing(self) -> bool:
        is_capturing = getattr(self._cp.cuda.runtime, "streamIsCapturing", None)
        return bool(is_capturing(self._cp.cuda.get_current_stream().ptr)) if is_capturing else False

    def _call(self, dtype: str, c: ColumnMajorCall, beta: int, s: Strided = ONE, set_stream: bool = True) -> None:
        cublas = self._cublas
        try:
            if set_stream:
                handle = self._handles.bind(self._cp.cuda.get_current_stream().ptr)
            else:
                handle = self._handles.handle()
            alpha, zero = _SCALARS["float64" if dtype == "float64" else "float32"]
            beta_ptr = alpha if beta else zero
            if s.batch != 1 and not self._batched.get(dtype, True):  # product by product, as the cpu runs it
                size = np.dtype(dtype).itemsize  # (the pointers move in bytes)
                for a, b, out in batch_offsets(c.a, c.b, c.c, s.batch, s.a * size, s.b * size, s.c * size):
                    self._call(dtype, c._replace(a=a, b=b, c=out), beta, ONE, set_stream)
            elif s.batch != 1:
                data, compute = _BATCH_TYPES[dtype]
                cublas.gemmStridedBatchedEx(handle, c.transa, c.transb, c.m, c.n, c.k, alpha, c.a, data, c.lda, s.a,
                                            c.b, data, c.ldb, s.b, beta_ptr, c.c, data, c.ldc, s.c, s.batch, compute,
                                            CUBLAS_GEMM_DEFAULT)
            elif dtype == "float32":
                cublas.sgemm(handle, c.transa, c.transb, c.m, c.n, c.k, alpha, c.a, c.lda, c.b, c.ldb, beta_ptr, c.c,
                             c.ldc)
            elif dtype == "float64":
                cublas.dgemm(handle, c.transa, c.transb, c.m, c.n, c.k, alpha, c.a, c.lda, c.b, c.ldb, beta_ptr, c.c,
                             c.ldc)
            else:  # float16 storage, float32 accumulation (as the kernels compute half in float)
                cublas.gemmEx(handle, c.transa, c.transb, c.m, c.n, c.k, alpha, c.a, CUDA_R_16F, c.lda, c.b,
                              CUDA_R_16F, c.ldb, beta_ptr, c.c, CUDA_R_16F, c.ldc, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT)
        except NotImplementedError as exc:  # during stream capture (setStream, or a binding that calls it)
            raise CudaBackendError(f"{CAPTURE_MESSAGE} ({exc})") from exc

    def _self_check(self, dtype: str) -> bool:
        """One small product per transpose combination, with offsets and beta 1, against
        cupy.matmul; then the strided batch's own check (`_batch_works`)."""
        if dtype not in ("float32", "float64", "float16"):
            return False
        cp = self._cp
        try:
            rng = np.random.default_rng(7)
            m, n, k, off = 5, 3, 4, 2
            for trans_a in (False, True):
                for trans_b in (False, True):
                    a = cp.asarray(rng.standard_normal(off + m * k).astype(dtype))
                    b = cp.asarray(rng.standard_normal(off + k * n).astype(dtype))
                    start = rng.standard_normal(off + m * n).astype(dtype)
                    out = cp.asarray(start)
                    self._step(dtype, a, b, out, GemmSizes(m, n, k, trans_a, trans_b, 1, off, off, off))
                    lhs = np.asarray(cp.asnumpy(a))[off:].astype(np.float64).reshape((k, m) if trans_a else (m, k))
                    rhs = np.asarray(cp.asnumpy(b))[off:].astype(np.float64).reshape((n, k) if trans_b else (k, n))
                    want = start.astype(np.float64)
                    want[off:] += ((lhs.T if trans_a else lhs) @ (rhs.T if trans_b else rhs)).ravel()
                    got = np.asarray(cp.asnumpy(out)).astype(np.float64)
                    if not np.allclose(got, want, rtol=1e-2, atol=1e-2):
                        raise AssertionError(f"trans_a={trans_a}, trans_b={trans_b}: got {got}, expected {want}")
        except CudaBackendError:  # a capture began meanwhile (another thread): not the path's fault
            raise
        except Exception as exc:  # noqa: BLE001 -- any failure: use cupy.matmul instead
            warnings.warn(f"cuda backend: direct cuBLAS GEMM disabled for {dtype} ({type(exc).__name__}: {exc}); "
                          f"GEMM steps use cupy.matmul", RuntimeWarning, stacklevel=4)
            return False
        self._batched[dtype] = self._batch_works(dtype)
        return True

    def _batch_works(self, dtype: str) -> bool:
        """Whether the strided batch's one call passes its self-check (else, with a warning, a batch
        runs product by product)."""
        try:
            self._check_batch(dtype, np.random.default_rng(8))
        except CudaBackendError:  # a capture began meanwhile (another thread): not the path's fault
            raise
        except Exception as exc:  # noqa: BLE001 -- any failure: the single calls instead
            warnings.warn(f"cuda backend: cuBLAS's strided batch disabled for {dtype} ({type(exc).__name__}: {exc}); "
                          f"a batched GEMM step runs product by product", RuntimeWarning, stacklevel=5)
            return False
        return True

    def _check_batch(self, dtype: str, rng: np.random.Generator) -> None:
        """A strided batch of two products (b transposed, each at its stride) against NumPy."""
        cp = self._cp
        m, n, k, batch = 3, 2, 4, 2
        a_host = rng.standard_normal(batch * m * k + 1).astype(dtype)
        b_host = rng.standard_normal(batch * n * k + 2).astype(dtype)
        a, b, out = cp.asarray(a_host), cp.asarray(b_host), cp.asarray(np.zeros(batch * m * n + 3, dtype))
        self._step(dtype, a, b, out, GemmSizes(m, n, k, False, True, 0, 1, 2, 3, batch, m * k, n * k, m * n))
        got = np.asarray(cp.asnumpy(out)).astype(np.float64)[3:].reshape(batch, m, n)
        for i in range(batch):
            lhs = a_host[1 + i * m * k:1 + (i + 1) * m * k].astype(np.float64).reshape(m, k)
            rhs = b_host[2 + i * n * k:2 + (i + 1) * n * k].astype(np.float64).reshape(n, k)
            if not np.allclose(got[i], lhs @ rhs.T, rtol=1e-2, atol=1e-2):
                raise AssertionError(f"strided batch, product {i}: got {got[i]}, expected {lhs @ rhs.T}")
