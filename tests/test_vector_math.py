"""The vector math library (codegen/templates/kernels/_vmath.cuh) and the activation library's math,
measured in ulps against float64 (tests/reference/ulp.py defines the measure) on dense grids: near 0,
every float around each branch point and clamp, large magnitudes, subnormals, specials. Each function
must stay within the bound docs/specs.md documents for its form ("Errors in ulps"; the activations'
in "The built-in activations' errors"), in the cpu backend's default build (SSE2), an AVX2 + FMA
build (-march=x86-64-v3, multiply-adds fused) and the GPU form (OPGEN_GPU_FORM: CUDA's names, the C
library's functions on the emulation, against CUDA's documented bounds). Special values are exact.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import vector_math_cases as cases
from reference.ulp import reference, ulp_error


def _cpu_has(flag: str) -> bool:
    try:
        return flag in Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False


BUILDS = [pytest.param(b, marks=pytest.mark.skipif(b == "avx2" and not (_cpu_has("avx2") and _cpu_has("fma")),
                                                    reason="this CPU runs no x86-64-v3 code (AVX2, FMA)"))
          for b in cases.BUILDS]


@pytest.fixture(scope="module")
def grid() -> np.ndarray:
    return cases.grid()


@pytest.fixture(scope="module", params=BUILDS)
def build(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def outputs(build: str, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return cases.evaluate(build, grid)


def _bound(name: str, build: str, table: dict[str, cases.Bound]) -> float:
    bound = table[name]
    return bound.gpu if build == "gpu form" else bound.host


def _worst(err: np.ndarray, x: np.ndarray, got: np.ndarray, want: np.ndarray) -> str:
    i = int(np.argmax(err))
    return f"{err[i]:.3f} ulp at x = {x[i]!r} ({x[i].view(np.uint32):#010x}): got {got[i]!r}, want {want[i]!r}"


def test_every_function_has_a_documented_bound() -> None:
    assert set(cases.documented_bounds()) == set(cases.FUNCTIONS)
    assert set(cases.documented_activation_bounds()) == set(cases.ACTIVATIONS)


@pytest.mark.parametrize("name", cases.FUNCTIONS)
def test_within_the_documented_bound(name: str, build: str, grid: np.ndarray, outputs) -> None:
    runs = outputs[0]
    k = cases.FUNCTIONS.index(name)
    want = reference(name, grid)
    err = ulp_error(runs[k], want)
    bound = _bound(name, build, cases.documented_bounds())
    assert err.max() <= bound, f"vm::{name} ({build}): {_worst(err, grid, runs[k], want)}; bound {bound}"


@pytest.mark.parametrize("name", cases.FUNCTIONS)
def test_run_and_scalar_forms_agree_bit_for_bit(name: str, build: str, outputs) -> None:
    """A value does not depend on whether it falls in a run or a row's tail."""
    runs, scalars = outputs
    k = cases.FUNCTIONS.index(name)
    np.testing.assert_array_equal(runs[k].view(np.uint32), scalars[k].view(np.uint32), err_msg=f"vm::{name}")


SPECIAL_VALUES = {  # x → the exact result, sign of zero included
    "exp": [(-np.inf, 0.0), (np.inf, np.inf), (0.0, 1.0), (-0.0, 1.0), (-104.0, 0.0), (-1e30, 0.0), (89.0, np.inf),
            (1e30, np.inf)],
    "expm1": [(-np.inf, -1.0), (np.inf, np.inf), (0.0, 0.0), (-0.0, -0.0), (2.0**-149, 2.0**-149),
              (-(2.0**-140), -(2.0**-140)), (-50.0, -1.0), (100.0, np.inf)],
    "log": [(0.0, -np.inf), (-0.0, -np.inf), (-1.0, np.nan), (-np.inf, np.nan), (np.inf, np.inf), (1.0, 0.0)],
    "log1p": [(-1.0, -np.inf), (-2.0, np.nan), (-np.inf, np.nan), (np.inf, np.inf), (0.0, 0.0), (-0.0, -0.0),
              (2.0**-149, 2.0**-149), (-(2.0**-149), -(2.0**-149))],
    "tanh": [(np.inf, 1.0), (-np.inf, -1.0), (0.0, 0.0), (-0.0, -0.0), (20.0, 1.0), (-20.0, -1.0),
             (2.0**-149, 2.0**-149), (-(2.0**-130), -(2.0**-130))],
    "sigmoid": [(-np.inf, 0.0), (np.inf, 1.0), (0.0, 0.5), (-0.0, 0.5), (-200.0, 0.0), (200.0, 1.0)],
    "erf": [(np.inf, 1.0), (-np.inf, -1.0), (0.0, 0.0), (-0.0, -0.0), (4.0, 1.0), (-10.0, -1.0)],
}


@pytest.mark.parametrize("name", cases.FUNCTIONS)
def test_special_values_are_exact(name: str, build: str) -> None:
    x = np.array([p for p, _ in SPECIAL_VALUES[name]] + [np.nan] * 8, np.float32)  # a whole run of NaN too
    want = np.array([r for _, r in SPECIAL_VALUES[name]] + [np.nan] * 8, np.float32)
    runs, scalars = cases.evaluate(build, x)
    for got in (runs[cases.FUNCTIONS.index(name)], scalars[cases.FUNCTIONS.index(name)]):
        nan = np.isnan(want)
        assert np.isnan(got[nan]).all(), f"vm::{name} ({build}): NaN expected at {x[nan]}, got {got[nan]}"
        np.testing.assert_array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32),
                                      err_msg=f"vm::{name} ({build}) at {x[~nan]}: {got[~nan]}")


def test_exp_reaches_the_subnormals(build: str) -> None:
    """e^x for x in [−104, −87.3] is subnormal (the old exp4 clamped it to 1.2e-38): every one is within the bound."""
    x = np.linspace(-104.0, -87.0, 100_001).astype(np.float32)
    runs, _ = cases.evaluate(build, x)
    got = runs[cases.FUNCTIONS.index("exp")]
    want = reference("exp", x)
    assert (got[x < -87.4] < np.float32(2.0**-126)).all() and (got[x < -87.4] > 0).any()
    err = ulp_error(got, want)
    assert err.max() <= _bound("exp", build, cases.documented_bounds()), _worst(err, x, got, want)


@pytest.mark.parametrize("name", cases.ACTIVATIONS)
def test_activation_library_within_its_documented_bound(name: str, build: str, grid: np.ndarray) -> None:
    x = grid[np.abs(grid) <= 120]  # the activations' domain of interest, infinities and NaN apart
    x = np.concatenate([x, np.array([np.inf, -np.inf, np.nan], np.float32)])
    got = cases.evaluate_activations(build, x)[cases.ACTIVATIONS.index(name)]
    want = cases.activation_reference(name, x)
    err = ulp_error(got, want)
    bound = _bound(name, build, cases.documented_activation_bounds())
    assert err.max() <= bound, f"act::{name} ({build}): {_worst(err, x, got, want)}; bound {bound}"
