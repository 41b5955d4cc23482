"""The cuda backend: CuPy arrays on one GPU, kernels compiled by NVRTC, GEMMs through cuBLAS.

``cuda_backend(i)`` is the backend of device i (one per device, cached). It provides what
generated wrappers call (the cpu backend in codegen/runtime/cpu.py is the model):

* ``adopt(op, arg, value)``: NumPy → copied to the device (in native byte order, contiguous and
  aligned: checks.kernel_ready); CuPy → used as it is (copied when it lives on another device, made
  C-contiguous when it is not, within the device's free memory, copied as raw bytes when its
  elements are not aligned to their type); any other
  ``__cuda_array_interface__`` or ``__dlpack__`` producer in device memory (a torch CUDA tensor) →
  wrapped without a copy, one in host memory (DLPack kDLCPU or pinned kDLCUDAHost) → copied;
  anything else, a masked array or a tensor that requires grad → TypeError naming the op and the
  argument. bfloat16 is CuPy 14's ``ml_dtypes.bfloat16``.
* ``empty(shape, dtype)``: a CuPy array (NaN / -1 poisoned when OPGEN_POISON_OUTPUTS is set).
* ``launch(source, symbol, grid, block, args, shared_mem)``: the kernel on CuPy's current stream
  of this device; a grid with a 0 dimension launches nothing.
* ``replay(source, plan, recording, buffers)``: a recorded launch plan as one launch of a CUDA
  graph, captured once per recording and buffer pointers (codegen.runtime.cuda_graph), or False:
  launch by launch.
* ``pointer_array(arrays)``: a device array of the arrays' data pointers (list inputs).
* ``gemm(...)``: out[m, n] (+)= op(a)·op(b) over flat buffers at element offsets: one cuBLAS call
  on the buffers' pointers (codegen.runtime.cublas_gemm), or ``cupy.matmul`` on views of the
  buffers where that path does not apply.

Modules: the generated ``.cu`` is compiled once per (source, options, NVRTC, arch) by
codegen.runtime.cuda_cache (disk cache under OPGEN_CACHE_DIR/cuda, see there), loaded with
``cupy.cuda.Module.load`` (cuModuleLoadData) into this device's context and kept in memory per
device, keyed by the cache key. A cached entry the driver refuses is discarded and rebuilt.

CuPy is imported when a backend is created, never when this module is imported.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from codegen.runtime import cublas_library, cuda_cache, manifest
from codegen.runtime.backend import Backend
from codegen.runtime.checks import check_copy_size, kernel_ready, require_array
from codegen.runtime.cpu import numpy_dtype, poison_requested
from codegen.runtime.cublas_gemm import CAPTURE_MESSAGE, DirectGemm
from codegen.runtime.cuda_cache import CudaBackendError, CudaCompileError
from codegen.runtime.cuda_graph import GraphReplay
from codegen.runtime.device_value_checks import DeviceValueChecks
from codegen.runtime.gemm import GemmSizes, gemm_into
from codegen.runtime.kernels import KernelSource, ModuleFile
from codegen.runtime.stats import python_launches

#: Bytes held for calls inside users' captures above which a ResourceWarning asks for a release.
HELD_WARNING_BYTES = 1 << 30

__all__ = ["CudaBackend", "CudaBackendError", "CudaCompileError", "CudaLaunchError", "cuda_backend", "stats"]

stats = cuda_cache.stats  # stats.py's "cuda" group: nvrtc_compiles, disk_hits, ..., memory_hits, module_loads

MAX_THREADS_PER_BLOCK = 1024
MAX_GRID = (2**31 - 1, 65535, 65535)

_DLPACK_CPU, _DLPACK_CUDA, _DLPACK_CUDA_HOST, _DLPACK_CUDA_MANAGED = 1, 2, 3, 13

_LOCK = threading.RLock()
_BACKENDS: dict[int, CudaBackend] = {}


class CudaLaunchError(CudaBackendError, ValueError):
    """A launch was refused (bad configuration or arguments), with the op, kernel and config."""


def _cupy() -> Any:
    try:
        import cupy
    except ImportError as exc:
        raise CudaBackendError(f"the cuda backend needs CuPy ({cuda_cache.INSTALL_HINT}): {exc}") from exc
    return cupy


def cuda_backend(device_index: int = 0) -> CudaBackend:
    """The backend of CUDA device `device_index` (created once per device and process)."""
    with _LOCK:
        backend = _BACKENDS.get(device_index)
        if backend is None:
            backend = _BACKENDS[device_index] = CudaBackend(device_index)
        return backend


class Loaded(NamedTuple):
    """A module loaded on the device, and where it came from: "memory", "disk" or "nvrtc"."""

    module: Any
    key: str
    origin: str


class CudaBackend(Backend):
    name = "cuda"

    def __init__(self, device_index: int = 0) -> None:
        cp = _cupy()
        count = cp.cuda.runtime.getDeviceCount()
        if not isinstance(device_index, int) or not 0 <= device_index < count:
            raise RuntimeError(f"cuda backend: no CUDA device {device_index!r}: {count} device(s) present "
                               f"(use 'cuda:0' to 'cuda:{count - 1}')")
        self._cp = cp
        self.index = device_index
        self.device = cp.cuda.Device(device_index)
        self.compute_capability = str(self.device.compute_capability)  # "90"
        self._target: cuda_cache.Target | None = None
        self._modules: dict[str, Any] = {}  # cache key → cupy.cuda.Module loaded on this device
        self._keys: dict[ModuleFile, tuple[str, str]] = {}  # a source's module → (options fingerprint, key)
        self._functions: dict[tuple[KernelSource, str], Any] = {}
        self._bounds: dict[tuple[KernelSource, str], int] = {}  # the manifest's launch bound per entry point
        self._lock = threading.RLock()
        self._direct: DirectGemm | _NoDirectGemm | None = None  # made on the first GEMM step
        self._graphs = GraphReplay(self, cp)  # recorded plans as CUDA graphs
        self._value_checks = DeviceValueChecks(self)  # `values: {on_device: true}` checks in flight
        self._held: list[tuple[Any, ...]] = []  # buffers of calls inside a user's capture (hold_if_capturing)
        self._held_bytes = 0

    def __repr__(self) -> str:
        return f"CudaBackend(device={self.index}, arch=sm_{self.compute_capability})"

    # ---------------------------------------------------------------------- description --

    @property
    def target(self) -> cuda_cache.Target:
        if self._target is None:
            self._target = cuda_cache.target_for(self.compute_capability)
        return self._target

    def device_name(self) -> str:
        props = self._cp.cuda.runtime.getDeviceProperties(self.index)
        name = props.get("name", b"?")
        return name.decode(errors="replace") if isinstance(name, bytes) else str(name)

    def describe(self) -> str:
        try:
            nvrtc = "NVRTC {}.{}".format(*cuda_cache.nvrtc_version())
        except CudaBackendError as exc:
            nvrtc = f"NVRTC unusable ({exc})"
        return (f"cuda:{self.index} {self.device_name()} ({self.target.arch}, {self.target.kind}), {nvrtc}, "
                f"CuPy {self._cp.__version__}")

    # ---------------------------------------------------------------------- arrays --

    def adopt(self, op: str, arg: str, value: Any) -> Any:
        """The input as a C-contiguous CuPy array on this device (see the module docstring)."""
        cp = self._cp
        if not isinstance(value, cp.ndarray) and _has_attr(value, "requires_grad"):
            require_array(op, arg, value)  # a tensor that requires grad is refused by name
        if isinstance(value, cp.ndarray):
            arr = value
        elif isinstance(value, (np.ndarray, np.generic)):
            return self._from_host(op, arg, require_array(op, arg, value))  # (refuses masked arrays)
        elif _has_attr(value, "__cuda_array_interface__"):
            arr = self._wrap(op, arg, value, cp.asarray)
        elif _has_attr(value, "__dlpack__"):
            device_type = _dlpack_device_type(value)
            if device_type in (_DLPACK_CPU, _DLPACK_CUDA_HOST):  # host memory (pinned too): copied
                return self._from_host(op, arg, self._wrap(op, arg, value, np.from_dlpack))
            if device_type not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED, None):
                raise TypeError(f"{op}: {arg}: a {type(value).__name__} on DLPack device type {device_type} "
                                f"cannot be used on the cuda backend (CPU or CUDA memory expected)")
            arr = self._wrap(op, arg, value, cp.from_dlpack)
        elif hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "__array__"):
            return self._from_host(op, arg, np.asarray(value))
        else:
            raise TypeError(f"{op}: {arg}: expected an array (NumPy, CuPy or __dlpack__/__cuda_array_interface__ "
                            f"producer), got {type(value).__name__}")
        if _misaligned(arr):  # (a copy kernel would read it misaligned too: it is copied as bytes)
            return self._realigned(op, arg, arr)
        if arr.data.device_id != self.index:
            with self.device:
                return arr.copy(order="C")  # copies to the current device (peer copy)
        if not arr.flags.c_contiguous:
            check_copy_size(op, arg, arr, self._free_memory(), f"cuda:{self.index}")
            with self.device:
                return cp.ascontiguousarray(arr)
        return arr

    def _free_memory(self) -> int | None:
        """Free memory of this device (cudaMemGetInfo), None where it cannot be asked."""
        try:
            with self.device:
                return int(self._cp.cuda.runtime.memGetInfo()[0])
        except Exception:  # noqa: BLE001 -- only a bound for a clearer message; the allocation decides
            return None

    def _realigned(self, op: str, arg: str, arr: Any) -> Any:
        """A device array whose elements are not aligned to their type, copied once as raw bytes into
        a fresh (aligned) array on this device; one that is not C-contiguous is refused by name (its
        elements cannot be gathered without reading them through typed pointers)."""
        if not arr.flags.c_contiguous:
            raise TypeError(f"{op}: {arg}: a {_dtype_text(arr)} device array whose data is not aligned to its "
                            f"element type ({arr.dtype.alignment} bytes) and not C-contiguous: pass a C-contiguous "
                            f"or an aligned one")
        with self.device:
            out = self._cp.empty(arr.shape, arr.dtype)
            if arr.nbytes:
                out.data.copy_from_device_async(arr.data, arr.nbytes)  # cudaMemcpyAsync: any alignment
        return out

    def _wrap(self, op: str, arg: str, value: Any, convert: Any) -> Any:
        try:
            with self.device:
                return convert(value)
        except Exception as exc:  # CuPy raises several types for foreign arrays
            raise TypeError(f"{op}: {arg}: cannot use this {type(value).__name__} on the cuda backend without "
                            f"a copy: {exc}") from exc

    def _from_host(self, op: str, arg: str, value: Any) -> Any:
        host = kernel_ready(op, arg, np.asarray(value))  # native byte order ('>f4' → '<f4'), contiguous, aligned
        if host.dtype.kind in "OUSVMm" and host.dtype.name != "bfloat16":  # (ml_dtypes' bfloat16 is kind V)
            raise TypeError(f"{op}: {arg}: dtype {host.dtype} cannot be used on the cuda backend; use "
                            f"Scope('cpu') for it")
        with self.device, _bfloat16_support(host.dtype.name, f"{op}: {arg}"):
            return self._cp.asarray(host)

    def empty(self, shape: Sequence[int], dtype: str) -> Any:
        with self.device, _bfloat16_support(dtype, "cuda backend: output"):
            out = self._cp.empty(tuple(shape), numpy_dtype(dtype))
            if poison_requested() and out.size:
                if dtype == "bfloat16":  # a quiet NaN's bits (fill of bfloat16 is one of CuPy 14's gaps)
                    out.view(np.uint16).fill(0x7FC0)
                else:
                    kind = out.dtype.kind
                    out.fill(np.nan if kind == "f" else True if kind == "b" else
                             np.iinfo(out.dtype).max if kind == "u" else -1)
        return out

    def pointer_array(self, arrays: Sequence[Any]) -> Any:
        """The data pointers of a list input, as a uint64 device array (for `const T* const*`)."""
        pointers = np.array([a.data.ptr for a in arrays], dtype=np.uint64)
        with self.device:
            return self._cp.asarray(pointers)

    # ---------------------------------------------------------------------- kernels --

    def load(self, source: KernelSource) -> Loaded:
        """The module of `source` on this device: from memory, the disk cache, or NVRTC."""
        text = source.text
        target = self.target
        fingerprint = "\0".join(cuda_cache.compile_options(target))
        with self._lock:
            known = self._keys.get(source.module)
            if known is not None and known[0] == fingerprint:
                key = known[1]
            else:
                key = cuda_cache.build_key(text, target)
                self._keys[source.module] = (fingerprint, key)
            module = self._modules.get(key)
            if module is not None:
                stats["memory_hits"] += 1
                return Loaded(module, key, "memory")
            name = source.path.name
            artifact = cuda_cache.load_or_compile(text, name, target)
            try:
                module = self._load_bytes(artifact.data)
            except Exception:  # the driver refused cached bytes: rebuild them once
                if artifact.origin != "disk":
                    raise
                cuda_cache.discard(artifact.path)
                artifact = cuda_cache.load_or_compile(text, name, target, force=True)
                module = self._load_bytes(artifact.data)
            self._modules[artifact.key] = module
            return Loaded(module, artifact.key, artifact.origin)

    def _load_bytes(self, data: bytes) -> Any:
        with self.device:
            module = self._cp.cuda.Module()
            module.load(data)  # cuModuleLoadData into this device's (primary) context
        stats["module_loads"] += 1
        return module

    def function(self, source: KernelSource, symbol: str) -> Any:
        """The cupy.cuda.Function for one entry point of `source`."""
        fn = self._functions.get((source, symbol))
        if fn is None:
            module = self.load(source).module
            try:
                with self.device:
                    fn = module.get_function(symbol)
            except Exception as exc:  # CUDA_ERROR_NOT_FOUND and friends
                raise CudaBackendError(f"{source.op}: kernel {symbol!r} is not in {source.path.name}: {exc}") from exc
            self._functions[(source, symbol)] = fn
        return fn

    def checked_function(self, source: KernelSource, symbol: str, grid: tuple[int, ...], block: tuple[int, ...],
                         args: tuple[Any, ...]) -> Any:
        """The function of `symbol`, after the checks a launch of it with this configuration and
        these arguments must pass (CudaLaunchError naming the op and kernel)."""
        bound = self._bounds.get((source, symbol))
        if bound is None:
            bound = self._bounds[(source, symbol)] = _launch_bound(source, symbol)
        _check_launch(source, symbol, grid, block, args, bound)
        return self._functions.get((source, symbol)) or self.function(source, symbol)

    def launch(self, source: KernelSource, symbol: str, grid: Sequence[int], block: Sequence[int],
               args: Sequence[Any], shared_mem: int = 0) -> None:
        if 0 in grid:  # nothing to do: an empty tensor (CuPy would round a 0 up to 1)
            return
        g, b, a = tuple(grid), tuple(block), tuple(args)
        fn = self.checked_function(source, symbol, g, b, a)
        try:
            with self.device:
                fn(g, b, a, shared_mem=shared_mem)  # stream=None: CuPy's current stream of this device
        except Exception as exc:  # CUDADriverError, TypeError for an argument
            raise CudaLaunchError(f"{source.op}: {symbol}: launch with grid {list(g)}, block {list(b)}, "
                                  f"shared_mem {shared_mem} failed: {exc}") from exc
        python_launches["from_python"] += 1

    def replay(self, source: KernelSource, recording: Any, buffers: Sequence[Any]) -> bool:
        """Run a recorded launch plan (codegen/runtime/plan.py) as one launch of a CUDA graph on
        the current stream, captured on its first call with these buffers' pointers
        (codegen/runtime/cuda_graph.py); False where it must go launch by launch: a GEMM step cuBLAS
        will not capture, a stream that is capturing already, a launch the checks refuse, a capture
        that failed."""
        return self._graphs.run(source, recording, buffers)

    def flush(self) -> None:
        """Nothing to do: launches are already on the stream (generated wrappers call this before
        they return, for the cpu backend's queued launches)."""

    # ---------------------------------------------------------------------- a user's capture --

    def hold_if_capturing(self, buffers: Sequence[Any]) -> None:
        """Inside a stream capture of the caller's, keep every buffer of the call (scratch, a host
        input's device copy, outputs) alive: the caller's graph bakes their pointers and runs after
        the call has returned and freed them. Held until `release_capture_buffers`."""
        if not self._cp.cuda.get_current_stream().is_capturing():
            return
        held = tuple(b for b in buffers if b is not None)
        with self._lock:
            self._held.append(held)
            before = self._held_bytes
            self._held_bytes += sum(int(getattr(b, "nbytes", 0)) for b in held)
        if before < HELD_WARNING_BYTES <= self._held_bytes:
            warnings.warn(f"cuda backend (device {self.index}): {self._held_bytes / 2**30:.1f} GiB of buffers are "
                          f"held for op calls made inside stream captures; call Scope.release_capture_buffers() "
                          f"once their graphs are gone", ResourceWarning, stacklevel=2)

    def release_capture_buffers(self) -> int:
        """Drop the buffers held for calls made inside captures (their graphs must not run again);
        returns how many bytes were held."""
        with self._lock:
            held, self._held, self._held_bytes = self._held_bytes, [], 0
        return held

    # ---------------------------------------------------------------------- value checks --

    def check_values_on_device(self, op: str, arg: str, value: Any, minimum: int | None, maximum: int | None,
                               min_text: str, max_text: str) -> None:
        """An input's value bounds checked by a kernel, reported by a later call or `synchronize`
        (device_value_checks.py), after any earlier check that failed."""
        with self.device:
            self._value_checks.submit(op, arg, value, minimum, maximum, min_text, max_text)

    def synchronize(self) -> None:
        """Wait for this device's work, then raise the first value check that failed."""
        with self.device:
            self.device.synchronize()
            self._value_checks.report(wait=True)

    # ---------------------------------------------------------------------- GEMM --

    def gemm(self, a: Any, b: Any, out: Any, m: int, n: int, k: int, trans_a: bool, trans_b: bool, beta: int,
             a_offset: int = 0, b_offset: int = 0, out_offset: int = 0, batch: int = 1, a_stride: int = 0,
             b_stride: int = 0, out_stride: int = 0) -> None:
        """out[m, n] (+)= op(a)·op(b) over flat row-major buffers at element offsets (a GemmStep):
        one cuBLAS call on the buffers' pointers (cublas_gemm.py; a strided batch in one call too),
        else cupy.matmul on views of the buffers; never a copy of a or b."""
        step = GemmSizes(m, n, k, trans_a, trans_b, beta, a_offset, b_offset, out_offset, batch, a_stride, b_stride,
                         out_stride)
        with self.device:
            try:
                if m == 0 or n == 0 or k == 0 or batch == 0 or not self._direct_gemm().run(a, b, out, step):
                    gemm_into(self._cp.matmul, a, b, out, *step)
            except NotImplementedError as exc:  # cupy.matmul's cuBLAS during stream capture
                raise CudaBackendError(f"{CAPTURE_MESSAGE} ({exc})") from exc
        python_launches["from_python"] += 1

    def _direct_gemm(self) -> DirectGemm | _NoDirectGemm:
        """cuBLAS through ctypes with handles of our own (capture-safe: cublas_library.py), else
        through CuPy's binding, else nothing (GEMM steps through cupy.matmul)."""
        if self._direct is None:
            try:
                from cupy_backends.cuda.libs import cublas
            except ImportError:
                cublas = None
            with self.device:
                if cublas is not None:
                    self._cp.cuda.device.get_cublas_handle()  # (CuPy loads its libcublas: ours is that one)
                library = cublas_library.load_cublas()
            if library is not None:
                self._direct = DirectGemm(self._cp, library, cublas_library.OwnHandles(self._cp, library))
            elif cublas is not None:
                self._direct = DirectGemm(self._cp, cublas, cublas_library.CupyHandles(self._cp, cublas))
            else:
                self._direct = _NoDirectGemm()
        return self._direct

    # scalar kernel arguments, typed as the kernels declare them
    int64 = staticmethod(np.int64)
    float32 = staticmethod(np.float32)
    int32 = staticmethod(np.int32)


class _NoDirectGemm:
    """Where CuPy's cuBLAS wrappers cannot be imported: every GEMM step goes through cupy.matmul."""

    def run(self, *args: Any) -> bool:
        return False


@contextlib.contextmanager
def _bfloat16_support(dtype: str, what: str) -> Iterator[None]:
    """bfloat16 arrays are CuPy 14's (ml_dtypes.bfloat16, NumPy >= 2.1.2): an older CuPy's failure
    becomes an error that says so."""
    if dtype != "bfloat16":
        yield
        return
    try:
        yield
    except (TypeError, ValueError, NotImplementedError) as exc:
        raise TypeError(f"{what}: bfloat16 on the cuda backend needs CuPy >= 14 with ml_dtypes and NumPy >= 2.1.2 "
                        f"({type(exc).__name__}: {exc}); use Scope('cpu') for bfloat16") from exc


def _has_attr(value: Any, name: str) -> bool:
    """hasattr that also survives properties raising something other than AttributeError."""
    try:
        return hasattr(value, name)
    except Exception:  # noqa: BLE001 -- e.g. torch raising for a CPU tensor's CUDA interface
        return False


def _misaligned(arr: Any) -> bool:
    """Whether a device array's elements are not all aligned to their type: its data pointer or a
    stride is not a multiple of the dtype's alignment (a producer's pointer offset by a byte, say)."""
    align = int(arr.dtype.alignment)
    if align == 1 or arr.size == 0:
        return False
    return arr.data.ptr % align != 0 or any(s % align for s, d in zip(arr.strides, arr.shape, strict=True) if d > 1)


def _dtype_text(arr: Any) -> str:
    return f"{arr.dtype.name}[{', '.join(str(d) for d in arr.shape)}]"


def _dlpack_device_type(value: Any) -> int | None:
    try:
        return int(value.__dlpack_device__()[0])
    except Exception:  # noqa: BLE001 -- no __dlpack_device__: let from_dlpack decide
        return None


def _launch_bound(source: KernelSource, symbol: str) -> int:
    """The kernel's __launch_bounds__ as the module's manifest states it (CUDA's limit where the
    source has no manifest to believe, or does not list the kernel: the driver then judges)."""
    stated = manifest.read(source.text)
    entry = next((k for k in stated.kernels if k.name == symbol), None) if stated is not None else None
    return entry.max_threads if entry is not None else MAX_THREADS_PER_BLOCK


def _check_launch(source: KernelSource, symbol: str, grid: tuple[int, ...], block: tuple[int, ...],
                  args: tuple[Any, ...], bound: int = MAX_THREADS_PER_BLOCK) -> None:
    """The checks the driver would make, with a message that names the op and kernel (the block
    size against the kernel's launch bound too, which the driver reports as a bare invalid value), plus
    one the driver cannot make: plain Python numbers would be passed as 8-byte values whatever the
    kernel's parameter type, so scalars must be typed NumPy scalars (np.int64, np.float32, np.int32)."""
    threads = 1
    for d in block:
        threads *= d
    if 0 < bound < threads <= MAX_THREADS_PER_BLOCK:
        raise CudaLaunchError(f"{source.op}: {symbol}: block {list(block)} has {threads} threads; the kernel's "
                              f"__launch_bounds__ allows at most {bound}")
    bad = (len(grid) > 3 or len(block) > 3 or min(block, default=0) <= 0 or min(grid, default=1) < 0
           or threads > MAX_THREADS_PER_BLOCK or any(d > lim for d, lim in zip(grid, MAX_GRID, strict=False)))
    if bad:
        raise CudaLaunchError(f"{source.op}: {symbol}: invalid launch configuration grid {list(grid)}, block "
                              f"{list(block)} (at most {MAX_THREADS_PER_BLOCK} threads per block, grid at most "
                              f"{list(MAX_GRID)})")
    for i, value in enumerate(args):
        if type(value) in (bool, int, float):  # (np.float64 subclasses float but is typed)
            raise CudaLaunchError(f"{source.op}: {symbol}: argument {i} is a Python {type(value).__name__}; "
                                  f"kernel scalars must be typed NumPy scalars (np.int64, np.float32, np.int32)")
