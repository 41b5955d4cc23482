"""A stand-in for CuPy, for testing the cuda backend's own Python in CI: its "device" is host
memory, its modules are the cpu backend's host-compiled kernels, and its cuBLAS computes
column-major GEMMs with NumPy on raw pointers. It proves no CuPy semantics (the gpu tests do),
only that codegen/runtime/cuda.py and cublas_gemm.py are right: views, caches, launch checks, and
the row-major → column-major mapping of GEMM steps.

Where the backend could rely on something the real CuPy 14 does not allow, the fake refuses it
too: grids and blocks that are not tuples, Module.load of anything but bytes, a function launched
on another device than its module's, kernel arguments on another device; kernel faults surface
at the next synchronize (a copy to the host, Device/Stream.synchronize) and stay; cuBLAS's
setStream, cupy.matmul and copies to the host raise during stream capture (CuPy's own messages);
from_dlpack refuses host memory. Two devices, each with its own arrays, current stream and cuBLAS
handle."""

from __future__ import annotations

import ctypes
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen.runtime import cuda_cache


class CUDADriverError(RuntimeError):
    """cupy_backends.cuda.api.driver.CUDADriverError."""


class _State:
    """The fake's CUDA state, as strict as the real one where the backend could go wrong: devices
    with their own arrays, modules, cuBLAS handles and current streams; a current device switched
    by `with Device(i)`; kernel faults that surface at the next synchronize, and stay (sticky)."""

    def __init__(self, devices: int) -> None:
        self.count = devices
        self.current = 0
        self.streams: dict[int, list[FakeStream]] = {}  # device → stack of current streams
        self.next_ptr = 1
        self.fault: str | None = None
        self.launches = 0

    def stream(self) -> FakeStream:
        stack = self.streams.setdefault(self.current, [])
        if not stack:
            stack.append(FakeStream(null=True))
        return stack[-1]

    def synchronize(self) -> None:
        if self.fault is not None:
            raise CUDADriverError(self.fault)

    def no_capture(self, what: str) -> None:
        if self.stream().capturing:
            raise CUDADriverError(f"cudaErrorStreamCaptureUnsupported: {what} during stream capture")


_STATE = _State(2)


class FakePointer:
    def __init__(self, arr: np.ndarray, device_id: int) -> None:
        self.ptr = arr.__array_interface__["data"][0]
        self.device_id = device_id


class FakeArray(np.ndarray):
    """A CuPy array: its memory belongs to the device that was current when it was made."""

    _device: int

    def __array_finalize__(self, obj: Any) -> None:
        self._device = getattr(obj, "_device", _STATE.current)

    @property
    def data(self) -> FakePointer:  # type: ignore[override]
        return FakePointer(self, self._device)

    @property
    def device(self) -> FakeDevice:  # type: ignore[override]
        return FakeDevice(self._device)

    def get(self) -> np.ndarray:
        _STATE.no_capture("a device-to-host copy")
        _STATE.synchronize()  # a copy to the host waits for the stream, and reports its faults
        return np.array(self, copy=True).view(np.ndarray)

    def copy(self, order: Any = "C") -> FakeArray:  # type: ignore[override]
        return _on_current(np.array(self, order=order, copy=True))  # CuPy: a copy on the current device


def _on_current(x: Any) -> FakeArray:
    arr = np.asarray(x).view(FakeArray)
    arr._device = _STATE.current
    return arr


class FakeDevice:
    def __init__(self, index: int) -> None:
        if not 0 <= index < _STATE.count:
            raise RuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {index}")
        self.id = index
        self.compute_capability = "90"
        self._previous: list[int] = []

    def __enter__(self) -> FakeDevice:
        self._previous.append(_STATE.current)
        _STATE.current = self.id
        return self

    def __exit__(self, *exc: object) -> None:
        _STATE.current = self._previous.pop()

    def synchronize(self) -> None:
        _STATE.synchronize()


class FakeStream:
    """cupy.cuda.Stream: `with stream` makes it current on its device; capture records launches
    into a graph instead of running them."""

    def __init__(self, null: bool = False, non_blocking: bool = False) -> None:
        self.ptr = 0 if null else _STATE.next_ptr
        _STATE.next_ptr += 0 if null else 1
        self.device_id = _STATE.current
        self.capturing = False
        self.captured: list[Any] = []

    def __enter__(self) -> FakeStream:
        _STATE.streams.setdefault(self.device_id, []).append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _STATE.streams[self.device_id].pop()

    def is_capturing(self) -> bool:
        return self.capturing

    def begin_capture(self) -> None:
        self.capturing, self.captured = True, []

    def end_capture(self) -> Any:
        self.capturing = False
        steps = self.captured
        return types.SimpleNamespace(launch=lambda stream=None: [step() for step in steps])

    def synchronize(self) -> None:
        _STATE.synchronize()


def _stream_is_capturing(ptr: int) -> bool:
    return any(s.ptr == ptr and s.capturing for stack in _STATE.streams.values() for s in stack)


class FakeModule:
    def load(self, data: bytes) -> None:
        if type(data) is not bytes:  # CuPy: `cpdef load(self, bytes cubin)`
            raise TypeError(f"Argument 'cubin' has incorrect type (expected bytes, got {type(data).__name__})")
        from codegen.runtime import host

        self.device = _STATE.current  # loaded into this device's context
        self.host = host.load_module(data.decode(), name_hint="fake_cuda")

    def get_function(self, name: str) -> Any:
        return FakeFunction(self.host.get_function(name), self.device)


class FakeFunction:
    """cupy.cuda.Function: grid and block must be tuples; the launch goes to the current stream
    (recorded while it captures); a fault inside the kernel surfaces at the next synchronize."""

    def __init__(self, host_function: Any, device: int) -> None:
        self.host, self.device = host_function, device

    def __call__(self, grid: tuple[int, ...], block: tuple[int, ...], args: Any, shared_mem: int = 0,
                 stream: Any = None) -> None:
        for name, value in (("grid", grid), ("block", block)):
            if type(value) is not tuple:  # CuPy: `def __call__(self, tuple grid, tuple block, ...)`
                raise TypeError(f"Argument '{name}' has incorrect type (expected tuple, got {type(value).__name__})")
        _STATE.synchronize()  # a context with a fault refuses every launch after it
        if _STATE.current != self.device:
            raise CUDADriverError(f"CUDA_ERROR_INVALID_HANDLE: a function of device {self.device}'s module "
                                  f"launched with device {_STATE.current} current")
        target = stream or _STATE.stream()

        def run() -> None:
            from codegen.runtime.host import HostKernelError

            if any(isinstance(a, FakeArray) and a._device != self.device for a in args):
                _STATE.fault = "CUDA_ERROR_ILLEGAL_ADDRESS: a kernel argument lives on another device"
                return
            _STATE.launches += 1
            try:
                self.host(grid, block, args, shared_mem=shared_mem)
            except HostKernelError as exc:  # asynchronous on a GPU: seen at the next synchronize
                _STATE.fault = f"CUDA_ERROR_LAUNCH_FAILED: {exc}"

        if target.capturing:
            self.host._pack(args)  # argument errors are still immediate
            target.captured.append(run)
        else:
            run()


def _at(ptr: int, dtype: Any, count: int) -> np.ndarray:
    """`count` elements of `dtype` at host address `ptr`, writable."""
    itemsize = np.dtype(dtype).itemsize
    return np.frombuffer((ctypes.c_byte * (count * itemsize)).from_address(ptr), dtype, count)


def _column_major(ptr: int, dtype: Any, rows: int, cols: int, ld: int) -> np.ndarray:
    """The column-major [rows, cols] matrix with leading dimension ld at ptr, as a writable view."""
    assert ld >= max(1, rows), f"leading dimension {ld} < rows {rows} (cuBLAS would refuse it)"
    flat = _at(ptr, dtype, ld * (cols - 1) + rows if rows and cols else 0)
    itemsize = np.dtype(dtype).itemsize
    return np.lib.stride_tricks.as_strided(flat, (rows, cols), (itemsize, ld * itemsize), writeable=True)


class FakeCublas:
    """cupy_backends.cuda.libs.cublas: sgemm, dgemm and gemmEx (half, float32 compute) in NumPy."""

    CUBLAS_OP_N, CUBLAS_OP_T = 0, 1

    def __init__(self) -> None:
        self.calls: list[str] = []

    def setStream(self, handle: int, stream: int) -> None:
        if _stream_is_capturing(stream):  # as CuPy's binding does
            raise NotImplementedError("calling cuBLAS API during stream capture is currently unsupported")
        if handle != _cublas_handle():
            raise RuntimeError(f"CUBLAS_STATUS_INVALID_VALUE: handle {handle} belongs to another device")

    def _gemm(self, name: str, dtype: Any, acc: Any, ta: int, tb: int, m: int, n: int, k: int, alpha: int, a: int,
              lda: int, b: int, ldb: int, beta: int, c: int, ldc: int) -> None:
        self.calls.append(name)
        op_a = _column_major(a, dtype, *((m, k) if ta == 0 else (k, m)), lda)
        op_b = _column_major(b, dtype, *((k, n) if tb == 0 else (n, k)), ldb)
        op_a, op_b = (op_a if ta == 0 else op_a.T), (op_b if tb == 0 else op_b.T)
        out = _column_major(c, dtype, m, n, ldc)
        al, be = _at(alpha, acc, 1)[0], _at(beta, acc, 1)[0]
        result = al * (op_a.astype(acc) @ op_b.astype(acc))
        if be:
            result += be * out.astype(acc)
        out[...] = result.astype(dtype)

    def sgemm(self, h: int, ta: int, tb: int, m: int, n: int, k: int, alpha: int, a: int, lda: int, b: int,
              ldb: int, beta: int, c: int, ldc: int) -> None:
        self._gemm("sgemm", np.float32, np.float32, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)

    def dgemm(self, h: int, ta: int, tb: int, m: int, n: int, k: int, alpha: int, a: int, lda: int, b: int,
              ldb: int, beta: int, c: int, ldc: int) -> None:
        self._gemm("dgemm", np.float64, np.float64, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)

    def gemmEx(self, h: int, ta: int, tb: int, m: int, n: int, k: int, alpha: int, a: int, a_type: int,
               lda: int, b: int, b_type: int, ldb: int, beta: int, c: int, c_type: int, ldc: int, compute: int,
               algo: int) -> None:
        assert (a_type, b_type, c_type, compute) == (2, 2, 2, 68), "half storage, float32 compute expected"
        self._gemm("gemmEx", np.float16, np.float32, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)


def _cublas_handle() -> int:
    return 1000 + _STATE.current  # one handle per device


def _matmul(a: Any, b: Any, out: Any = None) -> Any:
    if _STATE.stream().capturing:  # cupy.matmul goes through cuBLAS, which refuses capture
        raise NotImplementedError("calling cuBLAS API during stream capture is currently unsupported")
    return np.matmul(a, b, out=out) if out is not None else _on_current(np.matmul(a, b))


def _from_dlpack(x: Any) -> FakeArray:
    """cupy.from_dlpack: device memory (kDLCUDA, kDLCUDAManaged) only; host memory is refused."""
    device_type = int(x.__dlpack_device__()[0])
    if device_type not in (2, 13):
        raise BufferError(f"CuPy cannot import DLPack device type {device_type} without a copy")

    class AsHost:  # the stand-in's device memory is host memory: let NumPy read the capsule
        def __dlpack_device__(self) -> tuple[int, int]:
            return (1, 0)

        def __dlpack__(self, **kwargs: Any) -> Any:
            return x.__dlpack__(**kwargs)

    arr = np.from_dlpack(AsHost()).view(FakeArray)
    arr._device = int(x.__dlpack_device__()[1])
    return arr


def fake_cupy(devices: int = 2) -> Any:
    global _STATE
    _STATE = _State(devices)
    fake = types.ModuleType("cupy")
    fake.__version__ = "fake"  # type: ignore[attr-defined]
    fake.ndarray = FakeArray  # type: ignore[attr-defined]

    def asarray(x: Any) -> FakeArray:
        return x if isinstance(x, FakeArray) else _on_current(np.array(x, copy=True))

    def asnumpy(x: Any) -> np.ndarray:
        return x.get() if isinstance(x, FakeArray) else np.asarray(x)

    fake.asarray = asarray  # type: ignore[attr-defined]
    fake.asnumpy = asnumpy  # type: ignore[attr-defined]
    fake.empty = lambda shape, dtype: _on_current(np.empty(shape, dtype))  # type: ignore[attr-defined]
    fake.ascontiguousarray = lambda x: _on_current(np.ascontiguousarray(x))  # type: ignore[attr-defined]
    fake.matmul = _matmul  # type: ignore[attr-defined]
    fake.from_dlpack = _from_dlpack  # type: ignore[attr-defined]
    fake.concatenate = lambda parts, axis=0: _on_current(np.concatenate(parts, axis))  # type: ignore[attr-defined]
    fake.get_array_module = (  # type: ignore[attr-defined]
        lambda *arrays: fake if any(isinstance(a, FakeArray) for a in arrays) else np)
    runtime = types.SimpleNamespace(getDeviceCount=lambda: _STATE.count, streamIsCapturing=_stream_is_capturing,
                                    getDeviceProperties=lambda i: {"name": b"Fake GPU"})
    fake.cuda = types.SimpleNamespace(  # type: ignore[attr-defined]
        runtime=runtime, Device=FakeDevice, Module=FakeModule, Stream=FakeStream,
        get_current_stream=lambda: _STATE.stream(), driver=types.SimpleNamespace(CUDADriverError=CUDADriverError),
        device=types.SimpleNamespace(get_cublas_handle=_cublas_handle),
        set_allocator=lambda allocator=None: None)  # gpu_sanitize switches the pool off: nothing to do here
    return fake


def state() -> _State:
    """The fake's current CUDA state (tests look at faults and launches)."""
    return _STATE


def install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cublas: FakeCublas | None = None) -> Any:
    """Put the fake CuPy (and its cuBLAS, when given) in sys.modules and return a namespace with a
    fresh cuda backend on it, the list of compiled sources and the cuda module."""
    from codegen.runtime import cuda

    monkeypatch.setitem(sys.modules, "cupy", fake_cupy())
    libs = types.ModuleType("cupy_backends.cuda.libs")
    if cublas is not None:
        libs.cublas = cublas  # type: ignore[attr-defined]
    for name, module in (("cupy_backends", types.ModuleType("cupy_backends")),
                         ("cupy_backends.cuda", types.ModuleType("cupy_backends.cuda")),
                         ("cupy_backends.cuda.libs", libs)):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(cuda, "_BACKENDS", {})
    target = cuda_cache.Target("sm_90", "cubin")
    monkeypatch.setattr(cuda_cache, "target_for", lambda cc: target)
    monkeypatch.setattr(cuda_cache, "compile_options", lambda t: ("-std=c++17", t.option))
    monkeypatch.setattr(cuda_cache, "compiler_id", lambda: "fake")
    monkeypatch.setattr(cuda_cache, "nvrtc_version", lambda: (99, 9))
    compiled: list[str] = []

    def load_or_compile(source: str, name: str, t: Any, *, force: bool = False) -> cuda_cache.Artifact:
        compiled.append(name)
        key = cuda_cache.build_key(source, t)
        return cuda_cache.Artifact(source.encode(), "cubin", key, tmp_path / key, "nvrtc", 0.0)

    monkeypatch.setattr(cuda_cache, "load_or_compile", load_or_compile)
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", "1")
    return types.SimpleNamespace(backend=cuda.cuda_backend(0), compiled=compiled, module=cuda, cublas=cublas,
                                 tmp_path=tmp_path)
