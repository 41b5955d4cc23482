"""cuBLAS through ctypes (codegen/runtime/cublas_library.py), against a stand-in libcublas built
here with g++: every function is found, its arguments arrive as cuBLAS declares them (64-bit
pointers, C ints, size_t), and a status other than success is a CublasError naming the function
and the status. The real library is exercised on a GPU (gpu-marked tests, bench_cudnn_rnn)."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from codegen.runtime import cublas_library
from codegen.runtime.cublas_library import CublasError, CublasLibrary, loaded_cublas_paths

STAND_IN = r"""
#include <cstddef>
#include <cstdint>
extern "C" {
static int64_t last[24];  // the latest call's arguments, as integers
static int next_status = 0;
static int status() { int s = next_status; next_status = 0; return s; }
int64_t* stand_in_last() { return last; }
void stand_in_fail_next(int s) { next_status = s; }
int cublasCreate_v2(void** handle) { *handle = (void*)0x5eed; return status(); }
int cublasDestroy_v2(void* h) { last[0] = (int64_t)h; return status(); }
int cublasSetStream_v2(void* h, void* s) { last[0] = (int64_t)h; last[1] = (int64_t)s; return status(); }
int cublasSetWorkspace_v2(void* h, void* w, size_t n) {
  last[0] = (int64_t)h; last[1] = (int64_t)w; last[2] = (int64_t)n; return status(); }
#define GEMM_ARGS void* h, int ta, int tb, int m, int n, int k, const void* al, const void* a, int lda, \
                  const void* b, int ldb, const void* be, void* c, int ldc
#define STORE last[0] = (int64_t)h; last[1] = ta; last[2] = tb; last[3] = m; last[4] = n; last[5] = k; \
  last[6] = (int64_t)al; last[7] = (int64_t)a; last[8] = lda; last[9] = (int64_t)b; last[10] = ldb; \
  last[11] = (int64_t)be; last[12] = (int64_t)c; last[13] = ldc;
int cublasSgemm_v2(GEMM_ARGS) { STORE last[14] = *(const float*)al; return status(); }
int cublasDgemm_v2(GEMM_ARGS) { STORE last[14] = (int64_t)*(const double*)al; return status(); }
int cublasGemmEx(void* h, int ta, int tb, int m, int n, int k, const void* al, const void* a, int at, int lda,
                 const void* b, int bt, int ldb, const void* be, void* c, int ct, int ldc, int compute, int algo) {
  STORE last[14] = at; last[15] = bt; last[16] = ct; last[17] = compute; last[18] = algo; return status(); }
int cublasGemmStridedBatchedEx(void* h, int ta, int tb, int m, int n, int k, const void* al, const void* a, int at,
                               int lda, long long sa, const void* b, int bt, int ldb, long long sb, const void* be,
                               void* c, int ct, int ldc, long long sc, int batch, int compute, int algo) {
  STORE last[14] = at; last[15] = bt; last[16] = ct; last[17] = compute; last[18] = algo; last[19] = sa;
  last[20] = sb; last[21] = sc; last[22] = batch; return status(); }
}
"""


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("needs g++ to build the stand-in libcublas")
    folder = tmp_path_factory.mktemp("cublas")
    (folder / "stand_in.cpp").write_text(STAND_IN)
    path = folder / "libcublas.so.13"
    subprocess.run(["g++", "-shared", "-fPIC", "-O1", "-o", str(path), str(folder / "stand_in.cpp")], check=True)
    return path


def _last(lib: ctypes.CDLL) -> list[int]:
    lib.stand_in_last.restype = ctypes.POINTER(ctypes.c_int64)
    return lib.stand_in_last()[:23]


def test_every_call_reaches_cublas_with_its_arguments(stand_in: Path) -> None:
    raw = ctypes.CDLL(str(stand_in))
    library = CublasLibrary(raw, str(stand_in))
    handle = library.create()
    assert handle == 0x5EED
    library.setStream(handle, 0x7F00_0000_1234)  # a pointer above 32 bits arrives whole
    assert _last(raw)[:2] == [handle, 0x7F00_0000_1234]
    library.setWorkspace(handle, 0x7F00_0000_8000, 32 << 20)
    assert _last(raw)[:3] == [handle, 0x7F00_0000_8000, 32 << 20]
    alpha = ctypes.c_float(2.0)
    library.sgemm(handle, 1, 0, 5, 3, 4, ctypes.addressof(alpha), 0x7F00_0001_0000, 4, 0x7F00_0002_0000, 5,
                  ctypes.addressof(alpha), 0x7F00_0003_0000, 5)
    assert _last(raw)[:15] == [handle, 1, 0, 5, 3, 4, ctypes.addressof(alpha), 0x7F00_0001_0000, 4,
                               0x7F00_0002_0000, 5, ctypes.addressof(alpha), 0x7F00_0003_0000, 5, 2]
    one = ctypes.c_double(1.0)
    library.dgemm(handle, 0, 1, 2, 2, 2, ctypes.addressof(one), 8, 2, 16, 2, ctypes.addressof(one), 24, 2)
    assert _last(raw)[14] == 1
    library.gemmEx(handle, 0, 0, 2, 3, 4, ctypes.addressof(alpha), 8, 2, 3, 16, 2, 4, ctypes.addressof(alpha),
                   24, 2, 2, 68, -1)
    assert _last(raw)[3:6] == [2, 3, 4] and _last(raw)[14:19] == [2, 2, 2, 68, -1]
    library.gemmStridedBatchedEx(handle, 1, 0, 2, 3, 4, ctypes.addressof(one), 8, 1, 3, 6 << 32, 16, 1, 4, 0,
                                 ctypes.addressof(one), 24, 1, 2, 5 << 32, 2, 70, -1)  # (strides: long long)
    assert _last(raw)[:6] == [handle, 1, 0, 2, 3, 4] and _last(raw)[14:23] == [1, 1, 1, 70, -1, 6 << 32, 0, 5 << 32, 2]
    library.destroy(handle)
    assert _last(raw)[0] == handle


def test_a_failed_status_is_an_error_naming_the_function_and_the_status(stand_in: Path) -> None:
    raw = ctypes.CDLL(str(stand_in))
    library = CublasLibrary(raw, str(stand_in))
    raw.stand_in_fail_next(7)
    with pytest.raises(CublasError, match=r"cublasSetStream_v2 returned CUBLAS_STATUS_INVALID_VALUE \(7\)"):
        library.setStream(1, 2)
    raw.stand_in_fail_next(99)
    alpha = ctypes.c_float(1.0)  # (the stand-in reads it)
    with pytest.raises(CublasError, match=r"cublasSgemm_v2 returned status \(99\)"):
        library.sgemm(1, 0, 0, 1, 1, 1, ctypes.addressof(alpha), 0, 1, 0, 1, ctypes.addressof(alpha), 0, 1)


def test_load_prefers_the_library_the_process_maps(stand_in: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cublas_library, "loaded_cublas_paths", lambda: [str(stand_in.parent / "absent.so"),
                                                                        str(stand_in)])
    library = cublas_library.load_cublas()
    assert library is not None and library.path == str(stand_in)


def test_a_library_without_the_functions_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    (tmp_path / "other.cpp").write_text('extern "C" int unrelated() { return 1; }\n')
    other = tmp_path / "libcublas.so.99"
    subprocess.run(["g++", "-shared", "-fPIC", "-o", str(other), str(tmp_path / "other.cpp")], check=True)
    monkeypatch.setattr(cublas_library, "loaded_cublas_paths", lambda: [str(other)])
    monkeypatch.setattr(cublas_library.ctypes.util, "find_library", lambda name: None)
    found = cublas_library.load_cublas()
    assert found is None or found.path != str(other)


def test_loaded_cublas_paths_reads_the_process_maps(tmp_path: Path) -> None:
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f01 r-xp 00000000 08:01 12 /opt/lib/libcublas.so.13.1.0\n"
                    "7f01-7f02 r-xp 00000000 08:01 13 /opt/lib/libcublasLt.so.13.1.0\n"
                    "7f02-7f03 r--p 00001000 08:01 12 /opt/lib/libcublas.so.13.1.0\n"
                    "7f03-7f04 rw-p 00000000 00:00 0 \n")
    assert loaded_cublas_paths(maps) == ["/opt/lib/libcublas.so.13.1.0"]
    assert loaded_cublas_paths(tmp_path / "absent") == []
