"""A stand-in for CuPy, for testing the cuda backend's own Python in CI: its "device" is host
memory, its modules are the cpu backend's host-compiled kernels, and its cuBLAS computes
column-major GEMMs with NumPy on raw pointers. It proves no CuPy semantics (the gpu tests do),
only that codegen/runtime/cuda.py, cuda_graph.py and cublas_gemm.py are right: views, caches,
launch checks, CUDA graphs, and the row-major → column-major mapping of GEMM steps.

Where the backend could rely on something the real CuPy 14 does not allow, the fake refuses it
too: grids and blocks that are not tuples, Module.load of anything but bytes, a function launched
on another device than its module's, kernel arguments on another device; kernel faults surface
at the next synchronize (a copy to the host, Device/Stream.synchronize) and stay; from_dlpack
refuses host memory. Two devices, each with its own arrays, current stream and cuBLAS handle.

Stream capture is modelled as CUDA and CuPy define it (CUDA Programming Guide, "Prohibited and
Unhandled Operations"; CuPy's Stream.begin_capture, end_capture and Graph.launch):

* `begin_capture` refuses the legacy default stream (CuPy: "cannot capture on the default (legacy)
  stream") and a stream already capturing; its mode is CuPy's default, relaxed, unless given.
* A captured launch runs nothing: the graph bakes in its configuration, scalar arguments and the
  device pointers of its array arguments, never the arrays. A launched graph runs its kernels on
  whatever memory is at those addresses then: new contents of the same buffers are seen, and a
  pointer that no live allocation holds any more (its array was freed) is a sticky
  CUDA_ERROR_ILLEGAL_ADDRESS fault, recorded in `state().stale` (a real GPU may corrupt memory
  silently instead: the fake is stricter).
* Device memory comes from a pool that, like CuPy's, hands a freed block back to the next
  allocation of the same rounded size (so a loop's calls get the same pointers) and calls
  cudaMalloc only when no block is free; cudaMalloc during a capture in global or thread-local
  mode is refused (relaxed mode allows it).
* Illegal during a capture, each an error that also invalidates the capture (its end_capture then
  raises cudaErrorStreamCaptureInvalidated and the stream leaves capture mode): synchronizing the
  capturing stream or its device, a device-to-host copy (`.get()`, `cupy.asnumpy`) on it, and any
  use of the legacy stream while a blocking stream of its device captures. cuBLAS's setStream and
  cupy.matmul refuse capture with CuPy's own NotImplementedError (raised before any CUDA call: the
  capture stays valid).
* A graph launches on the stream it is given (else the current one) and counts there
  (`FakeStream.graph_launches`); launched into a capturing stream it becomes part of that capture.
* Entering (`with`) a stream of another device than the current one is refused, as CuPy does.
* Not modelled: host-to-device copies in a capture (`cupy.asarray` of host data, `set`; CuPy
  stages them through pinned memory), events, cudaMallocAsync.

`state()` counts what the backend asked for: `kernel_calls` (launch calls from Python, captured
ones included), `graph_launches`, and `launches` (kernels that ran, in graphs too)."""

from __future__ import annotations

import ctypes
import re
import sys
import threading
import time
import types
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen.runtime import cuda_cache
from codegen.runtime.stats import python_launches

# cupy.cuda.runtime.streamCaptureMode*
CAPTURE_GLOBAL, CAPTURE_THREAD_LOCAL, CAPTURE_RELAXED = 0, 1, 2
POOL_UNIT = 512  # CuPy's pool rounds allocations up to 512 bytes
_ALIGN = 256  # cudaMalloc's alignment (at least)


class CUDADriverError(RuntimeError):
    """cupy_backends.cuda.api.driver.CUDADriverError."""


class CUDARuntimeError(RuntimeError):
    """cupy_backends.cuda.api.runtime.CUDARuntimeError."""


@dataclass
class _Capture:
    """A stream's capture in progress: its mode, the nodes captured so far, and why it was
    invalidated (None while it is valid)."""

    mode: int
    nodes: list[Any] = field(default_factory=list)
    invalidated: str | None = None


class _State:
    """The fake's CUDA state, as strict as the real one where the backend could go wrong: devices
    with their own arrays, modules, cuBLAS handles and current streams; a current device switched
    by `with Device(i)`; kernel faults that surface at the next synchronize, and stay (sticky);
    the captures in progress; the memory pool."""

    def __init__(self, devices: int) -> None:
        self.count = devices
        self._thread = threading.local()  # as CUDA and CuPy: the current device and streams are per thread
        self.nulls: dict[int, FakeStream] = {}  # device → its legacy default stream
        self.next_ptr = 16  # (stream handles: 0 legacy, 1 cudaStreamLegacy, 2 cudaStreamPerThread)
        self.fault: str | None = None
        self.launches = 0
        self.kernel_calls = 0
        self.graph_launches = 0
        self.captures: list[FakeStream] = []
        self.stale: list[str] = []
        self.pool = _Pool()
        self.host_copies: list[int] = []  # the stream of each device-to-host copy (each waits for its stream)
        self.gpu_behind = False  # events recorded now stay unfinished until waited for (a busy GPU)

    @property
    def current(self) -> int:
        """This thread's current device."""
        return int(self._thread.__dict__.get("current", 0))

    @current.setter
    def current(self, device: int) -> None:
        self._thread.current = device

    @property
    def streams(self) -> dict[int, list[FakeStream]]:
        """This thread's stacks of current streams, by device."""
        return self._thread.__dict__.setdefault("streams", {})

    def device_stack(self) -> list[int]:
        """This thread's devices before each `with Device(i)` (CuPy keeps the stack per thread)."""
        return self._thread.__dict__.setdefault("devices", [])

    def stream(self) -> FakeStream:
        stack = self.streams.setdefault(self.current, [])
        if stack:
            return stack[-1]
        null = self.nulls.get(self.current)
        if null is None:
            null = self.nulls[self.current] = FakeStream(null=True)
        return null

    def synchronize(self) -> None:
        if self.fault is not None:
            raise CUDADriverError(self.fault)

    def refuse(self, error: str, what: str, captures: list[FakeStream]) -> None:
        """Raise CUDA's error for `what`, invalidating the captures it touched (as CUDA does)."""
        for stream in captures:
            if stream.capture is not None and stream.capture.invalidated is None:
                stream.capture.invalidated = what
        raise CUDARuntimeError(f"{error}: {what}: operation not permitted when stream is capturing")

    def use_stream(self, stream: FakeStream, what: str) -> None:
        """Synchronizing or copying to the host on `stream`: illegal while it captures, and on the
        legacy stream while a blocking stream of its device captures."""
        if stream.capture is not None:
            self.refuse("cudaErrorStreamCaptureUnsupported", what, [stream])
        self.legacy_use(stream, what)

    def legacy_use(self, stream: FakeStream, what: str) -> None:
        """Any use of the legacy stream while a blocking stream of the same device captures."""
        if stream.ptr in (0, 1):
            blocking = [s for s in self.captures if s.device_id == stream.device_id and not s.non_blocking]
            if blocking:
                self.refuse("cudaErrorStreamCaptureImplicit", what, blocking)

    def unsafe_call(self, what: str) -> None:
        """A potentially unsafe API (cudaMalloc): refused while a capture in global or thread-local
        mode is in progress (one thread here: both modes cover it), allowed in relaxed mode."""
        strict = [s for s in self.captures if s.capture is not None and s.capture.mode != CAPTURE_RELAXED]
        if strict:
            self.refuse("cudaErrorStreamCaptureUnsupported", what, strict)

    def run_on_device(self, kernel: Any, grid: tuple[int, ...], block: tuple[int, ...], args: Any,
                      shared_mem: int) -> None:
        """Run a host-compiled kernel as the device would: not a call from Python (the runtime's
        launch counter is left as it was), a fault sticky until the next synchronize."""
        from codegen.runtime.host import HostKernelError

        self.launches += 1
        counted = python_launches["from_python"]
        try:
            kernel(grid, block, args, shared_mem=shared_mem)
        except HostKernelError as exc:  # asynchronous on a GPU: seen at the next synchronize
            self.fault = f"CUDA_ERROR_LAUNCH_FAILED: {exc}"
        finally:
            python_launches["from_python"] = counted


class _Allocation:
    """One block the pool handed out: the arrays on it view it, and when the last of them is gone
    the block goes back to the pool (as CuPy's PooledMemory does when it is freed)."""

    def __init__(self, address: int, nbytes: int) -> None:
        self.__array_interface__ = {"data": (address, False), "shape": (nbytes,), "typestr": "|u1", "version": 3}


class _Pool:
    """Device memory: blocks of POOL_UNIT multiples, reused by the next allocation of the same
    rounded size once freed; `live` maps each allocated block's address to (bytes, device)."""

    def __init__(self) -> None:
        self.free: dict[tuple[int, int], list[np.ndarray]] = {}
        self.live: dict[int, tuple[int, int]] = {}

    def allocate(self, nbytes: int, device: int) -> np.ndarray:
        """`nbytes` of device memory as a uint8 array (its views keep the block allocated)."""
        if nbytes == 0:  # CuPy: no allocation, the null pointer, the same for every such array (so a graph
            return _EMPTY_BLOCK  # keyed on pointers finds it again); numpy's own empty arrays move about
        rounded = -(-nbytes // POOL_UNIT) * POOL_UNIT
        free = self.free.get((device, rounded))
        if free:  # the lowest address first, whatever order they were freed in (as CuPy's set of free
            block = free.pop(min(range(len(free)), key=lambda i: free[i].ctypes.data))  # chunks: not LIFO)
        else:
            _STATE.unsafe_call(f"cudaMalloc({rounded})")
            raw = np.zeros(rounded + _ALIGN, np.uint8)
            start = -raw.ctypes.data % _ALIGN
            block = raw[start:start + rounded]
        address = block.ctypes.data
        owner = _Allocation(address, nbytes)
        self.live[address] = (nbytes, device)
        weakref.finalize(owner, self._release, address, device, rounded, block)
        return np.asarray(owner)

    def _release(self, address: int, device: int, rounded: int, block: np.ndarray) -> None:
        self.live.pop(address, None)
        self.free.setdefault((device, rounded), []).append(block)

    def holder(self, low: int, high: int) -> int | None:
        """The address of the live block holding bytes [low, high), None if none does."""
        for address, (nbytes, _) in self.live.items():
            if address <= low and high <= address + nbytes:
                return address
        return None


_STATE = _State(2)
_EMPTY_BLOCK = np.empty(0, np.uint8)  # every zero-byte allocation (Pool.allocate)


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

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """CuPy's (version 3; strides None when C-contiguous, "stream" absent: no synchronization asked)."""
        return {"version": 3, "shape": self.shape, "typestr": self.dtype.str, "descr": [("", self.dtype.str)],
                "data": (self.__array_interface__["data"][0], False),
                "strides": None if self.flags.c_contiguous else self.strides}

    def get(self, stream: FakeStream | None = None) -> np.ndarray:
        on = stream or _STATE.stream()
        _STATE.use_stream(on, "a device-to-host copy (cudaMemcpy)")
        _STATE.synchronize()  # a copy to the host waits for the stream, and reports its faults
        _STATE.host_copies.append(on.ptr)
        return np.array(self, copy=True).view(np.ndarray)

    def set(self, arr: Any, stream: FakeStream | None = None) -> None:
        """A host-to-device copy into this array (not modelled in a capture: CuPy stages it)."""
        _STATE.legacy_use(stream or _STATE.stream(), "a host-to-device copy")
        np.copyto(self, np.asarray(arr))

    def copy(self, order: Any = "C") -> FakeArray:  # type: ignore[override]
        return _on_current(np.array(self, order=order, copy=True))  # CuPy: a copy on the current device


def _device_array(shape: Any, dtype: Any, order: str = "C") -> FakeArray:
    """A new array in the pool's memory of the current device."""
    dtype = np.dtype(dtype)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    memory = _STATE.pool.allocate(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, _STATE.current)
    arr = np.ndarray(shape, dtype, buffer=memory, order=order).view(FakeArray)
    arr._device = _STATE.current
    return arr


def _on_current(x: Any) -> FakeArray:
    """A copy of `x` in new memory of the current device (its C or Fortran order kept)."""
    x = np.asarray(x)
    arr = _device_array(x.shape, x.dtype, "F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C")
    np.copyto(arr, x)
    return arr


class FakeDevice:
    def __init__(self, index: int) -> None:
        if not 0 <= index < _STATE.count:
            raise RuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {index}")
        self.id = index
        self.compute_capability = "90"

    def __enter__(self) -> FakeDevice:
        _STATE.device_stack().append(_STATE.current)
        _STATE.current = self.id
        return self

    def __exit__(self, *exc: object) -> None:
        _STATE.current = _STATE.device_stack().pop()

    def synchronize(self) -> None:
        capturing = [s for s in _STATE.captures if s.device_id == self.id]
        if capturing:  # the device handle encompasses the capturing stream
            _STATE.refuse("cudaErrorStreamCaptureUnsupported", "cudaDeviceSynchronize", capturing)
        _STATE.synchronize()


class FakeStream:
    """cupy.cuda.Stream: `with stream` makes it current on its device; a capture records launches
    into a graph instead of running them (see the module docstring for what it refuses)."""

    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False) -> None:
        if null:
            self.ptr = 0
        elif ptds:
            self.ptr = 2  # cudaStreamPerThread: capturable
        else:
            self.ptr = _STATE.next_ptr
            _STATE.next_ptr += 1
        self.device_id = _STATE.current
        self.non_blocking = non_blocking
        self.capture: _Capture | None = None
        self.graph_launches = 0

    def __repr__(self) -> str:
        return f"<FakeStream {self.ptr} device={self.device_id}>"

    @property
    def capturing(self) -> bool:
        return self.capture is not None

    def __enter__(self) -> FakeStream:
        if self.ptr not in (0, 1, 2) and self.device_id != _STATE.current:  # as CuPy's check_stream_device_match
            raise RuntimeError(f"The device that the stream is created on ({self.device_id}) does not match with "
                               f"the current device ({_STATE.current})")
        _STATE.streams.setdefault(self.device_id, []).append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _STATE.streams[self.device_id].pop()

    def is_capturing(self) -> bool:
        return _stream_is_capturing(self.ptr, self.device_id)

    def begin_capture(self, mode: int | None = None) -> None:
        if self.ptr in (0, 1):  # as CuPy's Stream.begin_capture
            raise RuntimeError("cannot capture on the default (legacy) stream")
        if self.capture is not None:
            raise CUDARuntimeError("cudaErrorIllegalState: the stream is already capturing")
        self.capture = _Capture(CAPTURE_RELAXED if mode is None else mode)  # CuPy's default: relaxed
        _STATE.captures.append(self)

    def end_capture(self) -> FakeGraph:
        capture = self.capture
        if capture is None:
            raise CUDARuntimeError("cudaErrorIllegalState: the stream is not capturing")
        self.capture = None  # (an invalidated capture ends too)
        _STATE.captures.remove(self)
        if capture.invalidated is not None:
            raise CUDARuntimeError(f"cudaErrorStreamCaptureInvalidated: operation failed due to a previous error "
                                   f"during capture ({capture.invalidated})")
        return FakeGraph(tuple(capture.nodes))

    def synchronize(self) -> None:
        _STATE.use_stream(self, "cudaStreamSynchronize")
        _STATE.synchronize()


def _stream_is_capturing(ptr: int, device: int | None = None) -> bool:
    """cudaStreamIsCapturing: the legacy stream cannot be asked while a blocking stream of its
    device captures (cudaErrorStreamCaptureImplicit)."""
    if ptr in (0, 1):
        device = _STATE.current if device is None else device
        if any(s.device_id == device and not s.non_blocking for s in _STATE.captures):
            raise CUDARuntimeError("cudaErrorStreamCaptureImplicit: the legacy stream queried while a blocking "
                                   "stream captures")
        return False
    return any(s.ptr == ptr for s in _STATE.captures)


@dataclass(frozen=True)
class _BakedPointer:
    """An array argument as a captured graph holds it: its address, layout and the bytes it spans
    ([low, high)), and the pool block that held them at capture (None: memory not from the pool,
    which the fake cannot follow)."""

    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: Any
    device: int
    low: int
    high: int
    block: int | None

    @classmethod
    def of(cls, arr: FakeArray) -> _BakedPointer:
        ptr = arr.data.ptr
        reach = [s * (d - 1) for s, d in zip(arr.strides, arr.shape, strict=True)]
        low = ptr + sum(r for r in reach if r < 0)
        high = ptr + sum(r for r in reach if r > 0) + arr.itemsize if arr.size else ptr
        return cls(ptr, arr.shape, arr.strides, arr.dtype, arr._device, low, high,
                   _STATE.pool.holder(low, high) if high > low else None)

    def resolve(self) -> FakeArray | None:
        """The memory at the baked address now, as the kernel will see it; None (and a sticky
        fault) where the block holding it at capture is no longer allocated or no longer holds it."""
        if self.block is not None and _STATE.pool.holder(self.low, self.high) is None:
            finding = (f"CUDA_ERROR_ILLEGAL_ADDRESS: a graph launched with a pointer it baked in at capture "
                       f"(0x{self.ptr:x}, {self.high - self.low} bytes) that no live allocation holds now: its "
                       f"buffer was freed after the capture")
            _STATE.stale.append(finding)
            _STATE.fault = _STATE.fault or finding
            return None
        span = (ctypes.c_byte * (self.high - self.low)).from_address(self.low)
        arr = np.ndarray(self.shape, self.dtype, buffer=span, offset=self.ptr - self.low,
                         strides=self.strides).view(FakeArray)
        arr._device = self.device
        return arr


@dataclass(frozen=True)
class _KernelNode:
    """A captured kernel launch."""

    kernel: Any
    device: int
    grid: tuple[int, ...]
    block: tuple[int, ...]
    args: tuple[Any, ...]  # _BakedPointer for array arguments, values otherwise
    shared_mem: int

    def run(self) -> None:
        args = [a.resolve() if isinstance(a, _BakedPointer) else a for a in self.args]
        if any(a is None for a, baked in zip(args, self.args, strict=True) if isinstance(baked, _BakedPointer)):
            return  # (the fault is set: the kernel would have touched freed memory)
        _run_kernel(self.kernel, self.device, self.grid, self.block, tuple(args), self.shared_mem)


class FakeEvent:
    """cupy.cuda.Event: `done` says whether the work before its record has finished: at once,
    unless the state's `gpu_behind` is set, when only `synchronize()` finishes it."""

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False) -> None:
        self.recorded, self._done = False, False

    def record(self, stream: FakeStream | None = None) -> None:
        _STATE.legacy_use(stream or _STATE.stream(), "cudaEventRecord")
        self.recorded, self._done = True, not _STATE.gpu_behind
        self.at = time.perf_counter()  # (the stand-in's work is done when launched: host time is its time)

    @property
    def done(self) -> bool:  # (CuPy's Event.done: cudaEventQuery)
        return self._done or not self.recorded

    def synchronize(self) -> None:
        _STATE.synchronize()
        self._done = True


class FakeGraph:
    """cupy.cuda.Graph: made only by end_capture; `launch(stream=None)` runs it on that stream (or
    the current one), or adds it to that stream's capture."""

    def __init__(self, nodes: tuple[Any, ...]) -> None:
        self.nodes = nodes

    def run(self) -> None:
        for node in self.nodes:
            node.run()

    def launch(self, stream: FakeStream | None = None) -> None:
        target = stream if stream is not None else _STATE.stream()
        _STATE.synchronize()  # a context with a fault refuses every launch after it
        _STATE.legacy_use(target, "cudaGraphLaunch")
        if target.capture is not None:  # captured as a child graph
            if target.capture.invalidated is not None:
                raise CUDARuntimeError("cudaErrorStreamCaptureInvalidated: the capture was invalidated")
            target.capture.nodes.append(self)
            return
        _STATE.graph_launches += 1
        target.graph_launches += 1
        self.run()

    def upload(self, stream: FakeStream | None = None) -> None:
        """Nothing to prepare in host memory."""


def _run_kernel(kernel: Any, device: int, grid: tuple[int, ...], block: tuple[int, ...], args: tuple[Any, ...],
                shared_mem: int) -> None:
    if any(isinstance(a, FakeArray) and a._device != device for a in args):
        _STATE.fault = "CUDA_ERROR_ILLEGAL_ADDRESS: a kernel argument lives on another device"
        return
    _STATE.run_on_device(kernel, grid, block, args, shared_mem)


class FakeModule:
    """cupy.cuda.Module: the host build of the source, holding the entry points NVRTC would compile
    (not those inside `#ifdef OPGEN_HOST_EMU`, only the cpu plan's): get_function of another name is
    CUDA_ERROR_NOT_FOUND, as cuModuleGetFunction says."""

    options: tuple[str, ...] = ()  # the host build's (a test may ask for the GPU form's)

    def load(self, data: bytes) -> None:
        if type(data) is not bytes:  # CuPy: `cpdef load(self, bytes cubin)`
            raise TypeError(f"Argument 'cubin' has incorrect type (expected bytes, got {type(data).__name__})")
        from codegen.runtime import host

        self.device = _STATE.current  # loaded into this device's context
        source = data.decode()
        self.host = host.load_module(source, self.options, name_hint=_name_hint(source))
        self.names = set(host.device_kernel_names(source))

    def get_function(self, name: str) -> Any:
        if name not in self.names:
            raise CUDADriverError("CUDA_ERROR_NOT_FOUND: named symbol not found")
        return FakeFunction(self.host.get_function(name), self.device)


_GENERATED_AS = re.compile(r'#line \d+ "(?:[^"\\]*/)?([^"/\\]+)\.cu"')


def _name_hint(source: str) -> str:
    """The name the cpu backend gives this text's host build (a generated module's file stem, from the
    `#line` on its second line, codegen/linemarks.py): the disk cache files an entry under that name and
    its key, so another name would compile the same text again (≈ 30 s of a suite run); else fake_cuda."""
    lines = source.split("\n", 2)
    found = _GENERATED_AS.fullmatch(lines[1]) if len(lines) > 1 else None
    return found[1] if found else "fake_cuda"


class FakeFunction:
    """cupy.cuda.Function: grid and block must be tuples; the launch goes to the current stream
    (captured while it captures: arrays as their pointers); a fault inside the kernel surfaces at
    the next synchronize."""

    def __init__(self, host_function: Any, device: int) -> None:
        self.host, self.device = host_function, device

    def __call__(self, grid: tuple[int, ...], block: tuple[int, ...], args: Any, shared_mem: int = 0,
                 stream: Any = None) -> None:
        for name, value in (("grid", grid), ("block", block)):
            if type(value) is not tuple:  # CuPy: `def __call__(self, tuple grid, tuple block, ...)`
                raise TypeError(f"Argument '{name}' has incorrect type (expected tuple, got {type(value).__name__})")
        _STATE.kernel_calls += 1
        _STATE.synchronize()  # a context with a fault refuses every launch after it
        if _STATE.current != self.device:
            raise CUDADriverError(f"CUDA_ERROR_INVALID_HANDLE: a function of device {self.device}'s module "
                                  f"launched with device {_STATE.current} current")
        target = stream or _STATE.stream()
        _STATE.legacy_use(target, "a kernel launch")
        args = tuple(args)
        if target.capture is None:
            _run_kernel(self.host, self.device, grid, block, args, shared_mem)
            return
        if target.capture.invalidated is not None:
            raise CUDARuntimeError("cudaErrorStreamCaptureInvalidated: the capture was invalidated")
        self.host._pack(args)  # argument errors are still immediate
        baked = tuple(_BakedPointer.of(a) if isinstance(a, FakeArray) else a for a in args)
        target.capture.nodes.append(_KernelNode(self.host, self.device, grid, block, baked, shared_mem))


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
    """cupy_backends.cuda.libs.cublas: sgemm, dgemm, gemmEx (half, float32 compute) and
    gemmStridedBatchedEx in NumPy.

    A handle runs its calls on the stream setStream bound it to; while that stream captures, a call
    is captured (its raw pointers baked, run when the graph runs) rather than run. setStream refuses
    during a capture, as CuPy's binding does. `binding_sets_stream`: CuPy's gemm bindings set the
    current stream themselves on every call, so they refuse inside any capture (CuPy 14.2 on an H200
    did: the default here); False models a binding that leaves the stream to the handle."""

    CUBLAS_OP_N, CUBLAS_OP_T = 0, 1

    def __init__(self, binding_sets_stream: bool = True) -> None:
        self.calls: list[str] = []
        self.bound: dict[int, int] = {}  # handle → stream pointer
        self.binding_sets_stream = binding_sets_stream

    def setStream(self, handle: int, stream: int) -> None:
        if _stream_is_capturing(stream):  # as CuPy's binding does
            raise NotImplementedError("calling cuBLAS API during stream capture is currently unsupported")
        if handle != _cublas_handle():
            raise RuntimeError(f"CUBLAS_STATUS_INVALID_VALUE: handle {handle} belongs to another device")
        self.bound[handle] = stream

    def _gemm(self, name: str, dtype: Any, acc: Any, ta: int, tb: int, m: int, n: int, k: int, alpha: int, a: int,
              lda: int, b: int, ldb: int, beta: int, c: int, ldc: int, handle: int | None = None) -> None:
        if handle is not None:
            if self.binding_sets_stream:
                self.setStream(handle, _STATE.stream().ptr)
            bound = self.bound.get(handle, 0)
            capture = next((st for st in _STATE.captures if st.ptr == bound and bound not in (0, 1)), None)
            if capture is not None:  # captured: run when the graph runs (host scalars read now, as cuBLAS does)
                scalars = (_at(alpha, acc, 1).copy(), _at(beta, acc, 1).copy())
                capture.capture.nodes.append(_GemmNode(self, (name, dtype, acc, ta, tb, m, n, k, scalars[0].ctypes.data,
                                                              a, lda, b, ldb, scalars[1].ctypes.data, c, ldc), scalars))
                return
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
        self._gemm("sgemm", np.float32, np.float32, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, h)

    def dgemm(self, h: int, ta: int, tb: int, m: int, n: int, k: int, alpha: int, a: int, lda: int, b: int,
              ldb: int, beta: int, c: int, ldc: int) -> None:
        self._gemm("dgemm", np.float64, np.float64, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, h)

    def gemmEx(self, h: int, ta: int, tb: int, m: int, n: int, k: int, alpha: int, a: int, a_type: int,
               lda: int, b: int, b_type: int, ldb: int, beta: int, c: int, c_type: int, ldc: int, compute: int,
               algo: int) -> None:
        assert (a_type, b_type, c_type, compute) == (2, 2, 2, 68), "half storage, float32 compute expected"
        self._gemm("gemmEx", np.float16, np.float32, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, h)

    def gemmStridedBatchedEx(self, h: int, ta: int, tb: int, m: int, n: int, k: int, alpha: int, a: int, a_type: int,
                             lda: int, stride_a: int, b: int, b_type: int, ldb: int, stride_b: int, beta: int, c: int,
                             c_type: int, ldc: int, stride_c: int, batch: int, compute: int, algo: int) -> None:
        """Product i at each pointer plus i times its stride (in elements), one by one."""
        types = {0: (np.float32, np.float32, 68), 1: (np.float64, np.float64, 70), 2: (np.float16, np.float32, 68)}
        dtype, acc, want_compute = types[a_type]
        assert (b_type, c_type, compute) == (a_type, a_type, want_compute), "one data type, its compute type"
        size = np.dtype(dtype).itemsize
        for i in range(batch):
            self._gemm("gemmStridedBatchedEx", dtype, acc, ta, tb, m, n, k, alpha, a + i * stride_a * size, lda,
                       b + i * stride_b * size, ldb, beta, c + i * stride_c * size, ldc, h)


class FakeCublasLibrary(FakeCublas):
    """cuBLAS itself, as codegen/runtime/cublas_library.py calls it through ctypes: handles of its
    own (each made on the device current at `create`, used only there), setStream allowed during a
    capture (cuBLAS allows it; CuPy's binding is what refuses), a workspace per handle that setStream
    resets, as cublasSetStream does. A call on a handle without a workspace after setStream fails,
    so the caller must set it again after every setStream."""

    def __init__(self) -> None:
        super().__init__(binding_sets_stream=False)
        self.devices: dict[int, int] = {}  # handle → device
        self.workspaces: dict[int, int] = {}  # handle → workspace pointer
        self.path = "fake libcublas.so"

    def create(self) -> int:
        handle = 5000 + len(self.devices)
        self.devices[handle] = _STATE.current
        return handle

    def destroy(self, handle: int) -> None:
        self.devices.pop(handle)

    def _check_handle(self, handle: int) -> None:
        if self.devices.get(handle) != _STATE.current:
            raise RuntimeError(f"CUBLAS_STATUS_INVALID_VALUE: handle {handle} is not this device's")

    def setStream(self, handle: int, stream: int) -> None:
        self._check_handle(handle)
        self.bound[handle] = stream
        self.workspaces.pop(handle, None)  # (cublasSetStream resets the workspace to the default pool)

    def setWorkspace(self, handle: int, pointer: int, size: int) -> None:
        self._check_handle(handle)
        assert pointer and size > 0
        self.workspaces[handle] = pointer

    def _gemm(self, name: str, dtype: Any, acc: Any, ta: int, tb: int, m: int, n: int, k: int, alpha: int, a: int,
              lda: int, b: int, ldb: int, beta: int, c: int, ldc: int, handle: int | None = None) -> None:
        if handle is not None:
            self._check_handle(handle)
            if handle not in self.workspaces:  # the default pool: would allocate inside a capture
                raise RuntimeError(f"handle {handle} runs without its own workspace (set after setStream)")
        super()._gemm(name, dtype, acc, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, handle)


@dataclass
class _GemmNode:
    """A captured cuBLAS call: raw pointers, and the host scalars as they were at the capture."""

    cublas: FakeCublas
    call: tuple[Any, ...]
    scalars: tuple[np.ndarray, ...]

    def run(self) -> None:
        self.cublas._gemm(*self.call)


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
    fake.empty = _device_array  # type: ignore[attr-defined]
    fake.ascontiguousarray = (  # type: ignore[attr-defined]
        lambda x: x if isinstance(x, FakeArray) and x.flags.c_contiguous else _on_current(np.ascontiguousarray(x)))
    fake.matmul = _matmul  # type: ignore[attr-defined]
    fake.from_dlpack = _from_dlpack  # type: ignore[attr-defined]
    fake.concatenate = lambda parts, axis=0: _on_current(np.concatenate(parts, axis))  # type: ignore[attr-defined]
    fake.get_array_module = (  # type: ignore[attr-defined]
        lambda *arrays: fake if any(isinstance(a, FakeArray) for a in arrays) else np)
    runtime = types.SimpleNamespace(getDeviceCount=lambda: _STATE.count, streamIsCapturing=_stream_is_capturing,
                                    getDeviceProperties=lambda i: {"name": b"Fake GPU"},
                                    CUDARuntimeError=CUDARuntimeError, streamCaptureModeGlobal=CAPTURE_GLOBAL,
                                    streamCaptureModeThreadLocal=CAPTURE_THREAD_LOCAL,
                                    streamCaptureModeRelaxed=CAPTURE_RELAXED)
    fake.cuda = types.SimpleNamespace(  # type: ignore[attr-defined]
        runtime=runtime, Device=FakeDevice, Module=FakeModule, Stream=FakeStream, Graph=FakeGraph, Event=FakeEvent,
        get_current_stream=lambda: _STATE.stream(),
        get_elapsed_time=lambda start, end: (end.at - start.at) * 1e3,
        driver=types.SimpleNamespace(CUDADriverError=CUDADriverError),
        device=types.SimpleNamespace(get_cublas_handle=_cublas_handle),
        alloc=lambda size: _device_array((size,), np.uint8).data,
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
    if cublas is not None and not isinstance(cublas, FakeCublasLibrary):
        libs.cublas = cublas  # type: ignore[attr-defined]
    # cuBLAS by ctypes: the fake library where given, else none loads (CuPy's binding, if any, serves)
    from codegen.runtime import cublas_library

    library = cublas if isinstance(cublas, FakeCublasLibrary) else None
    monkeypatch.setattr(cublas_library, "load_cublas", lambda: library)
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
    # The fake's device memory is not a driver's: the wrappers' native cuda path (native_driver.py) is
    # off here, unless a test joins it to the libcuda stand-in (tests/test_native_cuda_wrappers.py).
    from codegen.runtime.native_driver import NativeDriver

    monkeypatch.setattr(NativeDriver, "_call_cuda", lambda self, backend, inputs, attrs, state, outputs: None)
    return types.SimpleNamespace(backend=cuda.cuda_backend(0), compiled=compiled, module=cuda, cublas=cublas,
                                 tmp_path=tmp_path)
