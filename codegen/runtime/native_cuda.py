"""The native cuda runtime (codegen/runtime/native/run_plan_cuda.cpp) and the stand-in for libcuda
(native/cuda_standin.cpp), built with the host C++ compiler into the host cache like the native plans
(keyed by their sources and headers, flags, compiler and target; locked) and loaded once per
process. `use_driver(path)` names the libcuda the runtime loads (the stand-in in tests); `bind`
hands it an op's module image and symbols once per (op, device): `device_image` on a GPU (the kernel
cache's cubin), `standin_image` in a stand-in build (text naming the host build of the GPU form of
the op's source). docs/native.md says where this stands."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from codegen.runtime import cuda_cache, diskcache
from codegen.runtime.host import HostModule, device_kernel_names
from codegen.runtime.host.libraries import _RUNTIME, _build_or_load, _runtime_api
from codegen.runtime.host.state import _LOCK
from codegen.runtime.host.switches import _launch_settings
from codegen.runtime.host.toolchain import (
    _BASE_FLAGS,
    EMU_DIR,
    _compiler_command,
    _target,
    compiler_id,
)
from codegen.runtime.host_command import emu_digest
from codegen.runtime.kernels import KernelSource

NATIVE_DIR = Path(__file__).resolve().parent / "native"
RESULTS = {0: "OK", 1: "TYPE", 2: "VALUE", 3: "MEMORY", 4: "RUNTIME", 5: "FALLBACK"}  # driver.h's opgen_result
FALLBACK = 5
GRAPH_CAPTURES, GRAPH_LAUNCHES, GRAPH_FAILURES = range(3)  # opgen_native_cuda_stat's counters
#: driver.h's opgen_dtype, by name (a Slot's dtype)
DTYPES = {name: code for code, name in enumerate((
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "bfloat16",
    "float32", "float64"))}
_ERRLEN = 1024
_BUILT: dict[str, tuple[ctypes.CDLL, Path]] = {}


class NativeCudaError(RuntimeError):
    """The native cuda runtime refused (`result`: driver.h's opgen_result), its message saying why."""

    def __init__(self, result: int, message: str):
        super().__init__(message)
        self.result = result


class Slot(ctypes.Structure):  # run_plan.h's opgen_native::Slot
    _fields_ = [("data", ctypes.c_void_p), ("items", ctypes.POINTER(ctypes.c_void_p)), ("count", ctypes.c_int64),
                ("dtype", ctypes.c_int32), ("reserved", ctypes.c_int32), ("size", ctypes.c_int64)]


ALLOC = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32, ctypes.c_int32,
                         ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p),
                         ctypes.c_void_p, ctypes.c_int64)


class Allocator(ctypes.Structure):  # driver.h's opgen_allocator
    _fields_ = [("alloc", ALLOC), ("ctx", ctypes.c_void_p)]


def _build(source: str, include: Sequence[Path], what: str) -> tuple[ctypes.CDLL, Path]:
    """The library built from native/`source` (its headers' text in the key, and the emulation's
    where it includes them), once per process."""
    cmd = _compiler_command()
    flags = [*_BASE_FLAGS, *(f for folder in include for f in ("-I", str(folder)))]
    headers = "".join(f"// {p.name} {diskcache.digest(p.read_bytes())}\n" for p in sorted(NATIVE_DIR.glob("*.h")))
    if EMU_DIR in include:  # (the host cache's dependency check leaves the emulation's own headers out)
        headers += f"// emu {emu_digest()}\n"
    tu = (NATIVE_DIR / source).read_text() + "\n" + headers
    key = diskcache.cache_key(tu, flags, compiler_id(cmd), _target())
    with _LOCK:
        found = _BUILT.get(key)
        if found is None:
            lib, path, _ = _build_or_load(f"opgen-{Path(source).stem}-{key[:32]}", tu, cmd, flags, runtime=True,
                                          what=what)
            found = _BUILT[key] = (lib, path)
        return found


def runtime() -> ctypes.CDLL:
    """The native cuda runtime, its C entry points typed."""
    lib, _ = _build("run_plan_cuda.cpp", (NATIVE_DIR,), "the native cuda runtime")
    if not hasattr(lib, "_typed"):
        errs: list[Any] = [ctypes.c_char_p, ctypes.c_int64]
        lib.opgen_native_cuda_driver.argtypes = [ctypes.c_char_p, *errs]
        lib.opgen_native_cuda_cublas.argtypes = [ctypes.c_char_p, *errs]
        lib.opgen_native_cuda_bind.argtypes = [ctypes.c_char_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64,
                                               ctypes.POINTER(ctypes.c_char_p), ctypes.c_int64, *errs]
        lib.opgen_native_cuda_run.argtypes = [
            ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int64, ctypes.c_void_p,
            ctypes.c_int64, ctypes.POINTER(Slot), ctypes.c_int64, ctypes.c_int32, ctypes.c_void_p, Allocator, *errs]
        lib.opgen_native_cuda_stat.restype = ctypes.c_longlong
        lib.opgen_native_cuda_plan_abi.restype = ctypes.c_longlong
        lib.opgen_native_cuda_graphs.argtypes = [ctypes.c_int]
        lib._typed = True  # type: ignore[attr-defined]
    return lib


def hand_runner(driver_library: ctypes.CDLL) -> None:
    """Hands a driver library (native_driver.py) this runtime's run_plan_cuda: its cuda calls run
    here from now on (run_plan.h's CudaRunner). NativeCudaError where their run_plan.h ABIs differ."""
    lib = runtime()
    entry = ctypes.cast(lib.opgen_native_cuda_run_plan, ctypes.c_void_p)
    use = getattr(driver_library, "opgen_native_use_cuda_runner", None)
    if use is None:
        raise NativeCudaError(FALLBACK, f"the driver library {driver_library._name} takes no cuda runner (built "
                                        f"before run_plan.h ABI 3)")
    use.restype, use.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_int64]
    abi = lib.opgen_native_cuda_plan_abi()
    if use(entry, abi):
        raise NativeCudaError(FALLBACK, f"the native cuda runtime states run_plan.h ABI {abi}; the driver "
                                        f"library {driver_library._name} another")


_GRAPHS: list[bool] = [True]  # the graph switch as last set (the runtime's default)


def graphs(on: bool) -> None:
    """Graph replay on or off (OPGEN_NO_REPLAY: launch by launch), set in the runtime where it changes."""
    if _GRAPHS[0] != on:
        runtime().opgen_native_cuda_graphs(int(on))
        _GRAPHS[0] = on


def stat(what: int) -> int:
    """One of the graph replay's counters (GRAPH_CAPTURES, GRAPH_LAUNCHES, GRAPH_FAILURES)."""
    return int(runtime().opgen_native_cuda_stat(what))


def standin() -> tuple[ctypes.CDLL, Path]:
    """The stand-in for libcuda (loaded here too: tests call its driver API and its hooks) and its path."""
    _runtime_api()  # the emulation runtime its images name, loaded first
    return _build("cuda_standin.cpp", (NATIVE_DIR, EMU_DIR), "the libcuda stand-in")


def cublas_standin() -> tuple[ctypes.CDLL, Path]:
    """The stand-in for cuBLAS and its path, configured to run GEMMs through the emulation runtime
    and the process's BLAS (as the cpu backend does: host/blas.py) on the libcuda stand-in's
    streams; NativeCudaError where the process has no BLAS the runtime can call."""
    from codegen.runtime.host import blas

    found = blas.find()
    if found is None:
        raise NativeCudaError(FALLBACK, "the cuBLAS stand-in needs the process's BLAS (host/blas.py found none)")
    cuda, _ = standin()
    lib, path = _build("cublas_standin.cpp", (NATIVE_DIR, EMU_DIR), "the cuBLAS stand-in")
    f32, f64 = (found.desc(np.dtype(t), 0, 0, 0, False, False, 0, 0, 0, 0) for t in ("float32", "float64"))
    enqueue = ctypes.cast(cuda.opgen_standin_enqueue, ctypes.c_void_p)
    lib.opgen_cublas_standin_configure.argtypes = [ctypes.c_void_p] * 4
    lib.opgen_cublas_standin_configure(blas.gemm_address(), ctypes.byref(f32), ctypes.byref(f64), enqueue)
    return lib, path


#: [bindings' generation (a libcuda named anew forgets them), whether modules are stand-in images]
_DRIVER: list[Any] = [0, False]


def use_driver(path: str | Path | None, standin: bool = False) -> None:
    """The runtime loads `path` as libcuda from now on (None: libcuda.so.1; `standin`: the stand-in,
    whose modules are `standin_image`s); NativeCudaError (FALLBACK) saying what to install where it
    cannot. Every binding made before is forgotten (`generation` moves on)."""
    _DRIVER[0] += 1
    _DRIVER[1] = standin
    _name("opgen_native_cuda_driver", path)


def generation() -> int:
    """Moves on whenever use_driver names a libcuda: a front-end binds its ops again."""
    return int(_DRIVER[0])


def module_image(kernels: KernelSource, target: cuda_cache.Target) -> bytes:
    """The op's module image for `bind`: the kernel cache's on a GPU, the stand-in's in a stand-in
    build (the host build of the GPU form, as Scope("cpu", kernel_form="gpu") loads it)."""
    if not _DRIVER[1]:
        return device_image(kernels, target)
    from codegen.runtime.cpu import CpuBackend

    return standin_image(CpuBackend(launch_plan="cuda", kernel_form="gpu").load(kernels))


def use_cublas(path: str | Path | None) -> None:
    """GEMM steps use `path` as cuBLAS from now on (None: libcublas.so.13, else .12); NativeCudaError
    (FALLBACK) saying what to install where it cannot."""
    _name("opgen_native_cuda_cublas", path)


def _name(function: str, path: str | Path | None) -> None:
    err = ctypes.create_string_buffer(_ERRLEN)
    rc = getattr(runtime(), function)(None if path is None else str(path).encode(), err, _ERRLEN)
    if rc:
        raise NativeCudaError(rc, err.value.decode(errors="replace"))


def standin_image(module: HostModule) -> bytes:
    """What cuModuleLoadData takes in a stand-in build: the host build of the module (load it with
    the GPU form's options: codegen/runtime/cpu.py's GPU_FORM_OPTION) and the runtime it needs, its
    kernels as a GPU module holds them (not those only the cpu plan launches) with their launch
    bounds, and the launch settings the cpu backend would use."""
    threads, _, stack = _launch_settings()
    lines = ["opgen-standin-image 1", f"runtime {_RUNTIME['lib']._name}", f"module {module.path}",
             f"threads {threads}", f"stack {stack}"]
    on_gpu = set(device_kernel_names(module.origin[0]))
    lines += [f"kernel {name} {module.get_function(name).max_threads_per_block}" for name in module.kernel_names
              if name in on_gpu]
    return ("\n".join(lines) + "\n").encode() + b"\0"


def device_image(kernels: KernelSource, target: cuda_cache.Target) -> bytes:
    """What cuModuleLoadData takes on a GPU: the kernel cache's module for `kernels` on `target`
    (compiled by NVRTC if the cache lacks it); PTX is text the driver reads up to its NUL."""
    artifact = cuda_cache.load_or_compile(kernels.text, kernels.path.name, target)
    return artifact.data + b"\0" if artifact.kind == "ptx" else artifact.data


def bind(op: str, device_index: int, image: bytes, symbols: Sequence[str]) -> None:
    """Hands the runtime an op's module image and symbol table (once per op, device and image)."""
    names = (ctypes.c_char_p * max(len(symbols), 1))(*(s.encode() for s in symbols))
    err = ctypes.create_string_buffer(_ERRLEN)
    rc = runtime().opgen_native_cuda_bind(op.encode(), device_index, image, len(image), names, len(symbols), err,
                                          _ERRLEN)
    if rc:
        raise NativeCudaError(rc, err.value.decode(errors="replace"))
