"""`values: {min, max, on_device: true}` on the cuda backend: the bounds checked by a kernel on the
device, with no host synchronisation inside the call, and a bad value reported by a later call.

Checking a device array's values on the host means copying it back, which waits for every kernel
queued before it: a recurrent op's `sequence_lengths` would serialise host and GPU on every call.
A spec sets `on_device: true` only where its kernels merely compare the value (so any value stays
in bounds: CudnnRNNV3's `t < len[b]`); the check then runs here:

* the call launches one check kernel on the current stream (one block: each thread finds the
  first bad element of its stride, the block keeps the smallest index; `n` where none), writing
  one int64 in device memory, and records an event after it;
* the error is raised, naming the op, the argument, the bounds, the value and its index, by the
  first of: the next call on the same device of an op with such a check, once the check's event has
  completed (a non-blocking query; the 8 bytes are then copied on a stream of their own, so nothing
  waits for the caller's work), or `Scope.synchronize()`, which waits for the device;
* at most `MAX_PENDING` checks wait per device: the next one waits for the oldest first (bounded
  memory, and a bound on how late an error comes);
* inside a stream capture (the user's CUDA graph) nothing is checked: an event query means nothing
  there, and the kernels stay in bounds whatever the values.

The kernel is built here (a small module with its manifest), compiled like any op's: NVRTC on a
GPU, the host emulation under the tests' stand-in CuPy.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from codegen.runtime import manifest
from codegen.runtime.kernels import KernelSource
from codegen.runtime.stats import counters

#: Checks waiting per device before a new one waits for the oldest.
MAX_PENDING = 64
#: stats.py's "value_checks": check kernels launched, checks that found a bad value
stats = counters("value_checks", ("launched", "failed"))
BLOCK = 256  # threads of the check's single block (a power of two: the reduction halves it)
_TYPES = {"int32": "int", "int64": "long long", "uint32": "unsigned int"}
_VIRTUAL_PATH = Path("opgen_value_check.cu")  # (the module's name in messages: never read from disk)

_BODY = """\
// opgen's runtime module: the device-side check of an input's `values: {min, max, on_device: true}`
// (codegen/runtime/device_value_checks.py). One block: the first element outside [lo, hi], as its
// index into *first_bad, or n where every element is within.
template <typename V>
__device__ __forceinline__ void opgen_value_check(const V* values, long long n, long long lo, long long hi,
                                                  long long* first_bad) {
  __shared__ long long found[BLOCK_SIZE];
  long long mine = n;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    const long long v = static_cast<long long>(values[i]);
    if (v < lo || v > hi) { mine = i; break; }
  }
  found[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s && found[threadIdx.x + s] < found[threadIdx.x]) found[threadIdx.x] = found[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) *first_bad = found[0];
}
""".replace("BLOCK_SIZE", str(BLOCK))


def _entry(dtype: str) -> str:
    return (f'extern "C" __global__ void __launch_bounds__({BLOCK}) opgen_value_check__{dtype}(\n'
            f"    const {_TYPES[dtype]}* __restrict__ values, long long n, long long lo, long long hi,\n"
            f"    long long* __restrict__ first_bad) {{\n"
            f"  opgen_value_check(values, n, lo, hi, first_bad);\n}}\n")


def kernel_source() -> KernelSource:
    """The check's module: its text and manifest made here, under a name no op file has."""
    body = _BODY + "".join(_entry(d) for d in _TYPES)
    params = (("const {} * __restrict__", "values"), ("long long", "n"), ("long long", "lo"), ("long long", "hi"),
              ("long long* __restrict__", "first_bad"))
    kernels = tuple(manifest.Entry(f"opgen_value_check__{d}", tuple((t.format(_TYPES[d]), name) for t, name in params),
                                   BLOCK) for d in _TYPES)
    return KernelSource("opgen value check", _VIRTUAL_PATH, body + manifest.line(manifest.Manifest(kernels), body))


@dataclass
class _Pending:
    op: str
    arg: str
    values: Any  # flat; kept alive (and read at the index) until the check is reported
    shape: tuple[int, ...]
    first_bad: Any  # the kernel's result: one int64 in device memory
    event: Any
    bounds: tuple[int | None, int | None, str, str]


class DeviceValueChecks:
    """The pending device-side checks of one cuda backend (device)."""

    def __init__(self, backend: Any) -> None:
        self._backend, self._cp = backend, backend._cp
        self._source: KernelSource | None = None
        self._pending: deque[_Pending] = deque()
        self._lock = threading.Lock()  # (threads share a backend: each check is reported once)
        self._stream: Any = None  # the result copies' own stream (never waits for the caller's work)

    def submit(self, op: str, arg: str, values: Any, minimum: int | None, maximum: int | None, min_text: str,
               max_text: str) -> None:
        """Report any finished check that failed, then launch this one (nothing in a capture)."""
        self.report(wait=False)
        dtype = str(values.dtype)
        if dtype not in _TYPES:
            raise TypeError(f"{op}: {arg}: a device-side value check takes {sorted(_TYPES)}, got {dtype}")
        stream = self._cp.cuda.get_current_stream()
        if values.size == 0 or stream.is_capturing():
            return
        if len(self._pending) >= MAX_PENDING:
            self.report(wait=True, first=True)
        if self._source is None:
            self._source = kernel_source()
        lo = np.iinfo(np.int64).min if minimum is None else minimum
        hi = np.iinfo(np.int64).max if maximum is None else maximum
        flat = values.reshape(-1)
        first_bad = self._backend.empty([1], "int64")
        self._backend.launch(self._source, f"opgen_value_check__{dtype}", (1,), (BLOCK,),
                             (flat, np.int64(flat.size), np.int64(lo), np.int64(hi), first_bad))
        stats["launched"] += 1
        event = self._cp.cuda.Event(disable_timing=True)
        event.record(stream)
        with self._lock:
            self._pending.append(_Pending(op, arg, flat, tuple(values.shape), first_bad, event,
                                          (minimum, maximum, min_text, max_text)))

    def report(self, wait: bool, first: bool = False) -> None:
        """Raise the first failed check among those finished, in the order they were made (`wait`:
        wait for them; `first`: only the oldest). Reported checks are forgotten."""
        while True:
            with self._lock:
                if not self._pending:
                    return
                check = self._pending[0]
                if wait:
                    check.event.synchronize()
                elif not check.event.done:  # (CuPy: cudaEventQuery, no wait)
                    return
                self._pending.popleft()
            self._raise_if_bad(check)
            if first:
                return

    def _raise_if_bad(self, check: _Pending) -> None:
        from codegen.runtime.checks import value_error

        if self._stream is None:
            self._stream = self._cp.cuda.Stream(non_blocking=True)
        index = int(check.first_bad.get(stream=self._stream)[0])  # (its kernel is done: waits for nothing else)
        if index >= check.values.size:
            return
        stats["failed"] += 1
        value = check.values[index:index + 1].get(stream=self._stream)[0]
        minimum, maximum, min_text, max_text = check.bounds
        raise value_error(check.op, check.arg, minimum, maximum, min_text, max_text, value.item(),
                          [int(i) for i in np.unravel_index(index, check.shape)],
                          when="found by the check on the device, after the call that received it returned")
