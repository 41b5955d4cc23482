"""The libcuda stand-in (codegen/runtime/native/cuda_standin.cpp) runs a module's kernels on the host
emulation through the driver API, and is strict where the driver is: launch bounds and CUDA's limits,
what a stream capture forbids (and its invalidation), the legacy stream during a capture, pointers
baked into a graph at capture."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from standin_driver import (
    CAPTURE_GLOBAL,
    CAPTURE_IMPLICIT,
    CAPTURE_INVALIDATED,
    CAPTURE_RELAXED,
    CAPTURE_UNSUPPORTED,
    COUNT_GRAPHS,
    COUNT_RUN,
    ILLEGAL_ADDRESS,
    ILLEGAL_STATE,
    INVALID_IMAGE,
    INVALID_VALUE,
    NOT_FOUND,
    Standin,
)

from codegen.runtime import host, native_cuda
from codegen.runtime.cpu import GPU_FORM_OPTION

TOY = r'''
extern "C" __global__ void __launch_bounds__(64) add_one(float* x, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
extern "C" __global__ void scale(float* x, float by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= by;
}
'''


@pytest.fixture(scope="module")
def cuda() -> Iterator[Standin]:
    yield Standin()


@pytest.fixture
def toy(cuda: Standin) -> Iterator[tuple[Standin, ctypes.c_void_p, ctypes.c_void_p]]:
    module = cuda.load(native_cuda.standin_image(host.load_module(TOY, (GPU_FORM_OPTION,), name_hint="standin_toy")))
    yield cuda, cuda.function(module, "add_one"), cuda.function(module, "scale")
    cuda.lib.opgen_standin_clear_fault()


def _buffer(cuda: Standin, n: int = 10) -> tuple[ctypes.c_uint64, np.ndarray]:
    x = np.arange(n, dtype=np.float32)
    return ctypes.c_uint64(cuda.to_device(x)), x


def test_a_launch_runs_the_host_build_of_the_kernel(toy: tuple[Standin, ctypes.c_void_p, ctypes.c_void_p]) -> None:
    cuda, add_one, scale = toy
    ptr, x = _buffer(cuda)
    assert cuda.launch(add_one, (1, 1, 1), (64, 1, 1), [ptr, ctypes.c_int64(10)]) == 0
    assert cuda.launch(scale, (1, 1, 1), (32, 1, 1), [ptr, ctypes.c_float(2.0), ctypes.c_int32(10)]) == 0
    cuda.check(cuda.lib.cuCtxSynchronize())
    np.testing.assert_array_equal(cuda.to_host(ptr.value, x), (x + 1) * 2)


@pytest.mark.parametrize("grid, block, shared", [
    ((1, 1, 1), (65, 1, 1), 0),       # beyond add_one's __launch_bounds__(64)
    ((1, 1, 1), (8, 8, 2), 0),        # 128 threads, each dimension within the limits
    ((1, 65536, 1), (32, 1, 1), 0),   # grid y beyond 65535
    ((0, 1, 1), (32, 1, 1), 0),       # an empty grid
    ((1, 1, 1), (32, 1, 1), 49153),   # dynamic shared memory beyond 48 KiB
])
def test_a_launch_beyond_the_limits_is_invalid_value(toy: tuple[Standin, ctypes.c_void_p, ctypes.c_void_p],
                                                     grid: tuple[int, int, int], block: tuple[int, int, int],
                                                     shared: int) -> None:
    cuda, add_one, _ = toy
    ptr, x = _buffer(cuda)
    before = cuda.count(COUNT_RUN)
    assert cuda.launch(add_one, grid, block, [ptr, ctypes.c_int64(10)], shared=shared) == INVALID_VALUE
    assert cuda.count(COUNT_RUN) == before
    np.testing.assert_array_equal(cuda.to_host(ptr.value, x), x)


def test_an_unbounded_kernel_takes_1024_threads_and_no_more(toy: tuple[Standin, ctypes.c_void_p,
                                                                        ctypes.c_void_p]) -> None:
    cuda, _, scale = toy
    ptr, _ = _buffer(cuda)
    args = [ptr, ctypes.c_float(1.0), ctypes.c_int32(10)]
    assert cuda.launch(scale, (1, 1, 1), (1024, 1, 1), args) == 0
    assert cuda.launch(scale, (1, 1, 1), (1025, 1, 1), args) == INVALID_VALUE
    assert cuda.launch(scale, (1, 1, 1), (16, 1, 65), args) == INVALID_VALUE  # z beyond 64


def test_a_kernel_only_the_cpu_plan_launches_is_not_in_the_module(cuda: Standin) -> None:
    """As NVRTC compiles it: a kernel inside `#ifdef OPGEN_HOST_EMU` is CUDA_ERROR_NOT_FOUND, the others load."""
    source = TOY + '#ifdef OPGEN_HOST_EMU\nextern "C" __global__ void cpu_only(float* x) { x[0] = 1.0f; }\n#endif\n'
    module = host.load_module(source, (GPU_FORM_OPTION,), name_hint="standin_cpu_only")
    assert "cpu_only" in module.kernel_names  # the host build has it
    loaded = cuda.load(native_cuda.standin_image(module))
    cuda.function(loaded, "scale")
    fn = ctypes.c_void_p()
    assert cuda.lib.cuModuleGetFunction(ctypes.byref(fn), loaded, b"cpu_only") == NOT_FOUND


def test_an_image_that_is_not_the_standins_is_invalid(cuda: Standin) -> None:
    module = ctypes.c_void_p()
    assert cuda.lib.cuModuleLoadData(ctypes.byref(module), b"\x7fELF not a host image\0") == INVALID_IMAGE


def test_synchronizing_a_capturing_stream_is_refused_and_invalidates_the_capture(
        toy: tuple[Standin, ctypes.c_void_p, ctypes.c_void_p]) -> None:
    cuda, add_one, _ = toy
    ptr, _ = _buffer(cuda)
    stream = cuda.stream()
    cuda.check(cuda.lib.cuStreamBeginCapture_v2(stream, CAPTURE_GLOBAL))
    assert cuda.launch(add_one, (1, 1, 1), (64, 1, 1), [ptr, ctypes.c_int64(10)], stream) == 0
    assert cuda.lib.cuStreamSynchronize(stream) == CAPTURE_UNSUPPORTED
    assert cuda.launch(add_one, (1, 1, 1), (64, 1, 1), [ptr, ctypes.c_int64(10)], stream) == CAPTURE_INVALIDATED
    graph = ctypes.c_void_p(1)
    assert cuda.lib.cuStreamEndCapture(stream, ctypes.byref(graph)) == CAPTURE_INVALIDATED
    assert graph.value is None
    assert cuda.lib.cuStreamEndCapture(stream, ctypes.byref(graph)) == ILLEGAL_STATE  # the capture is over
    cuda.check(cuda.lib.cuStreamSynchronize(stream))  # and the stream usable again


@pytest.mark.parametrize("call", ["alloc", "free", "context sync", "copy", "async copy"])
def test_an_unsafe_call_during_a_global_capture_is_refused_and_invalidates_it(cuda: Standin, call: str) -> None:
    stream = cuda.stream()
    keep = cuda.alloc(64)
    host_data = np.zeros(16, np.float32)
    cuda.check(cuda.lib.cuStreamBeginCapture_v2(stream, CAPTURE_GLOBAL))
    ptr = ctypes.c_uint64()
    rc = {"alloc": lambda: cuda.lib.cuMemAlloc_v2(ctypes.byref(ptr), 64),
          "free": lambda: cuda.lib.cuMemFree_v2(keep),
          "context sync": lambda: cuda.lib.cuCtxSynchronize(),
          "copy": lambda: cuda.lib.cuMemcpyDtoH_v2(host_data.ctypes.data, keep, 64),
          "async copy": lambda: cuda.lib.cuMemcpyHtoDAsync_v2(ctypes.c_uint64(keep), host_data.ctypes.data,
                                                              ctypes.c_size_t(64), stream)}[call]()
    assert rc == CAPTURE_UNSUPPORTED
    graph = ctypes.c_void_p()
    assert cuda.lib.cuStreamEndCapture(stream, ctypes.byref(graph)) == CAPTURE_INVALIDATED


def test_a_relaxed_capture_allows_allocation(cuda: Standin) -> None:
    stream = cuda.stream()
    cuda.check(cuda.lib.cuStreamBeginCapture_v2(stream, CAPTURE_RELAXED))
    cuda.alloc(64)
    graph = ctypes.c_void_p()
    cuda.check(cuda.lib.cuStreamEndCapture(stream, ctypes.byref(graph)))
    assert graph.value is not None


def test_the_legacy_stream_cannot_capture_nor_be_used_while_a_blocking_stream_captures(
        toy: tuple[Standin, ctypes.c_void_p, ctypes.c_void_p]) -> None:
    cuda, add_one, _ = toy
    ptr, _ = _buffer(cuda)
    assert cuda.lib.cuStreamBeginCapture_v2(None, CAPTURE_GLOBAL) == CAPTURE_UNSUPPORTED
    stream = cuda.stream()
    cuda.check(cuda.lib.cuStreamBeginCapture_v2(stream, CAPTURE_RELAXED))
    assert cuda.launch(add_one, (1, 1, 1), (64, 1, 1), [ptr, ctypes.c_int64(10)], None) == CAPTURE_IMPLICIT
    graph = ctypes.c_void_p()
    assert cuda.lib.cuStreamEndCapture(stream, ctypes.byref(graph)) == CAPTURE_INVALIDATED


def _captured(cuda: Standin, add_one: ctypes.c_void_p, ptr: ctypes.c_uint64, stream: ctypes.c_void_p) -> Any:
    """A graph of one add_one launch on `ptr`, captured on `stream` and instantiated."""
    cuda.check(cuda.lib.cuStreamBeginCapture_v2(stream, CAPTURE_GLOBAL))
    assert cuda.launch(add_one, (1, 1, 1), (64, 1, 1), [ptr, ctypes.c_int64(10)], stream) == 0
    return cuda.end_capture(stream)


def test_a_graph_replays_the_pointers_baked_at_capture(toy: tuple[Standin, ctypes.c_void_p,
                                                                   ctypes.c_void_p]) -> None:
    cuda, add_one, _ = toy
    ptr, x = _buffer(cuda)
    stream = cuda.stream()
    ran = cuda.count(COUNT_RUN)
    exe = _captured(cuda, add_one, ptr, stream)
    assert cuda.count(COUNT_RUN) == ran  # captured, not run
    first, ptr.value = ptr.value, cuda.to_device(x)  # the argument's variable changes: the graph keeps its own
    for _ in range(2):
        cuda.check(cuda.lib.cuGraphLaunch(exe, stream))
    cuda.check(cuda.lib.cuStreamSynchronize(stream))
    assert cuda.count(COUNT_GRAPHS) >= 2
    np.testing.assert_array_equal(cuda.to_host(ptr.value, x), x)  # the new buffer: untouched
    np.testing.assert_array_equal(cuda.to_host(first, x), x + 2)
    cuda.check(cuda.lib.cuMemcpyHtoD_v2(first, np.full(10, 7, np.float32).ctypes.data, 40))
    cuda.check(cuda.lib.cuGraphLaunch(exe, stream))  # new contents of the same buffer are seen
    np.testing.assert_array_equal(cuda.to_host(first, x), np.full(10, 8, np.float32))


def test_a_graph_whose_baked_pointer_was_freed_faults(toy: tuple[Standin, ctypes.c_void_p,
                                                                  ctypes.c_void_p]) -> None:
    cuda, add_one, _ = toy
    ptr, x = _buffer(cuda)
    stream = cuda.stream()
    exe = _captured(cuda, add_one, ptr, stream)
    cuda.check(cuda.lib.cuGraphLaunch(exe, stream))
    np.testing.assert_array_equal(cuda.to_host(ptr.value, x), x + 1)  # baked: the first buffer, incremented
    cuda.check(cuda.lib.cuMemFree_v2(ptr.value))
    cuda.check(cuda.lib.cuGraphLaunch(exe, stream))  # asynchronous: the fault shows at the next sync
    assert cuda.lib.cuStreamSynchronize(stream) == ILLEGAL_ADDRESS
    assert b"add_one" in cuda.lib.opgen_standin_fault()
    assert cuda.launch(add_one, (1, 1, 1), (64, 1, 1), [ptr, ctypes.c_int64(10)], stream) == ILLEGAL_ADDRESS


def test_a_memset_runs_in_stream_order_and_is_captured_like_a_launch(cuda: Standin) -> None:
    x = np.arange(8, dtype=np.float32)
    ptr = cuda.to_device(x)
    stream = cuda.stream()
    memset = cuda.lib.cuMemsetD8Async
    memset.argtypes = [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t, ctypes.c_void_p]
    cuda.check(memset(ptr, 0, 16, stream))  # the first four elements
    np.testing.assert_array_equal(cuda.to_host(ptr, x), np.r_[np.zeros(4, np.float32), x[4:]])
    cuda.check(cuda.lib.cuStreamBeginCapture_v2(stream, CAPTURE_GLOBAL))
    cuda.check(memset(ptr, 0, 32, stream))
    exe = cuda.end_capture(stream)
    assert cuda.to_host(ptr, x)[4:].tolist() == x[4:].tolist()  # captured: not run
    cuda.check(cuda.lib.cuGraphLaunch(exe, stream))
    assert not cuda.to_host(ptr, x).any()
    assert memset(16, 0, 4, stream) == INVALID_VALUE  # an address no allocation holds
