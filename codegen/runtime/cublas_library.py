"""cuBLAS called through ctypes, with handles of our own: the capture-safe GEMM path.

Why not CuPy's binding: every CuPy 14 gemm wrapper sets the handle's stream itself and refuses to
run while any stream captures ("calling cuBLAS API during stream capture is currently
unsupported", seen on an H200 with CuPy 14.2), so no plan with a GEMM step could become a CUDA
graph. cuBLAS itself supports stream capture. Here the same library CuPy loaded (found among the
process's mapped files; else by its soname) is called directly.

Each handle gets a workspace of its own (`WORKSPACE_BYTES`, cuBLAS's recommendation for Hopper):
without one, cuBLAS takes workspace from its default pool, and repeated captures grow it; and
cublasSetStream resets the workspace to that pool, so `set_stream` sets it again every time.

Every call checks cuBLAS's status and raises `CublasError` (a CudaBackendError) naming the
function and the status.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from pathlib import Path
from typing import Any

from codegen.runtime.cuda_cache import CudaBackendError

#: Bytes of device workspace per handle (cuBLAS's guide: 32 MiB on Hopper, 4 MiB on older chips)
WORKSPACE_BYTES = 32 << 20

_STATUS = {0: "CUBLAS_STATUS_SUCCESS", 1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
           7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH", 11: "CUBLAS_STATUS_MAPPING_ERROR",
           13: "CUBLAS_STATUS_EXECUTION_FAILED", 14: "CUBLAS_STATUS_INTERNAL_ERROR",
           15: "CUBLAS_STATUS_NOT_SUPPORTED", 16: "CUBLAS_STATUS_LICENSE_ERROR"}

_P, _I, _S, _L = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_longlong
_GEMM = (_P, _I, _I, _I, _I, _I, _P, _P, _I, _P, _I, _P, _P, _I)  # handle, transa, transb, m, n, k, α, A, lda, …
_SIGNATURES: dict[str, tuple[Any, ...]] = {
    "cublasCreate_v2": (ctypes.POINTER(_P),),
    "cublasDestroy_v2": (_P,),
    "cublasSetStream_v2": (_P, _P),
    "cublasSetWorkspace_v2": (_P, _P, _S),
    "cublasSgemm_v2": _GEMM,
    "cublasDgemm_v2": _GEMM,
    # handle, transa, transb, m, n, k, α, A, Atype, lda, B, Btype, ldb, β, C, Ctype, ldc, compute, algo
    "cublasGemmEx": (_P, _I, _I, _I, _I, _I, _P, _P, _I, _I, _P, _I, _I, _P, _P, _I, _I, _I, _I),
    # … as cublasGemmEx with each matrix's stride (long long) after its leading dimension, and the
    # batch count after C's
    "cublasGemmStridedBatchedEx": (_P, _I, _I, _I, _I, _I, _P, _P, _I, _I, _L, _P, _I, _I, _L, _P, _P, _I, _I, _L, _I,
                                   _I, _I),
}


class CublasError(CudaBackendError):
    """A cuBLAS call returned a status other than success."""


class CublasLibrary:
    """The few cuBLAS functions the GEMM steps need, with the method names of CuPy's binding
    (`setStream`, `sgemm`, `dgemm`, `gemmEx`, `gemmStridedBatchedEx`) plus `create`, `destroy` and
    `setWorkspace`."""

    def __init__(self, library: Any, path: str) -> None:
        self.path = path
        self._fn = {}
        for name, argtypes in _SIGNATURES.items():
            fn = getattr(library, name)  # AttributeError: not a cuBLAS (load_cublas skips it)
            fn.argtypes, fn.restype = argtypes, ctypes.c_int
            self._fn[name] = fn

    def _check(self, name: str, *args: Any) -> None:
        status = self._fn[name](*args)
        if status != 0:
            raise CublasError(f"cuda backend: {name} returned {_STATUS.get(status, 'status')} ({status}) "
                              f"(cuBLAS at {Path(self.path).name})")

    def create(self) -> int:
        handle = _P()
        self._check("cublasCreate_v2", ctypes.byref(handle))
        return int(handle.value or 0)

    def destroy(self, handle: int) -> None:
        self._check("cublasDestroy_v2", handle)

    def setStream(self, handle: int, stream: int) -> None:  # (CuPy binding names)
        self._check("cublasSetStream_v2", handle, stream)

    def setWorkspace(self, handle: int, pointer: int, size: int) -> None:
        self._check("cublasSetWorkspace_v2", handle, pointer, size)

    def sgemm(self, *args: int) -> None:
        self._check("cublasSgemm_v2", *args)

    def dgemm(self, *args: int) -> None:
        self._check("cublasDgemm_v2", *args)

    def gemmEx(self, *args: int) -> None:
        self._check("cublasGemmEx", *args)

    def gemmStridedBatchedEx(self, *args: int) -> None:
        self._check("cublasGemmStridedBatchedEx", *args)


def loaded_cublas_paths(maps: Path = Path("/proc/self/maps")) -> list[str]:
    """The libcublas files mapped into this process (CuPy's, once it has loaded it), not cublasLt."""
    try:
        text = maps.read_text()
    except OSError:
        return []
    found: list[str] = []
    for line in text.splitlines():
        fields = line.split(maxsplit=5)  # address, perms, offset, dev, inode, path (absent: anonymous)
        path = fields[5].strip() if len(fields) == 6 else ""
        if Path(path).name.startswith("libcublas.so") and path not in found:
            found.append(path)
    return found


def load_cublas() -> CublasLibrary | None:
    """cuBLAS through ctypes: the library this process already maps (CuPy's), else the first that
    loads by soname; None where none loads."""
    candidates = loaded_cublas_paths()
    candidates += [name for name in ("libcublas.so.13", "libcublas.so.12", ctypes.util.find_library("cublas"))
                   if name]
    for candidate in candidates:
        try:
            return CublasLibrary(ctypes.CDLL(candidate, mode=os.RTLD_NOW | os.RTLD_GLOBAL), candidate)
        except (OSError, AttributeError):
            continue
    return None


class OwnHandles:
    """One cuBLAS handle per thread (a handle's stream is per handle, and threads must not share
    one), each with its workspace; `bind` points the thread's handle at a stream."""

    def __init__(self, cp: Any, library: CublasLibrary) -> None:
        self._cp, self._library = cp, library
        self._local = threading.local()

    def handle(self) -> int:
        handle = getattr(self._local, "handle", None)
        if handle is None:
            handle = self._library.create()  # on the current device (the backend holds its own current)
            self._local.workspace = self._cp.cuda.alloc(WORKSPACE_BYTES)
            self._local.handle, self._local.stream = handle, None
        return handle

    def bind(self, stream: int) -> int:
        """The thread's handle, running its calls on `stream` (allowed during a capture)."""
        handle = self.handle()
        if self._local.stream != stream:
            self._library.setStream(handle, stream)
            self._library.setWorkspace(handle, self._local.workspace.ptr, WORKSPACE_BYTES)  # (setStream reset it)
            self._local.stream = stream
        return handle


class CupyHandles:
    """CuPy's handle of the current device and thread (where our own library does not load). Its
    stream is set on every call, since cupy.matmul rebinds it; so it refuses inside a capture."""

    def __init__(self, cp: Any, binding: Any) -> None:
        self._cp, self._binding = cp, binding

    def handle(self) -> int:
        return int(self._cp.cuda.device.get_cublas_handle())

    def bind(self, stream: int) -> int:
        handle = self.handle()
        self._binding.setStream(handle, stream)
        return handle
