"""Host time per call of a single-kernel op through the native cuda runtime (run_plan_cuda), on the
libcuda stand-in with its launches made free (the kernel skipped: what is left is the runtime's own
work and the stand-in's launch checks). Issue 32's goal: ≤ 8 µs.

Each op is called once through its wrapper in the cuda plan on the host (Scope("cpu",
kernel_form="gpu")) to take its plan values and buffers (in the stand-in's device memory here); then
the same plan runs natively through `opgen_native_cuda_run` — the binding and the recording found,
the context checked, then the recording's CUDA graph launched (the default: captured at the first
call) or, graphs switched off, the arguments laid out and cuLaunchKernel — `repeat` times per
sample, from a loop in C (a small library this script compiles: ctypes's own cost per call,
several µs for the 13 arguments, is not the runtime's; a row "through ctypes" shows it). The Python cuda plan
(codegen/runtime/plan.py's run_plan on the CuPy path) cost about 50 µs of host work per call on an
H100 (issue 32).

    python bench/bench_native_cuda.py [--quick]
"""

from __future__ import annotations

import ctypes
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codegen import drivergen
from codegen.runtime import api, native_cuda, native_plan
from codegen.runtime.cpu import CpuBackend
from codegen.runtime.host.libraries import _build_or_load
from codegen.runtime.host.toolchain import _BASE_FLAGS, _compiler_command
from codegen.runtime.plan import Launch
from codegen.runtime.scope import Scope

QUICK = "--quick" in sys.argv

# `repeat` calls of the runtime's C entry from C, their wall time in ns (the arguments as given).
LOOP = r"""
#include <stdint.h>
#include <time.h>
typedef int (*run_fn)(const char*, void*, const void*, int64_t, const void*, int64_t, const void*, int64_t,
                      int32_t, void*, void*, void*, char*, int64_t);
extern "C" __attribute__((visibility("default"))) int64_t loop(void* fn, int64_t repeat, const char* op, void* rec,
    const void* symbols, int64_t nsymbols, const void* values, int64_t nvalues, const void* slots, int64_t nslots,
    char* err) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int64_t k = 0; k < repeat; ++k)
    if (((run_fn)fn)(op, rec, symbols, nsymbols, values, nvalues, slots, nslots, 0, nullptr, nullptr, nullptr, err,
                     1024))
      return -1;
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec);
}
"""


def _loop() -> Any:
    lib, _, _ = _build_or_load("opgen-bench-native-cuda-loop", LOOP, _compiler_command(), list(_BASE_FLAGS),
                               runtime=True, what="the benchmark's loop")
    lib.loop.restype = ctypes.c_int64
    lib.loop.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                         ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                         ctypes.c_char_p]
    return lib.loop


def _ops() -> list[tuple[str, Any]]:
    from generated import bias_add, softmax

    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 8)).astype(np.float32)
    big = rng.standard_normal((8192, 1024)).astype(np.float32)
    return [("Softmax [2, 8]", lambda scope: softmax(x, scope=scope)),
            ("Softmax [8192, 1024]", lambda scope: softmax(big, scope=scope)),
            ("BiasAdd [2, 8]", lambda scope: bias_add(x, x[0], scope=scope))]


def _taken(call: Any) -> tuple[Any, Any, tuple[Any, ...], tuple[Any, ...]]:
    """(plan, kernels, values, buffers) of the call's run_plan."""
    seen: list[Any] = []
    original = api.run_plan

    def hook(backend: Any, kernels: Any, plan: Any, values: Any, buffers: Any) -> None:
        seen.append((plan, kernels, values, buffers))
        original(backend, kernels, plan, values, buffers)

    api.run_plan = hook
    try:
        call(Scope("cpu", kernel_form="gpu"))
    finally:
        api.run_plan = original
    return seen[0]


def _bench(label: str, call: Any, standin: Any, repeat: int, samples: int) -> None:
    run = native_cuda.runtime().opgen_native_cuda_run
    plan, kernels, values, buffers = _taken(call)
    steps = plan.recording("cuda", values).steps
    assert len(steps) == 1 and type(steps[0]) is Launch, f"{label}: not a single-kernel plan"
    native = native_plan.load(drivergen.translation_unit([plan]), plan.op).plan(plan.op)
    module = CpuBackend(launch_plan="cuda", kernel_form="gpu").load(kernels)
    native_cuda.bind(plan.op, 0, native_cuda.standin_image(module), native.symbols)
    encoded, keep = native.encode(values)
    slots = (native_cuda.Slot * len(buffers))()
    for slot, b in zip(slots, buffers, strict=True):  # device memory of the buffers' sizes (never read: free)
        ptr = ctypes.c_uint64()
        if b is not None:
            assert standin.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(max(b.nbytes, 1))) == 0
        slot.count, slot.data = -1, ptr.value or None
    symbols = (ctypes.c_char_p * len(native.symbols))(*(s.encode() for s in native.symbols))
    err = ctypes.create_string_buffer(1024)
    allocator = native_cuda.Allocator()

    def once(op: bytes) -> int:
        return run(op, native.recorder, symbols, len(native.symbols), encoded, len(values), slots, len(buffers), 0,
                   None, allocator, err, 1024)

    assert once(plan.op.encode()) == 0, err.value.decode()
    loop, entry = _loop(), ctypes.cast(run, ctypes.c_void_p).value
    op = plan.op.encode()
    figures = {}
    runtime = native_cuda.runtime()
    for name in ("from C, graph", "from C, cuLaunchKernel", "through ctypes, graph"):
        runtime.opgen_native_cuda_graphs(int("cuLaunchKernel" not in name))
        times = []
        for _ in range(samples):
            if name.startswith("from C"):
                ns = loop(entry, repeat, op, native.recorder, symbols, len(native.symbols), encoded, len(values),
                          slots, len(buffers), err)
                assert ns > 0, err.value.decode()
                times.append(ns / repeat / 1e3)
            else:
                start = time.perf_counter()
                for _ in range(repeat):
                    once(op)
                times.append((time.perf_counter() - start) / repeat * 1e6)
        figures[name] = (statistics.median(times), min(times))
    runtime.opgen_native_cuda_graphs(1)
    standin.opgen_standin_fault.restype = ctypes.c_char_p
    assert standin.cuCtxSynchronize() == 0, standin.opgen_standin_fault()  # (every launch accepted)
    print(f"{label}: " + ", ".join(f"{k} {m:.2f} µs (best {b:.2f})" for k, (m, b) in figures.items()))
    del keep


def main() -> None:
    standin, path = native_cuda.standin()
    native_cuda.use_driver(path)
    standin.cuInit(0)
    ctx = ctypes.c_void_p()
    standin.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0)
    standin.cuCtxSetCurrent(ctx)
    standin.opgen_standin_set_free_launches(1)
    repeat, samples = (2000, 5) if QUICK else (20000, 9)
    for label, call in _ops():
        _bench(label, call, standin, repeat, samples)


if __name__ == "__main__":
    main()
