"""The cpu backend's GEMM: the process's own BLAS (the one NumPy loaded) called by the emulation
runtime (opgen_rt_gemm, emu/rt/gemm.cpp), so that a recorded launch plan's GEMM steps run inside
its native batches (host/replay.py) and a GEMM step outside them (CpuBackend.gemm) runs the very
same code: both forms of a plan give the same bits.

Found once per process, and only where NumPy says which BLAS it was built with: its build
configuration names an OpenBLAS (`scipy-openblas`, the wheels' own, or a system `openblas`) and
whether it takes 64-bit integers (`USE64BITINT`). The library is the one mapped into the process
whose file name says so, and in it `cblas_sgemm` and `cblas_dgemm` under the names such builds
export them (the wheels' ILP64 build: `scipy_cblas_sgemm64_`). An integer width guessed wrong would
hand the BLAS garbage sizes, so anything else (another BLAS, no configuration, another platform) is
not used: GEMMs stay NumPy's (matmul), and recorded plans with GEMM steps run them from Python
between their batches.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: Symbol pairs (sgemm, dgemm) an OpenBLAS build exports, by whether it takes 64-bit integers.
_SYMBOLS = {True: (("scipy_cblas_sgemm64_", "scipy_cblas_dgemm64_"), ("cblas_sgemm64_", "cblas_dgemm64_")),
            False: (("scipy_cblas_sgemm", "scipy_cblas_dgemm"), ("cblas_sgemm", "cblas_dgemm"))}
_LIBRARY = re.compile(r"openblas[^/]*\.so", re.I)
DTYPES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1}  # opgen_gemm_desc.dtype


class GemmDesc(ctypes.Structure):  # mirrors opgen_gemm_desc (checked at load: abi_layout.py)
    _fields_ = [("blas", ctypes.c_uint64), ("dtype", ctypes.c_int32), ("int64", ctypes.c_int32),
                ("m", ctypes.c_int64), ("n", ctypes.c_int64), ("k", ctypes.c_int64),
                ("trans_a", ctypes.c_int32), ("trans_b", ctypes.c_int32), ("beta", ctypes.c_int32),
                ("pad_", ctypes.c_int32), ("a_offset", ctypes.c_int64), ("b_offset", ctypes.c_int64),
                ("out_offset", ctypes.c_int64)]


@dataclass(frozen=True)
class Blas:
    path: str
    functions: tuple[int, int]  # sgemm, dgemm addresses
    int64: bool
    library: Any  # (kept loaded)

    def desc(self, dtype: np.dtype, m: int, n: int, k: int, trans_a: bool, trans_b: bool, beta: int,
             a_offset: int, b_offset: int, out_offset: int) -> GemmDesc:
        kind = DTYPES[dtype]
        return GemmDesc(self.functions[kind], kind, int(self.int64), m, n, k, int(trans_a), int(trans_b),
                        int(bool(beta)), 0, a_offset, b_offset, out_offset)

    def thread_count_functions(self) -> tuple[Any, Any] | None:
        """The library's OpenBLAS (get, set) thread-count functions, named as its cblas_?gemm is
        (`scipy_cblas_sgemm64_` -> `scipy_openblas_set_num_threads64_`, as emu/rt/gemm.cpp finds them);
        None where it exports none (a benchmark or test sets the count the runtime then reads)."""
        for prefix, suffix in (("scipy_", "64_"), ("", "64_"), ("scipy_", ""), ("", "")):
            try:
                get = getattr(self.library, f"{prefix}openblas_get_num_threads{suffix}")
                put = getattr(self.library, f"{prefix}openblas_set_num_threads{suffix}")
            except AttributeError:
                continue
            get.restype = ctypes.c_int
            put.argtypes = [ctypes.c_int]
            return get, put
        return None


_FOUND: list[Blas | None] = []


def find() -> Blas | None:
    """The process's BLAS (see the module's docstring), looked up once."""
    if not _FOUND:
        _FOUND.append(_search())
    return _FOUND[0]


def _mapped_libraries() -> list[str]:
    try:
        text = Path("/proc/self/maps").read_text()
    except OSError:
        return []
    seen: dict[str, None] = {}
    for line in text.splitlines():
        path = line.split(maxsplit=5)[-1] if line.count(" ") >= 5 else ""
        if path.startswith("/") and _LIBRARY.search(Path(path).name):
            seen[path] = None
    return list(seen)


def numpy_openblas() -> bool | None:
    """Whether NumPy's BLAS is an OpenBLAS with 64-bit integers (True) or 32-bit ones (False), from
    its build configuration; None where it is no OpenBLAS or does not say."""
    try:
        config = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except Exception:  # noqa: BLE001 -- an older NumPy, or one built without the information
        return None
    if "openblas" not in str(config.get("name", "")).lower() or not config.get("found", False):
        return None
    return "USE64BITINT" in str(config.get("openblas configuration", ""))


def _search() -> Blas | None:
    int64 = numpy_openblas()
    if int64 is None:
        return None
    for path in _mapped_libraries():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for sgemm, dgemm in _SYMBOLS[int64]:
            try:
                s, d = getattr(lib, sgemm), getattr(lib, dgemm)
            except AttributeError:
                continue
            addresses = (ctypes.cast(s, ctypes.c_void_p).value, ctypes.cast(d, ctypes.c_void_p).value)
            if addresses[0] and addresses[1]:
                return Blas(path, (int(addresses[0]), int(addresses[1])), int64, lib)
    return None


def gemm_function() -> Any:
    """The runtime's opgen_rt_gemm, through ctypes."""
    from .libraries import _RUNTIME, _runtime_api

    fn = _RUNTIME.get("gemm")
    if fn is None:
        _runtime_api()
        fn = _RUNTIME["lib"].opgen_rt_gemm
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        fn.restype = ctypes.c_int
        _RUNTIME["gemm"] = fn
    return fn


def gemm_address() -> int:
    """opgen_rt_gemm's address: the `launch` of a GEMM step's batch record."""
    return int(ctypes.cast(gemm_function(), ctypes.c_void_p).value or 0)


def window(offset: int, rows: int, cols: int) -> int:
    """The elements a buffer needs for a [rows, cols] matrix at `offset` (gemm.check_window's bound)."""
    return offset + rows * cols


def extents(m: int, n: int, k: int, trans_a: bool, trans_b: bool, a_offset: int, b_offset: int,
            out_offset: int) -> tuple[int, int, int]:
    """The elements a, b and out need for one GEMM step."""
    return (window(a_offset, *((k, m) if trans_a else (m, k))), window(b_offset, *((n, k) if trans_b else (k, n))),
            window(out_offset, m, n))


def takes(a: Any, b: Any, out: Any) -> np.dtype | None:
    """The dtype of a GEMM step's buffers where the BLAS takes them: C-contiguous NumPy arrays of
    one float32/float64 dtype, out writable; else None (NumPy's matmul)."""
    if not (type(a) is type(b) is type(out) is np.ndarray):
        return None
    dtype = out.dtype
    if dtype not in DTYPES or a.dtype != dtype or b.dtype != dtype:
        return None
    if not (a.flags.c_contiguous and b.flags.c_contiguous and out.flags.c_contiguous and out.flags.writeable):
        return None
    return dtype


def run(a: Any, b: Any, out: Any, m: int, n: int, k: int, trans_a: bool, trans_b: bool, beta: int,
        a_offset: int, b_offset: int, out_offset: int) -> bool:
    """One GEMM step through opgen_rt_gemm; False (nothing done) where it is not for the BLAS: no
    BLAS found, not one float32/float64 dtype, not C-contiguous NumPy arrays, a negative offset or
    a window past a buffer (NumPy's path then raises gemm.check_window's error)."""
    blas = find()
    dtype = takes(a, b, out)
    if blas is None or dtype is None or min(a_offset, b_offset, out_offset, m, n, k) < 0:
        return False
    needs = extents(m, n, k, trans_a, trans_b, a_offset, b_offset, out_offset)
    if needs[0] > a.size or needs[1] > b.size or needs[2] > out.size:
        return False
    desc = blas.desc(dtype, m, n, k, trans_a, trans_b, beta, a_offset, b_offset, out_offset)
    slots = (ctypes.c_uint64 * 6)(a.ctypes.data, 0, b.ctypes.data, 0, out.ctypes.data, 0)
    base = ctypes.addressof(slots)
    argv = (ctypes.c_void_p * 3)(base, base + 16, base + 32)
    err = ctypes.create_string_buffer(256)
    if gemm_function()(ctypes.byref(desc), argv, err, len(err)):
        raise RuntimeError(err.value.decode("utf-8", "replace"))
    return True
