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

from codegen.testing import host_random_order

ml_dtypes = pytest.importorskip("ml_dtypes")

from codegen.runtime import host  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

KERNELS = r"""
// Written once for the accumulator type ACC (float or double; ACC2 its pair), compiled for both.
// out[t][k]: each thread's copy of 7 results
extern "C" __global__ void block_reductions(const ACC* v, ACC* out) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const ACC a = v[t];
  const ACC s = opgen::block_reduce(a, opgen::SumOp{});
  const ACC m = opgen::block_reduce(a, opgen::MaxOp{});
  const opgen::MeanVarOf<ACC> w = opgen::block_reduce(opgen::MeanVarOf<ACC>{ACC(1), a, ACC(0)}, opgen::WelfordOp{});
  const ACC s2 = opgen::block_reduce(ACC(-2) * a, opgen::SumOp{});  // right away, the same slots
  const ACC b = opgen::block_broadcast(a);
  ACC* o = out + 7 * t;
  o[0] = s, o[1] = m, o[2] = w.count, o[3] = w.mean, o[4] = w.variance(), o[5] = s2, o[6] = b;
}
extern "C" __global__ void warp_reductions(const ACC* v, ACC* out) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const ACC a = v[t];
  const ACC s = opgen::warp_reduce(a, opgen::SumOp{});
  const ACC m = opgen::warp_reduce(a, opgen::MaxOp{});
  const opgen::MeanVarOf<ACC> w = opgen::warp_reduce(opgen::MeanVarOf<ACC>{ACC(1), a, ACC(0)}, opgen::WelfordOp{});
  const ACC s2 = opgen::warp_reduce(ACC(-2) * a, opgen::SumOp{});
  ACC* o = out + 7 * t;
  o[0] = s, o[1] = m, o[2] = w.count, o[3] = w.mean, o[4] = w.variance(), o[5] = s2, o[6] = ACC(0);
}
// out[r][thread][k]: each thread's copy of the row's 7 results
extern "C" __global__ void row_reductions(const ACC* x, ACC* out, long long rows, long long n) {
  opgen::for_each_row(rows, [&](long long r) {
    const ACC* xr = x + r * n;
    const ACC s = opgen::row_sum(n, [&](long long j) { return xr[j]; });
    const ACC m = opgen::row_max(n, [&](long long j) { return xr[j]; });
    const opgen::MeanVarOf<ACC> w = opgen::row_mean_var(n, [&](long long j) { return xr[j]; });
    const ACC2 s2 = opgen::row_sum2(n, [&](long long j) { return opgen::make_pair(xr[j], xr[j] * xr[j]); });
    ACC* o = out + 7 * (r * blockDim.x + threadIdx.x);
    o[0] = s, o[1] = m, o[2] = w.count, o[3] = w.mean, o[4] = w.variance(), o[5] = s2.x, o[6] = s2.y;
  });
}
// y = 2x + 1 in two passes, the second reading back the first's writes; sums[r][thread] = Σ 2x
extern "C" __global__ void row_stores(const ACC* x, ACC* y, ACC* sums, long long rows, long long n) {
  opgen::for_each_row(rows, [&](long long r) {
    const ACC* xr = x + r * n;
    ACC* yr = y + r * n;
    const ACC s = opgen::row_store_sum(n, yr, [&](long long j) { return ACC(2) * xr[j]; });
    opgen::row_store(n, yr, [&](long long j) { return yr[j] + ACC(1); });
    opgen::row_for_each(n, [&](long long j) { yr[j] += ACC(0); });
    sums[r * blockDim.x + threadIdx.x] = s;
  });
}
extern "C" __global__ void count_indices(ACC* out, long long n) {
  opgen::for_each_index(n, [&](long long i) { out[i] += ACC(1); });
}
extern "C" __global__ void column_partials(const ACC* x, ACC* partials, long long rows, long long width,
                                           long long tile) {
  opgen::column_sums2([&](long long r, long long c) { return opgen::make_pair(x[r * width + c], ACC(1)); },
                      partials, rows, width, tile);
}
extern "C" __global__ void column_totals(const ACC* partials, ACC* totals, long long width, long long splits) {
  opgen::for_each_index(width, [&](long long c) {
    const ACC2 t = opgen::column_total(partials, splits, width, c);
    totals[2 * c] = t.x, totals[2 * c + 1] = t.y;
  });
}
"""

# float only: the 16-bit conversions, and a float row stored to float16
KERNELS_16BIT = r"""
extern "C" __global__ void row_store_half(const float* x, __half* h, long long rows, long long n) {
  opgen::for_each_row(rows, [&](long long r) {
    opgen::row_store(n, h + r * n, [&](long long j) { return x[r * n + j]; });
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
"""

FORMS = ["host", "gpu"]
ACCUMULATORS = {"float": np.float32, "double": np.float64}
_MODULES: dict[tuple[str, str], host.HostModule] = {}


def _module(form: str, acc: str) -> host.HostModule:
    """The sanitize build of the helpers' kernels for one form and accumulator type (built once)."""
    if (form, acc) not in _MODULES:
        common = (REPO / "codegen" / "templates" / "kernels" / "_common.cuh").read_text()
        define = "#define OPGEN_GPU_FORM 1\n" if form == "gpu" else ""
        kernels = KERNELS.replace("ACC2", acc + "2").replace("ACC", acc) + (KERNELS_16BIT if acc == "float" else "")
        source = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + define + common + kernels
        _MODULES[form, acc] = host.load_module(source, name_hint=f"row_blocks_{form}_{acc}", sanitize=True)
    return _MODULES[form, acc]


class Helpers:
    """A built module and the NumPy type of its accumulator."""

    def __init__(self, form: str, acc: str) -> None:
        self.module, self.dtype = _module(form, acc), ACCUMULATORS[acc]
        self.eps = float(np.finfo(self.dtype).eps)

    def get_function(self, name: str):
        return self.module.get_function(name)


@pytest.fixture(scope="module", params=[(f, a) for a in ACCUMULATORS for f in FORMS], ids=lambda p: "-".join(p))
def mod(request: pytest.FixtureRequest) -> Helpers:
    return Helpers(*request.param)


@pytest.fixture(scope="module", params=FORMS)
def mod16(request: pytest.FixtureRequest) -> host.HostModule:
    return _module(request.param, "float")


SEEDS = [None, 1, 2]
THREADS = [1, 20, 32, 33, 48, 96, 250, 1000, 1024]


def _values(rng: np.random.Generator, shape: tuple[int, ...], dtype: type = np.float32) -> np.ndarray:
    return (rng.standard_normal(shape) + 3).astype(np.float32).astype(dtype)


def _rtol(mod: Helpers, terms: int = 1) -> float:
    """A sum's relative tolerance: float32's 1e-5 (84 eps), scaled to the type, and eps per term of a chain."""
    return max(84 * mod.eps, mod.eps * terms)


def _check_copies_agree(out: np.ndarray, groups: int) -> np.ndarray:
    """out [groups·copies, k]: every copy of a group bit for bit equal; returns [groups, k]."""
    per = out.reshape(groups, -1, out.shape[-1])
    bits = np.uint32 if out.dtype == np.float32 else np.uint64
    np.testing.assert_array_equal(per.view(bits), np.broadcast_to(per[:, :1], per.shape).view(bits))
    return per[:, 0]


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("seed", SEEDS)
def test_block_reductions_give_every_thread_the_result(mod: Helpers, threads: int, seed: int | None) -> None:
    rng = np.random.default_rng(threads)
    v = _values(rng, (2, threads), mod.dtype)
    v[1, threads // 2] = np.inf if threads > 1 else v[1, 0]
    out = np.full((2 * threads, 7), np.nan, mod.dtype)
    with host_random_order(seed):
        mod.get_function("block_reductions")((2,), (threads,), (v, out))
    got = _check_copies_agree(out, 2)
    vd = v.astype(np.float64)
    np.testing.assert_allclose(got[:, 0], vd.sum(1), rtol=_rtol(mod))
    np.testing.assert_array_equal(got[:, 1], v.max(1))
    np.testing.assert_array_equal(got[:, 2], threads)
    finite = np.isfinite(vd).all(1)
    np.testing.assert_allclose(got[finite, 3], vd[finite].mean(1), rtol=_rtol(mod))
    np.testing.assert_allclose(got[finite, 4], vd[finite].var(1), rtol=8e3 * mod.eps, atol=84 * mod.eps)
    np.testing.assert_allclose(got[:, 5], -2 * vd.sum(1), rtol=_rtol(mod))
    np.testing.assert_array_equal(got[:, 6], v[:, 0])


@pytest.mark.parametrize("threads", [32, 33, 64, 100])
@pytest.mark.parametrize("seed", SEEDS)
def test_warp_reductions_cover_each_warps_lanes(mod: Helpers, threads: int, seed: int | None) -> None:
    v = _values(np.random.default_rng(threads), (threads,), mod.dtype)
    out = np.full((threads, 7), np.nan, mod.dtype)
    with host_random_order(seed):
        mod.get_function("warp_reductions")((1,), (threads,), (v, out))
    for w in range(0, threads, 32):
        lanes = v[w:w + 32].astype(np.float64)
        got = _check_copies_agree(out[w:w + 32], 1)[0]
        np.testing.assert_allclose(got[0], lanes.sum(), rtol=_rtol(mod))
        assert got[1] == lanes.max() and got[2] == lanes.size
        np.testing.assert_allclose(got[3:5], [lanes.mean(), lanes.var()], rtol=8e3 * mod.eps)
        np.testing.assert_allclose(got[5], -2 * lanes.sum(), rtol=_rtol(mod))


def _rows_with_specials(rng: np.random.Generator, rows: int, n: int, dtype: type) -> np.ndarray:
    x = _values(rng, (rows, n), dtype)
    if n:
        x[1, n // 2] = np.nan          # NaN anywhere makes the max NaN
        x[2, n - 1] = np.inf
        x[3, 0] = -np.inf
        x[4] = -np.inf                 # all -inf: max -inf
        x[5, :] = 1e4                  # large mean, small spread: the variance must stay 0
    return x


@pytest.mark.parametrize("threads", [1, 33, 48, 128, 250, 1000])
@pytest.mark.parametrize("n", [0, 1, 7, 32, 300, 4099])
@pytest.mark.parametrize("seed", [None, 1])
def test_row_reductions(mod: Helpers, threads: int, n: int, seed: int | None) -> None:
    rows = 7
    x = _rows_with_specials(np.random.default_rng(n), rows, n, mod.dtype)
    out = np.full((rows * threads, 7), np.nan, mod.dtype)
    with host_random_order(seed):
        mod.get_function("row_reductions")((3,), (threads,), (x, out, np.int64(rows), np.int64(n)))
    got = _check_copies_agree(out, rows)
    xd = x.astype(np.float64)
    rtol = _rtol(mod, n)  # one thread of the GPU form adds n terms in a chain
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(got[:, 0], xd.sum(1), rtol=rtol, atol=84 * mod.eps * n)
        np.testing.assert_allclose(got[:, 5:7], np.stack([xd.sum(1), (xd * xd).sum(1)], 1), rtol=rtol,
                                   atol=84 * mod.eps * n)
    want_max = np.array([r.max() if n else -np.inf for r in x], mod.dtype)   # NumPy's max propagates NaN
    np.testing.assert_array_equal(got[:, 1], want_max)
    np.testing.assert_array_equal(got[:, 2], n)
    finite = np.isfinite(xd).all(1) if n else np.ones(rows, bool)
    mean = xd[finite].mean(1) if n else np.zeros(rows)
    var = xd[finite].var(1) if n else np.zeros(rows)
    np.testing.assert_allclose(got[finite, 3], mean, rtol=_rtol(mod))
    np.testing.assert_allclose(got[finite, 4], var, rtol=1.7e4 * mod.eps, atol=840 * mod.eps)
    if n:
        assert np.isnan(got[1, 3]) and got[5, 4] == 0.0  # a NaN's mean is NaN; constant rows have variance 0


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("threads", [1, 48, 250])
def test_double_helpers_accumulate_in_double(form: str, threads: int) -> None:
    """Terms 1 + k·2⁻³⁵ (k < 4099): every partial sum is exact in double, in any order, and none in float."""
    mod = Helpers(form, "double")
    n, rows = 4099, 7
    x = np.broadcast_to(1 + np.arange(n) * 2.0**-35, (rows, n)).copy()
    out = np.full((rows * threads, 7), np.nan)
    mod.get_function("row_reductions")((3,), (threads,), (x, out, np.int64(rows), np.int64(n)))
    got = _check_copies_agree(out, rows)
    exact = n + (n - 1) * n / 2 * 2.0**-35
    assert float(np.float32(exact)) != exact
    np.testing.assert_array_equal(got[:, 0], exact)
    np.testing.assert_array_equal(got[:, 5], exact)
    width = 40
    column = np.ascontiguousarray(np.repeat(x[0][:, None], width, 1))  # [n rows, width]: each column sums x[0]
    partials = np.full((1, 2, width), np.nan)
    totals = np.full((width, 2), np.nan)
    tile = width if form == "host" else 32
    mod.get_function("column_partials")((-(-width // tile), 1), (threads,),
                                        (column, partials, np.int64(n), np.int64(width), np.int64(tile)))
    mod.get_function("column_totals")((2,), (threads,), (partials, totals, np.int64(width), np.int64(1)))
    np.testing.assert_array_equal(totals[:, 0], exact)


@pytest.mark.parametrize("threads", [1, 20, 48, 256, 1000])
@pytest.mark.parametrize("n", [0, 5, 8, 1000])
def test_row_stores_read_back_their_own_writes(mod: Helpers, threads: int, n: int) -> None:
    rows = 5
    x = _values(np.random.default_rng(n), (rows, n), mod.dtype)
    y = np.full((rows, n), np.nan, mod.dtype)
    sums = np.full(rows * threads, np.nan, mod.dtype)
    with host_random_order(3):
        mod.get_function("row_stores")((2,), (threads,), (x, y, sums, np.int64(rows), np.int64(n)))
    np.testing.assert_array_equal(y, 2 * x + 1)
    got = _check_copies_agree(sums.reshape(-1, 1), rows)[:, 0]
    np.testing.assert_allclose(got, 2 * x.astype(np.float64).sum(1), rtol=_rtol(mod))


@pytest.mark.parametrize("threads", [1, 48, 1000])
def test_row_store_rounds_once_to_16_bits(mod16: host.HostModule, threads: int) -> None:
    rows, n = 3, 1001
    x = _values(np.random.default_rng(threads), (rows, n)) * np.float32(1 + 2**-13)
    h = np.full((rows, n), np.nan, np.float16)
    with host_random_order(3):
        mod16.get_function("row_store_half")((2,), (threads,), (x, h, np.int64(rows), np.int64(n)))
    np.testing.assert_array_equal(h.view(np.uint16), x.astype(np.float16).view(np.uint16))


@pytest.mark.parametrize(("grid", "threads", "n"), [(1, 1, 0), (3, 1, 10), (4, 33, 1000), (7, 64, 5)])
def test_for_each_index_visits_every_index_once(mod: Helpers, grid: int, threads: int, n: int) -> None:
    out = np.zeros(n, mod.dtype)
    with host_random_order(5):
        mod.get_function("count_indices")((grid,), (threads,), (out, np.int64(n)))
    np.testing.assert_array_equal(out, 1)


@pytest.mark.parametrize(("rows", "width", "tile", "splits", "threads"),
                         [(0, 5, 32, 1, 64), (9, 70, 32, 3, 64), (9, 70, 70, 2, 1), (100, 33, 32, 4, 96),
                          (5, 40, 64, 2, 250), (1, 1, 1, 1, 1)])
def test_column_sums(mod: Helpers, rows: int, width: int, tile: int, splits: int, threads: int) -> None:
    x = _values(np.random.default_rng(width), (rows, width), mod.dtype)
    partials = np.full((splits, 2, width), np.nan, mod.dtype)
    totals = np.full((width, 2), np.nan, mod.dtype)
    with host_random_order(7):
        mod.get_function("column_partials")(((width + tile - 1) // tile, splits), (threads,),
                                            (x, partials, np.int64(rows), np.int64(width), np.int64(tile)))
        mod.get_function("column_totals")((2,), (threads,), (partials, totals, np.int64(width), np.int64(splits)))
    np.testing.assert_allclose(totals[:, 0], x.astype(np.float64).sum(0), rtol=_rtol(mod), atol=84 * mod.eps)
    np.testing.assert_array_equal(totals[:, 1], rows)


# Block sizes that are not multiples of 32: the last warp is partial, so a GPU form that lets each
# warp take every warps-th row of a column drops the rows of the lanes the last warp lacks. Every
# split has more rows than the block has warps (every warp, the partial one too, takes rows), and
# each tile several 32-column passes and a ragged last one (lanes past the width).
@pytest.mark.parametrize(("rows", "width", "tile", "splits", "threads"),
                         [(40, 40, 40, 1, 48), (40, 40, 32, 1, 48), (23, 70, 70, 2, 33), (77, 100, 32, 3, 48),
                          (61, 75, 75, 2, 250), (150, 70, 32, 2, 1000), (90, 45, 45, 1, 1000), (20, 40, 40, 1, 20)])
@pytest.mark.parametrize("seed", [None, 1])
def test_column_sums_at_any_block_size(mod: Helpers, rows: int, width: int, tile: int, splits: int, threads: int,
                                       seed: int | None) -> None:
    x = _values(np.random.default_rng(rows * width + threads), (rows, width), mod.dtype)
    partials = np.full((splits, 2, width), np.nan, mod.dtype)
    totals = np.full((width, 2), np.nan, mod.dtype)
    with host_random_order(seed):
        mod.get_function("column_partials")(((width + tile - 1) // tile, splits), (threads,),
                                            (x, partials, np.int64(rows), np.int64(width), np.int64(tile)))
        mod.get_function("column_totals")((3,), (threads,), (partials, totals, np.int64(width), np.int64(splits)))
    per = -(-rows // splits)
    xd = x.astype(np.float64)
    for s in range(splits):  # each split's partials hold exactly its rows
        part = xd[s * per:(s + 1) * per]
        np.testing.assert_allclose(partials[s, 0], part.sum(0), rtol=_rtol(mod), atol=84 * mod.eps)
        np.testing.assert_array_equal(partials[s, 1], part.shape[0])
    np.testing.assert_allclose(totals[:, 0], xd.sum(0), rtol=_rtol(mod), atol=84 * mod.eps)
    np.testing.assert_array_equal(totals[:, 1], rows)


def test_16bit_conversions_are_exact_for_every_value(mod16: host.HostModule) -> None:
    bits = np.arange(65536, dtype=np.uint16)
    half, bf16 = bits.view(np.float16), bits.view(ml_dtypes.bfloat16)
    out = np.full((65536, 2), np.nan, np.float32)
    mod16.get_function("widen16")((4,), (64,), (half, bf16, out, np.int64(65536)))
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
    mod16.get_function("narrow16")((4,), (64,), (x, h, b, np.int64(x.size)))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(h.view(np.uint16), x.astype(np.float16).view(np.uint16))
    np.testing.assert_array_equal(b.view(np.uint16), x.astype(ml_dtypes.bfloat16).view(np.uint16))
    nan = np.full(1, np.nan, np.float32)
    mod16.get_function("narrow16")((1,), (1,), (nan, h, b, np.int64(1)))
    assert np.isnan(h[0]) and np.isnan(b[0])
