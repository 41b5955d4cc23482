"""The host emulation's sanitize build (host.set_sanitize / OPGEN_HOST_SANITIZE=1): planted bugs
of every class it checks are each reported with kernel, block, thread, what went wrong and the
source line; clean kernels report nothing. Every kernel here is plain CUDA."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from sanitizer_helpers import f32, fails, in_order, run, sanitized_module  # noqa: F401 (in_order: autouse)

from codegen.runtime import host
from codegen.testing import host_random_order

SOURCE = r"""
extern "C" __global__ void copy_clean(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
extern "C" __global__ void oob_read(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) y[i < n ? i : 0] = x[i];  // BUG: reads x[n]
}
extern "C" __global__ void oob_write(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) y[i] = x[i < n ? i : 0];  // BUG: writes y[n]
}
extern "C" __global__ void oob_before(const float* x, float* y) {
  y[threadIdx.x] = x[(int)threadIdx.x - 1];  // BUG: thread 0 reads x[-1]
}
extern "C" __global__ void sum_oob(const float* a, const float* b, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a[i + 1] + b[i];  // BUG: reads a[n]
}
extern "C" __global__ void running_count(const float* x, float* y, int n) {
  // one thread, in order: when y aliases x, each element reads the one just written
  if (threadIdx.x == 0)
    for (int i = 1; i < n; ++i) y[i] = x[i - 1] + 1.0f;
}
extern "C" __global__ void reverse_clean(float* y) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  y[threadIdx.x] = s[63 - threadIdx.x];
}
extern "C" __global__ void reverse_syncwarp(float* y) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncwarp();  // BUG: orders only the lanes of one warp
  y[threadIdx.x] = s[63 - threadIdx.x];
}
extern "C" __global__ void reverse_nosync(float* y) {
  __shared__ float s[32];
  s[threadIdx.x] = threadIdx.x;
  y[threadIdx.x] = s[31 - threadIdx.x];  // BUG: no barrier at all
}
extern "C" __global__ void warp_reverse_clean(float* y) {
  __shared__ float s[32];
  s[threadIdx.x] = threadIdx.x;
  __syncwarp();  // one warp: enough
  y[threadIdx.x] = s[31 - threadIdx.x];
}
extern "C" __global__ void overwrite_read(float* y) {
  __shared__ float s[64];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  const float v = s[(threadIdx.x + 1) % 64];
  s[threadIdx.x] = 2.0f;  // BUG: thread t-1 may not have read it yet
  y[threadIdx.x] = v;
}
extern "C" __global__ void shared_past_end(float* y) {
  __shared__ float s[32];
  s[threadIdx.x] = 1.0f;  // BUG: launched with 64 threads
  __syncthreads();
  y[threadIdx.x] = s[threadIdx.x % 32];
}
extern "C" __global__ void uninit_shared(float* y) {
  __shared__ float s[64];
  if (threadIdx.x < 32) s[threadIdx.x] = 1.0f;
  __syncthreads();
  y[threadIdx.x] = s[threadIdx.x];  // BUG: s[32..63] never written
}
extern "C" __global__ void dyn_shared(float* y, int n) {
  extern __shared__ float d[];
  d[threadIdx.x] = threadIdx.x;
  __syncthreads();
  y[threadIdx.x] = d[(threadIdx.x + 1) % n];
}
extern "C" __global__ void big_static_shared(float* y) {
  __shared__ float a[8192], b[8192];  // 64 KiB: a GPU refuses this kernel
  a[threadIdx.x] = 1.0f;
  b[threadIdx.x] = 2.0f;
  __syncthreads();
  y[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x];
}
extern "C" __global__ void misaligned_float4(const float* x, float* y) {
  const float4 v = *reinterpret_cast<const float4*>(x + 1);  // BUG: 4-byte aligned only
  y[threadIdx.x] = v.x + v.y + v.z + v.w;
}
extern "C" __global__ void int_overflow(float* y, int n) {
  const int k = n * static_cast<int>(threadIdx.x + 1);  // BUG: overflows for n = 2^30
  y[threadIdx.x] = static_cast<float>(k);
}
extern "C" __global__ void bad_shift(unsigned* y, int s) {
  y[threadIdx.x] = 1u << (s + threadIdx.x);  // BUG: shift by 32 or more
}
extern "C" __global__ void divergent_barrier(float* y) {
  if (threadIdx.x < 16) {
    y[threadIdx.x] = 1.0f;
    __syncthreads();
  } else {
    y[threadIdx.x] = 2.0f;
    __syncthreads();  // BUG: a different barrier
  }
}
extern "C" __global__ void shfl_exited_lane(float* y) {
  if (threadIdx.x >= 16) return;
  y[threadIdx.x] = __shfl_down_sync(0xffffffffu, 1.0f, 1);  // BUG: lanes 16-31 exited
}
extern "C" __global__ void shfl_outside_mask(float* y) {
  if (threadIdx.x < 16) y[threadIdx.x] = __shfl_down_sync(0x0000ffffu, 1.0f, 1);  // BUG: lane 15 reads 16
}
extern "C" __global__ void shfl_clean(float* y) {
  float v = threadIdx.x;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  y[threadIdx.x] = v;
}
extern "C" __global__ void activemask_shfl(float* y) {
  const unsigned m = __activemask();  // BUG: not guaranteed to be the whole warp
  y[threadIdx.x] = __shfl_sync(m, 1.0f * threadIdx.x, 0);
}
extern "C" __global__ void atomic_sum(int* total) {
  atomicAdd(total, 1);  // atomics never race
}
extern "C" __global__ void cross_block_write(float* y) {
  y[threadIdx.x] = blockIdx.x;  // BUG: every block writes the same elements
}
extern "C" __global__ void scratch_roundtrip(float* scratch, float* y) {
  scratch[threadIdx.x] = threadIdx.x;
  __syncthreads();
  y[threadIdx.x] = scratch[(threadIdx.x + 1) % blockDim.x];
}
// Two tickets per thread with nothing between them: without preemption inside a segment, every
// thread's second ticket follows its first.
extern "C" __global__ void tickets(int* counter, int* first, int* second) {
  first[threadIdx.x] = atomicAdd(counter, 1);
  second[threadIdx.x] = atomicAdd(counter, 1);
}
extern "C" __global__ void scratch_race(float* scratch, float* y) {
  scratch[threadIdx.x] = threadIdx.x;
  y[threadIdx.x] = scratch[(threadIdx.x + 1) % blockDim.x];  // BUG: no barrier
}
"""


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    yield from sanitized_module(SOURCE, "sanitizer_tests", tmp_path_factory)


# ------------------------------------------------------------------ memcheck --

def test_clean_kernels_report_nothing(mod):
    x = np.arange(100, dtype=np.float32)
    y = f32(100)
    run(mod, "copy_clean", 4, 32, (x, y, np.int32(100)))
    np.testing.assert_array_equal(y, x)
    out = f32(64)
    run(mod, "reverse_clean", 1, 64, (out,))
    np.testing.assert_array_equal(out, np.arange(63, -1, -1))
    run(mod, "warp_reverse_clean", 1, 32, (out[:32],))
    run(mod, "shfl_clean", 1, 32, (out[:32],))
    assert out[0] == sum(range(32))
    run(mod, "dyn_shared", 1, 64, (out, np.int32(64)), shared_mem=256)
    scratch = f32(64, np.nan)
    run(mod, "scratch_roundtrip", 1, 64, (scratch, out))
    np.testing.assert_array_equal(out, (np.arange(64) + 1) % 64)


def test_out_of_bounds_read_of_an_input(mod):
    x, y = np.arange(100, dtype=np.float32), f32(100)
    msg = fails(mod, "oob_read", 4, 32, (x, y, np.int32(100)),
                r"out-of-bounds read of 4 bytes at byte offset 400 of buffer 'x', which has 400 bytes",
                r"block \(3,0,0\) thread \(4,0,0\)")
    assert "at line 8 of sanitizer_tests.cu" in msg and "x[i]" in msg  # the source line, quoted


def test_out_of_bounds_write(mod):
    x, y = np.arange(100, dtype=np.float32), f32(100)
    fails(mod, "oob_write", 4, 32, (x, y, np.int32(100)), r"out-of-bounds write .* of buffer 'y', which has 400",
          r"line 12 of sanitizer_tests.cu")


def test_out_of_bounds_before_the_start(mod):
    fails(mod, "oob_before", 1, 8, (f32(8), f32(8)), r"byte offset -4 of buffer 'x'", r"thread \(0,0,0\)")


def test_an_access_past_one_buffer_into_the_next_is_reported(mod):
    """Two arguments that are slices of one array sit side by side: a[n] is b[0]. The runtime accepts
    an access inside any buffer of the launch, so each is copied apart first (red zones between);
    before, sum_oob passed (a[n] was inside b)."""
    block = np.arange(200, dtype=np.float32)
    fails(mod, "sum_oob", 4, 32, (block[:100], block[100:], f32(100), np.int32(100)),
          r"out-of-bounds read of 4 bytes at byte offset 400 of buffer 'a', which has 400 bytes",
          r"block \(3,0,0\) thread \(3,0,0\)", r"a\[i \+ 1\]")
    block = np.arange(200, dtype=np.float32)
    fails(mod, "oob_write", 4, 32, (block[100:], block[:100], np.int32(100)),
          r"out-of-bounds write of 4 bytes at byte offset 400 of buffer 'y', which has 400 bytes")
    fails(mod, "oob_before", 1, 8, (block[8:16], block[:8]), r"byte offset -4 of buffer 'x', which has 32 bytes")


def test_arguments_that_alias_keep_aliasing(mod):
    """In-place and overlapping views are one buffer to the kernel (one copy), never two."""
    a = f32(8)
    run(mod, "running_count", 1, 32, (a, a[:], np.int32(8)))
    np.testing.assert_array_equal(a, np.arange(8))  # apart, y[i] would read the original x[i - 1]: 0, 1, 1...
    b = f32(9)
    run(mod, "running_count", 1, 32, (b[:8], b[1:], np.int32(8)))  # y[i] = b[i + 1] = b[i - 1] + 1
    np.testing.assert_array_equal(b, [0, 0, 1, 1, 2, 2, 3, 3, 4])


def test_launch_buffers_are_apart_aligned_as_given_and_copied_back():
    from codegen.runtime import host_sanitize as san

    block = np.arange(300, dtype=np.float32)
    x, y, z, empty = block[1:101], block[101:201], np.arange(5, dtype=np.float64), np.zeros(0, np.float32)
    z.flags.writeable = False
    args = [x, y, np.int32(3), z, None, empty]
    apart = san.BuffersApart([0, 1, 3, 4, 5], args)
    table, count = san.buffers(["x", "y", "n", "z", "none", "empty"], [0, 1, 3, 4, 5], apart.args)
    assert count == 4 and apart.args[2] == 3 and apart.args[4] is None
    assert sorted(apart.moved) == [(i, apart.args[i].ctypes.data) for i in (0, 1, 3, 5)]
    for old, new in zip((x, y, z, empty), (apart.args[0], apart.args[1], apart.args[3], apart.args[5]), strict=True):
        assert new.shape == old.shape and new.dtype == old.dtype and np.array_equal(new, old)
        assert new.ctypes.data % san.KEPT_ALIGNMENT == old.ctypes.data % san.KEPT_ALIGNMENT
        assert not np.shares_memory(new, block) and not np.shares_memory(new, z)
    ranges = sorted((r.base, r.base + r.size) for r in table[:count])
    assert all(b[0] - a[1] >= 2 * san.RED_ZONE_MIN for a, b in itertools.pairwise(ranges))
    apart.args[1][:] = 7.0  # as a kernel would write y
    apart.copy_back()
    assert (y == 7.0).all() and np.array_equal(x, np.arange(1, 101)) and block[0] == 0 and block[201] == 201
    assert np.array_equal(z, np.arange(5)) and not z.flags.writeable


def test_shared_memory_bounds(mod):
    fails(mod, "shared_past_end", 1, 64, (f32(64),), r"out-of-bounds write of 4 bytes in shared memory",
          r"past the end of __shared__ 'shared_past_end::s' \(128 bytes\)")


def test_dynamic_shared_memory_bounds(mod):
    fails(mod, "dyn_shared", 1, 64, (f32(64), np.int32(64)), r"dynamic shared memory .* requested 128 bytes",
          shared_mem=128)


def test_uninitialised_shared_memory(mod):
    fails(mod, "uninit_shared", 1, 64, (f32(64),), r"read of uninitialised shared memory: byte 128 of "
          r"'uninit_shared::s'", r"thread \(32,0,0\)")


def test_static_shared_memory_above_48_kib_is_refused(mod):
    fails(mod, "big_static_shared", 1, 32, (f32(32),), r"65536 bytes of static __shared__ memory",
          "more than the 48 KiB")


# ----------------------------------------------------------------- racecheck --

def test_syncwarp_instead_of_syncthreads_is_a_race(mod):
    fails(mod, "reverse_syncwarp", 1, 64, (f32(64),),
          r"data race on shared memory 'reverse_syncwarp::s' at byte 252 \(of 256\): RAW \(read after write\) "
          r"hazard: this thread reads it while "
          r"thread \(63,0,0\) wrote it", r"no __syncthreads\(\) between them")


def test_missing_barrier_is_caught_even_in_one_warp(mod):
    # in order, thread 0 reads s[31] before thread 31 wrote it: reported as uninitialised
    fails(mod, "reverse_nosync", 1, 32, (f32(32),), "uninitialised shared memory: byte 124 of 'reverse_nosync::s'")
    host.set_random_order(5)  # thread 31 may also write first: then it is a race
    fails(mod, "reverse_nosync", 1, 32, (f32(32),), "data race on shared memory|uninitialised shared memory")


def test_write_after_read_race(mod):
    fails(mod, "overwrite_read", 1, 64, (f32(64),), r"WAR \(write after read\) hazard: this thread writes it while "
          r"thread \(\d+,0,0\) read it")


def test_global_memory_race_within_a_block_and_across_blocks(mod):
    fails(mod, "scratch_race", 1, 64, (f32(64), f32(64)), "data race on global buffer 'scratch'")
    fails(mod, "cross_block_write", 2, 32, (f32(32),), r"data race on global buffer 'y'",
          r"of block \(0,0,0\)", "blocks of one launch run in no defined order")


def test_atomics_are_not_races(mod):
    total = np.zeros(1, np.int32)
    run(mod, "atomic_sum", 3, 64, (total,))
    assert total[0] == 192


# ----------------------------------------------------------------- UB checks --

UB = r"undefined behaviour caught by the sanitize build"


def test_misaligned_vector_load(mod):
    fails(mod, "misaligned_float4", 1, 4, (f32(16), f32(4)), UB, r"reinterpret_cast<const float4\*>\(x \+ 1\)")


def test_int32_overflow(mod):
    fails(mod, "int_overflow", 1, 4, (f32(4), np.int32(2**30)), UB, r"thread \(1,0,0\)", r"n \* static_cast<int>")


def test_shift_out_of_range(mod):
    fails(mod, "bad_shift", 1, 8, (np.zeros(8, np.uint32), np.int32(30)), UB, r"thread \(2,0,0\)", r"1u << ")


# ----------------------------------------------------------------- synccheck --

def test_divergent_barrier(mod):
    fails(mod, "divergent_barrier", 1, 32, (f32(32),), r"divergent barrier: this thread reached __syncthreads at "
          r"sanitizer_tests-\w+\.cu:\d+ while thread \(0,0,0\) waits at sanitizer_tests-\w+\.cu:\d+")


def test_shuffle_mask_naming_exited_lanes(mod):
    fails(mod, "shfl_exited_lane", 1, 32, (f32(32),), r"lane 16 of warp 0 exited while lane 0 waits for it in "
          r"__shfl_down_sync with mask 0xffffffff")
    host.set_random_order(3)  # lanes 16-31 may also exit first
    fails(mod, "shfl_exited_lane", 1, 32, (f32(32),), r"exited")


def test_shuffle_reading_a_lane_outside_the_mask(mod):
    fails(mod, "shfl_outside_mask", 1, 32, (f32(32),), r"lane 15 reads lane 16, which is not taking part")


def test_activemask_is_only_the_converged_lanes(mod):
    fails(mod, "activemask_shfl", 1, 32, (f32(32),), r"lane \d+ reads lane 0, which is not taking part")


# ----------------------------------------------------------------- scheduler --

def test_random_order_defers_whole_warps_so_syncwarp_for_syncthreads_shows_in_results():
    """Unsanitized: a warp that runs several segments ahead of another reads poison where the
    other warp's values should be. (Before warps were deferred, every order gave right results.)"""
    plain = host.load_module(SOURCE, name_hint="sanitizer_tests")
    expect = np.arange(63, -1, -1, dtype=np.float32)
    out = f32(64)
    plain.get_function("reverse_syncwarp")((1,), (64,), (out,))
    np.testing.assert_array_equal(out, expect)  # in order the race is invisible
    wrong = 0
    for seed in range(8):
        with host_random_order(seed):
            plain.get_function("reverse_syncwarp")((1,), (64,), (out,))
            wrong += not np.array_equal(out, expect)
            plain.get_function("reverse_clean")((1,), (64,), (out,))
            np.testing.assert_array_equal(out, expect)
    assert wrong >= 2, "no random order let one warp run ahead of the other"


def test_sanitize_random_order_preempts_inside_segments(mod):
    counter = np.zeros(1, np.int32)
    first, second = np.zeros(64, np.int32), np.zeros(64, np.int32)
    run(mod, "tickets", 1, 64, (counter, first, second))
    assert (second == first + 1).all()  # in order a segment runs without interruption
    with host_random_order(7):
        counter[0] = 0
        run(mod, "tickets", 1, 64, (counter, first, second))
    assert sorted(np.concatenate([first, second])) == list(range(128))
    assert (second != first + 1).any(), "no thread was preempted between its two accesses"


# ------------------------------------------------------------------ plumbing --

def test_sanitize_setting_routes_plain_modules_through_the_sanitize_build(mod, monkeypatch):
    plain = host.load_module(SOURCE, name_hint="sanitizer_tests")
    assert not plain.sanitized and plain.path != mod.path  # the flags are part of the cache key
    x, y = np.arange(100, dtype=np.float32), f32(100)
    monkeypatch.setattr(host.switches, "_sanitize", host._UNSET)
    monkeypatch.setenv("OPGEN_HOST_SANITIZE", "0")
    plain.get_function("oob_read")((4,), (32,), (x, y, np.int32(100)))  # unchecked: nothing notices
    monkeypatch.setenv("OPGEN_HOST_SANITIZE", "1")
    with pytest.raises(host.HostKernelError, match="out-of-bounds read"):
        plain.get_function("oob_read")((4,), (32,), (x, y, np.int32(100)))
    host.set_sanitize(False)  # the setting overrides the environment
    plain.get_function("oob_read")((4,), (32,), (x, y, np.int32(100)))
    with pytest.raises(TypeError):
        host.set_sanitize(1)  # type: ignore[arg-type]


def test_module_stays_usable_after_a_finding(mod):
    test_out_of_bounds_write(mod)
    test_clean_kernels_report_nothing(mod)


def test_the_sanitize_build_is_compiled_at_O1(mod):
    """host_sanitize.FLAGS' -O1 must come after the base -O2 (the last -O wins): it halves the sanitize
    twins' compile time, and every planted bug of this module and tests/test_racecheck.py is caught at
    -O1. GCC records its switches in the library's DW_AT_producer string (-grecord-gcc-switches)."""
    producer = re.search(rb"GNU C\+\+\w* [\d.]+ ([^\x00]*)", mod.path.read_bytes())
    if producer is None:
        pytest.skip(f"{mod.path.name} records no GCC switches (another compiler): the optimisation level is unknown")
    levels = re.findall(rb"(?<!\S)-O\w*", producer[1])
    assert levels and levels[-1] == b"-O1", f"optimisation switches of the sanitize build: {levels}"
