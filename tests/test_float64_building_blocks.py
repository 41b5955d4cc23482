"""Issue 21 item 5, float64 building blocks: a float attr reaches a float64 specialization as a
double (a device parameter declared `opgen::acc_t<T>` keeps it unrounded; every other
specialization still takes a float), and the float row/block helpers of _common.cuh refuse a
double they would silently round to float, with a compile error that names the helper."""

from __future__ import annotations

import warnings
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from codegen import pygen
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
    text = "\n".join(pygen.entry_points(op, 0))
    f32, f64 = (text.split("ScaledSum__scale_rows__" + d)[1].split("}")[0] for d in ("float32", "float64"))
    assert "float alpha" in f32 and "double" not in f32
    assert "double alpha" in f64


NARROWING = {
    "row_sum": "opgen::row_sum(n, [&](long long j) { return x[j]; })",
    "row_max": "opgen::row_max(n, [&](long long j) { return x[j]; })",
    "row_mean_var": "opgen::row_mean_var(n, [&](long long j) { return x[j]; }).mean",
    "row_reduce": "opgen::row_reduce(n, [&](long long j) { return x[j]; }, opgen::SumOp{}, 0.0)",
    "block_reduce": "opgen::block_reduce(x[0], opgen::SumOp{})",
    "warp_reduce": "opgen::warp_reduce(x[0], opgen::SumOp{})",
}


def _module(form: str, body: str, name: str) -> host.HostModule:
    common = (REPO / "codegen" / "templates" / "kernels" / "_common.cuh").read_text()
    define = "#define OPGEN_GPU_FORM 1\n" if form == "gpu" else ""
    kernel = ('extern "C" __global__ void k(const double* x, double* out, long long n) {\n'
              f"  out[0] = {body};\n}}\n")
    return host.load_module("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + define + common + kernel,
                            name_hint=name)


@pytest.mark.parametrize("form", ["host", "gpu"])
@pytest.mark.parametrize("helper", sorted(NARROWING))
def test_float_helpers_refuse_a_double(form: str, helper: str) -> None:
    with pytest.raises(host.HostCompileError, match=f"opgen::{helper}: .*double"):
        _module(form, NARROWING[helper], f"narrow_{helper}_{form}")


@pytest.mark.parametrize("form", ["host", "gpu"])
def test_row_store_refuses_a_double_output(form: str) -> None:
    common = (REPO / "codegen" / "templates" / "kernels" / "_common.cuh").read_text()
    define = "#define OPGEN_GPU_FORM 1\n" if form == "gpu" else ""
    kernel = ('extern "C" __global__ void k(const float* x, double* out, long long n) {\n'
              "  opgen::row_store(n, out, [&](long long j) { return x[j]; });\n}\n")
    with pytest.raises(host.HostCompileError, match="opgen::row_store: the output element type is double"):
        host.load_module("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + define + common + kernel,
                         name_hint=f"narrow_store_{form}")
