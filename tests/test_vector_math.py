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

from codegen.vocab import builtin_activations


def _cpu_has(flag: str) -> bool:
    try:
        return flag in Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False


V3 = all(_cpu_has(f) for f in ("avx2", "fma", "f16c", "bmi2", "movbe"))
BUILDS = [pytest.param(b, marks=pytest.mark.skipif(b.startswith("avx2") and not V3,
                                                    reason="this CPU runs no x86-64-v3 code (AVX2, FMA, F16C, ...)"))
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


@pytest.mark.parametrize("form", ["run", "scalar"])
@pytest.mark.parametrize("name", cases.FUNCTIONS)
def test_within_the_documented_bound(name: str, form: str, build: str, grid: np.ndarray, outputs) -> None:
    """The run form (the vector code on the host) and the scalar form (CUDA's names: the C library's
    on the emulation) of each function, every grid point within the documented bound."""
    got = outputs[0 if form == "run" else 1][cases.FUNCTIONS.index(name)]
    want = reference(name, grid)
    err = ulp_error(got, want)
    bound = _bound(name, build, cases.documented_bounds())
    assert err.max() <= bound, f"vm::{name} ({form}, {build}): {_worst(err, grid, got, want)}; bound {bound}"


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


@pytest.mark.parametrize("filler", [np.nan, -np.inf, np.inf, -100.0, 1e30])
def test_a_lanes_result_does_not_depend_on_the_other_lanes(filler: float, build: str) -> None:
    """vm::exp takes a shorter path where every lane of its vector is in [−87, 88] (_vmath.cuh's
    exp_normal; tanh, sigmoid and erf call it): each value gives the same bits beside a lane out of
    that range as beside an in-range one. Every fourth lane (one of each vector of 4 or 8) holds
    `filler` or 0; the other three, values across exp's range and every float near the bounds."""
    values = cases.floats(np.linspace(-105, 90, 60_000), cases.around([-87.0, 88.0], 300), cases.SPECIALS)
    values = np.resize(values, -(-values.size // 3) * 3).reshape(-1, 3)

    def beside(lane: float) -> np.ndarray:
        x = np.concatenate([values, np.full((len(values), 1), lane, np.float32)], axis=1).ravel()
        runs, _ = cases.evaluate(build, x)
        return runs.reshape(len(cases.FUNCTIONS), -1, 4)[:, :, :3].reshape(len(cases.FUNCTIONS), -1).view(np.uint32)

    in_range, out_of_range = beside(0.0), beside(filler)
    for k, name in enumerate(cases.FUNCTIONS):
        differ = np.flatnonzero(in_range[k] != out_of_range[k])
        assert differ.size == 0, (f"vm::{name} ({build}) beside {filler}: {differ.size} values differ, first at x = "
                                  f"{values.ravel()[differ[0]]!r}")


@pytest.mark.parametrize("name", cases.ACTIVATIONS)
def test_activation_library_within_its_documented_bound(name: str, build: str, grid: np.ndarray) -> None:
    x = grid[np.abs(grid) <= 120]  # the activations' domain of interest, infinities and NaN apart
    x = np.concatenate([x, np.array([np.inf, -np.inf, np.nan], np.float32)])
    got = cases.evaluate_activations(build, x)[cases.ACTIVATIONS.index(name)]
    want = cases.activation_reference(name, x)
    err = ulp_error(got, want)
    bound = _bound(name, build, cases.documented_activation_bounds())
    assert err.max() <= bound, f"act::{name} ({build}): {_worst(err, x, got, want)}; bound {bound}"


@pytest.fixture(scope="module")
def activation_grid(grid: np.ndarray) -> np.ndarray:
    x = grid[np.abs(grid) <= 120]
    return np.concatenate([x, np.array([np.inf, -np.inf, np.nan], np.float32)])


@pytest.mark.parametrize("name", cases.ACTIVATIONS)
def test_activation_run_form_within_its_documented_bound(name: str, build: str, activation_grid: np.ndarray) -> None:
    """Activation::run (the vector twins, kLanes at a time, on the host) over runs of 13 values (a
    vector of 8 and a tail of 5, or three of 4 and a tail of 1): the activation's bound everywhere."""
    x = activation_grid
    kind = next(k for k in builtin_activations().kinds if k.name == name)
    got = cases.evaluate_activation_runs(build, x, 13)[0][kind.id]
    want = cases.activation_reference(name, x)
    err = ulp_error(got, want)
    bound = _bound(name, build, cases.documented_activation_bounds())
    assert err.max() <= bound, f"act::{name} run form ({build}): {_worst(err, x, got, want)}; bound {bound}"


#: Values each activation's run form must give exactly (the float32 rounding of the float64 value).
RUN_SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, 1e30, -1e30, 120.0, -120.0, 2.0**-149, -(2.0**-149), 1.0, -1.0,
                         0.5, -3.0, 20.0, -20.0, np.nan], np.float32)


@pytest.mark.parametrize("run_length", cases.RUN_LENGTHS)
def test_activation_runs_at_every_lane_position(run_length: int, build: str) -> None:
    """Every built-in activation's run form, each special value at every lane position of runs of
    1 to 16 values (every tail length behind the vectors): the measured activations within their
    bound and the specials exact; the others (exact arithmetic: x, alpha·x + beta, max, ...) equal
    to the scalar function, bit for bit outside fused multiply-adds, NaN where it gives NaN."""
    x = np.repeat(RUN_SPECIALS, 17)  # 17 consecutive indices: every position in a run of ≤ 17
    runs, scalars = cases.evaluate_activation_runs(build, x, run_length)
    bounds = cases.documented_activation_bounds()
    for kind in builtin_activations().kinds:
        got, scalar = runs[kind.id], scalars[kind.id]
        where = f"act::{kind.name} run form ({build}, runs of {run_length})"
        if kind.name in cases.ACTIVATIONS:
            want = cases.activation_reference(kind.name, x)
            err = ulp_error(got, want)
            assert err.max() <= _bound(kind.name, build, bounds), f"{where}: {_worst(err, x, got, want)}"
            exact = np.isin(x, [0.0, np.inf, -np.inf, 1e30, -1e30, 120.0, -120.0]) | np.isnan(x)
        else:
            want, exact = scalar, np.ones(x.size, bool)
            if build == "avx2 fma":  # a fused a·x + b rounds once: within half an ulp of the scalar's
                err = ulp_error(got, want.astype(np.float64))
                assert err.max() <= 1.0, f"{where}: {_worst(err, x, got, want)}"
                exact = ~np.isfinite(x) | (x == 0)
        want32 = np.asarray(want, np.float32)[exact]
        nan = np.isnan(want32)
        assert np.isnan(got[exact][nan]).all(), f"{where}: NaN expected at {x[exact][nan]}, got {got[exact][nan]}"
        np.testing.assert_array_equal(got[exact][~nan].view(np.uint32), want32[~nan].view(np.uint32),
                                      err_msg=f"{where} at {x[exact][~nan]}")


def _conversion_inputs() -> tuple[np.ndarray, np.ndarray]:
    """Every 16-bit pattern, and floats around every 16-bit value: each half/bfloat16 value, the
    ties between neighbours and the floats next to them, subnormals, overflow, NaN of both signs."""
    every = np.arange(1 << 16, dtype=np.uint32)
    half_values = every.astype(np.uint16).view(np.float16).astype(np.float32)
    bf16_values = (every << 16).view(np.float32)
    finite = np.concatenate([half_values[np.isfinite(half_values)], bf16_values[np.isfinite(bf16_values)]])
    ties = (np.sort(finite)[:-1].astype(np.float64) + np.sort(finite)[1:]) / 2
    near = ties.astype(np.float32)
    x = np.concatenate([finite, near, np.nextafter(near, np.float32(np.inf)), np.nextafter(near, np.float32(-np.inf)),
                        np.array([65504, 65519.996, 65520, -65520, 1e-8, -6e-8, np.inf, -np.inf, np.nan, -np.nan,
                                  3e38, -3.4e38], np.float32)])
    n = max(x.size, 1 << 16)
    n += (-n) % 8
    bits = np.resize(every.astype(np.uint16), n)
    return bits, np.resize(x, n)


@pytest.mark.parametrize("kind", ["half", "bf16"])
def test_run_conversions_match_the_scalar_ones_bit_for_bit(kind: str, build: str) -> None:
    """vm::load/vm::store (16-bit runs in vector registers; F16C in the AVX2 build) give exactly
    opgen::to_float/from_float's values: every 16-bit pattern loaded, every tie and neighbour stored."""
    if build == "gpu form":
        pytest.skip("vm::load/vm::store are the host form's (the GPU form has no vector registers)")
    bits, x = _conversion_inputs()
    out = cases.convert(build, kind, bits, x)
    np.testing.assert_array_equal(out["loaded"].view(np.uint32), out["loaded_ref"].view(np.uint32),
                                  err_msg=f"vm::load({kind})")
    np.testing.assert_array_equal(out["stored"], out["stored_ref"], err_msg=f"vm::store({kind})")


def test_emulated_float2half_rn_matches_its_exact_rounding(build: str) -> None:
    """cuda_fp16.h's __float2half_rn (F16C on x86-64-v3, bit arithmetic on the baseline) gives the
    bits of the emulation's exact rounding through double (opgen_round_small_float) for every tie,
    neighbour, subnormal, overflow and NaN."""
    _, x = _conversion_inputs()
    fast, exact = cases.half_rn(build, x)
    np.testing.assert_array_equal(fast, exact, err_msg=f"__float2half_rn ({build})")
