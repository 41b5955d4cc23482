"""The CPU-speed loop helpers (issue 33, item 5): codegen/templates/kernels/_loops.cuh's store_runs,
gather/scatter, run_max and 3×3 convolution blocks, in both kernel forms on the cpu backend (the host form's
runs and the GPU form's plain loops) against float64 NumPy, with tails (lengths that are not a
multiple of the run), strides and the plane's edges; the two forms bit for bit equal where they sum
in the same order; and the header compiled by NVRTC."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from nvrtc_runs import nvrtc_runs
from reference import cpu_speed

from codegen.linemarks import BUILTIN_TEMPLATES
from codegen.runtime.kernels import KernelSource
from codegen.runtime.scope import Scope

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

#: Kernel form → the scope that runs it on the cpu backend.
FORMS = {"host": Scope("cpu"), "gpu": Scope("cpu", kernel_form="gpu")}
DTYPES = {"float32": np.float32, "float64": np.float64}

PROBE_KERNELS = r"""
// y = a·x + b and z = x·x − b, two outputs of one store_runs pass over [0, n), split over the grid.
template <typename T>
__device__ void two_outputs(const T* x, T* y, T* z, long long n, opgen::acc_t<T> a, opgen::acc_t<T> b) {
  using A = opgen::acc_t<T>;
  opgen::store_runs_grid(n, [&](long long j, A* v) {
    const A xj = opgen::to_acc(x[j]);
    v[0] = a * xj + b;
    v[1] = xj * xj - b;
  }, y, z);
}
extern "C" __global__ void two_outputs_f32(const float* x, float* y, float* z, long long n) {
  two_outputs(x, y, z, n, 1.5f, -0.25f);
}
extern "C" __global__ void two_outputs_f64(const double* x, double* y, double* z, long long n) {
  two_outputs(x, y, z, n, 1.5, -0.25);
}

// Row i of out (8 values) gathers x[start_i + q·stride], q < count (fill −1 beyond); the same values
// are then scattered to back[start_i + q·stride].
template <typename T>
__device__ void gathers(const T* x, const long long* starts, T* out, T* back, long long rows, long long stride,
                        long long count) {
  using A = opgen::acc_t<T>;
  for (long long i = 0; i < rows; ++i) {
    A v[8];
    opgen::gather(v, x + starts[i], stride, count, A(-1));
    for (int q = 0; q < 8; ++q) out[8 * i + q] = opgen::from_acc<T>(v[q]);
    opgen::scatter(back + starts[i], stride, v, count);
  }
}
extern "C" __global__ void gathers_f32(const float* x, const long long* s, float* o, float* b, long long r,
                                       long long st, long long c) { gathers(x, s, o, b, r, st, c); }
extern "C" __global__ void gathers_f64(const double* x, const long long* s, double* o, double* b, long long r,
                                       long long st, long long c) { gathers(x, s, o, b, r, st, c); }

// out[i] = the largest of x[8i..8i+7] (a NaN if one is there).
template <typename T>
__device__ void run_maxima(const T* x, T* out, long long n) {
  for (long long i = 0; i < n; ++i) {
    opgen::acc_t<T> v[8];
    opgen::gather(v, x + 8 * i, 1);
    out[i] = opgen::run_max(v);
  }
}
// acc = the lane-wise maxima of rows 0..n-1 of x ([n, 8]) by max_into; reach[i] = run_reaches(row i, t[i]).
template <typename T>
__device__ void lanes(const T* x, const T* t, T* acc, int* reach, long long n) {
  using A = opgen::acc_t<T>;
  A m[8];
  opgen::gather(m, x, 1);
  for (long long i = 0; i < n; ++i) {
    A v[8];
    opgen::gather(v, x + 8 * i, 1);
    opgen::max_into(m, v);
    reach[i] = opgen::run_reaches(v, opgen::to_acc(t[i]));
  }
  opgen::scatter(acc, 1, m);
}
extern "C" __global__ void lanes_f32(const float* x, const float* t, float* a, int* r, long long n) {
  lanes(x, t, a, r, n);
}
extern "C" __global__ void lanes_f64(const double* x, const double* t, double* a, int* r, long long n) {
  lanes(x, t, a, r, n);
}
extern "C" __global__ void run_maxima_f32(const float* x, float* out, long long n) { run_maxima(x, out, n); }
extern "C" __global__ void run_maxima_f64(const double* x, double* out, long long n) { run_maxima(x, out, n); }

// Every row of `planes` h×w planes convolved with that plane's 3×3 weights, and the nine tap sums of
// the gradient g against the input, per plane.
template <typename T>
__device__ void conv(const T* x, const T* k, const T* g, T* y, T* taps, long long planes, long long h, long long w) {
  using A = opgen::acc_t<T>;
  for (long long p = 0; p < planes; ++p) {
    A kk[9];
    for (int t = 0; t < 9; ++t) kk[t] = opgen::to_acc(k[9 * p + t]);
    A acc[9] = {};
    for (long long r = 0; r < h; ++r) {
      opgen::conv3x3_row(x + p * h * w, h, w, r, kk, y + (p * h + r) * w);
      opgen::conv3x3_row_taps(x + p * h * w, h, w, r, g + (p * h + r) * w, acc);
    }
    for (int t = 0; t < 9; ++t) taps[9 * p + t] = opgen::from_acc<T>(acc[t]);
  }
}
extern "C" __global__ void conv_f32(const float* x, const float* k, const float* g, float* y, float* taps,
                                    long long planes, long long h, long long w) {
  conv(x, k, g, y, taps, planes, h, w);
}
extern "C" __global__ void conv_f64(const double* x, const double* k, const double* g, double* y, double* taps,
                                    long long planes, long long h, long long w) {
  conv(x, k, g, y, taps, planes, h, w);
}
"""


def probe_source() -> str:
    """The headers as a kernel template includes them, then the probe kernels."""
    kernels = BUILTIN_TEMPLATES / "kernels"
    return ("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + (kernels / "_common.cuh").read_text(encoding="utf-8")
            + (kernels / "_loops.cuh").read_text(encoding="utf-8") + PROBE_KERNELS)


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> KernelSource:
    path = tmp_path_factory.mktemp("loops") / "loops_probe.cu"
    path.write_text(probe_source(), encoding="utf-8")
    return KernelSource("LoopsProbe", path)


def _run(form: str, probe: KernelSource, symbol: str, args: tuple[Any, ...], grid: int = 1, block: int = 1) -> None:
    backend = FORMS[form].backend
    backend.launch(probe, symbol, (grid,), (block,), args)
    backend.flush()


def _suffix(dtype: str) -> str:
    return "_f32" if dtype == "float32" else "_f64"


def _tolerance(dtype: str) -> dict[str, float]:
    return {"rtol": 1e-6, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-14, "atol": 1e-14}


# ------------------------------------------------------------------ store_runs --

def _two_outputs(form: str, probe: KernelSource, x: np.ndarray, dtype: str, grid: int, block: int):
    y, z = np.full_like(x, np.nan), np.full_like(x, np.nan)
    _run(form, probe, "two_outputs" + _suffix(dtype), (x, y, z, np.int64(x.size)), grid, block)
    return y, z


@needs_gxx
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 63, 64, 1001])
def test_store_runs_writes_every_output_in_both_forms(probe: KernelSource, dtype: str, n: int) -> None:
    """Every element of both outputs, tails included (n not a multiple of the run, shares of 3
    threads); the forms bit for bit equal; float64 NumPy to rounding."""
    x = np.random.default_rng(n).standard_normal(n).astype(DTYPES[dtype])
    host = _two_outputs("host", probe, x, dtype, grid=3, block=1)
    gpu = _two_outputs("gpu", probe, x, dtype, grid=2, block=32)
    x64 = x.astype(np.float64)
    for got, want in zip(host, (1.5 * x64 - 0.25, x64 * x64 + 0.25), strict=True):
        np.testing.assert_allclose(got, want, **_tolerance(dtype))
    for h, g in zip(host, gpu, strict=True):
        assert np.array_equal(h, g)


# ------------------------------------------------------------------ gather and scatter --

@needs_gxx
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("stride", "count"), [(1, 8), (5, 8), (5, 3), (-2, 8), (-3, 6), (7, 0)])
def test_gather_and_scatter_take_a_strided_run(probe: KernelSource, form: str, dtype: str, stride: int,
                                               count: int) -> None:
    x = np.random.default_rng(stride + 10 * count).standard_normal(200).astype(DTYPES[dtype])
    starts = np.array([0, 17, 60, 99] if stride > 0 else [199, 150, 40, 21], np.int64)
    out = np.full((len(starts), 8), np.nan, DTYPES[dtype])
    back = np.zeros_like(x)
    _run(form, probe, "gathers" + _suffix(dtype), (x, starts, out, back, np.int64(len(starts)), np.int64(stride),
                                                    np.int64(count)))
    want = np.full((len(starts), 8), -1.0)
    written = np.zeros(x.size, bool)
    for i, s in enumerate(starts):
        idx = s + stride * np.arange(count)
        want[i, :count] = x[idx]
        written[idx] = True
    assert np.array_equal(out, want.astype(DTYPES[dtype]))
    assert np.array_equal(back[written], x[written]) and not back[~written].any()


# ------------------------------------------------------------------ run_max --

@needs_gxx
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_run_max_is_the_largest_or_a_nan(probe: KernelSource, form: str, dtype: str) -> None:
    """The maximum at every lane of the run, −inf and +inf, and a NaN in any lane wins."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal((64, 8)).astype(DTYPES[dtype])
    for lane in range(8):
        x[lane, lane] = 100.0  # the maximum in each lane
        x[8 + lane, lane] = np.nan  # a NaN in each lane
    x[16] = -np.inf
    x[17, 3] = np.inf
    out = np.full(64, -7.0, DTYPES[dtype])
    _run(form, probe, "run_maxima" + _suffix(dtype), (x, out, np.int64(64)))
    assert np.array_equal(out, x.max(axis=1), equal_nan=True)


@needs_gxx
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_max_into_and_run_reaches(probe: KernelSource, form: str, dtype: str) -> None:
    """max_into: each lane's maximum over the rows, a NaN where a lane holds one; run_reaches: a
    value at or above t (t itself counts) or a NaN anywhere in the run."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((40, 8)).astype(DTYPES[dtype])
    x[5, 2] = x[39, 7] = np.nan
    x[7, 4] = np.inf
    x[20:, 0] = -np.inf
    t = np.sort(x, axis=1)[:, -1].copy()  # each row's own maximum: reached
    t[::2] += 0.5  # above it: not reached
    t[5] = t[39] = 1e9  # rows with a NaN: reached whatever t is
    acc = np.zeros(8, DTYPES[dtype])
    reach = np.full(40, 7, np.int32)
    _run(form, probe, "lanes" + _suffix(dtype), (x, t, acc, reach, np.int64(40)))
    assert np.array_equal(acc, x.max(axis=0), equal_nan=True)
    want = ((x >= t[:, None]) | np.isnan(x)).any(axis=1)
    assert want.any() and not want.all() and np.array_equal(reach != 0, want)


# ------------------------------------------------------------------ 3×3 convolution --

def _conv(form: str, probe: KernelSource, x: np.ndarray, k: np.ndarray, g: np.ndarray, dtype: str):
    planes, h, w = x.shape
    y, taps = np.full_like(x, np.nan), np.full((planes, 9), np.nan, x.dtype)
    _run(form, probe, "conv" + _suffix(dtype), (x, k, g, y, taps, np.int64(planes), np.int64(h), np.int64(w)))
    return y, taps


@needs_gxx
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("h", "w"), [(1, 1), (1, 9), (2, 2), (3, 10), (5, 11), (7, 16), (4, 17), (6, 56), (3, 33)])
def test_conv3x3_blocks_against_numpy_and_each_other(probe: KernelSource, dtype: str, h: int, w: int) -> None:
    """Planes narrower than a run plus its edges (the plain loop), widths whose interior is not a
    multiple of the run (the last run moved back), one-row planes (no window row above or below)."""
    rng = np.random.default_rng(h * 100 + w)
    x = rng.standard_normal((3, h, w)).astype(DTYPES[dtype])
    k = rng.standard_normal((3, 9)).astype(DTYPES[dtype])
    g = rng.standard_normal((3, h, w)).astype(DTYPES[dtype])
    want_y, want_taps = cpu_speed.conv3x3(x, k), cpu_speed.conv3x3_taps(x, g)
    host = _conv("host", probe, x, k, g, dtype)
    gpu = _conv("gpu", probe, x, k, g, dtype)
    for y, taps in (host, gpu):
        np.testing.assert_allclose(y, want_y, **_tolerance(dtype))
        np.testing.assert_allclose(taps, want_taps, rtol=_tolerance(dtype)["rtol"] * 10,
                                   atol=_tolerance(dtype)["atol"] * np.sqrt(h * w) * 10)
    assert np.array_equal(host[0], gpu[0]), "conv3x3_row: the forms sum in the same order"


@needs_gxx
def test_conv3x3_padding_contributes_nothing(probe: KernelSource) -> None:
    """An infinite weight reaches only the outputs whose window holds that tap inside the plane:
    the padding is skipped, not multiplied by 0 (which would make inf·0 = NaN at the edges)."""
    x = np.ones((1, 4, 20), np.float32)
    k = np.zeros((1, 9), np.float32)
    k[0, 0] = np.inf  # the window's top-left tap: row y − 1, column x − 1
    for form in FORMS:
        y, _ = _conv(form, probe, x, k, np.zeros_like(x), "float32")
        assert np.all(y[0, 1:, 1:] == np.inf) and np.all(y[0, 0, :] == 0) and np.all(y[0, :, 0] == 0), form


# ------------------------------------------------------------- NVRTC (the GPU form) --

def test_nvrtc_compiles_the_header(tmp_path: Path) -> None:
    path = tmp_path / "loops_probe.cu"
    path.write_text(probe_source(), encoding="utf-8")
    for run in nvrtc_runs([path]):
        assert {"two_outputs_f32", "gathers_f64", "conv_f32"} <= {k.kernel for k in run.kernels}
