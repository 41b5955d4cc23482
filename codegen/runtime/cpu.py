"""The cpu backend: NumPy arrays, kernels through the host emulation (codegen.runtime.host)."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from codegen.runtime import host, host_sanitize
from codegen.runtime.backend import Backend
from codegen.runtime.checks import kernel_ready, require_array
from codegen.runtime.gemm import batch_offsets, gemm_into
from codegen.runtime.host import HostFunction, LaunchQueue, sanitize_enabled
from codegen.runtime.host import blas as host_blas
from codegen.runtime.host import replay as host_replay
from codegen.runtime.kernels import KernelSource, ModuleFile
from codegen.runtime.settings import POISON_OUTPUTS
from codegen.runtime.stats import python_launches

_UNBUILT = object()  # (a recording's native form not built yet; None: it has none)
_DTYPES: dict[str, Any] = {
    "float16": np.float16, "float32": np.float32, "float64": np.float64, "int8": np.int8, "uint8": np.uint8,
    "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64, "bool": np.bool_,
}


_DTYPE_OBJECTS = {name: np.dtype(t) for name, t in _DTYPES.items()}


def numpy_dtype(name: str) -> Any:
    if name == "bfloat16":
        import ml_dtypes  # only arrays that already are bfloat16 get here, so ml_dtypes is present

        return ml_dtypes.bfloat16
    return _DTYPES[name]


# Tests set OPGEN_POISON_OUTPUTS=1 so that an output element no kernel writes shows as NaN. Read on
# every allocation (a test may set it at any time): the setting's own getter, no call around it.
poison_requested: Callable[[], bool] = POISON_OUTPUTS.get


KERNEL_FORMS = ("host", "gpu")
GPU_FORM_OPTION = "-DOPGEN_GPU_FORM=1"  # _common.cuh's building blocks in their GPU form


class CpuBackend(Backend):
    """`name` picks the launch plan generated wrappers run (`by: backend` lets, `when: {backend}`
    steps): "cpu", or "cuda" to emulate the GPU's plan (Scope("cpu", launch_plan="cuda")).

    `kernel_form` picks how kernels are compiled for the emulation: "host" (the building blocks of
    _common.cuh in their host form: one thread walks a row in vectorised runs) or "gpu" (their GPU
    form, OPGEN_GPU_FORM: threads stride rows and reduce with warp shuffles, as on a GPU).

    `isa` picks the vector ISA kernels are compiled for: "auto" (x86-64-v3 where the CPU has it),
    "baseline" (the compiler's default target) or "x86-64-v3"; None (the default) follows
    $OPGEN_HOST_ISA, read when a module is first loaded (codegen/runtime/host_isa.py)."""

    name = "cpu"

    def __init__(self, launch_plan: str = "cpu", kernel_form: str = "host", isa: str | None = None) -> None:
        if kernel_form not in KERNEL_FORMS:
            raise ValueError(f"CpuBackend: kernel_form: expected 'host' or 'gpu', got {kernel_form!r}")
        if isa is not None:
            host.resolve_isa(isa)  # a bad name, or a level this CPU cannot run, fails here
        self.name = launch_plan
        self.kernel_form = kernel_form
        self.isa = isa
        self._options: tuple[str, ...] = (GPU_FORM_OPTION,) if kernel_form == "gpu" else ()
        # keyed by the source's ModuleFile (hashed by identity, held here so its id is never reused): the
        # ops of one module share it; two generated packages may have ops of the same name with different kernels
        self._modules: dict[ModuleFile, Any] = {}
        self._functions: dict[tuple[KernelSource, str], HostFunction] = {}
        self._local = threading.local()  # each thread's LaunchQueue (a wrapper's launches, in order)

    def __repr__(self) -> str:
        args = [f"launch_plan={self.name!r}"] * (self.name != "cpu") + [f"kernel_form={self.kernel_form!r}"] * (
            self.kernel_form != "host") + [f"isa={self.isa!r}"] * (self.isa is not None)
        return f"CpuBackend({', '.join(args)})"

    def adopt(self, op: str, arg: str, value: Any) -> np.ndarray:
        """Inputs as C-contiguous, aligned NumPy arrays in native byte order (checks.kernel_ready: one
        copy where needed; a CUDA array is copied to the host)."""
        if type(value) is np.ndarray and (flags := value.flags).c_contiguous and flags.aligned \
                and value.dtype.isnative:  # the common case
            return value
        require_array(op, arg, value)
        if hasattr(value, "get") and hasattr(value, "__cuda_array_interface__"):
            value = value.get()
        try:
            array = np.asarray(value)  # (np.ascontiguousarray would make a 0-d array 1-d)
        except Exception as exc:
            raise TypeError(f"{op}: {arg}: expected an array NumPy can read, got a {type(value).__name__} that "
                            f"failed to convert: {exc}") from exc
        return kernel_ready(op, arg, array)

    def empty(self, shape: Sequence[int], dtype: str) -> np.ndarray:
        out = np.empty(shape, _DTYPE_OBJECTS.get(dtype) or numpy_dtype(dtype))  # (a dtype object: fastest)
        if poison_requested():
            out.fill(np.nan if out.dtype.kind == "f" or dtype == "bfloat16" else -1)
        return out

    def pointer_array(self, arrays: Sequence[np.ndarray]) -> np.ndarray:
        """The data pointers of a list input, for kernels that take `const T* const*`; in the sanitize
        build a host_sanitize.PointerTable, so reads through it are checked against the arrays (a
        table subclass would keep launches off the queue, which the sanitize build does not use)."""
        if sanitize_enabled():
            return host_sanitize.pointer_table(arrays)
        return np.array([a.ctypes.data for a in arrays], dtype=np.uint64)

    def _queue(self) -> LaunchQueue:
        try:
            return self._local.queue  # type: ignore[no-any-return]
        except AttributeError:
            queue = self._local.queue = LaunchQueue()
            return queue

    def load(self, source: KernelSource) -> host.HostModule:
        """The module of `source` in this backend's kernel form: from memory, the disk cache, or compiled."""
        module = self._modules.get(source.module)
        if module is None:
            # host.load_module looked up at the call (a test may wrap it); same text: one module, shared
            module = host.load_module(source.text, self._options, name_hint=source.path.stem, isa=self.isa)
            self._modules[source.module] = module
        return module

    def _function(self, source: KernelSource, symbol: str) -> HostFunction:
        fn: HostFunction = self.load(source).get_function(symbol)
        self._functions[(source, symbol)] = fn
        return fn

    def launch(self, source: KernelSource, symbol: str, grid: Sequence[int], block: Sequence[int],
               args: Sequence[Any], shared_mem: int = 0) -> None:
        """Queue the launch (as a GPU launch is asynchronous): it runs at the next flush(), which
        generated wrappers call before a GEMM step reads buffers and before they return."""
        if 0 in grid:  # nothing to do: an empty tensor
            return
        queue = self._queue()
        g, b, a = tuple(grid), tuple(block), tuple(args)
        try:
            fn = self._functions.get((source, symbol)) or self._function(source, symbol)
            if queue.add(fn, g, b, a, shared_mem):
                return
        except BaseException:
            queue.flush()  # the launches before a bad one run (and fail) first, as they did unqueued
            raise
        queue.flush()  # the sanitize build, unusual arguments: this launch on its own, in order
        fn(g, b, a, shared_mem=shared_mem)

    def replay(self, source: KernelSource, recording: Any, buffers: Sequence[Any]) -> bool:
        """Run a recorded launch plan (codegen/runtime/plan.py) as native batches, its GEMM steps
        among them where the BLAS takes them (codegen/runtime/host/replay.py); False where it must go
        launch by launch: the sanitize build, a buffer not C-contiguous, a launch the checked path
        must see."""
        if host.sanitize_enabled():
            return False
        module = self.load(source)
        key = (module, host.switches._launch_settings())
        native = recording.native.get(key, _UNBUILT)
        if native is _UNBUILT:
            native = host_replay.build(recording, buffers, lambda s: module.get_function(s), key[1])
            if len(recording.native) < 8:  # (settings a process goes through: few)
                recording.native[key] = native
        if native is None:
            return False
        table = host_replay.bind(buffers, native.needs)
        if table is None:
            return False
        self.flush()  # launches queued before the plan run first
        host_replay.run(native, table, buffers, self.gemm, self._error_buffer())
        return True

    def _error_buffer(self) -> Any:
        try:
            return self._local.err
        except AttributeError:
            err = self._local.err = ctypes.create_string_buffer(1024)
            return err

    def flush(self) -> None:
        """Run the queued launches of this thread (one call into the emulation runtime); the first
        that fails raises HostKernelError naming kernel, block and thread, and the rest do not run."""
        # (every native call asks first: no queue made where none is, and no AttributeError raised and
        # caught, which getattr's default costs, ~0.5 µs)
        queue = self._local.__dict__.get("queue")
        if queue is not None and queue._records:  # (its own test, without its frame)
            queue.flush()

    def gemm(self, a: np.ndarray, b: np.ndarray, out: np.ndarray, m: int, n: int, k: int, trans_a: bool,
             trans_b: bool, beta: int, a_offset: int = 0, b_offset: int = 0, out_offset: int = 0, batch: int = 1,
             a_stride: int = 0, b_stride: int = 0, out_stride: int = 0) -> None:
        """out[m, n] (+)= op(a)·op(b) over flat row-major buffers at element offsets (a GemmStep),
        after the queued launches (which write a and b, or read out): through the process's BLAS
        as a recorded plan's native batches run it (host/blas.py), else NumPy's matmul; a strided
        batch product by product."""
        self.flush()
        python_launches["from_python"] += 1
        for offsets in batch_offsets(a_offset, b_offset, out_offset, batch, a_stride, b_stride, out_stride):
            if not host_blas.run(a, b, out, m, n, k, trans_a, trans_b, beta, *offsets):
                gemm_into(np.matmul, a, b, out, m, n, k, trans_a, trans_b, beta, *offsets)

    # scalar kernel arguments, typed as the kernels declare them
    int64 = staticmethod(np.int64)
    float32 = staticmethod(np.float32)
    int32 = staticmethod(np.int32)
