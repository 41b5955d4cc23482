"""The static shared memory a block poisons: only what its kernel can touch (host/smem_spans.py
writes each kernel's table into the built module), so a module's other kernels' variables cost
nothing; and still every byte the kernel can read before writing."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from codegen.runtime import host
from codegen.runtime.elf_symbols import tls_symbols
from codegen.runtime.host import smem_spans
from codegen.runtime.host.toolchain import compiler_version

KERNELS = r"""
// A device function's __shared__ is its callers' to poison. Block 0 fills it; block 1 only reads it.
__device__ float through_helper(float v, bool fill) {
  __shared__ float partial[512];  // (each array larger than smem_spans.GAP)
  if (fill) partial[threadIdx.x] = v;
  __syncthreads();
  return partial[threadIdx.x];
}

extern "C" __global__ void via_helper(const float* x, float* out) {
  __shared__ float own[512];
  own[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = through_helper(own[threadIdx.x], blockIdx.x == 0);
}

extern "C" __global__ void other(float* out) {
  __shared__ double mine[512];
  mine[threadIdx.x % 16] = 2.0;
  __syncthreads();
  out[threadIdx.x] = static_cast<float>(mine[(threadIdx.x + 1) % 16]);
}

extern "C" __global__ void no_shared(float* out) { out[threadIdx.x] = 1.0f; }

// Reached only through a function pointer in global data: no kernel's code names it.
__device__ float twice(float v) {
  __shared__ float scratch[512];
  scratch[threadIdx.x % 8] = v;
  __syncthreads();
  return 2.0f * scratch[(threadIdx.x + 1) % 8];
}
typedef float (*unary)(float);
__device__ unary table[] = {twice};
extern "C" __global__ void indirect(float* y, int i) { y[0] = table[i](y[0]); }
"""


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPGEN_CACHE_DIR", str(tmp_path_factory.mktemp("opgen-cache")))
        yield host.load_module(KERNELS, name_hint="smem_spans_tests")


def _var(mod, word: str) -> tuple[int, int]:
    found = [(off, size) for off, size, name in tls_symbols(mod.path) if word in name]
    assert len(found) == 1, (word, found)
    return found[0]


def _covers(ranges, span) -> bool:
    return any(off <= span[0] and span[0] + span[1] <= off + size for off, size in ranges)


needs_gcc = pytest.mark.skipif("Free Software Foundation" not in compiler_version(),
                               reason="the tables come from GCC's dump; another compiler keeps the placeholders")


@needs_gcc
def test_each_kernel_poisons_what_it_reaches(mod):
    tables = smem_spans.tables(mod.path)
    assert set(tables) == {"via_helper", "other", "no_shared", "indirect"}
    own, partial, mine = _var(mod, "3own"), _var(mod, "7partial"), _var(mod, "4mine")
    scratch = _var(mod, "7scratch")  # an orphan: only global data reaches twice()
    assert all(_covers(tables[k], scratch) for k in ("via_helper", "other", "no_shared"))
    assert _covers(tables["via_helper"], own) and _covers(tables["via_helper"], partial)
    assert not _covers(tables["via_helper"], mine)
    assert _covers(tables["other"], mine)
    assert not _covers(tables["other"], own) and not _covers(tables["other"], partial)
    assert not _covers(tables["no_shared"], own) and not _covers(tables["no_shared"], mine)
    assert tables["indirect"] is None  # an indirect call: its blocks poison everything


def test_a_device_functions_shared_memory_is_poisoned_each_block(mod, monkeypatch):
    monkeypatch.setenv("OPGEN_HOST_THREADS", "1")  # both blocks reuse the same OS thread's storage
    out = np.zeros(2 * 64, np.float32)
    mod.get_function("via_helper")((2,), (64,), (np.ones(64, np.float32), out))
    assert (out[:64] == 1.0).all()
    assert np.isnan(out[64:]).all(), "block 1 read block 0's leftovers instead of uninitialised garbage"


def test_ranges_are_merged_and_capped():
    near = [(0, 8), (8 + smem_spans.GAP, 8)]
    assert smem_spans._merged(near) == [(0, 16 + smem_spans.GAP)]
    far = [(i * 10_000, 4) for i in range(smem_spans.RANGES + 3)]
    merged = smem_spans._merged(far)
    assert len(merged) == smem_spans.RANGES
    assert all(_covers(merged, span) for span in far)


def test_no_dump_leaves_the_placeholders(mod, tmp_path):
    assert smem_spans.dump_flags("clang version 17.0.6", tmp_path / "d") == []
    copy = tmp_path / "copy.so"
    shutil.copyfile(mod.path, copy)
    before = copy.read_bytes()
    smem_spans.patch(copy, tmp_path / "missing.gimple")
    assert copy.read_bytes() == before
