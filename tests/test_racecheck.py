"""The sanitize build's racecheck misses nothing compute-sanitizer's racecheck reports on shared
memory: every RAW, WAR and WAW between threads of different warps within one barrier interval, and
between lanes of one warp that no __syncwarp of both orders (a shuffle does not), whatever
happens to the value (read and dropped, the same value written twice, a result the schedule
happens to make right) and in whatever order the scheduler runs the threads. Atomics and properly
synchronised patterns report nothing. Blocks of 64 threads (two warps) unless said."""

from __future__ import annotations

import numpy as np
import pytest
from sanitizer_helpers import f32, fails, in_order, run, sanitized_module  # noqa: F401 (in_order: autouse)

from codegen.runtime import host
from codegen.testing import host_random_order

SOURCE = r"""
// s[] is written in a first interval, so that a later read of it is never "uninitialised".
#define PREFILL(s) s[threadIdx.x] = -1.0f; __syncthreads()

extern "C" __global__ void raw_cross_warp(float* y) {
  __shared__ float s[64];
  PREFILL(s);
  if (threadIdx.x < 32) s[threadIdx.x] = threadIdx.x;
  else y[threadIdx.x] = s[threadIdx.x - 32];  // BUG: no barrier after warp 0's write
}
extern "C" __global__ void raw_cross_warp_dead(float* y) {
  __shared__ float s[64];
  PREFILL(s);
  if (threadIdx.x < 32) s[threadIdx.x] = threadIdx.x;
  else { const float v = s[threadIdx.x - 32]; (void)v; }  // BUG: the value read goes nowhere
  y[threadIdx.x] = 0.0f;
}
extern "C" __global__ void war_cross_warp(float* y) {
  __shared__ float s[64];
  PREFILL(s);
  if (threadIdx.x < 32) y[threadIdx.x] = s[threadIdx.x + 32];
  else s[threadIdx.x] = threadIdx.x;  // BUG: warp 0 may not have read it yet
}
extern "C" __global__ void war_cross_warp_dead(float* y) {
  __shared__ float s[64];
  PREFILL(s);
  if (threadIdx.x < 32) { const float v = s[threadIdx.x + 32]; (void)v; }
  else s[threadIdx.x] = threadIdx.x;  // BUG: conflicts with a read whose value is dropped
  y[threadIdx.x] = 0.0f;
}
extern "C" __global__ void waw_same_value(float* y) {
  __shared__ float s[32];
  s[threadIdx.x % 32] = 1.0f;  // BUG: both warps write each element (the same value)
  __syncthreads();
  y[threadIdx.x] = s[threadIdx.x % 32];
}
extern "C" __global__ void scalar_flag(float* y) {
  __shared__ float total;  // a scalar: every access is at a constant offset
  if (threadIdx.x == 0) total = 3.0f;
  __syncthreads();
  if (threadIdx.x == 0) total = 4.0f;
  if (threadIdx.x >= 32) y[threadIdx.x] = total;  // BUG: warp 1 reads while thread 0 writes
}
extern "C" __global__ void write_back_same_value(float* y) {
  __shared__ float s[64];
  PREFILL(s);
  if (threadIdx.x < 32) y[threadIdx.x] = s[threadIdx.x];
  else { const float v = s[threadIdx.x - 32]; s[threadIdx.x - 32] = v; }  // BUG: a store, if of the same value
}
// Every thread of both warps reads s[0]; the warps sync and thread WRITER writes: ordered after
// its own warp's reads, not the other warp's.
#ifndef WRITER
#define WRITER 63
#endif
extern "C" __global__ void war_many_readers(float* y) {
  __shared__ float s[64];
  PREFILL(s);
  const float v = s[0];
  __syncwarp();
  if (threadIdx.x == WRITER) s[0] = 5.0f;  // BUG: the other warp read s[0] in this interval
  y[threadIdx.x] = v;
}
extern "C" __global__ void raw_dynamic_shared(float* y) {
  extern __shared__ float d[];
  PREFILL(d);
  if (threadIdx.x < 32) d[threadIdx.x] = threadIdx.x;
  else { const float v = d[threadIdx.x - 32]; (void)v; }  // BUG: no barrier, the value dropped
  y[threadIdx.x] = 0.0f;
}
extern "C" __global__ void reduce_clean(float* y) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  for (int k = 32; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  y[threadIdx.x] = s[0];
}
extern "C" __global__ void atomic_shared(float* y) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  atomicAdd(&count, 1);  // every thread of both warps, no barrier between: atomics never race
  atomicAdd(&count, 1);
  __syncthreads();
  y[threadIdx.x] = count;
}

// One warp (32 threads).
extern "C" __global__ void warp_nosync(float* y) {
  __shared__ float s[32];
  PREFILL(s);
  s[threadIdx.x] = threadIdx.x;
  y[threadIdx.x] = s[(threadIdx.x + 1) % 32];  // BUG: no __syncwarp() between lanes' write and read
}
extern "C" __global__ void warp_shuffle_only(float* y) {
  __shared__ float s[32];
  PREFILL(s);
  s[threadIdx.x] = threadIdx.x;
  const float r = __shfl_xor_sync(0xffffffffu, 1.0f, 1);  // BUG: a shuffle orders no memory access
  y[threadIdx.x] = r * s[(threadIdx.x + 1) % 32];
}
extern "C" __global__ void warp_syncwarp_clean(float* y) {
  __shared__ float s[32];
  PREFILL(s);
  s[threadIdx.x] = threadIdx.x;
  __syncwarp();
  y[threadIdx.x] = s[(threadIdx.x + 1) % 32];
  __syncwarp();
  s[threadIdx.x] = 2.0f * threadIdx.x;  // after the __syncwarp(): every lane has read
}
extern "C" __global__ void warp_tree_clean(float* y) {
  __shared__ float s[32];
  s[threadIdx.x] = threadIdx.x;
  __syncwarp();
  for (int k = 16; k > 0; k >>= 1) {
    const float v = threadIdx.x < k ? s[threadIdx.x + k] : 0.0f;
    __syncwarp();
    if (threadIdx.x < k) s[threadIdx.x] += v;
    __syncwarp();
  }
  y[threadIdx.x] = s[0];
}
// Half warps sync among themselves (masks 0x0000ffff and 0xffff0000): that orders nothing between
// the halves, though every lane has passed as many warp syncs.
extern "C" __global__ void half_warp_syncs(float* y) {
  __shared__ float s[32];
  PREFILL(s);
  const unsigned half = threadIdx.x < 16 ? 0x0000ffffu : 0xffff0000u;
  if (threadIdx.x == 0) s[0] = 1.0f;
  __syncwarp(half);
  y[threadIdx.x] = s[0];  // BUG for lanes 16-31: lane 0's write is not ordered with them
}
extern "C" __global__ void half_warp_clean(float* y) {
  __shared__ float s[32];
  PREFILL(s);
  const unsigned half = threadIdx.x < 16 ? 0x0000ffffu : 0xffff0000u;
  if (threadIdx.x % 16 == 0) s[threadIdx.x] = 1.0f;
  __syncwarp(half);
  y[threadIdx.x] = s[threadIdx.x & 16];  // each half reads its own first lane's write
}
"""

RAW = r"RAW \(read after write\) hazard: this thread reads it while thread \(\d+,0,0\) wrote it"
WAR = r"WAR \(write after read\) hazard: this thread writes it while thread \(\d+,0,0\) read it"
WAW = r"WAW \(write after write\) hazard: this thread writes it while thread \(\d+,0,0\) wrote it"
ACROSS_WARPS = r"no __syncthreads\(\) between them"
IN_A_WARP = r"the same warp, but no __syncwarp\(\) of both lanes between them"
SEEDS = range(1, 7)


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    yield from sanitized_module(SOURCE, "racecheck_tests", tmp_path_factory)


@pytest.fixture(scope="module")
def mod_writer_in_warp_0(tmp_path_factory):
    """war_many_readers with the writer in warp 0 (thread 0) instead of warp 1 (thread 63)."""
    yield from sanitized_module("#define WRITER 0\n" + SOURCE, "racecheck_writer0", tmp_path_factory)


def reported_in_every_order(mod, name, block, *patterns):
    """The hazard is reported in order and under several random orders (whichever access comes first)."""
    fails(mod, name, 1, block, (f32(block),), *patterns[0])
    for seed in SEEDS:
        with host_random_order(seed):
            fails(mod, name, 1, block, (f32(block),), *patterns[1])


# ------------------------------------------------------------ across warps --

@pytest.mark.parametrize("name", ["raw_cross_warp", "raw_cross_warp_dead"])
def test_read_after_write_across_warps(mod, name):
    # in order warp 0 writes first: RAW; in another order the read may come first: WAR
    reported_in_every_order(mod, name, 64, (RAW, ACROSS_WARPS, r"byte \d+ \(of 256\)"),
                            (f"{RAW}|{WAR}", ACROSS_WARPS))


@pytest.mark.parametrize("name", ["war_cross_warp", "war_cross_warp_dead"])
def test_write_after_read_across_warps(mod, name):
    reported_in_every_order(mod, name, 64, (WAR, ACROSS_WARPS, rf"'{name}::s'"), (f"{RAW}|{WAR}", ACROSS_WARPS))


def test_dynamic_shared_memory_is_checked_the_same_way(mod):
    fails(mod, "raw_dynamic_shared", 1, 64, (f32(64),), RAW, r"'extern __shared__' at byte 0 \(of 256\)",
          r"thread \(32,0,0\): ", r"thread \(0,0,0\) wrote it", ACROSS_WARPS, shared_mem=256)


def test_write_after_write_of_the_same_value_across_warps(mod):
    reported_in_every_order(mod, "waw_same_value", 64, (WAW, r"byte 0 \(of 128\)", r"thread \(32,0,0\): "),
                            (WAW, ACROSS_WARPS))


def test_races_the_schedule_makes_harmless_are_reported():
    """In order (plain build) these kernels give the values a barrier would: the race is harmless
    there and still reported by the sanitize build (test above)."""
    plain = host.load_module(SOURCE, name_hint="racecheck_tests")
    out = f32(64, np.nan)
    plain.get_function("raw_cross_warp")((1,), (64,), (out,))
    np.testing.assert_array_equal(out[32:], np.arange(32))  # warp 0 happened to write first
    plain.get_function("waw_same_value")((1,), (64,), (out,))
    np.testing.assert_array_equal(out, 1.0)


def test_constant_offset_accesses_are_checked(mod):
    """A __shared__ scalar (and a constant index) is accessed at a constant offset: still checked."""
    fails(mod, "scalar_flag", 1, 64, (f32(64),), RAW, r"'scalar_flag::total' at byte 0 \(of 4\)",
          r"thread \(32,0,0\): ", r"thread \(0,0,0\) wrote it", ACROSS_WARPS)


def test_a_store_of_the_value_already_there_is_still_a_write(mod):
    fails(mod, "write_back_same_value", 1, 64, (f32(64),), WAR, r"thread \(32,0,0\): ",
          r"thread \(0,0,0\) read it")


@pytest.mark.parametrize(("fixture", "writer", "reader"), [
    ("mod", r"\(63,0,0\)", r"\(0,0,0\)"),  # ordered after warp 1's reads: warp 0's remain
    ("mod_writer_in_warp_0", r"\(0,0,0\)", r"\(32,0,0\)"),  # ordered after warp 0's: warp 1's remain
])
def test_write_after_many_readers_names_one_it_is_not_ordered_with(request, fixture, writer, reader):
    fails(request.getfixturevalue(fixture), "war_many_readers", 1, 64, (f32(64),), WAR,
          rf"thread {writer}: ", rf"while thread {reader} read it", ACROSS_WARPS)


# ------------------------------------------------------------ within a warp --

def test_lanes_of_a_warp_without_syncwarp_race(mod):
    reported_in_every_order(mod, "warp_nosync", 32, (WAR, IN_A_WARP), (f"{RAW}|{WAR}", IN_A_WARP))


def test_a_shuffle_is_no_warp_sync(mod):
    """CUDA promises no memory ordering for shuffles and votes; compute-sanitizer reports this."""
    fails(mod, "warp_shuffle_only", 1, 32, (f32(32),), RAW, r"thread \(0,0,0\): ", r"thread \(1,0,0\) wrote it",
          IN_A_WARP)


def test_a_half_warp_sync_does_not_order_the_other_half(mod):
    fails(mod, "half_warp_syncs", 1, 32, (f32(32),), RAW, r"thread \(16,0,0\): ", r"thread \(0,0,0\) wrote it",
          IN_A_WARP)


# -------------------------------------------------------- nothing reported --

def test_synchronised_patterns_and_atomics_report_nothing(mod):
    for seed in (None, *SEEDS):
        with host_random_order(seed):
            out = f32(64, np.nan)
            run(mod, "reduce_clean", 1, 64, (out,))
            np.testing.assert_array_equal(out, sum(range(64)))
            run(mod, "atomic_shared", 1, 64, (out,))
            np.testing.assert_array_equal(out, 128)
            out = f32(32, np.nan)
            run(mod, "warp_syncwarp_clean", 1, 32, (out,))
            np.testing.assert_array_equal(out, (np.arange(32) + 1) % 32)
            run(mod, "warp_tree_clean", 1, 32, (out,))
            np.testing.assert_array_equal(out, sum(range(32)))
            run(mod, "half_warp_clean", 1, 32, (out,))
            np.testing.assert_array_equal(out, 1.0)
