"""Host (CPU) backend: run CUDA kernel sources unchanged on the CPU.

The ``.cu`` text that CuPy/NVRTC compiles for the GPU is compiled here by the
host C++ compiler with ``emu/cuda_emu.h`` force-included, loaded with ctypes and
launched through an API that mirrors CuPy's RawModule/RawKernel::

    mod = load_module(source, options=("-DN=4",), name_hint="vadd")
    fn = mod.get_function("vadd")
    fn((blocks,), (256,), (x, y, out, np.int32(n)), shared_mem=0)

Arguments: numpy arrays are passed as device pointers (their data pointer;
they must be C-contiguous) and scalars must be typed numpy scalars
(np.int32, np.float32, ...), exactly as CuPy requires. Launches are synchronous.
A kernel that takes a table of pointers (``const T* const*``) is passed
``pointer_table(arrays)``: a uint64 array of their data pointers that keeps them,
so that the sanitize build checks reads through it against them.

Environment: ``CXX`` (compiler), ``OPGEN_CACHE_DIR`` (cache root; else ``$XDG_CACHE_HOME/opgen``,
else ``~/.cache/opgen``),
``OPGEN_HOST_THREADS`` (OS threads running blocks), ``OPGEN_HOST_RANDOM_ORDER``
(seed: run threads/blocks in random order), ``OPGEN_HOST_SANITIZE=1`` (the sanitize
build: memcheck, racecheck, UB and sync checks), ``OPGEN_HOST_STACK_KB`` (fiber
stack per CUDA thread, default 64), ``OPGEN_HOST_CATCH_SIGNALS=0`` (let a
crashing kernel crash the process instead of raising HostKernelError),
``OPGEN_HOST_ISA`` (auto, baseline or x86-64-v3: the vector ISA kernels are compiled for; auto, the
default, is x86-64-v3 where the CPU has it; see host_isa.py).
See emu/README.md for the design.

One module per job: errors.py (the exceptions), toolchain.py (the compiler, its id, flags, options,
ISA), glue.py (a source's entry points and its glue text), libraries.py (building, caching and
loading the shared libraries and the runtime, through codegen/runtime/artifacts.py's lifecycle),
pack.py (argument kinds, packers, the launch configuration struct), module.py (load_module,
HostModule, HostFunction), queue.py (LaunchQueue), batch_timing.py (a call's batches logged and run again: the
kernels' own time, for benchmarks), switches.py (random order, sanitize), state.py
(the lock and counters), limits.py (CUDA's launch limits). This package re-exports the names callers
use; a test that patches a module-level name patches the module that owns it.
"""

from __future__ import annotations

from codegen.runtime.artifacts import LOG, announce_compile
from codegen.runtime.host_sanitize import pointer_table

from .errors import (
    HostArgumentError,
    HostBackendError,
    HostCacheError,
    HostCompileError,
    HostCompilerNotFound,
    HostIsaError,
    HostKernelError,
    HostKernelNotFound,
    HostLaunchError,
)
from .glue import KernelSig, _entry_points, _scan, device_kernel_names, scan_extern_shared, scan_kernels
from .libraries import _runtime_api, cache_dir, load_runtime
from .limits import ABI_VERSION, MAX_THREADS_PER_BLOCK  # (the others: host.limits)
from .module import HostFunction, HostModule, RawKernel, clear_memory_cache, load_module
from .queue import LaunchQueue
from .state import stats
from .switches import _UNSET, random_order, sanitize_enabled, set_random_order, set_sanitize
from .toolchain import (
    EMU_DIR,
    EMU_HEADER,
    EMU_INCLUDE,
    RUNTIME_SOURCE,
    _compiler_command,
    compiler_id,
    compiler_version,
    describe_compiler,
    describe_isa,
    resolve_isa,
    translate_options,
)

__all__ = [
    "ABI_VERSION", "EMU_DIR", "EMU_HEADER", "EMU_INCLUDE", "LOG", "MAX_THREADS_PER_BLOCK", "RUNTIME_SOURCE",
    "_UNSET", "HostArgumentError", "HostBackendError", "HostCacheError", "HostCompileError",
    "HostCompilerNotFound", "HostFunction", "HostIsaError", "HostKernelError", "HostKernelNotFound",
    "HostLaunchError", "HostModule", "KernelSig", "LaunchQueue", "RawKernel", "_compiler_command",
    "_entry_points", "_runtime_api", "_scan", "announce_compile", "cache_dir", "clear_memory_cache",
    "compiler_id", "compiler_version", "describe_compiler", "describe_isa", "device_kernel_names", "load_module",
    "load_runtime", "pointer_table",
    "random_order", "resolve_isa", "sanitize_enabled", "scan_extern_shared", "scan_kernels",
    "set_random_order", "set_sanitize", "stats", "translate_options",
]
