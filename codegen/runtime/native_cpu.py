"""The native plan runner on the cpu (codegen/runtime/native/run_plan_cpu.h), from Python: a library
of ops' recorders (codegen/drivergen.py) with the runtime that records, keeps and runs their plans
on the host emulation (codegen/drivergen_unit.py's `load_runner` builds one from plans, for tests
and bench/; a generated driver's library is another: native_driver.py); `bind` hands it one op's
kernels (its HostModule, as the cpu backend loads it), the runtime's and BLAS's addresses and the
launch settings; `NativeCpu.run_plan` runs a plan for the values and buffers a wrapper passes
`run_plan` (codegen/runtime/plan.py), the C entry the tests and bench/ use (a generated driver calls
the runtime directly)."""

from __future__ import annotations

import ctypes
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from codegen.runtime import native_plan
from codegen.runtime.cpu import CpuBackend
from codegen.runtime.host import blas as host_blas
from codegen.runtime.host import limits, switches
from codegen.runtime.host.pack import c_contiguous_address
from codegen.runtime.host.queue import run_batch
from codegen.runtime.kernels import KernelSource
from codegen.runtime.plan import Plan, PlanError

NATIVE_DIR = Path(__file__).resolve().parent / "native"
#: run_plan_cpu.h's OPGEN_CPU_BINDING_ABI (the library states its own; a mismatch is refused)
ABI = 1
#: driver.h's opgen_result codes and opgen_dtype numbers, read from the header (stated there once)
_DRIVER_H = (NATIVE_DIR / "driver.h").read_text()
RESULTS = {name: int(v) for name, v in re.findall(r"OPGEN_(OK|ERR_\w+) = (\d+)", _DRIVER_H)}
DTYPES = {name.lower(): int(v) for name, v in re.findall(r"OPGEN_DT_(\w+) = (\d+)", _DRIVER_H)}
_ERRLEN = 1024


class CpuKernel(ctypes.Structure):  # mirrors opgen_cpu_kernel
    _fields_ = [("symbol", ctypes.c_char_p), ("launch", ctypes.c_uint64), ("params", ctypes.POINTER(ctypes.c_uint32)),
                ("nparams", ctypes.c_int64), ("max_threads", ctypes.c_int64),
                ("max_dynamic_shared", ctypes.c_int64), ("static_shared", ctypes.c_int64)]


class CpuBinding(ctypes.Structure):  # mirrors opgen_cpu_binding
    _fields_ = [("plan", ctypes.c_char_p), ("kernels", ctypes.POINTER(CpuKernel)), ("nkernels", ctypes.c_int64),
                ("run_batch", ctypes.c_uint64), ("gemm", ctypes.c_uint64), ("sgemm", ctypes.c_uint64),
                ("dgemm", ctypes.c_uint64), ("blas_int64", ctypes.c_int32), ("random_order", ctypes.c_int32),
                ("threads", ctypes.c_int64), ("seed", ctypes.c_uint64), ("stack_size", ctypes.c_uint64),
                ("max_grid", ctypes.c_int64 * 3), ("max_block", ctypes.c_int64 * 3), ("max_shared", ctypes.c_int64),
                ("fallback", ctypes.c_char_p)]


class SlotDesc(ctypes.Structure):  # mirrors opgen_native::Slot (run_plan.h)
    _fields_ = [("data", ctypes.c_void_p), ("items", ctypes.c_void_p), ("count", ctypes.c_int64),
                ("dtype", ctypes.c_int32), ("reserved", ctypes.c_int32), ("size", ctypes.c_int64)]


class NativeRunError(RuntimeError):
    """run_plan's result other than OPGEN_OK: `code` (driver.h's opgen_result) and its message."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


#: The plan runner's sources, as a unit that has the recorders (and drivers) includes them.
RUNNER = "".join(f'#include "{name}"\n' for name in ("run_plan.cpp", "run_plan_cpu.cpp", "run_plan_entry.cpp"))


def runner_object() -> Path:
    """RUNNER compiled once (per compiler, flags, target and the native and emulation headers; the
    disk cache) to an object that each library of recorders links in (`native_plan.load`'s `link`):
    compiled into each op's driver library, it was most of that library's build. Each library still
    has its own copy, and so its own bindings and recordings, as before."""
    from codegen.runtime.host.toolchain import EMU_DIR

    source = "#define OPGEN_PLAN_NO_ABI_ENTRY  // (the recorders' unit states its own)\n" + RUNNER
    return native_plan.object_file(source, "runner", include=(NATIVE_DIR, EMU_DIR))


@dataclass(frozen=True)
class Bound:
    """What an op was bound with: rebind where `key(backend)` says otherwise (settings changed)."""

    op: str
    key: tuple[Any, ...]


def key(backend: CpuBackend) -> tuple[Any, ...]:
    """What a binding depends on beyond the module: the plan, the launch settings, whether the
    sanitize build runs every launch, whether something watches the backend's launches."""
    return backend.name, switches._launch_settings(), switches.sanitize_enabled(), bool(backend.watched)


def _fallback(bound: tuple[Any, ...]) -> bytes | None:
    """Why a binding's calls go the Python way (the cpu backend's replay would not run them)."""
    if bound[2]:
        return b"the sanitize build runs every launch (OPGEN_HOST_SANITIZE)"
    if bound[3]:
        return b"a watched backend sees every launch (runtime/launches.py)"
    return None


class NativeCpu:
    """A loaded runner library (recorders and runtime)."""

    def __init__(self, plans: native_plan.NativePlans):
        lib = plans.lib
        lib.opgen_native_cpu_abi.restype, lib.opgen_native_cpu_abi.argtypes = ctypes.c_int64, [ctypes.c_int]
        stated = tuple(lib.opgen_native_cpu_abi(k) for k in range(4))
        ours = (ABI, ctypes.sizeof(CpuKernel), ctypes.sizeof(CpuBinding), ctypes.sizeof(SlotDesc))
        if stated != ours:
            raise PlanError(f"the native runner library states ABI and sizes {stated}; this Python reads {ours}")
        lib.opgen_native_bind_cpu.restype = ctypes.c_int
        lib.opgen_native_bind_cpu.argtypes = [ctypes.c_char_p, ctypes.POINTER(CpuBinding), ctypes.c_char_p,
                                              ctypes.c_int64]
        lib.opgen_native_unbind_cpu.argtypes = [ctypes.c_char_p]
        lib.opgen_native_run_plan.restype = ctypes.c_int
        lib.opgen_native_run_plan.argtypes = [
            ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int64,
            ctypes.POINTER(native_plan.PlanValue), ctypes.c_int64, ctypes.POINTER(SlotDesc), ctypes.c_int64,
            ctypes.c_int32, ctypes.c_int64, ctypes.c_char_p, ctypes.c_int64]
        lib.opgen_native_recordings.restype = ctypes.c_int64
        lib.opgen_native_recordings.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.plans = plans
        self.lib = lib
        self._symbols: dict[str, Any] = {}
        self._addresses: dict[str, int] = {}

    def recorder(self, op: str) -> native_plan.NativePlan:
        return self.plans.plan(op)

    def _recorder_address(self, op: str) -> int:
        address = self._addresses.get(op)
        if address is None:
            function = getattr(self.lib, f"opgen_plan_{native_plan.c_name(op)}")
            address = self._addresses[op] = ctypes.cast(function, ctypes.c_void_p).value or 0
        return address

    def bind(self, source: KernelSource, plan: Plan, backend: CpuBackend) -> Bound:
        """Bind `plan`'s op to its kernels as `backend` loads them (its HostModule), the runtime's
        batch and GEMM entry points, the process's BLAS and the launch settings now in force. Where
        the backend runs every launch through the sanitize build, or something watches its launches,
        the binding says so: its calls fall back."""
        recorder = self.recorder(plan.op)
        module = backend.load(source)
        keep: list[Any] = []
        kernels = (CpuKernel * max(len(recorder.symbols), 1))()
        for k, symbol in enumerate(recorder.symbols):
            fn = module.get_function(symbol)
            params = (ctypes.c_uint32 * max(len(fn.params), 1))(*((kind << 24) | size for kind, size in fn.params))
            keep.append(params)
            kernels[k] = CpuKernel(symbol.encode(), fn._launch_addr, params, len(fn.params), fn.max_threads_per_block,
                                   fn.max_dynamic_shared_size_bytes, fn.shared_size_bytes)
        bound = key(backend)
        threads, seed, stack = bound[1]
        found = host_blas.find()
        sgemm, dgemm = found.functions if found is not None else (0, 0)
        binding = CpuBinding(
            backend.name.encode(), kernels, len(recorder.symbols),
            ctypes.cast(run_batch(), ctypes.c_void_p).value or 0, host_blas.gemm_address(), sgemm, dgemm,
            int(bool(found is not None and found.int64)), int(seed is not None), threads,
            0 if seed is None else seed & 0xFFFFFFFFFFFFFFFF, stack, (ctypes.c_int64 * 3)(*limits.MAX_GRID_DIM),
            (ctypes.c_int64 * 3)(*limits.MAX_BLOCK_DIM), limits.MAX_SHARED_MEM, _fallback(bound))
        err = ctypes.create_string_buffer(_ERRLEN)
        if self.lib.opgen_native_bind_cpu(plan.op.encode(), ctypes.byref(binding), err, _ERRLEN):
            raise PlanError(err.value.decode(errors="replace"))
        return Bound(plan.op, bound)

    def unbind(self, op: str) -> None:
        self.lib.opgen_native_unbind_cpu(op.encode())

    def recordings(self, op: str) -> tuple[int, int, int]:
        """(recorded, replayed, kept now) of op's recordings in the runner."""
        address = self._recorder_address(op)
        return tuple(self.lib.opgen_native_recordings(address, k) for k in range(3))  # type: ignore[return-value]

    def run_plan(self, op: str, values: Sequence[Any], buffers: Sequence[Any], device: str = "cpu",
                 repeat: int = 1) -> None:
        """run_plan natively for the values and buffers (NumPy arrays, None, lists of arrays) a
        wrapper passes codegen.runtime.plan.run_plan (`repeat` times: a benchmark's loop);
        NativeRunError where it does not return OPGEN_OK."""
        recorder = self.recorder(op)
        keep: list[Any] = []
        array = (native_plan.PlanValue * max(len(values), 1))()
        for k, (name, v) in enumerate(zip(recorder.names, values, strict=True)):
            recorder._encode(array[k], v, name, keep)
        slots = (SlotDesc * max(len(buffers), 1))()
        for k, buf in enumerate(buffers):
            slots[k] = _slot(buf, keep)
        symbols = self._symbols.get(op)
        if symbols is None:
            symbols = self._symbols[op] = (ctypes.c_char_p * max(len(recorder.symbols), 1))(
                *(s.encode() for s in recorder.symbols))
        err = ctypes.create_string_buffer(_ERRLEN)
        code = self.lib.opgen_native_run_plan(op.encode(), self._recorder_address(op), symbols, len(recorder.symbols),
                                              array, len(values), slots, len(buffers), 0 if device == "cpu" else 1,
                                              repeat, err, _ERRLEN)
        if code != RESULTS["OK"]:
            raise NativeRunError(code, err.value.decode(errors="replace"))


def _dtype_code(dtype: np.dtype) -> int:
    code = _DTYPE_CODES.get(dtype)
    if code is None:
        code = _DTYPE_CODES[dtype] = DTYPES.get(dtype.name, DTYPES["other"])
    return code


_DTYPE_CODES: dict[np.dtype, int] = {}


def _slot(buf: Any, keep: list[Any]) -> SlotDesc:
    """A buffer's descriptor (an array, None, or a list input's arrays)."""
    if buf is None:
        return SlotDesc(None, None, -1, DTYPES["other"], 0, 0)
    if isinstance(buf, (list, tuple)):
        pointers = (ctypes.c_void_p * max(len(buf), 1))(*(c_contiguous_address(a) for a in buf))
        keep.append(pointers)
        return SlotDesc(None, ctypes.addressof(pointers), len(buf), _dtype_code(buf[0].dtype) if buf else
                        DTYPES["other"], 0, 0)
    address = c_contiguous_address(buf)
    assert address is not None, "a kernel-ready buffer"
    return SlotDesc(address, None, -1, _dtype_code(buf.dtype), 0, buf.size)
