"""Direct contract tests of the shared device helpers (templates/kernels/_common.cuh and the
rendered activation library), run through the host emulation's sanitize build in several random
orders: what the kernels rely on, checked exactly rather than through a kernel's loose tolerance.

* block_sum2: every thread gets both totals, and a second call right after the first is safe.
* from_float<__half/__nv_bfloat16>: round to nearest even (bitwise equal to NumPy / ml_dtypes).
* load4/store4: the same values at every alignment of the address (vector path or scalar).
* tanh_fast, sigmoid, softplus: within a few float ulp of the float64 function.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codegen.runtime import host
from codegen.testing import host_random_order

REPO = Path(__file__).resolve().parents[1]


def _activation_library() -> str:
    text = (REPO / "generated" / "rnn" / "dml_rnn.cu").read_text()
    start = text.index("#ifndef OPGEN_ACTIVATIONS_CUH")
    end = text.index("#endif  // OPGEN_ACTIVATIONS_CUH")
    return text[start:end] + "#endif\n"


KERNELS = r"""
extern "C" __global__ void sum2_twice(float* out) {
  const float a = threadIdx.x + 1.0f, b = 2.0f * (threadIdx.x + 1.0f);
  const float2 first = opgen::block_sum2(a, b);
  const float2 second = opgen::block_sum2(b, -a);  // right away: the first call's partials are reused
  float* o = out + 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  o[0] = first.x, o[1] = first.y, o[2] = second.x, o[3] = second.y;
}
extern "C" __global__ void to_half(const float* x, __half* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = opgen::from_float<__half>(x[i]);
}
extern "C" __global__ void to_bf16(const float* x, __nv_bfloat16* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = opgen::from_float<__nv_bfloat16>(x[i]);
}
extern "C" __global__ void copy4_f32(const float* x, float* y, int n4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float v[4];
    opgen::load4(x + 4 * i, v);
    opgen::store4(y + 4 * i, v);
  }
}
extern "C" __global__ void copy4_f16(const __half* x, __half* y, int n4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float v[4];
    opgen::load4(x + 4 * i, v);
    opgen::store4(y + 4 * i, v);
  }
}
extern "C" __global__ void activations(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[3 * i] = opgen::act::tanh_fast(x[i]);
    out[3 * i + 1] = opgen::act::sigmoid(x[i]);
    out[3 * i + 2] = opgen::act::log1p_exp(x[i]);
  }
}
"""


@pytest.fixture(scope="module")
def mod() -> host.HostModule:
    common = (REPO / "codegen" / "templates" / "kernels" / "_common.cuh").read_text()
    source = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + _activation_library() + common + KERNELS
    return host.load_module(source, name_hint="block_helpers", sanitize=True)


@pytest.mark.parametrize("threads", [32, 64, 96, 256, 1024])
@pytest.mark.parametrize("seed", [None, 1, 2, 3])
def test_block_sum2_gives_every_thread_both_totals_twice(mod, threads: int, seed: int | None) -> None:
    out = np.full((2, threads, 4), np.nan, np.float32)
    with host_random_order(seed):
        mod.get_function("sum2_twice")((2,), (threads,), (out,))
    s = threads * (threads + 1) / 2
    np.testing.assert_array_equal(out, np.broadcast_to(np.float32([s, 2 * s, 2 * s, -s]), out.shape))


def _floats(n: int) -> np.ndarray:
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(n) * 10.0 ** rng.uniform(-9, 6, n)).astype(np.float32)
    # exact halfway cases of both formats, and their neighbours, must round to even
    halves = np.float32(1.0) + np.float32(2.0 ** -11) * np.arange(-8, 9, dtype=np.float32)
    bf_halves = np.float32(1.0) + np.float32(2.0 ** -8) * np.arange(-8, 9, dtype=np.float32)
    x[:34] = np.concatenate([halves, bf_halves])
    x[34:40] = [65504.0, 65520.0, -65520.0, 1e-8, np.inf, np.nan]
    return x


def test_16bit_outputs_are_round_to_nearest_even(mod) -> None:
    x = _floats(20_000)
    n = np.int32(x.size)
    half = np.zeros(x.size, np.float16)
    mod.get_function("to_half")((8,), (256,), (x, half, n))
    with np.errstate(over="ignore"):  # the values above 65504 are meant to overflow
        expect = x.astype(np.float16)
    np.testing.assert_array_equal(half.view(np.uint16)[~np.isnan(x)], expect.view(np.uint16)[~np.isnan(x)])
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bits = np.zeros(x.size, np.uint16)
    mod.get_function("to_bf16")((8,), (256,), (x, bits, n))
    want = x.astype(ml_dtypes.bfloat16).view(np.uint16)
    np.testing.assert_array_equal(bits[~np.isnan(x)], want[~np.isnan(x)])


@pytest.mark.parametrize("offset", [0, 1, 2, 3])
def test_load4_store4_at_every_alignment(mod, offset: int) -> None:
    base = np.arange(4 * 64 + 8, dtype=np.float32)
    x, y = base[offset:offset + 256], np.zeros(4 * 64 + 8, np.float32)[offset:offset + 256]
    mod.get_function("copy4_f32")((1,), (64,), (x, y, np.int32(64)))  # sanitized: no misaligned float4
    np.testing.assert_array_equal(y, x)
    h = base.astype(np.float16)
    hx, hy = h[offset:offset + 256], np.zeros(4 * 64 + 8, np.float16)[offset:offset + 256]
    mod.get_function("copy4_f16")((1,), (64,), (hx, hy, np.int32(64)))
    np.testing.assert_array_equal(hy, hx)


def _ulp_error(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got − want| in units of the float32 ulp at want."""
    spacing = np.spacing(np.abs(want.astype(np.float32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing


def test_activations_are_accurate_in_ulp(mod) -> None:
    x = np.concatenate([np.linspace(-12, 12, 48_001), np.linspace(-0.3, 0.3, 6_001),
                        np.float32([1e-30, -1e-30, 0.0, 40.0, -40.0, 100.0])]).astype(np.float32)
    out = np.zeros((x.size, 3), np.float32)
    mod.get_function("activations")(((x.size + 255) // 256,), (256,), (x, out, np.int32(x.size)))
    xd = x.astype(np.float64)
    tanh_ulp = _ulp_error(out[:, 0], np.tanh(xd))
    sigmoid_ulp = _ulp_error(out[:, 1], 1 / (1 + np.exp(-xd)))
    softplus_ulp = _ulp_error(out[:, 2], np.logaddexp(0, xd))
    assert tanh_ulp.max() <= 3, f"tanh_fast: {tanh_ulp.max():.1f} ulp at x = {x[tanh_ulp.argmax()]}"
    assert sigmoid_ulp.max() <= 3, f"sigmoid: {sigmoid_ulp.max():.1f} ulp at x = {x[sigmoid_ulp.argmax()]}"
    assert softplus_ulp.max() <= 3, f"log1p_exp: {softplus_ulp.max():.1f} ulp at x = {x[softplus_ulp.argmax()]}"
