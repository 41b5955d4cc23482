"""The libcuda stand-in (codegen/runtime/native/cuda_standin.cpp) driven from Python: its driver API
called through ctypes as a front-end would call libcuda, with device memory as NumPy arrays copied
in and out, for tests/test_native_cuda.py."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from codegen.runtime import native_cuda

c_void_p, c_uint, c_size_t = ctypes.c_void_p, ctypes.c_uint, ctypes.c_size_t
SUCCESS, INVALID_VALUE, INVALID_IMAGE, INVALID_HANDLE, ILLEGAL_STATE = 0, 1, 200, 400, 401
ILLEGAL_ADDRESS, CAPTURE_UNSUPPORTED, CAPTURE_INVALIDATED, CAPTURE_IMPLICIT = 700, 900, 901, 906
NOT_FOUND = 500
CAPTURE_GLOBAL, CAPTURE_RELAXED = 0, 2
COUNT_LAUNCHES, COUNT_RUN, COUNT_GRAPHS, COUNT_MODULES = 0, 1, 2, 3


class Standin:
    """The stand-in's library with its functions typed, its device 0's primary context current."""

    def __init__(self) -> None:
        self.lib, self.path = native_cuda.standin()
        lib = self.lib
        lib.cuLaunchKernel.argtypes = [c_void_p, *([c_uint] * 7), c_void_p, c_void_p, c_void_p]
        lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), c_size_t]
        lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
        lib.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, c_void_p, c_size_t]
        lib.cuMemcpyDtoH_v2.argtypes = [c_void_p, ctypes.c_uint64, c_size_t]
        for name in ("cuStreamSynchronize", "cuStreamDestroy_v2", "cuGraphLaunch", "cuGraphInstantiateWithFlags",
                     "cuStreamEndCapture", "cuStreamBeginCapture_v2", "cuModuleGetFunction", "cuCtxSetCurrent"):
            getattr(lib, name).argtypes = None
        lib.opgen_standin_count.restype = ctypes.c_longlong
        lib.opgen_standin_fault.restype = ctypes.c_char_p
        self.check(lib.cuInit(0))
        self.ctx = c_void_p()
        self.check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), 0))
        self.check(lib.cuCtxSetCurrent(self.ctx))

    @staticmethod
    def check(rc: int) -> None:
        assert rc == SUCCESS, f"CUresult {rc}"

    def load(self, image: bytes) -> c_void_p:
        module = c_void_p()
        self.check(self.lib.cuModuleLoadData(ctypes.byref(module), image))
        return module

    def function(self, module: c_void_p, name: str) -> c_void_p:
        fn = c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(fn), module, name.encode()))
        return fn

    def stream(self) -> c_void_p:
        s = c_void_p()
        self.check(self.lib.cuStreamCreate(ctypes.byref(s), 0))
        return s

    def alloc(self, nbytes: int) -> int:
        ptr = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(ptr), max(nbytes, 1)))
        return ptr.value

    def to_device(self, array: np.ndarray) -> int:
        ptr = self.alloc(array.nbytes)
        if array.nbytes:
            self.check(self.lib.cuMemcpyHtoD_v2(ptr, array.ctypes.data, array.nbytes))
        return ptr

    def to_host(self, ptr: int, like: np.ndarray) -> np.ndarray:
        out = np.empty_like(like)
        if out.nbytes:
            self.check(self.lib.cuMemcpyDtoH_v2(out.ctypes.data, ptr, out.nbytes))
        return out

    def launch(self, fn: c_void_p, grid: tuple[int, int, int], block: tuple[int, int, int], args: list[Any],
               stream: Any = None, shared: int = 0) -> int:
        """cuLaunchKernel with kernelParams pointing at each of `args` (ctypes values)."""
        params = (c_void_p * len(args))(*(ctypes.addressof(a) for a in args))
        return int(self.lib.cuLaunchKernel(fn, *grid, *block, shared, stream, params, None))

    def end_capture(self, stream: c_void_p) -> c_void_p:
        """The stream's capture ended and its graph instantiated (checked)."""
        graph, exe = c_void_p(), c_void_p()
        self.check(self.lib.cuStreamEndCapture(stream, ctypes.byref(graph)))
        self.check(self.lib.cuGraphInstantiateWithFlags(ctypes.byref(exe), graph, ctypes.c_ulonglong(0)))
        return exe

    def count(self, what: int) -> int:
        return int(self.lib.opgen_standin_count(what))
