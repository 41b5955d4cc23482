"""Contract tests of the backend-aware building blocks of templates/kernels/_common.cuh (block and
warp reductions for sum, max and Welford mean/variance; a block owning a row; the grid over
indices; per-column sums), in both of their forms: the host emulation's (the default under the
emulation) and the GPU's (OPGEN_GPU_FORM: the emulator runs the shuffles, merges and strides a GPU
runs). Every module is the sanitize build (out-of-bounds, races, uninitialised shared memory,
barrier and warp misuse), run in order and in seeded random orders.

* every thread gets the result, bit for bit the same, and a second call right away is safe;
* any 1-D block size up to 1024 (1, partial warps, 1024);
* empty rows: a sum is 0, a max -inf, a MeanVar has count 0;
* max propagates NaN and handles ±inf;
* to_float and from_float of float16 and bfloat16 (the host's own branch-free conversions) are
  exact: every 16-bit value widens to NumPy's float, and floats round to nearest even.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import host_random_order

ml_dtypes = pytest.importorskip("ml_dtypes")

from codegen.runtime import host  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

KERNELS = r"""
// out[t][k]: each thread's copy of 6 results
extern "C" __global__ void block_reductions(const float* v, float* out) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float a = v[t];
  const float s = opgen::block_reduce(a, opgen::SumOp{});
  const float m = opgen::block_reduce(a, opgen::MaxOp{});
  const opgen::MeanVar w = opgen::block_reduce(opgen::MeanVar{1.f, a, 0.f}, opgen::WelfordOp{});
  const float s2 = opgen::block_reduce(-2.f * a, opgen::SumOp{});  // right away, the same slots
  const float b = opgen::block_broadcast(a);
  float* o = out + 7 * t;
  o[0] = s, o[1] = m, o[2] = w.count, o[3] = w.mean, o[4] = w.variance(), o[5] = s2, o[6] = b;
}
extern "C" __global__ void warp_reductions(const float* v, float* out) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float a = v[t];
  const float s = opgen::warp_reduce(a, opgen::SumOp{});
  const float m = opgen::warp_reduce(a, opgen::MaxOp{});
  const opgen::MeanVar w = opgen::warp_reduce(opgen::MeanVar{1.f, a, 0.f}, opgen::WelfordOp{});
  const float s2 = opgen::warp_reduce(-2.f * a, opgen::SumOp{});
  float* o = out + 7 * t;
  o[0] = s, o[1] = m, o[2] = w.count, o[3] = w.mean, o[4] = w.variance(), o[5] = s2, o[6] = 0.f;
}
// out[r][thread][k]: each thread's copy of the row's 7 results
extern "C" __global__ void row_reductions(const float* x, float* out, long long rows, long long n) {
  opgen::for_each_row(rows, [&](long long r) {
    const float* xr = x + r * n;
    const float s = opgen::row_sum(n, [&](long long j) { return xr[j]; });
    const float m = opgen::row_max(n, [&](long long j) { return xr[j]; });
    const opgen::MeanVar w = opgen::row_mean_var(n, [&](long long j) { return xr[j]; });
    const float2 s2 = opgen::row_sum2(n, [&](long long j) { return make_float2(xr[j], xr[j] * xr[j]); });
    float* o = out + 7 * (r * blockDim.x + threadIdx.x);
    o[0] = s, o[1] = m, o[2] = w.count, o[3] = w.mean, o[4] = w.variance(), o[5] = s2.x, o[6] = s2.y;
  });
}
// y = 2x + 1 in two passes, the second reading back the first's writes; sums[r][thread] = Σ 2x
extern "C" __global__ void row_stores(const float* x, __half* h, float* y, float* sums, long long rows, long long n) {
  opgen::for_each_row(rows, [&](long long r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    const float s = opgen::row_store_sum(n, yr, [&](long long j) { return 2.f * xr[j]; });
    opgen::row_store(n, yr, [&](long long j) { return yr[j] + 1.f; });
    opgen::row_store(n, h + r * n, [&](long long j) { return xr[j]; });
    opgen::row_for_each(n, [&](long long j) { yr[j] += 0.f; });
    sums[r * blockDim.x + threadIdx.x] = s;
  });
}
extern "C" __global__ void widen16(const __half* h, const __nv_bfloat16* b, float* out, long long n) {
  opgen::for_each_index(n, [&](long long i) {
    out[2 * i] = opgen::to_float(h[i]), out[2 * i + 1] = opgen::to_float(b[i]);
  });
}
extern "C" __global__ void narrow16(const float* x, __half* h, __nv_bfloat16* b, long long n) {
  opgen::for_each_index(n, [&](long long i) {
    h[i] = opgen::from_float<__half>(x[i]), b[i] = opgen::from_float<__nv_bfloat16>(x[i]);
  });
}
extern "C" __global__ void count_indices(float* out, long long n) {
  opgen::for_each_index(n, [&](long long i) { out[i] += 1.f; });
}
extern "C" __global__ void column_partials(const float* x, float* partials, long long rows, long long width,
                                           long long tile) {
  opgen::column_sums2([&](long long r, long long c) { return make_float2(x[r * width + c], 1.f); },
                      partials, rows, width, tile);
}
extern "C" __global__ void column_totals(const float* partials, float* totals, long long width, long long splits) {
  opgen::for_each_index(width, [&](long long c) {
    const float2 t = opgen::column_total(partials, splits, width, c);
    totals[2 * c] = t.x, totals[2 * c + 1] = t.y;
  });
}
"""

FORMS = ["host", "gpu"]


@pytest.fixture(scope="module", params=FORMS)
def mod(request: pytest.FixtureRequest) -> host.HostModule:
    common = (REPO / "codegen" / "templates" / "kernels" / "_common.cuh").read_text()
    form = "#define OPGEN_GPU_FORM 1\n" if request.param == "gpu" else ""
    source = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + form + common + KERNELS
    return host.load_module(source, name_hint=f"row_blocks_{request.param}", sanitize=True)


SEEDS = [None, 1, 2]
THREADS = [1, 20, 32, 33, 48, 96, 250, 1000, 1024]


def _values(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32) + np.float32(3)


def _check_copies_agree(out: np.ndarray, groups: int) -> np.ndarray:
    """out [groups·copies, k]: every copy of a group bit for bit equal; returns [groups, k]."""
    per = out.reshape(groups, -1, out.shape[-1])
    np.testing.assert_array_equal(per.view(np.uint32), np.broadcast_to(per[:, :1], per.shape).view(np.uint32))
    return per[:, 0]


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("seed", SEEDS)
def test_block_reductions_give_every_thread_the_result(mod, threads: int, seed: int | None) -> None:
    rng = np.random.default_rng(threads)
    v = _values(rng, (2, threads))
    v[1, threads // 2] = np.inf if threads > 1 else v[1, 0]
    out = np.full((2 * threads, 7), np.nan, np.float32)
    with host_random_order(seed):
        mod.get_function("block_reductions")((2,), (threads,), (v, out))
    got = _check_copies_agree(out, 2)
    vd = v.astype(np.float64)
    np.testing.assert_allclose(got[:, 0], vd.sum(1), rtol=1e-5)
    np.testing.assert_array_equal(got[:, 1], v.max(1))
    np.testing.assert_array_equal(got[:, 2], threads)
    finite = np.isfinite(vd).all(1)
    np.testing.assert_allclose(got[finite, 3], vd[finite].mean(1), rtol=1e-5)
    np.testing.assert_allclose(got[finite, 4], vd[finite].var(1), rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(got[:, 5], -2 * vd.sum(1), rtol=1e-5)
    np.testing.assert_array_equal(got[:, 6], v[:, 0])


@pytest.mark.parametrize("threads", [32, 33, 64, 100])
@pytest.mark.parametrize("seed", SEEDS)
def test_warp_reductions_cover_each_warps_lanes(mod, threads: int, seed: int | None) -> None:
    v = _values(np.random.default_rng(threads), (threads,))
    out = np.full((threads, 7), np.nan, np.float32)
    with host_random_order(seed):
        mod.get_function("warp_reductions")((1,), (threads,), (v, out))
    for w in range(0, threads, 32):
        lanes = v[w:w + 32].astype(np.float64)
        got = _check_copies_agree(out[w:w + 32], 1)[0]
        np.testing.assert_allclose(got[0], lanes.sum(), rtol=1e-5)
        assert got[1] == lanes.max() and got[2] == lanes.size
        np.testing.assert_allclose(got[3:5], [lanes.mean(), lanes.var()], rtol=1e-3)
        np.testing.assert_allclose(got[5], -2 * lanes.sum(), rtol=1e-5)


def _rows_with_specials(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    x = _values(rng, (rows, n))
    if n:
        x[1, n // 2] = np.nan          # NaN anywhere makes the max NaN
        x[2, n - 1] = np.inf
        x[3, 0] = -np.inf
        x[4] = -np.inf                 # all -inf: max -inf
        x[5, :] = np.float32(1e4)      # large mean, small spread: the variance must stay 0
    return x


@pytest.mark.parametrize("threads", [1, 33, 48, 128, 250, 1000])
@pytest.mark.parametrize("n", [0, 1, 7, 32, 300, 4099])
@pytest.mark.parametrize("seed", [None, 1])
def test_row_reductions(mod, threads: int, n: int, seed: int | None) -> None:
    rows = 7
    x = _rows_with_specials(np.random.default_rng(n), rows, n)
    out = np.full((rows * threads, 7), np.nan, np.float32)
    with host_random_order(seed):
        mod.get_function("row_reductions")((3,), (threads,), (x, out, np.int64(rows), np.int64(n)))
    got = _check_copies_agree(out, rows)
    xd = x.astype(np.float64)
    rtol = max(1e-5, 1.2e-7 * n)  # float32 sums: one thread of the GPU form adds n terms in a chain
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(got[:, 0], xd.sum(1), rtol=rtol, atol=1e-5 * n)
        np.testing.assert_allclose(got[:, 5:7], np.stack([xd.sum(1), (xd * xd).sum(1)], 1), rtol=rtol, atol=1e-5 * n)
    want_max = np.array([r.max() if n else -np.inf for r in x], np.float32)   # NumPy's max propagates NaN
    np.testing.assert_array_equal(got[:, 1], want_max)
    np.testing.assert_array_equal(got[:, 2], n)
    finite = np.isfinite(xd).all(1) if n else np.ones(rows, bool)
    mean = xd[finite].mean(1) if n else np.zeros(rows)
    var = xd[finite].var(1) if n else np.zeros(rows)
    np.testing.assert_allclose(got[finite, 3], mean, rtol=1e-5)
    np.testing.assert_allclose(got[finite, 4], var, rtol=2e-3, atol=1e-4)
    if n:
        assert np.isnan(got[1, 3]) and got[5, 4] == 0.0  # a NaN's mean is NaN; constant rows have variance 0


@pytest.mark.parametrize("threads", [1, 20, 48, 256, 1000])
@pytest.mark.parametrize("n", [0, 5, 8, 1000])
def test_row_stores_read_back_their_own_writes(mod, threads: int, n: int) -> None:
    rows = 5
    x = _values(np.random.default_rng(n), (rows, n))
    y = np.full((rows, n), np.nan, np.float32)
    h = np.full((rows, n), np.nan, np.float16)
    sums = np.full(rows * threads, np.nan, np.float32)
    with host_random_order(3):
        mod.get_function("row_stores")((2,), (threads,), (x, h, y, sums, np.int64(rows), np.int64(n)))
    np.testing.assert_array_equal(y, 2 * x + 1)
    np.testing.assert_array_equal(h, x.astype(np.float16))
    got = _check_copies_agree(sums.reshape(-1, 1), rows)[:, 0]
    np.testing.assert_allclose(got, 2 * x.astype(np.float64).sum(1), rtol=1e-5)


@pytest.mark.parametrize(("grid", "threads", "n"), [(1, 1, 0), (3, 1, 10), (4, 33, 1000), (7, 64, 5)])
def test_for_each_index_visits_every_index_once(mod, grid: int, threads: int, n: int) -> None:
    out = np.zeros(n, np.float32)
    with host_random_order(5):
        mod.get_function("count_indices")((grid,), (threads,), (out, np.int64(n)))
    np.testing.assert_array_equal(out, 1)


@pytest.mark.parametrize(("rows", "width", "tile", "splits", "threads"),
                         [(0, 5, 32, 1, 64), (9, 70, 32, 3, 64), (9, 70, 70, 2, 1), (100, 33, 32, 4, 96),
                          (5, 40, 64, 2, 250), (1, 1, 1, 1, 1)])
def test_column_sums(mod, rows: int, width: int, tile: int, splits: int, threads: int) -> None:
    x = _values(np.random.default_rng(width), (rows, width))
    partials = np.full((splits, 2, width), np.nan, np.float32)
    totals = np.full((width, 2), np.nan, np.float32)
    with host_random_order(7):
        mod.get_function("column_partials")(((width + tile - 1) // tile, splits), (threads,),
                                            (x, partials, np.int64(rows), np.int64(width), np.int64(tile)))
        mod.get_function("column_totals")((2,), (threads,), (partials, totals, np.int64(width), np.int64(splits)))
    np.testing.assert_allclose(totals[:, 0], x.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(totals[:, 1], rows)


# Block sizes that are not multiples of 32: the last warp is partial, so a GPU form that lets each
# warp take every warps-th row of a column drops the rows of the lanes the last warp lacks. Every
# split has more rows than the block has warps (every warp, the partial one too, takes rows), and
# each tile several 32-column passes and a ragged last one (lanes past the width).
@pytest.mark.parametrize(("rows", "width", "tile", "splits", "threads"),
                         [(40, 40, 40, 1, 48), (40, 40, 32, 1, 48), (23, 70, 70, 2, 33), (77, 100, 32, 3, 48),
                          (61, 75, 75, 2, 250), (150, 70, 32, 2, 1000), (90, 45, 45, 1, 1000), (20, 40, 40, 1, 20)])
@pytest.mark.parametrize("seed", [None, 1])
def test_column_sums_at_any_block_size(mod, rows: int, width: int, tile: int, splits: int, threads: int,
                                       seed: int | None) -> None:
    x = _values(np.random.default_rng(rows * width + threads), (rows, width))
    partials = np.full((splits, 2, width), np.nan, np.float32)
    totals = np.full((width, 2), np.nan, np.float32)
    with host_random_order(seed):
        mod.get_function("column_partials")(((width + tile - 1) // tile, splits), (threads,),
                                            (x, partials, np.int64(rows), np.int64(width), np.int64(tile)))
        mod.get_function("column_totals")((3,), (threads,), (partials, totals, np.int64(width), np.int64(splits)))
    per = -(-rows // splits)
    xd = x.astype(np.float64)
    for s in range(splits):  # each split's partials hold exactly its rows
        part = xd[s * per:(s + 1) * per]
        np.testing.assert_allclose(partials[s, 0], part.sum(0), rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(partials[s, 1], part.shape[0])
    np.testing.assert_allclose(totals[:, 0], xd.sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(totals[:, 1], rows)


def test_16bit_conversions_are_exact_for_every_value(mod) -> None:
    bits = np.arange(65536, dtype=np.uint16)
    half, bf16 = bits.view(np.float16), bits.view(ml_dtypes.bfloat16)
    out = np.full((65536, 2), np.nan, np.float32)
    mod.get_function("widen16")((4,), (64,), (half, bf16, out, np.int64(65536)))
    np.testing.assert_array_equal(out[:, 0], half.astype(np.float32))   # NaN where NumPy has NaN
    np.testing.assert_array_equal(out[:, 1], bf16.astype(np.float32))
    # every float16/bfloat16 value, the midpoints between neighbours (ties round to even) and beyond
    widened = np.concatenate([out[:, 0], out[:, 1]])
    widened = widened[np.isfinite(widened)].astype(np.float64)
    ordered = np.unique(widened)
    x = np.concatenate([ordered, (ordered[1:] + ordered[:-1]) / 2, [7e4, -7e4, 3.4e38, np.inf, -np.inf, 1e-45]])
    x = x.astype(np.float32)
    x = np.concatenate([x, np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf))])
    h = np.zeros(x.size, np.float16)
    b = np.zeros(x.size, ml_dtypes.bfloat16)
    mod.get_function("narrow16")((4,), (64,), (x, h, b, np.int64(x.size)))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(h.view(np.uint16), x.astype(np.float16).view(np.uint16))
    np.testing.assert_array_equal(b.view(np.uint16), x.astype(ml_dtypes.bfloat16).view(np.uint16))
    nan = np.full(1, np.nan, np.float32)
    mod.get_function("narrow16")((1,), (1,), (nan, h, b, np.int64(1)))
    assert np.isnan(h[0]) and np.isnan(b[0])
