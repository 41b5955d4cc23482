"""Issue 21 item 5, float64 building blocks: a float attr reaches a float64 specialization as a
double (a device parameter declared `opgen::acc_t<T>` keeps it unrounded; every other
specialization still takes a float), and the row/column/block helpers of _common.cuh compute in
double for double values, refusing with a compile error that names the helper any value they would
narrow (a double result for a float or 16-bit output, double terms for a float accumulator)."""

from __future__ import annotations

import warnings
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from codegen import entrygen
from codegen.load import load_spec
from codegen.runtime import host

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"


def _scaled_sum(ops: ModuleType, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return ops.scaled_sum(*args, scope=ops.Scope("cpu"), **kwargs)


def test_float_attr_reaches_a_float64_kernel_unrounded(fixture_package: ModuleType) -> None:
    alpha = 1.0 + 2.0**-40  # float32 rounds it to 1.0
    assert float(np.float32(alpha)) == 1.0
    x = np.full((2, 3), 2.0**20, np.float64)
    scale = np.ones(2, np.float64)
    y, _ = _scaled_sum(fixture_package, [x], scale, width=3, alpha=alpha)
    np.testing.assert_array_equal(y, alpha * x)  # exact in float64; float alpha gives 2**20
    assert (y != x).all()


def test_float_attr_stays_float_below_float64(fixture_package: ModuleType) -> None:
    x = np.full((2, 3), 3.0, np.float32)
    y, _ = _scaled_sum(fixture_package, [x], np.ones(2, np.float32), width=3, alpha=0.5)
    np.testing.assert_array_equal(y, np.full((2, 3), 1.5, np.float32))


def test_entry_points_take_double_only_in_float64_specializations() -> None:
    op = load_spec(FIXTURES / "specs" / "demo" / "scaled_sum.yaml", FIXTURES / "specs")
    text = "\n".join(entrygen.entry_points(op, 0))
    f32, f64 = (text.split("ScaledSum__scale_rows__" + d)[1].split("}")[0] for d in ("float32", "float64"))
    assert "float alpha" in f32 and "double" not in f32
    assert "double alpha" in f64


# Calls that would narrow a value: each must be a compile error naming the helper. (The helpers
# taking double and accumulating in double: tests/test_row_blocks.py, every test in both types.)
NARROWING = {
    "row_store": ("float* out", "opgen::row_store(n, out, [&](long long j) { return x[j]; })",
                  "f's result is double but the output element type is not"),
    "row_store_half": ("__half* out", "opgen::row_store(n, out, [&](long long j) { return x[j]; })",
                       "f's result is double but the output element type is not"),
    "row_store_sum": ("__half* out", "opgen::row_store_sum(n, out, [&](long long j) { return x[j]; })",
                      "f's result is double but the output element type is not"),
    "row_reduce": ("float* out",
                   "out[0] = opgen::row_reduce(n, [&](long long j) { return x[j]; }, opgen::SumOp{}, 0.f)",
                   "f's result is double but the accumulator \\(init\\) is float"),
    "column_sums2": ("float* out",
                     "opgen::column_sums2([&](long long r, long long c) { return make_double2(x[c], 1.0); }, "
                     "out, n, n, 32)", "f's pair type must match the partials"),
    "row_sum": ("float* out", "out[0] = opgen::row_sum(n, [&](long long j) { return __float2half(x[j]); })",
                "f must return float or double"),
    "from_acc": ("float* out", "out[0] = opgen::from_acc<float>(x[0])", "a double value for a float or 16-bit output"),
}


@pytest.mark.parametrize("form", ["host", "gpu"])
@pytest.mark.parametrize("case", sorted(NARROWING))
def test_helpers_refuse_a_value_they_would_narrow(form: str, case: str) -> None:
    out, call, message = NARROWING[case]
    common = (REPO / "codegen" / "templates" / "kernels" / "_common.cuh").read_text()
    define = "#define OPGEN_GPU_FORM 1\n" if form == "gpu" else ""
    kernel = f'extern "C" __global__ void k(const double* x, {out}, long long n) {{\n  {call};\n}}\n'
    helper = case.removesuffix("_half")
    with pytest.raises(host.HostCompileError, match=f"opgen::{helper}: {message}"):
        host.load_module("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + define + common + kernel,
                         name_hint=f"narrow_{case}_{form}")
