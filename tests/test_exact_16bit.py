"""Exact 16-bit outputs (issue 21 item 2): every float16/bfloat16 value a kernel writes is its own
float arithmetic's result rounded once, to nearest even, checked bit for bit, so a conversion
with another rounding mode (toward zero, down, up, truncation) fails.

* The conversions: _common.cuh's helpers (opgen::from_float/to_float) in the host form and in the
  GPU form (OPGEN_GPU_FORM: the CUDA intrinsics, from the emulation's cuda_fp16.h/cuda_bf16.h),
  and those intrinsics themselves, against NumPy over every 16-bit value, every tie between two
  neighbours and the float32 values either side of it, and random float32 bit patterns.
* The ops of nn/ and norm/, both 16-bit types: each 16-bit output is the round to nearest even
  of the float32 values the op's float32 specialization computes from the same (upcast) inputs,
  the two specializations doing the same float arithmetic. (The RNN ops:
  tests/test_exact_16bit_rnn.py.)
* scripts/mutation_test.py's round16-* mutants plant another rounding mode at each conversion
  site; the conversion ones are planted here too, and must fail the check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exact16 import SCOPES, assert_bits, check_like_float32, make_scope
from reference.rounding import (
    BF16,
    CANONICAL_NAN,
    RNE,
    STORAGE,
    conversion_inputs,
    directed_bits,
    f32_bits,
    rne_bf16_bits,
    rne_half_bits,
)

from codegen.runtime import host

REPO = Path(__file__).resolve().parents[1]


pytestmark = pytest.mark.usefixtures("opgen_poison")  # (opgen's pytest plugin) an element no kernel writes is NaN


@pytest.fixture(params=SCOPES)
def scope(request: pytest.FixtureRequest) -> Any:
    return make_scope(request.param)


def test_the_references_round_as_numpy_and_ml_dtypes() -> None:
    """The references themselves: RNE agrees with ml_dtypes' bfloat16 cast (outside NaN), and the
    directed modes bracket x and are one step from nearest-even or equal to it."""
    x = conversion_inputs("bfloat16")
    ok = ~np.isnan(x)
    np.testing.assert_array_equal(rne_bf16_bits(x)[ok], x[ok].astype(BF16).view(np.uint16))
    for dtype in ("float16", "bfloat16"):
        x = conversion_inputs(dtype)
        x = x[np.isfinite(x)]
        lo = directed_bits(x, dtype, "rd").view(STORAGE[dtype]).astype(np.float64)
        hi = directed_bits(x, dtype, "ru").view(STORAGE[dtype]).astype(np.float64)
        assert np.all(lo <= x) and np.all(hi >= x)
        exact = rne_half_bits(x) if dtype == "float16" else rne_bf16_bits(x)
        exact_value = exact.view(STORAGE[dtype]).astype(np.float64)
        assert np.all((lo == x) == (hi == x)) and np.all((exact_value == lo) | (exact_value == hi))


# ------------------------------------------------------------------ the conversions --

# (name, input type, output type, expression of v): one kernel each, y[i] = expression of x[i]
CONVERSIONS = [
    ("helper_half", "float", "unsigned short", "__half_as_ushort(opgen::from_float<__half>(v))"),
    ("helper_bf16", "float", "unsigned short", "__bfloat16_as_ushort(opgen::from_float<__nv_bfloat16>(v))"),
    ("helper_from_half", "unsigned short", "float", "opgen::to_float(__ushort_as_half(v))"),
    ("helper_from_bf16", "unsigned short", "float", "opgen::to_float(__ushort_as_bfloat16(v))"),
    ("half_rn", "float", "unsigned short", "__half_as_ushort(__float2half_rn(v))"),
    ("half_default", "float", "unsigned short", "__half_as_ushort(__float2half(v))"),
    ("half_constructor", "float", "unsigned short", "__half_as_ushort(__half(v))"),
    ("half_rz", "float", "unsigned short", "__half_as_ushort(__float2half_rz(v))"),
    ("half_rd", "float", "unsigned short", "__half_as_ushort(__float2half_rd(v))"),
    ("half_ru", "float", "unsigned short", "__half_as_ushort(__float2half_ru(v))"),
    ("bf16_rn", "float", "unsigned short", "__bfloat16_as_ushort(__float2bfloat16_rn(v))"),
    ("bf16_default", "float", "unsigned short", "__bfloat16_as_ushort(__float2bfloat16(v))"),
    ("bf16_constructor", "float", "unsigned short", "__bfloat16_as_ushort(__nv_bfloat16(v))"),
    ("bf16_rz", "float", "unsigned short", "__bfloat16_as_ushort(__float2bfloat16_rz(v))"),
    ("bf16_rd", "float", "unsigned short", "__bfloat16_as_ushort(__float2bfloat16_rd(v))"),
    ("bf16_ru", "float", "unsigned short", "__bfloat16_as_ushort(__float2bfloat16_ru(v))"),
    ("from_half", "unsigned short", "float", "__half2float(__ushort_as_half(v))"),
    ("from_bf16", "unsigned short", "float", "__bfloat162float(__ushort_as_bfloat16(v))"),
]
CONVERSION_KERNELS = "".join(
    f'extern "C" __global__ void {name}(const {a}* x, {b}* y, int n) {{\n'
    f"  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {{\n"
    f"    const {a} v = x[i];\n    y[i] = {expr};\n  }}\n}}\n"
    for name, a, b, expr in CONVERSIONS)

# opgen::store4 (its 8-byte vector store, or four scalar ones at an address it cannot use) of four
# floats per thread
CONVERSION_KERNELS += "".join(
    f'extern "C" __global__ void store4_{name}(const float* x, {t}* y, int n4) {{\n'
    "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n4) {\n    const float v[4] = {x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]};\n"
    "    opgen::store4(y + 4 * i, v);\n  }\n}\n"
    for name, t in (("half", "__half"), ("bf16", "__nv_bfloat16")))

FORMS = {"host": (), "gpu": ("-DOPGEN_GPU_FORM=1",)}
# (form, vector ISA of the build): the emulated intrinsics have an F16C path (x86-64-v3) and a
# baseline one; None: the ISA this CPU runs
BUILDS = {"host": ("host", None), "gpu": ("gpu", None), "gpu-baseline-isa": ("gpu", "baseline")}


@pytest.fixture(scope="module", params=list(BUILDS))
def conversions(request: pytest.FixtureRequest) -> host.HostModule:
    """The conversion kernels over _common.cuh, in the host form or the GPU form."""
    common = (REPO / "codegen" / "templates" / "kernels" / "_common.cuh").read_text()
    source = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + common + CONVERSION_KERNELS
    form, isa = BUILDS[request.param]
    return host.load_module(source, FORMS[form], name_hint=f"exact_16bit_{request.param}", isa=isa)


def _map(mod: host.HostModule, name: str, x: np.ndarray, out_dtype: Any) -> np.ndarray:
    x = np.ascontiguousarray(x)
    y = np.zeros(x.size, out_dtype)
    mod.get_function(name)((16,), (64,), (x, y, np.int32(x.size)))
    return y


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_from_float_rounds_to_nearest_even(conversions: host.HostModule, dtype: str) -> None:
    x = conversion_inputs(dtype)
    name = "helper_half" if dtype == "float16" else "helper_bf16"
    assert_bits(_map(conversions, name, x, np.uint16), RNE[dtype](x), x, f"opgen::from_float<{dtype}>")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("offset", [0, 1, 2, 3])
def test_store4_rounds_to_nearest_even(conversions: host.HostModule, dtype: str, offset: int) -> None:
    """opgen::store4 at every alignment of the address (offset 0: the vector store)."""
    x = conversion_inputs(dtype)
    x = x[: x.size // 4 * 4]
    buffer = np.zeros(x.size + 4, np.uint16)
    y = buffer[offset: offset + x.size]
    n4 = x.size // 4
    conversions.get_function(f"store4_{'half' if dtype == 'float16' else 'bf16'}")(((n4 + 255) // 256,), (256,),
                                                                                 (x, y, np.int32(n4)))
    assert_bits(y, RNE[dtype](x), x, f"opgen::store4<{dtype}> at offset {offset}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_to_float_is_exact_for_every_16bit_value(conversions: host.HostModule, dtype: str) -> None:
    bits = np.arange(1 << 16, dtype=np.uint16)
    values = bits.view(STORAGE[dtype]).astype(np.float32)
    for name in (f"helper_from_{'half' if dtype == 'float16' else 'bf16'}",
                 f"from_{'half' if dtype == 'float16' else 'bf16'}"):
        got = _map(conversions, name, bits, np.float32)
        nan = np.isnan(values)
        assert np.array_equal(np.isnan(got), nan), name
        assert_bits(f32_bits(got)[~nan], f32_bits(values)[~nan], values[~nan], name)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_the_emulated_intrinsics_round_as_cuda(conversions: host.HostModule, dtype: str) -> None:
    """cuda_fp16.h / cuda_bf16.h: _rn, the default conversion and the constructor round to nearest
    even; _rz, _rd and _ru round toward zero, down and up (overflow to the largest finite value
    where the direction says so; NaN to 0x7FFF)."""
    x = conversion_inputs(dtype)
    prefix = "half" if dtype == "float16" else "bf16"
    for kind in ("rn", "default", "constructor"):
        assert_bits(_map(conversions, f"{prefix}_{kind}", x, np.uint16), RNE[dtype](x), x, f"{prefix}_{kind}")
    nan = np.isnan(x)
    for mode in ("rz", "rd", "ru"):
        got = _map(conversions, f"{prefix}_{mode}", x, np.uint16)
        want = directed_bits(x, dtype, mode)
        want[nan] = CANONICAL_NAN
        assert_bits(got, want, x, f"{prefix}_{mode}")


def _conversion_mutants() -> list[Any]:
    """scripts/mutation_test.py's planted rounding modes in _common.cuh's conversions."""
    import runpy

    mutants = runpy.run_path(str(REPO / "scripts" / "mutation_test.py"))["MUTANTS"]
    return [mu for mu in mutants if mu.id.startswith("round16-common-host") or mu.id.startswith("round16-common-gpu")]


@pytest.mark.parametrize("mutant", _conversion_mutants(), ids=lambda mu: mu.id)
def test_a_planted_rounding_mode_fails_the_check(mutant: Any) -> None:
    """The conversion check tells a conversion with another rounding mode apart (the mutation
    test's own mutants, planted in a copy of _common.cuh: both forms, both 16-bit types)."""
    common = (REPO / "codegen" / "templates" / "kernels" / "_common.cuh").read_text()
    assert common.count(mutant.old) == 1, f"{mutant.id}: its text is not in _common.cuh once"
    source = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + common.replace(mutant.old, mutant.new)
    form = "host" if "-host-" in mutant.id else "gpu"
    mod = host.load_module(source + CONVERSION_KERNELS, FORMS[form], name_hint=f"exact_16bit_{mutant.id}")
    dtype = "float16" if "-half-" in mutant.id else "bfloat16"
    x = conversion_inputs(dtype)
    got = _map(mod, "helper_half" if dtype == "float16" else "helper_bf16", x, np.uint16)
    with pytest.raises(AssertionError, match="values differ"):
        assert_bits(got, RNE[dtype](x), x, mutant.id)


# ------------------------------------------------------------------ the ops --



def _normal(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, loc: float = 0.0) -> np.ndarray:
    return (rng.standard_normal(shape) * 2 + loc).astype(STORAGE[dtype])


DTYPES_16 = ["float16", "bfloat16"]


@pytest.mark.parametrize("dtype", DTYPES_16)
def test_bias_add(scope: Any, dtype: str) -> None:
    from generated import bias_add

    rng = np.random.default_rng(1)
    # NHWC rows of C = 37 (runs of 8 and a tail); NCHW rows of 5·7 spatial elements per channel
    for shape, fmt in [((3, 5, 37), "NHWC"), ((70, 37), "NHWC"), ((4, 6, 5, 7), "NCHW"), ((9, 6), "NCHW")]:
        c = shape[-1] if fmt == "NHWC" else shape[1]
        x, b = _normal(rng, shape, dtype), _normal(rng, (c,), dtype)
        check_like_float32(bias_add, (x, b), {"data_format": fmt}, ["output"], dtype, scope)


@pytest.mark.parametrize("dtype", DTYPES_16)
def test_bias_add_grad(scope: Any, dtype: str) -> None:
    from generated import bias_add_grad

    rng = np.random.default_rng(2)
    # the column sums ([outer, C]: NHWC, and NCHW of rank 2) and the channel sums (NCHW, spatial)
    for shape, fmt in [((40, 3, 37), "NHWC"), ((70, 13), "NCHW"), ((33, 6, 5, 7), "NCHW")]:
        dy = _normal(rng, shape, dtype)
        check_like_float32(bias_add_grad, (dy,), {"data_format": fmt}, ["output"], dtype, scope)


@pytest.mark.parametrize("dtype", DTYPES_16)
def test_layer_norm(scope: Any, dtype: str) -> None:
    from generated import layer_norm

    rng = np.random.default_rng(3)
    for shape in [(70, 37), (3, 1000)]:
        x = _normal(rng, shape, dtype, loc=3.0)
        gamma, beta = _normal(rng, shape[-1:], dtype), _normal(rng, shape[-1:], dtype)
        for g, b in [(gamma, beta), (None, None), (gamma, None), (None, beta)]:
            check_like_float32(layer_norm, (x, g, b), {"epsilon": 1e-3}, ["y"], dtype, scope)


@pytest.mark.parametrize("dtype", DTYPES_16)
def test_layer_norm_grad(scope: Any, dtype: str) -> None:
    from generated import layer_norm_grad

    rng = np.random.default_rng(4)
    for shape in [(70, 37), (300, 12)]:
        dy, x = _normal(rng, shape, dtype), _normal(rng, shape, dtype, loc=1.0)
        mean = x.astype(np.float32).mean(axis=-1)
        rstd = (1 / np.sqrt(x.astype(np.float32).var(axis=-1) + 1e-3)).astype(np.float32)
        for g in [_normal(rng, shape[-1:], dtype), None]:
            check_like_float32(layer_norm_grad, (dy, x, mean, rstd, g), {}, ["dx", "dgamma", "dbeta"], dtype, scope)


@pytest.mark.parametrize("dtype", DTYPES_16)
def test_softmax(scope: Any, dtype: str) -> None:
    from generated import softmax

    rng = np.random.default_rng(5)
    for shape, axis in [((70, 37), -1), ((3, 1000), -1), ((4, 9, 6), 1)]:
        check_like_float32(softmax, (_normal(rng, shape, dtype),), {"axis": axis}, ["y"], dtype, scope)


@pytest.mark.parametrize("dtype", DTYPES_16)
def test_softmax_grad(scope: Any, dtype: str) -> None:
    from generated import softmax, softmax_grad

    rng = np.random.default_rng(6)
    for shape, axis in [((70, 37), -1), ((3, 1000), -1), ((4, 9, 6), 1)]:
        y = softmax(_normal(rng, shape, dtype), axis=axis, scope="cpu").y
        check_like_float32(softmax_grad, (y, _normal(rng, shape, dtype)), {"axis": axis}, ["dx"], dtype, scope)


# channels-last and channels-first, rows of a channel shorter and longer than a 256-element chunk
BN_CASES = [((2, 6, 7, 37), "NHWC"), ((3, 5, 20, 20), "NCHW"), ((2, 3, 2, 3, 5), "NCDHW"),
            ((2, 16, 5, 7), "NCHW"),  # 16 channels: the cpu plan's gradient takes a block per channel
            ((2, 12, 16, 33), "NHWC")]  # m = 384: the GPU plan's gradient in one launch (grad_once) at its limit


def _bn_channels(rng: np.random.Generator, shape: tuple[int, ...], fmt: str) -> tuple[int, np.ndarray, np.ndarray]:
    """The channel count, and a population mean and variance per channel (float32)."""
    c = shape[-1] if fmt.endswith("C") else shape[1]
    return c, rng.standard_normal(c).astype(np.float32), rng.uniform(0.5, 2, c).astype(np.float32)


@pytest.mark.parametrize("dtype", DTYPES_16)
@pytest.mark.parametrize("training", [True, False])
def test_fused_batch_norm(scope: Any, dtype: str, training: bool) -> None:
    from generated import fused_batch_norm_v3

    rng = np.random.default_rng(7)
    for shape, fmt in BN_CASES:
        c, mean, var = _bn_channels(rng, shape, fmt)
        x = _normal(rng, shape, dtype, loc=2.0)
        scale, offset = rng.standard_normal((2, c)).astype(np.float32)
        check_like_float32(fused_batch_norm_v3, (x, scale, offset, mean, var),
                           {"data_format": fmt, "is_training": training, "epsilon": 1e-3}, ["y"], dtype, scope)


@pytest.mark.parametrize("dtype", DTYPES_16)
@pytest.mark.parametrize("training", [True, False])
def test_fused_batch_norm_grad(scope: Any, dtype: str, training: bool) -> None:
    from generated import fused_batch_norm_grad_v3

    rng = np.random.default_rng(8)
    for shape, fmt in BN_CASES:
        c, mean, var = _bn_channels(rng, shape, fmt)
        dy, x = _normal(rng, shape, dtype), _normal(rng, shape, dtype, loc=1.0)
        scale = rng.standard_normal(c).astype(np.float32)
        check_like_float32(fused_batch_norm_grad_v3, (dy, x, scale, mean, var, np.zeros(0, np.float32)),
                           {"data_format": fmt, "is_training": training, "epsilon": 1e-3}, ["x_backprop"], dtype,
                           scope)
