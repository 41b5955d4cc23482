"""Loaded modules and their kernels, as CuPy's RawModule and RawKernel: load_module (compile or load
from the cache, once per process), HostModule (get_function) and HostFunction (a launch: checked
configuration, packed arguments, one call into the module)."""

from __future__ import annotations

import ctypes
import re
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from codegen.runtime import diskcache, host_isa
from codegen.runtime import host_sanitize as _san
from codegen.runtime.host_command import emu_digest
from codegen.runtime.settings import HOST_SANITIZE
from codegen.runtime.stats import python_launches

from . import switches
from .errors import HostArgumentError, HostBackendError, HostKernelError, HostKernelNotFound, HostLaunchError
from .glue import KernelSig, _entry_points, _glue
from .libraries import _build_or_load, _runtime_api
from .limits import (
    ABI_VERSION,
    DEFAULT_MAX_DYNAMIC_SMEM,
    MAX_BLOCK_DIM,
    MAX_GRID_DIM,
    MAX_SHARED_MEM,
    MAX_THREADS_PER_BLOCK,
)
from .pack import (
    _P_POINTER,
    _P_SINT,
    _P_UINT,
    _batch_packer,
    _BatchPacker,
    _describe,
    _dims,
    _fast_packer,
    _fast_values,
    _LaunchCfg,
    _scalar_matches,
)
from .state import _LOCK, stats
from .switches import _launch_settings, sanitize_enabled
from .toolchain import _compiler_command, _flags, _target, compiler_id, resolve_isa

_MODULES: dict[str, HostModule] = {}


def load_module(source: str, options: Sequence[str] = (), name_hint: str = "module", *,
                sanitize: bool = False, isa: str | None = None) -> HostModule:
    """Compile ``source`` for the host (or load it from the cache) and return the module.

    ``sanitize``: the sanitize build (see set_sanitize). A plain module launched while sanitizing
    is enabled runs its sanitize twin instead, so callers never need to ask for it.
    ``isa``: the vector ISA to compile for (auto, baseline, x86-64-v3; None: $OPGEN_HOST_ISA, read
    at each call); both builds of one source can be loaded side by side (their keys differ)."""
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    cmd = _compiler_command()
    version = compiler_id(cmd)
    kernels, shared = _entry_points(source, options)
    tu = source + ("" if source.endswith("\n") else "\n") + _glue(kernels, shared)
    chosen = resolve_isa(isa)
    flags = [*_flags(options, host_isa.compile_flags(chosen, cmd)), *(_san.FLAGS if sanitize else ())]
    key = diskcache.cache_key(tu + "\n// emu " + emu_digest() + "\n", flags, version, _target(chosen))
    with _LOCK:
        mod = _MODULES.get(key)
        if mod is not None:
            stats["memory_hits"] += 1
            return mod
        api = _runtime_api()
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name_hint)[:48] or "module"
        stem = f"{safe}-{key[:32]}"
        lib, so_path, src_path = _build_or_load(stem, tu, cmd, flags, runtime=False)
        mod = HostModule(lib, api, list(kernels), so_path, src_path, sanitized=sanitize, isa=chosen)
        mod.origin = (source, tuple(options), name_hint)
        _MODULES[key] = mod
        return mod


def clear_memory_cache() -> None:
    """Forget modules loaded in this process (the disk cache is untouched)."""
    with _LOCK:
        _MODULES.clear()


def RawKernel(code: str, name: str, options: Sequence[str] = ()) -> HostFunction:
    """CuPy-style shortcut: ``RawKernel(code, name)(grid, block, args)``."""
    return load_module(code, options, name_hint=name).get_function(name)



class HostFunction:
    """One kernel of a HostModule; call it like a CuPy RawKernel."""

    def __init__(self, module: HostModule, sig: KernelSig, launch: Any, params: list[tuple[int, int]]):
        self.module = module
        self.name = sig.name
        self.params = params  # (kind, size) per parameter, from the compiled signature
        self.param_names = sig.param_names if len(sig.param_names) == len(params) else tuple(
            f"#{i}" for i in range(len(params)))
        self.max_threads_per_block = min(sig.max_threads, MAX_THREADS_PER_BLOCK)
        self.shared_size_bytes = module.static_smem
        self._max_dyn = min(DEFAULT_MAX_DYNAMIC_SMEM, MAX_SHARED_MEM - self.shared_size_bytes)
        self._launch = launch
        # each argument's slot in the packed buffer: 16-byte aligned, at least 8 bytes
        self._offsets: list[int] = []
        total = 0
        for _, size in params:
            self._offsets.append(total)
            total += (max(size, 8) + 15) // 16 * 16
        self._arg_bytes = max(total, 16)
        self._fast = _fast_packer(params, self._offsets, self._arg_bytes)
        self._lock = threading.Lock()  # guards the reused argument buffer of the fast path
        self._cfgs: dict[tuple[Any, ...], _LaunchCfg] = {}
        self._sanitized_build = module.sanitized
        self._launch_addr: int = ctypes.cast(launch, ctypes.c_void_p).value or 0
        # a batch's launch shapes already checked: (grid, block, shared_mem, settings) -> cfg
        self._batch_cfgs: dict[tuple[Any, ...], tuple[_LaunchCfg, int]] = {}
        self._batch_packers: dict[tuple[type, ...], _BatchPacker | None] = {}

    @property
    def num_params(self) -> int:
        return len(self.params)

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        """Like CUDA/CuPy: 48 KiB unless raised (up to 227 KiB minus static shared memory)."""
        return self._max_dyn

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value: int) -> None:
        limit = MAX_SHARED_MEM - self.shared_size_bytes
        if not 0 <= int(value) <= limit:
            raise HostLaunchError(
                f"max_dynamic_shared_size_bytes must be in [0, {limit}] for kernel '{self.name}'")
        self._max_dyn = int(value)

    def __repr__(self) -> str:
        return f"<HostFunction {self.name}({', '.join(self.param_names)})>"

    def _param(self, i: int) -> str:
        kind, size = self.params[i]
        return f"kernel '{self.name}' parameter {i} '{self.param_names[i]}' ({_describe(kind, size)})"

    def _pack(self, args: Any) -> tuple[Any, Any, list[Any]]:
        # The hot path of every launch: messages are only built when an argument is wrong.
        if not isinstance(args, (tuple, list)):
            raise HostArgumentError(f"kernel '{self.name}': args must be a tuple, got {type(args).__name__}")
        if len(args) != len(self.params):
            raise HostArgumentError(
                f"kernel '{self.name}' takes {len(self.params)} argument(s) ({', '.join(self.param_names)}), "
                f"got {len(args)}")
        buf = ctypes.create_string_buffer(self._arg_bytes)
        base = ctypes.addressof(buf)
        ptrs = (ctypes.c_void_p * max(len(self.params), 1))()
        for i, (arg, (kind, size), offset) in enumerate(zip(args, self.params, self._offsets, strict=True)):
            if kind == _P_POINTER:
                if arg is None:  # a null pointer (an absent optional input)
                    raw = b"\0" * 8
                elif not isinstance(arg, np.ndarray):
                    raise HostArgumentError(f"{self._param(i)} expects a numpy array or None, got {type(arg).__name__}")
                elif not arg.flags.c_contiguous:
                    raise HostArgumentError(
                        f"{self._param(i)}: array is not C-contiguous (shape {arg.shape}, strides {arg.strides}); "
                        "pass np.ascontiguousarray(a)")
                else:
                    raw = arg.__array_interface__["data"][0].to_bytes(8, sys.byteorder)
            else:
                if isinstance(arg, np.ndarray):
                    raise HostArgumentError(f"{self._param(i)} is a scalar, got an array of shape {arg.shape}")
                if not isinstance(arg, (np.generic, np.void)):
                    hint = "np.int32(x)" if kind in (_P_SINT, _P_UINT) else "np.float32(x)"
                    raise HostArgumentError(
                        f"{self._param(i)}: got Python {type(arg).__name__} {arg!r}; kernel scalars must be "
                        f"typed NumPy scalars such as {hint} (as with CuPy)")
                if not _scalar_matches(kind, size, arg.dtype):
                    raise HostArgumentError(f"{self._param(i)} does not accept a NumPy {arg.dtype} scalar")
                raw = arg.tobytes()
            ctypes.memmove(base + offset, raw, len(raw))
            ptrs[i] = base + offset
        return buf, ptrs, list(args)

    def __call__(self, grid: Any, block: Any, args: Any, shared_mem: int = 0, stream: Any = None) -> None:
        """Launch synchronously. ``stream`` is accepted for CuPy compatibility and ignored."""
        if switches._sanitize is not False and (switches._sanitize is True or HOST_SANITIZE.is_set()) and (
                not self._sanitized_build and sanitize_enabled()):  # the common case costs three tests
            return self._sanitized()(grid, block, args, shared_mem, stream)
        cfg = self._checked_cfg(grid, block, shared_mem, _launch_settings())
        python_launches["from_python"] += 1
        if self._sanitized_build:
            return self._launch_sanitized(cfg, args)
        err = ctypes.create_string_buffer(1024)
        fast = self._fast
        values = _fast_values(fast.kinds, args) if fast is not None and isinstance(args, (tuple, list)) and len(
            args) == len(fast.kinds) else None
        if fast is not None and values is not None:
            with self._lock:
                fast.layout.pack_into(fast.buf, 0, *values)
                rc = self._launch(ctypes.byref(cfg), fast.ptrs, err, len(err))
        else:
            buf, ptrs, keep = self._pack(args)  # checks every argument, with clear errors
            rc = self._launch(ctypes.byref(cfg), ptrs, err, len(err))
            del buf, keep  # the kernel has finished with the arguments
        if rc != 0:
            raise HostKernelError(err.value.decode("utf-8", "replace") or f"kernel '{self.name}' failed")

    def _batch_packer(self, types: tuple[type, ...], args: tuple[Any, ...]) -> _BatchPacker | None:
        """The LaunchQueue packer for arguments of these types (None: such launches run on their own:
        the sanitize build, arguments the checked path must see), made once."""
        packer = None if self._sanitized_build else _batch_packer(self.params, args)
        if len(self._batch_packers) < 64:
            self._batch_packers[types] = packer
        return packer

    def _batch_cfg(self, key: tuple[Any, ...]) -> tuple[_LaunchCfg, int]:
        """A LaunchQueue key's configuration (grid, block, shared_mem, settings), checked as a launch
        of its own checks it (the same errors), and its address."""
        cfg = self._checked_cfg(*key)
        made = (cfg, ctypes.addressof(cfg))
        if type(key[2]) is int and len(self._batch_cfgs) < 256:
            self._batch_cfgs[key] = made
        return made

    def _checked_cfg(self, grid: Any, block: Any, shared_mem: Any, settings: tuple[int, int | None, int]) -> _LaunchCfg:
        """The launch configuration, every dimension and size checked (settings: _launch_settings())."""
        g = _dims("grid", grid, MAX_GRID_DIM)
        b = _dims("block", block, MAX_BLOCK_DIM)
        nthreads = b[0] * b[1] * b[2]
        if nthreads > self.max_threads_per_block:
            bounded = self.max_threads_per_block < MAX_THREADS_PER_BLOCK
            why = "__launch_bounds__" if bounded else "CUDA's limit"
            raise HostLaunchError(f"kernel '{self.name}': block {b} has {nthreads} threads, more than "
                                  f"{self.max_threads_per_block} ({why})")
        if not isinstance(shared_mem, (int, np.integer)) or isinstance(shared_mem, bool) or shared_mem < 0:
            raise HostLaunchError(f"shared_mem must be a non-negative int, got {shared_mem!r}")
        if shared_mem > self._max_dyn:
            raise HostLaunchError(
                f"kernel '{self.name}': shared_mem={int(shared_mem)} bytes exceeds the "
                f"{self._max_dyn}-byte limit (CUDA allows 48 KiB unless max_dynamic_shared_size_bytes "
                f"is raised, at most {MAX_SHARED_MEM - self.shared_size_bytes} here)")
        nblocks = g[0] * g[1] * g[2]
        threads, seed, stack = settings
        return self._cfg(g, b, int(shared_mem), max(1, min(threads, nblocks, 256)), seed, stack)

    def _sanitized(self) -> HostFunction:
        """This kernel in the module's sanitize build (compiled on first use)."""
        twin = self.module.sanitized_twin().get_function(self.name)
        twin.shared_size_bytes = self.shared_size_bytes  # the twin's own count includes its padding
        twin._max_dyn = self._max_dyn
        return twin

    def _launch_sanitized(self, base: _LaunchCfg, args: Any) -> None:
        buf, ptrs, keep = self._pack(args)  # every argument checked
        pointers = [i for i, (kind, _) in enumerate(self.params) if kind == _P_POINTER]
        # the kernel runs on copies (its pointer tables' arrays too), red zones between them
        apart = _san.BuffersApart(pointers, keep, self.param_names)
        for i, address in apart.moved:
            ctypes.c_uint64.from_buffer(buf, self._offsets[i]).value = address
        table, count = _san.buffers(self.param_names, pointers, apart.args, apart.targets)
        cfg = _LaunchCfg.from_buffer_copy(base)
        cfg.sanitize, cfg.nbuffers, cfg.buffers = 1, count, table
        cfg.apart_lo, cfg.apart_hi = apart.bounds
        shared = self.module.shared_vars
        assert shared is not None  # a sanitize build has them
        cfg.nvars, cfg.vars = shared.count, shared.table
        err = ctypes.create_string_buffer(4096)
        try:
            rc = self._launch(ctypes.byref(cfg), ptrs, err, len(err))
        finally:
            apart.copy_back()  # (after a finding too: the arrays hold what the kernel wrote, as unsanitized)
        del buf, keep
        if rc != 0:
            module = self.module
            message = err.value.decode("utf-8", "replace") or f"kernel '{self.name}' failed"
            source, _, hint = module.origin
            raise HostKernelError(_san.explain(message, module.path, module.source_path, source, f"{hint}.cu"))

    def _cfg(self, g: tuple[int, int, int], b: tuple[int, int, int], shmem: int, workers: int, seed: int | None,
             stack: int) -> _LaunchCfg:
        key = (g, b, shmem, workers, seed, stack)
        cfg = self._cfgs.get(key)
        if cfg is None:
            cfg = _LaunchCfg()
            cfg.grid[:] = g
            cfg.block[:] = b
            cfg.shmem = shmem
            cfg.nworkers = workers
            cfg.random_order = 0 if seed is None else 1
            cfg.seed = 0 if seed is None else seed & 0xFFFFFFFFFFFFFFFF
            cfg.stack_size = stack
            if len(self._cfgs) < 256:
                self._cfgs[key] = cfg
        return cfg


class HostModule:
    """A compiled module; mirrors cupy.RawModule (get_function)."""

    def __init__(self, lib: ctypes.CDLL, api: int, kernels: list[KernelSig], path: Path, source_path: Path, *,
                 sanitized: bool = False, isa: str = host_isa.BASELINE):
        self._lib = lib
        self.path = path
        self.source_path = source_path
        self.isa = isa  # the vector ISA it was compiled for (host_isa.py)
        self.origin: tuple[str, tuple[str, ...], str] = ("", (), "module")  # load_module's arguments
        self.sanitized = sanitized
        # sanitize builds: the static __shared__ variables, from the library's symbols
        self.shared_vars = _san.SharedVars(path) if sanitized else None
        self._twin: HostModule | None = None
        init = lib.opgen_module_init
        init.argtypes = [ctypes.c_void_p]
        init.restype = ctypes.c_int
        if init(api) != ABI_VERSION:
            raise HostBackendError(f"{path}: module/runtime ABI mismatch (rebuild: clear the cache)")
        static = lib.opgen_module_static_smem
        static.restype = ctypes.c_uint64
        self.static_smem = int(static())
        self._functions: dict[str, HostFunction] = {}
        for sig in kernels:
            info = getattr(lib, f"opgen_params_{sig.name}")
            info.argtypes = [ctypes.POINTER(ctypes.c_uint), ctypes.c_int]
            info.restype = ctypes.c_int
            out = (ctypes.c_uint * 256)()
            n = info(out, 256)
            if n > 256:
                out = (ctypes.c_uint * n)()
                info(out, n)
            params = [(int(v) >> 24, int(v) & 0xFFFFFF) for v in out[:n]]
            launch = getattr(lib, f"opgen_launch_{sig.name}")
            launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
            launch.restype = ctypes.c_int
            self._functions[sig.name] = HostFunction(self, sig, launch, params)

    @property
    def kernel_names(self) -> list[str]:
        return list(self._functions)

    def sanitized_twin(self) -> HostModule:
        """The same source and options in the sanitize build."""
        if self.sanitized:
            return self
        if self._twin is None:
            source, options, hint = self.origin
            self._twin = load_module(source, options, hint, sanitize=True, isa=self.isa)
        return self._twin

    def get_function(self, name: str) -> HostFunction:
        try:
            return self._functions[name]
        except KeyError:
            found = ", ".join(sorted(self._functions)) or "none"
            raise HostKernelNotFound(
                f"kernel '{name}' not found in module {self.path.name}; kernels found: {found} "
                '(only `extern "C" __global__ void NAME(...)` definitions are exported)') from None

