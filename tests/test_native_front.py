"""The wrappers' native front-end (codegen/runtime/native/pyentry.cpp, built by
codegen/runtime/native_front.py): what it hands a driver, what it makes of the driver's answer.
A small driver written here for the test (`scale_add`: out = x * scale + (y or 0), float64 only)
stands in for a generated one, so the extension is tested on its own: argument conversion, the
allocator (outputs and scratch, poisoning), errors as exceptions, and the fallbacks to Python."""

from __future__ import annotations

import ctypes
import resource
import sys
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np
import pytest

from codegen.runtime import diskcache, native_front
from codegen.runtime.host.libraries import _build_or_load
from codegen.runtime.host.toolchain import _compiler_command, _target, compiler_id

DRIVER = r'''
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <thread>
#include "driver.h"
#define API extern "C" __attribute__((visibility("default")))

static int fail(opgen_call* c, int code, const char* text) { snprintf(c->err, sizeof c->err, "%s", text); return code; }

// inputs (x, y?), attrs (scale: float, mode: str); out = x * scale + y, and a scratch buffer
API int scale_add(opgen_call* c) {
  if (c->ninputs != 2 || c->nattrs != 2) return fail(c, OPGEN_ERR_RUNTIME, "arity");
  const opgen_arg& x = c->inputs[0];
  const opgen_arg& y = c->inputs[1];
  if (x.kind != OPGEN_ARG_TENSOR) return fail(c, OPGEN_ERR_TYPE, "ScaleAdd: x: expected an array");
  if (x.tensor.dtype != OPGEN_DT_FLOAT64) return fail(c, OPGEN_ERR_TYPE, "ScaleAdd: x: expected dtype float64");
  const opgen_value& scale = c->attrs[0];
  const opgen_value& mode = c->attrs[1];
  if (scale.kind != OPGEN_VAL_FLOAT) return fail(c, OPGEN_ERR_TYPE, "ScaleAdd: attr scale: expected a float");
  if (mode.kind != OPGEN_VAL_STR) return fail(c, OPGEN_ERR_TYPE, "ScaleAdd: attr mode: expected a string");
  if (mode.len == 8 && std::memcmp(mode.text, "fallback", 8) == 0) return fail(c, OPGEN_ERR_FALLBACK, "asked");
  if (mode.len == 4 && std::memcmp(mode.text, "oops", 4) == 0)
    return fail(c, OPGEN_ERR_VALUE, "ScaleAdd: attr mode: oops");
  int64_t n = 1;
  for (int d = 0; d < x.tensor.ndim; ++d) n *= x.tensor.shape[d];
  if (y.kind == OPGEN_ARG_TENSOR && (y.tensor.ndim != x.tensor.ndim || y.tensor.dtype != OPGEN_DT_FLOAT64))
    return fail(c, OPGEN_ERR_VALUE, "ScaleAdd: y: expected the shape of x");
  c->noutputs = 1;
  opgen_tensor& out = c->outputs[0];
  out.dtype = OPGEN_DT_FLOAT64;
  out.ndim = x.tensor.ndim;
  for (int d = 0; d < out.ndim; ++d) c->output_shapes[0][d] = x.tensor.shape[d];
  out.shape = c->output_shapes[0];
  if (c->allocator.alloc(c->allocator.ctx, 0, out.dtype, out.ndim, out.shape, n * 8, &out.data, c->err, sizeof c->err))
    return OPGEN_ERR_MEMORY;
  void* scratch = nullptr;
  int64_t one = n;
  if (c->allocator.alloc(c->allocator.ctx, -1, OPGEN_DT_FLOAT64, 1, &one, n * 8, &scratch, c->err, sizeof c->err))
    return OPGEN_ERR_MEMORY;
  const double* xs = static_cast<const double*>(x.tensor.data);
  const double* ys = y.kind == OPGEN_ARG_TENSOR ? static_cast<const double*>(y.tensor.data) : nullptr;
  double* tmp = static_cast<double*>(scratch);
  for (int64_t k = 0; k < n; ++k) tmp[k] = xs[k] * scale.f;
  for (int64_t k = 0; k < n; ++k) static_cast<double*>(out.data)[k] = tmp[k] + (ys ? ys[k] : 0.0);
  return OPGEN_OK;
}

// out[k] stays as allocated: shows the poisoning
API int untouched(opgen_call* c) {
  const opgen_arg& x = c->inputs[0];
  c->noutputs = 1;
  opgen_tensor& out = c->outputs[0];
  out.dtype = x.tensor.dtype;
  out.ndim = x.tensor.ndim;
  for (int d = 0; d < out.ndim; ++d) c->output_shapes[0][d] = x.tensor.shape[d];
  out.shape = c->output_shapes[0];
  return c->allocator.alloc(c->allocator.ctx, 0, out.dtype, out.ndim, out.shape, 0, &out.data, c->err, sizeof c->err)
      ? OPGEN_ERR_MEMORY : OPGEN_OK;
}

// out = the bytes of a scratch buffer of x's dtype and shape, as the allocator made it (shows the
// scratch's poisoning); an error where the scratch is not 64-byte aligned
API int scratch_peek(opgen_call* c) {
  const opgen_arg& x = c->inputs[0];
  int64_t n = 1, size = x.tensor.dtype == OPGEN_DT_FLOAT64 ? 8 : x.tensor.dtype == OPGEN_DT_FLOAT32 ? 4 : 1;
  for (int d = 0; d < x.tensor.ndim; ++d) n *= x.tensor.shape[d];
  void* scratch = nullptr;
  if (c->allocator.alloc(c->allocator.ctx, -1, x.tensor.dtype, x.tensor.ndim, x.tensor.shape, n * size, &scratch,
                         c->err, sizeof c->err))
    return OPGEN_ERR_MEMORY;
  if (reinterpret_cast<uintptr_t>(scratch) % 64 != 0) return fail(c, OPGEN_ERR_RUNTIME, "scratch not 64-byte aligned");
  int code = untouched(c);
  if (code == OPGEN_OK) std::memcpy(c->outputs[0].data, scratch, static_cast<size_t>(n * size));
  return code;
}

// x: int64 byte sizes; out[k] = the address of a scratch block of x[k] bytes, each block's bytes zeroed
API int scratch_addresses(opgen_call* c) {
  int code = untouched(c);
  const opgen_tensor& x = c->inputs[0].tensor;
  for (int64_t k = 0; code == OPGEN_OK && k < x.shape[0]; ++k) {
    int64_t bytes = static_cast<const int64_t*>(x.data)[k];
    void* block = nullptr;
    if (c->allocator.alloc(c->allocator.ctx, -1, OPGEN_DT_UINT8, 1, &bytes, bytes, &block, c->err, sizeof c->err))
      return OPGEN_ERR_MEMORY;
    std::memset(block, 0, static_cast<size_t>(bytes));
    static_cast<int64_t*>(c->outputs[0].data)[k] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(block));
  }
  return code;
}

// claims an output it never allocated
API int liar(opgen_call* c) { c->noutputs = 1; return OPGEN_OK; }

// out1 = whether this thread held the GIL at entry, after making out0, after making out1 (the last):
// Python's PyGILState_Check, looked up in the process
API int gil_probe(opgen_call* c) {
  int (*held)() = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "PyGILState_Check"));
  if (held == nullptr) return fail(c, OPGEN_ERR_RUNTIME, "no PyGILState_Check in the process");
  double seen[3] = {double(held()), 0, 0};
  c->noutputs = 2;
  for (int k = 0; k < 2; ++k) {
    opgen_tensor& out = c->outputs[k];
    out.dtype = OPGEN_DT_FLOAT64;
    out.ndim = 1;
    c->output_shapes[k][0] = 3;
    out.shape = c->output_shapes[k];
    if (c->allocator.alloc(c->allocator.ctx, k, out.dtype, 1, out.shape, 24, &out.data, c->err, sizeof c->err))
      return OPGEN_ERR_MEMORY;
    seen[k + 1] = held();
  }
  std::memcpy(c->outputs[1].data, seen, sizeof seen);
  return OPGEN_OK;
}

// `untouched`, its output allocated from another thread (the front takes the GIL by that thread's state)
API int elsewhere(opgen_call* c) {
  int code = OPGEN_OK;
  std::thread other([&] { code = untouched(c); });
  other.join();
  return code;
}
'''


@pytest.fixture(scope="module")
def front():
    ext = native_front.extension()
    assert ext is not None, "the extension must build on this machine (it has a compiler and Python's headers)"
    return ext


@pytest.fixture(scope="module")
def driver():
    cmd = _compiler_command()
    flags = ["-O1", "-std=c++17", "-shared", "-fPIC", "-fvisibility=hidden", "-I", str(native_front.NATIVE_DIR)]
    key = diskcache.cache_key(DRIVER, flags, compiler_id(cmd), _target())
    lib, _, _ = _build_or_load(f"opgen-test-front-{key[:32]}", DRIVER, cmd, flags, runtime=True)
    return {name: ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
            for name in ("scale_add", "untouched", "liar", "elsewhere", "scratch_peek", "gil_probe",
                                 "scratch_addresses")}


def test_call_converts_inputs_attrs_and_makes_outputs(front, driver):
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    y = np.full((2, 3), 0.5)
    out, = front.call(driver["scale_add"], (x, y), (2.0, "plain"), 0, False)
    assert isinstance(out, np.ndarray) and out.shape == (2, 3) and out.dtype == np.float64
    np.testing.assert_array_equal(out, x * 2.0 + 0.5)
    absent, = front.call(driver["scale_add"], (x, None), (3.0, "plain"), 0, False)  # an absent optional input
    np.testing.assert_array_equal(absent, x * 3.0)


def test_driver_errors_are_the_wrappers_exceptions(front, driver):
    x = np.zeros(3)
    with pytest.raises(TypeError, match=r"^ScaleAdd: x: expected dtype float64$"):
        front.call(driver["scale_add"], (x.astype(np.float32), None), (1.0, "plain"), 0, False)
    with pytest.raises(ValueError, match=r"^ScaleAdd: attr mode: oops$"):
        front.call(driver["scale_add"], (x, None), (1.0, "oops"), 0, False)
    with pytest.raises(TypeError, match="expected a float"):
        front.call(driver["scale_add"], (x, None), (1, "plain"), 0, False)  # an int reaches it as an int
    with pytest.raises(RuntimeError, match="never allocated"):
        front.call(driver["liar"], (x,), (), 0, False)


@pytest.mark.parametrize("odd", [
    lambda x: x[::2],                                   # a strided view
    lambda x: x.astype(x.dtype.newbyteorder(">")),      # foreign byte order
    lambda x: x.tolist(),                               # a list of floats, not of arrays
    lambda x: object(),                                 # something else entirely
    lambda x: np.zeros(3, dtype=np.complex128),         # a dtype driver.h does not number
])
def test_what_it_cannot_hand_over_goes_to_python(front, driver, odd):
    assert front.call(driver["scale_add"], (odd(np.zeros(6)), None), (1.0, "plain"), 0, False) is None


@pytest.mark.parametrize("attr", [np.float64(1.0), 2**70, object(), [[1]]])
def test_attrs_it_cannot_hand_over_go_to_python(front, driver, attr):
    assert front.call(driver["scale_add"], (np.zeros(3), None), (attr, "plain"), 0, False) is None


def test_fallback_result_and_null_driver(front, driver):
    assert front.call(driver["scale_add"], (np.zeros(3), None), (1.0, "fallback"), 0, False) is None
    assert front.call(0, (np.zeros(3),), (), 0, False) is None


@pytest.mark.parametrize("dtype, expect", [
    ("float64", "nan"), ("float32", "nan"), ("float16", "nan"), ("int32", -1), ("uint8", 255), ("bool", True)])
def test_poisoned_outputs_match_backend_empty(front, driver, dtype, expect):
    x = np.zeros(5, dtype=dtype)
    out, = front.call(driver["untouched"], (x,), (), 0, True)
    assert out.dtype == np.dtype(dtype)
    if expect == "nan":
        assert np.isnan(out.astype(np.float64)).all()
        assert out.tobytes() == np.full(5, np.nan, dtype=dtype).tobytes()  # the same NaN as fill(nan)
    else:
        assert (out == expect).all()


@pytest.mark.parametrize("dtype, expect", [("float64", "nan"), ("float32", "nan"), ("uint8", 255), ("bool", True)])
def test_cpu_scratch_is_aligned_and_poisoned_as_outputs_are(front, driver, dtype, expect):
    x = np.zeros(7, dtype=dtype)
    out, = front.call(driver["scratch_peek"], (x,), (), 0, True)
    if expect == "nan":
        assert out.tobytes() == np.full(7, np.nan, dtype=dtype).tobytes()
    else:
        assert (out == expect).all()
    assert front.call(driver["scratch_peek"], (np.zeros(0),), (), 0, True)[0].shape == (0,)  # a zero-size one too


def test_cpu_scratch_blocks_are_kept_for_the_threads_next_call(front, driver):
    """host_scratch.h: a call's small scratch blocks go back to its thread's cache and the next call
    takes them again (no aligned allocation and free per call); within one call every block is its
    own; a kept block is poisoned again where outputs are."""
    libc = ctypes.CDLL(None)
    libc.aligned_alloc.restype, libc.aligned_alloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t, ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]

    def calls() -> None:  # (a fresh thread: its cache holds no other test's blocks)
        earlier = np.array([64, 128, 192, 256, 320, 384, 448, 512], np.int64)  # fill the cache first
        front.call(driver["scratch_addresses"], (earlier,), (), 0, False)
        sizes = np.array([4160, 4160, 8000], np.int64)
        first, = front.call(driver["scratch_addresses"], (sizes,), (), 0, False)
        # Blocks of the same sizes taken from the heap between the calls: had the call freed its
        # blocks, the heap would hand them out here (glibc reuses a thread's freed chunk first).
        between = [libc.aligned_alloc(64, int(size)) for size in sizes]
        again, = front.call(driver["scratch_addresses"], (sizes,), (), 0, False)
        for block in between:
            libc.free(block)
        assert len(set(first.tolist())) == 3 and len(set(again.tolist())) == 3, "a block handed out twice in a call"
        assert set(again.tolist()) == set(first.tolist()), "the blocks were not kept for the thread's next call"
        assert all(a % 64 == 0 for a in again.tolist())
        front.call(driver["scratch_addresses"], (np.array([56], np.int64),), (), 0, False)  # a kept block, zeroed
        out, = front.call(driver["scratch_peek"], (np.zeros(7),), (), 0, True)  # (56 bytes: that block again)
        assert np.isnan(out).all(), "a kept block was not poisoned again"

    with ThreadPoolExecutor(1) as pool:  # (its failure re-raised here)
        pool.submit(calls).result()


def test_cpu_scratch_keeps_large_blocks_within_a_bound(front, driver):
    """host_scratch.h: large blocks (megabytes: an RNN's gate buffers) are kept too, so a call
    repeated writes pages it already has instead of faulting fresh ones in (glibc hands a large freed
    block back to the kernel); what a thread keeps stays within ScratchCache::kKeepBytes (64 MiB),
    the oldest let go first, and a block over that is never kept. (Page faults of the calling
    thread: a fresh 48 MiB block written whole takes thousands, 24 even with 2 MiB pages.)"""
    mib = 1 << 20

    def faults(*sizes: int) -> tuple[set[int], int]:
        """The addresses of a call's blocks of these sizes (each written whole), and the thread's page
        faults during the call."""
        before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
        out, = front.call(driver["scratch_addresses"], (np.array(sizes, np.int64),), (), 0, False)
        return set(out.tolist()), resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before

    def kept() -> None:  # (a fresh thread: its cache holds no other test's blocks)
        first, _ = faults(3 * mib, 5 * mib)
        between = [libc.aligned_alloc(64, size) for size in (3 * mib, 5 * mib)]  # the heap's choice, were they freed
        again, count = faults(3 * mib, 5 * mib)
        for block in between:
            libc.free(block)
        assert again == first, "the large blocks were not kept for the thread's next call"
        assert count < 20, f"{count} page faults writing 8 MiB of kept scratch"

    def bound() -> None:  # (another fresh thread)
        assert faults(48 * mib)[1] > 20
        assert faults(48 * mib)[1] < 20, "the 48 MiB block was not kept"
        faults(20 * mib, 20 * mib)  # 48 + 20 + 20 MiB > 64: the oldest, the 48 MiB block, goes
        assert faults(20 * mib, 20 * mib)[1] < 20, "the two 20 MiB blocks were not kept"
        assert faults(48 * mib)[1] > 20, "the 48 MiB block was kept beyond the bound"
        assert faults(65 * mib)[1] > 20 and faults(65 * mib)[1] > 20, "a block over the bound was kept"

    libc = ctypes.CDLL(None)
    libc.aligned_alloc.restype, libc.aligned_alloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t, ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    for check in (kept, bound):
        with ThreadPoolExecutor(1) as pool:  # (its failure re-raised here)
            pool.submit(check).result()


def test_cpu_scratch_is_no_numpy_array(front, driver):
    """A cpu call's scratch is a plain heap block, not a NumPy array (one the caller never sees; an
    array costs an object and the GIL taken back): NumPy traces its arrays' memory, so the peak of a
    call with a 1 MiB output and 1 MiB of scratch holds the output only."""
    x = np.ones(1 << 17)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        out, = front.call(driver["scale_add"], (x, None), (2.0, "plain"), 0, False)
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert (out == 2.0).all()
    assert x.nbytes <= peak < x.nbytes + (256 << 10), peak


def test_no_reference_leaks(front, driver):
    x, y = np.ones(4), np.ones(4)
    mode = "plain"
    before = (sys.getrefcount(x), sys.getrefcount(y), sys.getrefcount(mode))
    for _ in range(200):
        out, = front.call(driver["scale_add"], (x, y), (1.5, mode), 0, False)
        assert sys.getrefcount(out) == 2  # ours only: the extension kept no reference
    for _ in range(50):
        with pytest.raises(ValueError):
            front.call(driver["scale_add"], (x, y), (1.5, "oops"), 0, False)
    assert (sys.getrefcount(x), sys.getrefcount(y), sys.getrefcount(mode)) == before


def test_refuses_a_malformed_call(front):
    with pytest.raises(TypeError, match="call\\(driver"):
        front.call(1, [], (), 0, False)


class _Pair(NamedTuple):
    out: Any


class _WithDict(tuple):  # a tuple subclass with an instance dict: not tuple's layout
    pass


def test_outputs_made_as_the_ops_namedtuple(front, driver):
    x = np.arange(3, dtype=np.float64)
    made = front.call(driver["scale_add"], (x, None), (2.0, "plain"), 0, False, _Pair)
    assert type(made) is _Pair and len(made) == 1 and made.out is made[0]
    np.testing.assert_array_equal(made.out, x * 2.0)
    plain = front.call(driver["scale_add"], (x, None), (2.0, "plain"), 0, False, None)
    assert type(plain) is tuple
    before = sys.getrefcount(_Pair)
    for _ in range(100):
        front.call(driver["scale_add"], (x, None), (2.0, "plain"), 0, False, _Pair)
    assert sys.getrefcount(_Pair) == before  # (instances dropped: the type's references back)
    for bad in (list, _WithDict, int, "y"):  # not a tuple of tuple's layout
        with pytest.raises(TypeError, match="outputs: a tuple subclass"):
            front.call(driver["scale_add"], (x, None), (2.0, "plain"), 0, False, bad)


@pytest.mark.parametrize("spelled", [
    np.dtype("=f8"), np.dtype("<f8"), np.dtype("float64", metadata={"unit": "m"})])
def test_a_dtype_equal_to_a_known_one_is_handed_over(front, driver, spelled):
    # (the front tests the dtype's identity first, NumPy's equivalence after: both must answer)
    x = np.arange(3, dtype=spelled)
    out, = front.call(driver["scale_add"], (x, None), (2.0, "plain"), 0, False)
    np.testing.assert_array_equal(out, np.arange(3.0) * 2.0)


def test_an_allocation_from_another_thread(front, driver):
    x = np.arange(4, dtype=np.float32)
    out, = front.call(driver["elsewhere"], (x,), (), 0, True)
    assert out.shape == (4,) and out.dtype == np.float32 and np.isnan(out).all()


class _Probe(NamedTuple):
    first: Any
    held: Any


def test_a_generated_drivers_cpu_call_keeps_the_gil_until_its_last_output(front, driver):
    """Given the outputs' type (a generated wrapper's call), the driver's checks and outputs run with
    the GIL (no hand-over per output) and it is let go once the last output is made, before the
    plan runs; without it, the GIL is let go before the driver runs, as for any other caller."""
    x = np.zeros(3)
    held = front.call(driver["gil_probe"], (x,), (), 0, False, _Probe).held
    assert held.tolist() == [1.0, 1.0, 0.0]
    plain = front.call(driver["gil_probe"], (x,), (), 0, False)[1]
    assert plain.tolist() == [0.0, 0.0, 0.0]
