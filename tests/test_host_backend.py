"""Tests of the host (CPU) emulation backend for CUDA kernels (codegen.runtime.host).

Every kernel here is plain CUDA (extern "C" __global__): the same text must
compile with nvcc/NVRTC (checked by test_kernels_are_valid_cuda when nvcc exists).
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import numpy as np
import pytest

from codegen.runtime import diskcache, host

REPO = Path(__file__).resolve().parents[1]

KERNELS = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <assert.h>

extern "C" __global__ void vadd(const float* __restrict__ a, const float* __restrict__ b,
                                float* __restrict__ c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// One record of 12 ints per thread, stored at the thread's global linear id.
extern "C" __global__ void indices(int* out) {
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int* r = out + 12 * (bid * (blockDim.x * blockDim.y * blockDim.z) + tid);
  r[0] = threadIdx.x; r[1] = threadIdx.y; r[2] = threadIdx.z;
  r[3] = blockIdx.x;  r[4] = blockIdx.y;  r[5] = blockIdx.z;
  r[6] = blockDim.x;  r[7] = blockDim.y;  r[8] = blockDim.z;
  r[9] = gridDim.x;   r[10] = gridDim.y;  r[11] = gridDim.z;
}

extern "C" __global__ void reduce_f32(const float* __restrict__ x, float* __restrict__ out, int n) {
  __shared__ float s[256];
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_f64(const double* __restrict__ x, double* __restrict__ out, int n) {
  __shared__ double s[256];
  double acc = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// Batch-norm style per-channel sum: grid-stride loop, warp shuffles, shared memory.
extern "C" __global__ void channel_sum(const float* __restrict__ x, float* __restrict__ out, int m) {
  __shared__ float partial[32];
  const float* p = x + (size_t)blockIdx.x * m;
  float s = 0.0f;
  for (int i = threadIdx.x; i < m; i += blockDim.x) s += p[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < (int)(blockDim.x / 32) ? partial[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) out[blockIdx.x] = s;
  }
}

extern "C" __global__ void reverse_dyn(const float* in, float* out) {
  extern __shared__ float buf[];
  const int t = threadIdx.x, n = blockDim.x;
  buf[t] = in[blockIdx.x * n + t];
  __syncthreads();
  out[blockIdx.x * n + t] = buf[n - 1 - t];
}

// Two extern __shared__ names share one dynamic buffer, as in CUDA.
extern "C" __global__ void dyn_alias(int* out) {
  extern __shared__ int as_int[];
  extern __shared__ float as_float[];
  if (threadIdx.x == 0) as_float[0] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = as_int[0];
}

// Block 0 fills its shared array; any other block must see poison, not leftovers.
extern "C" __global__ void read_shared(float* out) {
  __shared__ float s[64];
  if (blockIdx.x == 0) s[threadIdx.x] = 1.0f;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

extern "C" __global__ void warp_ops(const int* vi, const float* vf, const double* vd,
                                    int* oi, float* of, double* od, unsigned* ou) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const int a = vi[t];
  const float f = vf[t];
  const double d = vd[t];
  const unsigned full = 0xffffffffu;
  oi[6 * t + 0] = __shfl_sync(full, a, (lane * 7) % 32);
  oi[6 * t + 1] = __shfl_sync(full, a, 3, 8);
  oi[6 * t + 2] = __shfl_up_sync(full, a, 3, 16);
  oi[6 * t + 3] = __shfl_down_sync(full, a, 5, 8);
  oi[6 * t + 4] = __shfl_xor_sync(full, a, 6, 16);
  oi[6 * t + 5] = __shfl_down_sync(full, a, 1);
  of[3 * t + 0] = __shfl_xor_sync(full, f, 1);
  of[3 * t + 1] = __shfl_up_sync(full, f, 2);
  of[3 * t + 2] = __half2float(__shfl_xor_sync(full, __float2half(f), 2));
  od[2 * t + 0] = __shfl_down_sync(full, d, 16);
  od[2 * t + 1] = __shfl_sync(full, d, 31 - lane);
  ou[4 * t + 0] = __ballot_sync(full, a % 3 == 0);
  ou[4 * t + 1] = __any_sync(full, a == 40);
  ou[4 * t + 2] = __all_sync(full, a >= 0);
  ou[4 * t + 3] = __all_sync(full, a % 2 == 0);
}

extern "C" __global__ void sync_votes(const int* v, int* out) {
  const int p = v[blockIdx.x * blockDim.x + threadIdx.x];
  const int c = __syncthreads_count(p);
  const int all = __syncthreads_and(p);
  const int any = __syncthreads_or(p);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = c;
    out[3 * blockIdx.x + 1] = all;
    out[3 * blockIdx.x + 2] = any;
  }
}

extern "C" __global__ void atomics(int* ci, unsigned* cu, unsigned long long* cull, float* cf, double* cd,
                                   int* mx, int* mn, unsigned* cas, int* exch, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  atomicAdd(ci, 1);
  atomicSub(ci + 1, 2);
  atomicAdd(cu, 3u);
  atomicAdd(cull, 1ull << 33);
  atomicAdd(cf, 1.0f);
  atomicAdd(cd, 0.5);
  atomicMax(mx, (t * 7) % 1001);
  atomicMin(mn, 1000 - t);
  unsigned old = *cas, assumed;
  do {
    assumed = old;
    old = atomicCAS(cas, assumed, assumed + 1u);
  } while (old != assumed);
  atomicExch(exch + (t % 4), t);
}

extern "C" __global__ void half_from_bits(const unsigned short* bits, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __half2float(__ushort_as_half(bits[i]));
}

extern "C" __global__ void half_from_float(const float* x, unsigned short* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __half_as_ushort(__float2half_rn(x[i]));
}

extern "C" __global__ void half_from_double(const double* x, unsigned short* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __half_as_ushort(__double2half(x[i]));
}

extern "C" __global__ void half_arith(const unsigned short* a, const unsigned short* b, unsigned short* out,
                                      int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]);
  out[4 * i + 0] = __half_as_ushort(__hadd(x, y));
  out[4 * i + 1] = __half_as_ushort(__hmul(x, y));
  out[4 * i + 2] = __half_as_ushort(x - y);
  out[4 * i + 3] = __half_as_ushort(x / y);
}

extern "C" __global__ void bf16_from_float(const float* x, unsigned short* bits, float* back, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __nv_bfloat16 b = __float2bfloat16(x[i]);
  bits[i] = __bfloat16_as_ushort(b);
  back[i] = __bfloat162float(b);
}

extern "C" __global__ void scalars(long long a, unsigned int b, double c, bool d, __half e, double* out) {
  out[0] = (double)a;
  out[1] = (double)b;
  out[2] = c;
  out[3] = d ? 1.0 : 0.0;
  out[4] = (double)__half2float(e);
}

extern "C" __global__ void neighbour_sync(const float* in, float* out) {
  __shared__ float s[128];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = threadIdx.x > 0 ? s[threadIdx.x - 1] : 0.0f;
}

// BUG on purpose: no __syncthreads() between the shared write and the neighbour's read.
extern "C" __global__ void neighbour_nosync(const float* in, float* out) {
  __shared__ float s[128];
  s[threadIdx.x] = in[threadIdx.x];
  out[threadIdx.x] = threadIdx.x > 0 ? s[threadIdx.x - 1] : 0.0f;
}

// BUG on purpose: only half the block reaches the barrier.
extern "C" __global__ void partial_barrier(float* out) {
  if (threadIdx.x < 16) __syncthreads();
  out[threadIdx.x] = 1.0f;
}

extern "C" __global__ void check_nonnegative(const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(x[i] >= 0.0f);
}

extern "C" __global__ void trap_on_3(int* flag) {
  if (threadIdx.x == 3) __trap();
  flag[threadIdx.x] = 1;
}

extern "C" __global__ void load_from(float* out, long long addr) {
  if (threadIdx.x == 5) out[0] = *reinterpret_cast<const float*>(addr);
}

extern "C" __global__ void load_at(float* out, long long addr) {
  out[0] = *reinterpret_cast<const float*>(addr);
}

extern "C" __global__ void int_div(const int* a, const int* b, int* out) {
  out[threadIdx.x] = a[threadIdx.x] / b[threadIdx.x];
}

extern "C" __global__ void big_local(float* out, int n) {
  volatile float buf[65536];  // 256 KiB of local memory: more than a 64 KiB fiber stack
  for (int i = 0; i < n; ++i) buf[i] = (float)i;
  out[threadIdx.x] = buf[n - 1];
}

extern "C" __global__ void __launch_bounds__(64) bounded(float* out) {
  out[threadIdx.x] = 1.0f;
}
"""


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """A private cache for this test module (so the first build really compiles)."""
    path = tmp_path_factory.mktemp("opgen-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPGEN_CACHE_DIR", str(path))
        yield path


@pytest.fixture(scope="module")
def mod(cache_dir):
    return host.load_module(KERNELS, name_hint="host_backend_tests")


@pytest.fixture
def in_order(monkeypatch):
    """Deterministic in-order scheduling for this test; the previous setting is restored after."""
    monkeypatch.setattr(host.switches, "_random_seed", host.switches._random_seed)
    host.set_random_order(None)


def _unique_source(tag: str) -> str:
    # A fresh comment makes a fresh cache key, so earlier loads cannot interfere.
    return f"// {tag} {uuid.uuid4()}\n" + r"""
extern "C" __global__ void scale(float* x, float f, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= f;
}
"""


# ------------------------------------------------------------------- basics --

def test_vector_add_with_tail(mod):
    n = 1000  # not a multiple of the block size: the last block has a tail
    rng = np.random.default_rng(0)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    c = np.full(n + 8, -7.0, np.float32)  # guard cells after n must stay untouched
    mod.get_function("vadd")(((n + 127) // 128,), (128,), (a, b, c, np.int32(n)))
    np.testing.assert_array_equal(c[:n], a + b)
    np.testing.assert_array_equal(c[n:], -7.0)


def test_2d_3d_indices(mod):
    grid, block = (2, 3, 2), (4, 2, 3)
    nthreads = np.prod(grid) * np.prod(block)
    out = np.full(12 * nthreads, -1, np.int32)
    mod.get_function("indices")(grid, block, (out,))
    rec = out.reshape(np.prod(grid), np.prod(block), 12)
    for bz in range(grid[2]):
        for by in range(grid[1]):
            for bx in range(grid[0]):
                for tz in range(block[2]):
                    for ty in range(block[1]):
                        for tx in range(block[0]):
                            bid = bx + grid[0] * (by + grid[1] * bz)
                            tid = tx + block[0] * (ty + block[1] * tz)
                            assert list(rec[bid, tid]) == [tx, ty, tz, bx, by, bz, *block, *grid]


@pytest.mark.parametrize(
    ("dtype", "name", "rtol"), [(np.float32, "reduce_f32", 1e-5), (np.float64, "reduce_f64", 1e-12)])
def test_shared_memory_block_reduction(mod, dtype, name, rtol):
    n, blocks = 100_003, 16
    x = np.random.default_rng(1).standard_normal(n).astype(dtype)
    out = np.zeros(blocks, dtype)
    mod.get_function(name)((blocks,), (256,), (x, out, np.int32(n)))
    np.testing.assert_allclose(out.sum(dtype=np.float64), x.sum(dtype=np.float64), rtol=rtol, atol=1e-6)
    # Each block's partial sum is the sum of its grid-stride slice.
    idx = np.arange(n)
    for bk in range(blocks):
        expect = x[(idx // 256) % blocks == bk].sum(dtype=np.float64)
        np.testing.assert_allclose(out[bk], expect, rtol=rtol * 10, atol=1e-5)


def test_batchnorm_style_channel_sum(mod):
    c, m = 8, 20_000
    x = np.random.default_rng(2).random((c, m), dtype=np.float32)
    out = np.zeros(c, np.float32)
    mod.get_function("channel_sum")((c,), (256,), (x, out, np.int32(m)))
    np.testing.assert_allclose(out, x.sum(axis=1, dtype=np.float64), rtol=1e-5)


def test_dynamic_shared_memory(mod):
    blocks, n = 3, 96
    x = np.arange(blocks * n, dtype=np.float32)
    out = np.zeros_like(x)
    fn = mod.get_function("reverse_dyn")
    fn((blocks,), (n,), (x, out), shared_mem=n * 4)
    np.testing.assert_array_equal(out.reshape(blocks, n), x.reshape(blocks, n)[:, ::-1])

    alias = np.zeros(32, np.int32)
    mod.get_function("dyn_alias")((1,), (32,), (alias,), shared_mem=4)
    assert (alias == np.float32(1.0).view(np.int32)).all()


def test_dynamic_shared_memory_limit(mod):
    fn = host.RawKernel(KERNELS, "reverse_dyn")  # a fresh function object with default attributes
    x = np.zeros(32, np.float32)
    with pytest.raises(host.HostLaunchError, match="max_dynamic_shared_size_bytes"):
        fn((1,), (32,), (x, x), shared_mem=64 * 1024)  # > 48 KiB needs an opt-in, as in CUDA
    fn.max_dynamic_shared_size_bytes = 100 * 1024
    out = np.zeros(32, np.float32)
    fn((1,), (32,), (np.arange(32, dtype=np.float32), out), shared_mem=64 * 1024)
    np.testing.assert_array_equal(out, np.arange(32)[::-1])
    with pytest.raises(host.HostLaunchError):
        fn.max_dynamic_shared_size_bytes = 300 * 1024


def test_shared_memory_is_poisoned_each_block(mod, monkeypatch):
    monkeypatch.setenv("OPGEN_HOST_THREADS", "1")  # both blocks reuse the same OS thread's storage
    out = np.zeros(2 * 64, np.float32)
    mod.get_function("read_shared")((2,), (64,), (out,))
    assert (out[:64] == 1.0).all()
    assert np.isnan(out[64:]).all(), "block 1 read block 0's leftovers instead of uninitialised garbage"


# -------------------------------------------------------------- warp level --

def _shfl_model(v, op, arg, width=32):
    """CUDA semantics of the *_sync shuffles for one warp (v: 32 values)."""
    lane = np.arange(32)
    seg = lane & ~(width - 1)
    if op == "idx":
        src = seg | (np.asarray(arg) & (width - 1))
        ok = np.ones(32, bool)
    elif op == "up":
        src, ok = lane - arg, (lane % width) >= arg
    elif op == "down":
        src, ok = lane + arg, (lane % width) + arg < width
    else:
        src = lane ^ arg
        ok = src < seg + width
    return np.where(ok, v[np.clip(src, 0, 31)], v)


def test_warp_shuffles_and_votes(mod):
    nt = 64  # two warps
    rng = np.random.default_rng(3)
    vi = rng.integers(0, 100, nt).astype(np.int32)
    vi[5] = 40
    vf = rng.random(nt, dtype=np.float32)
    vd = rng.random(nt)
    oi, of = np.zeros(6 * nt, np.int32), np.zeros(3 * nt, np.float32)
    od, ou = np.zeros(2 * nt, np.float64), np.zeros(4 * nt, np.uint32)
    mod.get_function("warp_ops")((1,), (nt,), (vi, vf, vd, oi, of, od, ou))
    oi, of, od, ou = oi.reshape(nt, 6), of.reshape(nt, 3), od.reshape(nt, 2), ou.reshape(nt, 4)
    lane = np.arange(32)
    for w in range(2):
        s = slice(32 * w, 32 * w + 32)
        a, f, d = vi[s], vf[s], vd[s]
        np.testing.assert_array_equal(oi[s, 0], _shfl_model(a, "idx", (lane * 7) % 32))
        np.testing.assert_array_equal(oi[s, 1], _shfl_model(a, "idx", 3, 8))
        np.testing.assert_array_equal(oi[s, 2], _shfl_model(a, "up", 3, 16))
        np.testing.assert_array_equal(oi[s, 3], _shfl_model(a, "down", 5, 8))
        np.testing.assert_array_equal(oi[s, 4], _shfl_model(a, "xor", 6, 16))
        np.testing.assert_array_equal(oi[s, 5], _shfl_model(a, "down", 1))
        np.testing.assert_array_equal(of[s, 0], _shfl_model(f, "xor", 1))
        np.testing.assert_array_equal(of[s, 1], _shfl_model(f, "up", 2))
        halves = _shfl_model(f.astype(np.float16), "xor", 2)
        np.testing.assert_array_equal(of[s, 2], halves.astype(np.float32))
        np.testing.assert_array_equal(od[s, 0], _shfl_model(d, "down", 16))
        np.testing.assert_array_equal(od[s, 1], _shfl_model(d, "idx", 31 - lane))
        ballot = int(sum(1 << i for i in range(32) if a[i] % 3 == 0))
        assert (ou[s, 0] == ballot).all()
        assert (ou[s, 1] == int((a == 40).any())).all()
        assert (ou[s, 2] == 1).all()
        assert (ou[s, 3] == int((a % 2 == 0).all())).all()
    assert ou[0, 1] == 1 and ou[32, 1] == int((vi[32:] == 40).any())


def test_syncthreads_count_and_or(mod):
    v = np.zeros((3, 128), np.int32)
    v[0, ::3] = 1  # some
    v[1, :] = 1    # all
    out = np.zeros(9, np.int32)
    mod.get_function("sync_votes")((3,), (128,), (v, out))
    assert out.reshape(3, 3).tolist() == [[43, 0, 1], [128, 1, 1], [0, 0, 0]]


# ----------------------------------------------------------------- atomics --

def test_atomics_from_many_blocks(mod, monkeypatch):
    monkeypatch.setenv("OPGEN_HOST_THREADS", "4")  # several OS threads hit the same counters
    blocks, threads = 64, 256
    n = blocks * threads - 5
    ci, cu = np.zeros(2, np.int32), np.zeros(1, np.uint32)
    cull, cf, cd = np.zeros(1, np.uint64), np.zeros(1, np.float32), np.zeros(1, np.float64)
    mx, mn = np.full(1, -1, np.int32), np.full(1, 10**6, np.int32)
    cas, exch = np.zeros(1, np.uint32), np.full(4, -1, np.int32)
    mod.get_function("atomics")((blocks,), (threads,), (ci, cu, cull, cf, cd, mx, mn, cas, exch, np.int32(n)))
    t = np.arange(n)
    assert ci.tolist() == [n, -2 * n]
    assert int(cu[0]) == 3 * n and int(cull[0]) == n << 33
    assert float(cf[0]) == n and float(cd[0]) == n / 2
    assert int(mx[0]) == ((t * 7) % 1001).max() and int(mn[0]) == 1000 - (n - 1)
    assert int(cas[0]) == n
    for k in range(4):
        assert exch[k] % 4 == k and 0 <= exch[k] < n


# ------------------------------------------------------------ half, bf16 ----

def test_half_conversions_all_bit_patterns(mod):
    bits = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    n = bits.size
    as_float = np.zeros(n, np.float32)
    mod.get_function("half_from_bits")(((n + 255) // 256,), (256,), (bits, as_float, np.int32(n)))
    expect = bits.view(np.float16).astype(np.float32)
    nan = np.isnan(expect)
    assert nan.sum() == 2046 and np.isnan(as_float[nan]).all()
    # bit-exact, including -0 and the infinities
    np.testing.assert_array_equal(as_float.view(np.uint32)[~nan], expect.view(np.uint32)[~nan])

    back = np.zeros(n, np.uint16)
    mod.get_function("half_from_float")(((n + 255) // 256,), (256,), (as_float, back, np.int32(n)))
    np.testing.assert_array_equal(back[~nan], bits[~nan])  # exact round trip
    assert np.isnan(back[nan].view(np.float16)).all()


def test_half_rounding_matches_numpy(mod):
    rng = np.random.default_rng(4)
    exps = rng.uniform(-27, 17, 40_000)
    x = (np.sign(rng.standard_normal(40_000)) * 2.0 ** exps).astype(np.float32)
    ties = (np.arange(-1000, 1000, dtype=np.float32) + 0.5) * np.float32(2.0 ** -10)  # halfway cases
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 65504, 65519.99, 65520, 1e-8, 2.0 ** -25, 2.0 ** -24,
                         3 * 2.0 ** -26, 5.960464477539063e-08], np.float32)
    x = np.concatenate([x, ties, specials])
    n = x.size
    out = np.zeros(n, np.uint16)
    mod.get_function("half_from_float")(((n + 255) // 256,), (256,), (x, out, np.int32(n)))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out, x.astype(np.float16).view(np.uint16))
    xd = x.astype(np.float64) * (1 + 1e-12)  # doubles that are not floats: must round once, from double
    outd = np.zeros(n, np.uint16)
    mod.get_function("half_from_double")(((n + 255) // 256,), (256,), (xd, outd, np.int32(n)))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(outd, xd.astype(np.float16).view(np.uint16))


def test_half_arithmetic_matches_numpy(mod):
    rng = np.random.default_rng(5)
    n = 20_000
    a = rng.integers(0, 65536, n).astype(np.uint16)
    b = rng.integers(0, 65536, n).astype(np.uint16)
    out = np.zeros(4 * n, np.uint16)
    mod.get_function("half_arith")(((n + 255) // 256,), (256,), (a, b, out, np.int32(n)))
    ha, hb = a.view(np.float16), b.view(np.float16)
    with np.errstate(all="ignore"):
        expect = np.stack([ha + hb, ha * hb, ha - hb, ha / hb], axis=1)
    got = out.reshape(n, 4).view(np.float16)
    nan = np.isnan(expect)
    assert (np.isnan(got) == nan).all()
    np.testing.assert_array_equal(got.view(np.uint16)[~nan], expect.view(np.uint16)[~nan])


def test_bfloat16_conversion(mod):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(10_000) * 10.0 ** rng.uniform(-30, 30, 10_000)).astype(np.float32)
    x[:4] = [np.nan, np.inf, -0.0, 3.3895314e38]
    n = x.size
    bits, back = np.zeros(n, np.uint16), np.zeros(n, np.float32)
    mod.get_function("bf16_from_float")(((n + 255) // 256,), (256,), (x, bits, back, np.int32(n)))
    u = x.view(np.uint32).astype(np.uint64)
    expect = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)  # round to nearest even
    expect[np.isnan(x)] = 0x7FFF
    np.testing.assert_array_equal(bits, expect)
    np.testing.assert_array_equal(back.view(np.uint32)[1:], (expect.astype(np.uint32) << 16)[1:])


def test_scalar_parameter_types(mod):
    out = np.zeros(5, np.float64)
    mod.get_function("scalars")((1,), (1,), (np.int64(-(2**40)), np.uint32(4_000_000_000), np.float64(0.1),
                                             np.bool_(True), np.float16(1.5), out))
    assert out.tolist() == [-(2.0**40), 4e9, 0.1, 1.0, 1.5]


# ---------------------------------------------------------- bug detection ----

def test_missing_barrier_caught_by_random_order(mod, in_order):
    x = np.arange(1, 129, dtype=np.float32)
    expect = np.concatenate([[0.0], x[:-1]]).astype(np.float32)
    good, buggy = mod.get_function("neighbour_sync"), mod.get_function("neighbour_nosync")
    out = np.zeros(128, np.float32)
    buggy((1,), (128,), (x, out))
    np.testing.assert_array_equal(out, expect)  # in order the race is invisible, as on a lucky GPU run
    wrong = 0
    for seed in range(4):
        host.set_random_order(seed)
        good((1,), (128,), (x, out))
        np.testing.assert_array_equal(out, expect)
        buggy((1,), (128,), (x, out))
        wrong += not np.array_equal(out, expect)
    assert wrong >= 1, "random thread order never exposed the missing __syncthreads()"


def test_random_order_from_environment(mod, monkeypatch):
    monkeypatch.setattr(host.switches, "_random_seed", host._UNSET)
    monkeypatch.setenv("OPGEN_HOST_RANDOM_ORDER", "7")
    assert host.random_order() == 7
    x = np.arange(1, 129, dtype=np.float32)
    outs = []
    for _ in range(2):
        out = np.zeros(128, np.float32)
        mod.get_function("neighbour_nosync")((1,), (128,), (x, out))
        outs.append(out)
    assert not np.array_equal(outs[0][1:], x[:-1])
    np.testing.assert_array_equal(outs[0], outs[1])  # same seed, same schedule


def test_deadlock_raises_and_module_stays_usable(mod):
    out = np.zeros(64, np.float32)
    with pytest.raises(host.HostKernelError) as e:
        mod.get_function("partial_barrier")((2,), (64,), (out,))
    msg = str(e.value)
    assert "deadlock" in msg and "partial_barrier" in msg and "block (" in msg
    assert "threads 0-15 waiting at __syncthreads" in msg and "16-63 exited" in msg
    test_vector_add_with_tail(mod)


def test_assert_and_trap_raise(mod):
    x = np.ones(300, np.float32)
    x[261] = -1.0
    with pytest.raises(host.HostKernelError) as e:
        mod.get_function("check_nonnegative")((3,), (128,), (x, np.int32(300)))
    msg = str(e.value)
    assert "check_nonnegative" in msg and "block (2,0,0)" in msg and "thread (5,0,0)" in msg
    assert "x[i] >= 0.0f" in msg
    mod.get_function("check_nonnegative")((3,), (128,), (np.abs(x), np.int32(300)))  # passes now
    with pytest.raises(host.HostKernelError, match=r"thread \(3,0,0\): __trap"):
        mod.get_function("trap_on_3")((1,), (8,), (np.zeros(8, np.int32),))


def test_memory_faults_are_reported(mod):
    out = np.zeros(4, np.float32)
    with pytest.raises(host.HostKernelError, match=r"load_from.*thread \(5,0,0\).*SIGSEGV.*0x8"):
        mod.get_function("load_from")((2,), (32,), (out, np.int64(8)))
    a, b = np.arange(8, dtype=np.int32), np.array([1, 1, 1, 0, 1, 1, 1, 1], np.int32)
    with pytest.raises(host.HostKernelError, match=r"thread \(3,0,0\).*division by zero"):
        mod.get_function("int_div")((1,), (8,), (a, b, np.zeros(8, np.int32)))
    with pytest.raises(host.HostKernelError, match=r"stack overflow.*OPGEN_HOST_STACK_KB"):
        mod.get_function("big_local")((1,), (2,), (out, np.int32(65536)))
    test_vector_add_with_tail(mod)


def test_one_thread_blocks_compute_and_fail_as_fibers_do(mod, in_order):
    # A block of one thread is called without a fiber (rt/fibers.cpp: run_alone) unless random order
    # or the sanitizer is on: its barriers and warp collectives give what the fibers give, and its
    # faults, assertions and stack overflows are reported the same way, the module usable after.
    rng = np.random.default_rng(5)
    nb = 3
    v = rng.integers(0, 3, nb).astype(np.int32)
    votes = np.full(3 * nb, -7, np.int32)
    mod.get_function("sync_votes")((nb,), (1,), (v, votes))
    p = (v != 0).astype(np.int32)
    np.testing.assert_array_equal(votes.reshape(nb, 3), np.stack([p, p, p], axis=1))

    def warp_ops():
        vi, vf, vd = rng.integers(0, 100, nb).astype(np.int32), np.ones(nb, np.float32), np.ones(nb)
        outs = (np.full(6 * nb, 9, np.int32), np.full(3 * nb, 9, np.float32), np.full(2 * nb, 9.0),
                np.full(4 * nb, 9, np.uint32))
        mod.get_function("warp_ops")((nb,), (1,), (vi, vf, vd, *outs))
        return vi, [o.view(np.uint8) for o in outs]

    rng = np.random.default_rng(6)
    vi, alone = warp_ops()
    assert (alone[0].view(np.int32).reshape(nb, 6)[:, 0] == vi).all()  # (a lane reading itself)
    rng = np.random.default_rng(6)
    host.set_random_order(3)  # the fiber path
    try:
        _, fibers = warp_ops()
    finally:
        host.set_random_order(None)
    for a, b in zip(alone, fibers, strict=True):
        np.testing.assert_array_equal(a, b)

    out = np.zeros(4, np.float32)
    with pytest.raises(host.HostKernelError, match=r"load_at.*block \(0,0,0\).*thread \(0,0,0\).*SIGSEGV.*0x8"):
        mod.get_function("load_at")((1,), (1,), (out, np.int64(8)))
    with pytest.raises(host.HostKernelError, match=r"thread \(0,0,0\).*division by zero"):
        mod.get_function("int_div")((1,), (1,), (np.ones(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32)))
    with pytest.raises(host.HostKernelError, match=r"stack overflow.*OPGEN_HOST_STACK_KB"):
        mod.get_function("big_local")((1,), (1,), (out, np.int32(65536)))
    x = np.ones(300, np.float32)
    x[261] = -1.0
    with pytest.raises(host.HostKernelError) as e:
        mod.get_function("check_nonnegative")((300,), (1,), (x, np.int32(300)))
    assert "block (261,0,0)" in str(e.value) and "thread (0,0,0)" in str(e.value) and "x[i] >= 0.0f" in str(e.value)
    mod.get_function("check_nonnegative")((300,), (1,), (np.abs(x), np.int32(300)))  # passes now
    test_vector_add_with_tail(mod)


class _Stack(ctypes.Structure):  # stack_t (x86-64 and aarch64 Linux)
    _fields_ = [("ss_sp", ctypes.c_void_p), ("ss_flags", ctypes.c_int), ("ss_size", ctypes.c_size_t)]


_SS_DISABLE = 2
_libc = ctypes.CDLL(None, use_errno=True)


def _signal_stack(new: _Stack | None = None) -> _Stack:
    """This thread's signal stack (sigaltstack), after installing `new` if given."""
    old = _Stack()
    assert _libc.sigaltstack(None if new is None else ctypes.byref(new), ctypes.byref(old)) == 0
    return old


def _in_thread(fn):
    result: list = []
    thread = threading.Thread(target=lambda: result.append(fn()))
    thread.start()
    thread.join()
    return result[0]


def test_a_launching_thread_without_a_signal_stack_keeps_the_runtimes(mod):
    # The fault handler needs a signal stack; a thread with none is given one of its own, kept (no
    # syscalls per launch), and the faults its kernels make are still reported, every time.
    def launches():
        out = np.zeros(4, np.float32)
        before = _signal_stack()
        mod.get_function("vadd")((1,), (4,), (out, out, out, np.int32(4)))
        kept = _signal_stack()
        for _ in range(2):
            with pytest.raises(host.HostKernelError, match=r"stack overflow.*OPGEN_HOST_STACK_KB"):
                mod.get_function("big_local")((1,), (2,), (out, np.int32(65536)))
            with pytest.raises(host.HostKernelError, match=r"load_from.*SIGSEGV"):
                mod.get_function("load_from")((1,), (32,), (out, np.int64(8)))
        return before, kept, _signal_stack()

    before, kept, after = _in_thread(launches)
    assert before.ss_flags & _SS_DISABLE  # (a new thread has none)
    assert not kept.ss_flags & _SS_DISABLE and kept.ss_size >= 64 * 1024
    assert (after.ss_sp, after.ss_flags) == (kept.ss_sp, kept.ss_flags)


def test_a_launching_threads_own_signal_stack_is_put_back(mod):
    def launches():
        memory = ctypes.create_string_buffer(64 * 1024)
        own = _Stack(ctypes.addressof(memory), 0, len(memory))
        _signal_stack(own)
        out = np.zeros(4, np.float32)
        mod.get_function("vadd")((1,), (4,), (out, out, out, np.int32(4)))
        with pytest.raises(host.HostKernelError, match=r"stack overflow"):
            mod.get_function("big_local")((1,), (2,), (out, np.int32(65536)))
        after = _signal_stack()
        _signal_stack(_Stack(None, _SS_DISABLE, 0))  # (before `memory` goes)
        return own, after

    own, after = _in_thread(launches)
    assert (after.ss_sp, after.ss_size, after.ss_flags) == (own.ss_sp, own.ss_size, 0)


# ------------------------------------------------------ launch and arguments --

@pytest.mark.parametrize("grid,block,shared,match", [
    ((1,), (1025,), 0, r"block\[0\] = 1025"),
    ((1,), (32, 32, 2), 0, "2048 threads"),
    ((1,), (1, 1, 65), 0, r"block\[2\] = 65"),
    ((0,), (32,), 0, r"grid\[0\] = 0"),
    ((1, 65536), (32,), 0, r"grid\[1\] = 65536"),
    ((1, 1, 1, 1), (32,), 0, "tuple of 1-3 ints"),
    ((1,), (32.0,), 0, "tuple of 1-3 ints"),
    ((1,), (32,), -4, "non-negative"),
    ((1,), (32,), 49 * 1024, "exceeds"),
])
def test_bad_launch_configuration(mod, grid, block, shared, match):
    out = np.zeros(2048, np.float32)
    with pytest.raises(host.HostLaunchError, match=match):
        mod.get_function("partial_barrier")(grid, block, (out,), shared_mem=shared)


def test_launch_bounds_are_enforced(mod):
    out = np.zeros(128, np.float32)
    mod.get_function("bounded")((1,), (64,), (out,))
    with pytest.raises(host.HostLaunchError, match="__launch_bounds__"):
        mod.get_function("bounded")((1,), (128,), (out,))


def test_argument_errors(mod):
    fn = mod.get_function("vadd")
    a = np.zeros(8, np.float32)
    with pytest.raises(host.HostArgumentError, match=r"'vadd' takes 4 argument\(s\) \(a, b, c, n\), got 3"):
        fn((1,), (8,), (a, a, a))
    with pytest.raises(TypeError, match=r"parameter 3 'n' \(int32\).*Python int.*np.int32"):
        fn((1,), (8,), (a, a, a, 8))
    with pytest.raises(TypeError, match=r"parameter 3 'n'.*float64"):
        fn((1,), (8,), (a, a, a, np.float64(8)))
    with pytest.raises(TypeError, match=r"parameter 0 'a' \(pointer\) expects a numpy array"):
        fn((1,), (8,), (np.float32(1), a, a, np.int32(8)))
    with pytest.raises(TypeError, match="not C-contiguous"):
        fn((1,), (8,), (np.zeros(16, np.float32)[::2], a, a, np.int32(8)))
    with pytest.raises(TypeError, match=r"parameter 2 'c'.*float"):
        args = (np.int64(1), np.uint32(1), 0.5, np.bool_(1), np.float16(1), a)
        mod.get_function("scalars")((1,), (1,), args)


def test_get_function_lists_kernels(mod):
    with pytest.raises(KeyError, match=r"'nope' not found.*kernels found: .*vadd"):
        mod.get_function("nope")


def test_compile_error_reports_stderr_and_path(cache_dir):
    with pytest.raises(host.HostCompileError) as e:
        host.load_module('extern "C" __global__ void broken(float* x) { x[0] = undefined_name; }')
    assert "undefined_name" in str(e.value) and e.value.source_path.endswith(".cu")
    assert Path(e.value.source_path).exists()


def test_nvrtc_only_options_are_dropped():
    opts = host.translate_options(["--use_fast_math", "-arch=sm_80", "-arch", "sm_90", "-DFOO=1",
                                   "--std=c++17", "-std=c++14", "--define-macro=BAR", "-lineinfo"])
    assert opts == ["-DFOO=1", "-std=c++17", "-DBAR"]


# ------------------------------------------------------------------- cache --

def test_disk_cache_hit_skips_compiler(tmp_path, monkeypatch):
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path))
    src = _unique_source("cache-hit")
    before = dict(host.stats)
    mod1 = host.load_module(src, name_hint="cachehit")
    assert host.stats["compiles"] == before["compiles"] + 1
    assert host.load_module(src, name_hint="cachehit") is mod1  # in-memory hit
    host.clear_memory_cache()
    mod2 = host.load_module(src, name_hint="cachehit")
    assert host.stats["compiles"] == before["compiles"] + 1
    assert host.stats["disk_hits"] == before["disk_hits"] + 1
    x = np.ones(10, np.float32)
    mod2.get_function("scale")((1,), (32,), (x, np.float32(3), np.int32(10)))
    assert (x == 3).all()
    assert len(list((tmp_path / "host").glob("cachehit-*.so"))) == 1

    # Other processes find the module on disk. (This process loaded the shared runtime
    # library from another cache dir, so the first child may build it; the second may not.)
    code = ("import json; from codegen.runtime import host; "
            f"host.load_module({src!r}, name_hint='cachehit'); print(json.dumps(host.stats))")
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
        assert proc.returncode == 0, proc.stderr
        child = json.loads(proc.stdout.strip().splitlines()[-1])
        assert child["compiles"] == 0 and child["disk_hits"] == 1
    assert child["runtime_compiles"] == 0


def test_corrupt_cache_entry_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path))
    src = _unique_source("corrupt")
    host.load_module(src, name_hint="corrupt")
    host.clear_memory_cache()
    (so,) = (tmp_path / "host").glob("corrupt-*.so")
    good = so.read_bytes()
    # Replace (not overwrite in place: this process still maps the old file).
    diskcache.write_atomic(so, good[: len(good) // 3])
    compiles = host.stats["compiles"]
    mod = host.load_module(src, name_hint="corrupt")
    assert host.stats["compiles"] == compiles + 1
    x = np.ones(4, np.float32)
    mod.get_function("scale")((1,), (4,), (x, np.float32(2), np.int32(4)))
    assert (x == 2).all()
    assert diskcache.get(so) is not None  # the rebuilt entry verifies again

    host.clear_memory_cache()
    diskcache.meta_path(so).write_text("{not json")
    host.load_module(src, name_hint="corrupt")
    assert host.stats["compiles"] == compiles + 2


def test_cache_key_is_sensitive_to_every_field():
    base = diskcache.cache_key("src", ["-O2"], "g++ 12", "x86_64-linux")
    assert len(base) == 64 and int(base, 16) >= 0
    assert base == diskcache.cache_key("src", ("-O2",), "g++ 12", "x86_64-linux")
    others = [diskcache.cache_key("src2", ["-O2"], "g++ 12", "x86_64-linux"),
              diskcache.cache_key("src", ["-O3"], "g++ 12", "x86_64-linux"),
              diskcache.cache_key("src", ["-O", "2"], "g++ 12", "x86_64-linux"),
              diskcache.cache_key("src", ["-O2"], "g++ 13", "x86_64-linux"),
              diskcache.cache_key("src", ["-O2"], "g++ 12", "aarch64-linux")]
    assert len({base, *others}) == 6


def test_missing_compiler(tmp_path, monkeypatch):
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-c++"))
    with pytest.raises(host.HostCompilerNotFound, match="CXX"):
        host.compiler_version()
    with pytest.raises(host.HostCompilerNotFound):
        host.load_module(_unique_source("nocompiler"))
    monkeypatch.delenv("CXX")
    with pytest.raises(host.HostCompilerNotFound, match="apt-get install g\\+\\+"):
        host.compiler_version()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_kernels_are_valid_cuda(tmp_path):
    src = tmp_path / "kernels.cu"
    src.write_text(KERNELS)
    proc = subprocess.run(["nvcc", "-arch=sm_90", "-c", "-x", "cu", str(src), "-o", str(tmp_path / "k.o")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_kernels_named_like_the_glues_own_parameters():
    """The glue's functions name their parameters c, a, out, cap, cfg, args, err and errlen: a
    kernel of one of those names is still the kernel (not the parameter) in its glue."""
    names = ["c", "a", "out", "cap", "cfg", "args", "err", "errlen"]
    source = "".join(f'extern "C" __global__ void {n}(float* y) {{ y[threadIdx.x] = {i}.0f; }}\n'
                     for i, n in enumerate(names))
    module = host.load_module(source, name_hint="glue_names")
    for i, n in enumerate(names):
        y = np.full(4, np.nan, np.float32)
        module.get_function(n)((1,), (4,), (y,))
        np.testing.assert_array_equal(y, np.float32(i))
