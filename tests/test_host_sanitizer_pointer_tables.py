"""The sanitize build and kernels that reach arrays through a pointer table (`const T* const*`, a
list input's items; batched-GEMM-style tables): a table made by host.pointer_table (the cpu
backend's pointer_array makes one in the sanitize build) has its arrays copied apart with the
launch's own and its copy pointed at theirs, so correct reads pass with the right values, a read
past one of them is reported naming it (`xs[k]`), and an entry into no array the launch knows is
reported before it is read."""

from __future__ import annotations

import re
import warnings
from types import ModuleType

import numpy as np
import pytest
from sanitizer_helpers import f32, fails, in_order, run, sanitized_module  # noqa: F401 (in_order: autouse)

from codegen.runtime import host

SOURCE = r"""
extern "C" __global__ void gather_sum(const float* const* xs, int k, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < k; ++j)
    if (xs[j]) s += xs[j][i];  // a null entry: an absent item
  y[i] = s;
}
extern "C" __global__ void gather_sum_past_end(const float* const* xs, int k, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;
  float s = 0.0f;
  for (int j = 0; j < k; ++j) s += xs[j][i];  // BUG: reads xs[j][n]
  y[i < n ? i : 0] = s;
}
extern "C" __global__ void scatter_rows(float* const* ys, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int j = 0; j < k; ++j) ys[j][i] = 10.0f * j + i;
}
extern "C" __global__ void shifted_read(const float* x, float* y, int shift) {
  y[threadIdx.x] = x[threadIdx.x + shift];  // BUG for shift > 0
}
"""
N = 100


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    yield from sanitized_module(SOURCE, "pointer_table_tests", tmp_path_factory)


def items(*sizes: int) -> list[np.ndarray]:
    return [np.arange(size, dtype=np.float32) * (j + 1) for j, size in enumerate(sizes)]


def test_reads_through_a_pointer_table_pass_with_the_right_values(mod):
    xs = items(N, N, N)
    table, y = host.pointer_table(xs), f32(N, np.nan)
    before = table.copy()
    run(mod, "gather_sum", 4, 32, (table, np.int32(3), y, np.int32(N)))
    np.testing.assert_array_equal(y, np.arange(N, dtype=np.float32) * 6)
    np.testing.assert_array_equal(table, before)  # the entries pointed at the copies only during the launch
    assert [int(p) for p in table] == [x.ctypes.data for x in xs]


def test_a_null_entry_stays_null(mod):
    xs = items(N, N)
    y = f32(N, np.nan)
    run(mod, "gather_sum", 4, 32, (host.pointer_table([xs[0], None, xs[1]]), np.int32(3), y, np.int32(N)))
    np.testing.assert_array_equal(y, np.arange(N, dtype=np.float32) * 3)


def test_entries_into_a_launch_argument_follow_its_copy(mod):
    """Batched style: the table points at rows of an array the launch also takes; the entries
    move with that array's copy (one copy: the rows alias it), so writes land in the array."""
    block = np.zeros((3, N), np.float32)
    table = host.pointer_table(list(block))
    run(mod, "gather_sum", 4, 32, (table, np.int32(3), block[2], np.int32(N)))  # y = row 2: 0 + 0 + 0
    run(mod, "scatter_rows", 4, 32, (table, np.int32(3), np.int32(N)))
    np.testing.assert_array_equal(block, 10.0 * np.arange(3)[:, None] + np.arange(N))


def test_writes_through_a_pointer_table_reach_the_arrays(mod):
    ys = [f32(N, np.nan) for _ in range(2)]
    run(mod, "scatter_rows", 4, 32, (host.pointer_table(ys), np.int32(2), np.int32(N)))
    np.testing.assert_array_equal(ys[0], np.arange(N))
    np.testing.assert_array_equal(ys[1], 10.0 + np.arange(N))


def test_a_read_past_one_pointed_to_array_is_reported(mod):
    xs = items(N + 1, N, N + 1)  # xs[1] is one element short
    msg = fails(mod, "gather_sum_past_end", 4, 32, (host.pointer_table(xs), np.int32(3), f32(N), np.int32(N)),
                r"out-of-bounds read of 4 bytes at byte offset 400 of buffer 'xs\[1\]', which has 400 bytes",
                r"block \(3,0,0\) thread \(4,0,0\)")
    assert "at line 14 of pointer_table_tests.cu" in msg and "xs[j][i]" in msg


def test_a_read_past_one_pointed_to_array_into_the_next_is_reported(mod):
    """The table's arrays are two slices of one array, side by side: xs[0][n] is xs[1][0] as given."""
    block = np.arange(2 * N + 1, dtype=np.float32)
    table = host.pointer_table([block[:N], block[N:]])
    fails(mod, "gather_sum_past_end", 4, 32, (table, np.int32(2), f32(N), np.int32(N)),
          r"out-of-bounds read of 4 bytes at byte offset 400 of buffer 'xs\[0\]', which has 400 bytes")


@pytest.mark.parametrize("entry", ["plain table", "changed entry", "wild address"])
def test_an_entry_into_no_known_array_is_reported_not_read(mod, entry: str):
    xs, other = items(N, N), np.ones(N, np.float32)
    table = host.pointer_table(xs)
    if entry == "plain table":  # addresses the launch cannot know: no table of host.pointer_table
        table = np.array([x.ctypes.data for x in xs], np.uint64)
    elif entry == "changed entry":
        table[1] = other.ctypes.data
    else:
        table[1] = 16  # read, it would fault
    msg = fails(mod, "gather_sum", 4, 32, (table, np.int32(2), f32(N), np.int32(N)),
                r"out-of-bounds read of 4 bytes at address 0x[0-9a-f]+, outside every buffer of the launch and the "
                r"red zones around them \(byte offset -?\d+ of buffer '[^']+', the nearest, .*\): an index far out "
                r"of range, or a pointer to memory the launch does not know", r"xs\[j\]\[i\]")
    assert not re.search(r"signal|SIGSEGV|segmentation", msg, re.I), msg


def test_an_index_far_out_of_range_names_the_nearest_buffer_as_such(mod):
    """Past the red zones (outside the memory the buffers were copied into) an offset from the nearest
    buffer is a guess, and the report says so; inside them it is the buffer the access ran off."""
    fails(mod, "shifted_read", 1, 4, (f32(N), f32(4), np.int32(N)),
          r"read of 4 bytes at byte offset 400 of buffer 'x', which has 400 bytes \(outside every buffer")
    fails(mod, "shifted_read", 1, 4, (f32(N), f32(4), np.int32(1 << 20)),
          r"read of 4 bytes at address 0x[0-9a-f]+, outside every buffer of the launch and the red zones around "
          r"them \(byte offset \d+ of buffer '[xy]', the nearest, which has \d+ bytes\): an index far out of range")


def test_pointer_table_refuses_what_is_no_array():
    with pytest.raises(TypeError, match=r"pointer_table: arrays\[1\]: expected a C-contiguous numpy array or None, "
                                        r"got an array with strides \(8,\)"):
        host.pointer_table([np.zeros(4, np.float32), np.zeros(8, np.float32)[::2]])
    with pytest.raises(TypeError, match=r"arrays\[0\]: expected .* got a list"):
        host.pointer_table([[1.0, 2.0]])
    table = host.pointer_table([np.zeros(4, np.float32), None])
    assert table.dtype == np.uint64 and int(table[1]) == 0


def test_a_list_input_op_passes_the_sanitize_build(fixture_package: ModuleType, monkeypatch: pytest.MonkeyPatch):
    """ScaledSum (tests/fixtures/) reads its list input through the pointer array the cpu backend
    makes; before, the sanitize build reported every such read as out of bounds."""
    monkeypatch.setattr(host.switches, "_sanitize", host.switches._sanitize)
    host.set_sanitize(True)
    rng = np.random.default_rng(7)
    xs = [rng.standard_normal((5, 7)).astype(np.float32) for _ in range(3)]
    scale = rng.standard_normal(5).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        out = fixture_package.scaled_sum(xs, scale, width=7, alpha=0.5, scope=fixture_package.Scope("cpu"))
    expected = 0.5 * scale.astype(np.float64)[:, None] * np.sum([x.astype(np.float64) for x in xs], axis=0)
    np.testing.assert_allclose(out.y, expected, rtol=1e-5, atol=1e-6)
    assert out.count.tolist() == [3]
