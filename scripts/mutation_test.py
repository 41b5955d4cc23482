"""Mutation test of the kernel templates: does the test suite notice a single plausible bug?

Each mutant is one textual change to a file under templates/kernels/ (a removed or weakened
barrier, an off-by-one bound, a wrong stride, a dropped write, a rounding-mode change, a bad
alignment test, an inaccurate activation, a value recomputed instead of the stored one, a 16-bit
output rounded toward zero, down or up instead of to nearest even). For each,
a copy of the repository (never this checkout's generated/) gets the change, `opgen generate`
rewrites the copy's generated/, and the tests of the kernels the file feeds run there under the
host emulation's sanitize build in a seeded random order (OPGEN_HOST_SANITIZE=1,
OPGEN_HOST_RANDOM_ORDER), then, if they still pass, in plain order. A mutant is killed when a test
fails. Prints one line per mutant and the kill rate.

    python scripts/mutation_test.py                 # all mutants
    python scripts/mutation_test.py -k barrier      # those whose id contains "barrier"
    python scripts/mutation_test.py --list
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
K = "codegen/templates/kernels/"
ALL_KERNEL_TESTS = ("test_fused_batch_norm.py", "test_kernels_random_order.py", "test_kernels_gpu_sizes.py",
                    "test_gru_block_cell.py", "test_dml_rnn.py", "test_cudnn_rnn.py", "test_activation_library.py",
                    "test_block_helpers.py")
TESTS = {
    K + "_common.cuh": ALL_KERNEL_TESTS,
    K + "_activations.cuh": ("test_activation_library.py", "test_dml_rnn.py", "test_gru_block_cell.py",
                             "test_block_helpers.py", "test_vector_math.py"),
    K + "_vmath.cuh": ("test_vector_math.py", "test_block_helpers.py", "test_norm_ops.py", "test_cudnn_rnn.py"),
    K + "nn/fused_batch_norm.cu": ("test_fused_batch_norm.py", "test_kernels_random_order.py",
                                   "test_kernels_gpu_sizes.py", "test_block_helpers.py"),
    K + "rnn/gru_block_cell.cu": ("test_gru_block_cell.py", "test_kernels_gpu_sizes.py"),
    K + "rnn/dml_rnn.cu": ("test_dml_rnn.py",),
    K + "rnn/cudnn_rnn.cu": ("test_cudnn_rnn.py",),
    K + "nn/bias_add.cu": ("test_bias_add.py",),
    K + "norm/layer_norm.cu": ("test_norm_ops.py",),
    K + "norm/softmax.cu": ("test_norm_ops.py",),
    K + "_vmath.cuh": ("test_vector_math.py", "test_norm_ops.py"),
    K + "_matmul.cuh": ("test_matmul_block.py", "test_cudnn_rnn.py", "test_dml_rnn.py"),
    K + "_loops.cuh": ("test_loops.py", "test_cpu_speed_example.py"),
}


def exact16_tests(file: str) -> tuple[str, ...]:
    """The exact 16-bit output tests (issue 21 item 2) of a kernel file: the RNN ops', the other
    ops' (and the conversions'), or both for the shared helpers."""
    rnn, other = ("test_exact_16bit_rnn.py",), ("test_exact_16bit.py",)
    return rnn if "/rnn/" in file else other if "/nn/" in file or "/norm/" in file else other + rnn


TESTS = {file: (*tests, *exact16_tests(file)) for file, tests in TESTS.items()}
SEED = 20261124


@dataclass(frozen=True)
class Mutant:
    id: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...] = ()  # the test files to run, when not all of TESTS[file]


def m(id: str, file: str, old: str, new: str) -> Mutant:
    return Mutant(id, K + file, old, new)


def toward_zero(convert: str) -> str:
    """C++ that calls like `convert` (the argument list follows) and, when T is a 16-bit type,
    rounds toward zero: the nearest-even result stepped back one ulp where it lies farther from
    zero than the value."""
    return (f"[&](auto v_) {{ T r_ = {convert}(v_); if constexpr (sizeof(T) == 2) {{ "
            "if (fabs(static_cast<double>(opgen::to_float(r_))) > fabs(static_cast<double>(v_))) "
            "r_ = opgen::from_bits<T>(opgen::to_bits(r_) - 1u); } return r_; }")


def stored_toward_zero(id: str, old: str) -> Mutant:
    """CudnnRNN's crnn::store(p, v) at old rounding toward zero when *p is 16-bit; or, where old is a
    crnn::store_run(p, v) (one output's run), each element of the run stored so."""
    lam = ("[&](auto* p_, auto v_) { crnn::store(p_, v_); if constexpr (sizeof(*p_) == 2) { "
           "if (fabs(static_cast<double>(crnn::load(p_))) > fabs(static_cast<double>(v_))) "
           "*p_ = opgen::from_bits<__half>(opgen::to_bits(*p_) - 1u); } }(")
    run_lam = ("[&](auto* r_, const auto& vs_) { for (int q_ = 0; q_ < int(sizeof(vs_) / sizeof(vs_[0])); ++q_) "
               + lam + "r_ + q_, vs_[q_]); }(")
    file = K + "rnn/cudnn_rnn.cu"
    run = "crnn::store_run(" in old
    new = old.replace("crnn::store_run(", run_lam, 1) if run else old.replace("crnn::store(", lam, 1)
    return Mutant(id, file, old, new, exact16_tests(file))


def rounding(id: str, file: str, old: str, convert: str = "opgen::from_float<T>") -> Mutant:
    """The first `convert(` in old (a 16-bit output's conversion) rounding toward zero instead;
    the exact 16-bit test must notice."""
    return Mutant(id, K + file, old, old.replace(convert + "(", toward_zero(convert) + "(", 1), exact16_tests(K + file))


VM = "_vmath.cuh"
C, A, BN, GRU, DML, RNN = ("_common.cuh", "_activations.cuh", "nn/fused_batch_norm.cu", "rnn/gru_block_cell.cu",
                           "rnn/dml_rnn.cu", "rnn/cudnn_rnn.cu")
BIAS, LN, SM, VM = "nn/bias_add.cu", "norm/layer_norm.cu", "norm/softmax.cu", "_vmath.cuh"
MM = "_matmul.cuh"
LOOPS, LOOPS_TESTS = "_loops.cuh", ("test_loops.py", "test_cpu_speed_example.py")
EXACT16 = exact16_tests(K + C)
MUTANTS = [
    # _common.cuh: block_sum2, warp_sum, load4/store4, conversions, for_each_cell
    m("common-block_sum2-barrier1-removed", C, "  __syncthreads();\n  if (warp == 0) {", "  if (warp == 0) {"),
    m("common-block_sum2-barrier2-syncwarp", C, "  __syncthreads();\n  const pair_t<A> total",
      "  __syncwarp();\n  const pair_t<A> total"),
    m("common-block_sum2-trailing-barrier-removed", C, "  __syncthreads();  // partial[0] is overwritten", "  //"),
    m("common-block_sum2-off-by-one", C, "lane < warps ? partial[lane]", "lane <= warps ? partial[lane]"),
    m("common-warp_sum-half-warp", C, "for (int offset = 16; offset > 0;", "for (int offset = 8; offset > 0;"),
    m("common-load4-alignment-8", C, "if (address % 16 == 0) {\n      const float4",
      "if (address % 8 == 0) {\n      const float4"),
    m("common-store4-alignment-8", C, "if (address % 16 == 0) {\n      *reinterpret_cast<float4*>",
      "if (address % 8 == 0) {\n      *reinterpret_cast<float4*>"),
    m("common-load4-16bit-alignment-4", C, "if (address % 8 == 0) {\n      const uint2",
      "if (address % 4 == 0) {\n      const uint2"),
    m("common-store4-dropped-write", C, "for (int j = 0; j < 4; ++j) p[j] = from_float<T>(v[j]);",
      "for (int j = 0; j < 3; ++j) p[j] = from_float<T>(v[j]);"),
    m("common-half-round-toward-zero", C, "return __float2half_rn(v);", "return __float2half_rz(v);"),
    m("common-bf16-round-toward-zero", C, "return __float2bfloat16(v);", "return __float2bfloat16_rz(v);"),
    m("common-for_each_cell-off-by-one-return", C, "if (first >= rows_per_pass * width) return;",
      "if (first > rows_per_pass * width) return;"),
    m("common-for_each_cell-wrong-stride", C, "b < rows; b += rows_per_pass)", "b < rows; b += rows_per_pass + 1)"),
    m("common-for_each_cell-no-run-check", C, "if (width % kRun == 0 && width <= threads * kRun) {",
      "if (width <= threads * kRun) {"),
    m("common-for_each_cell-drops-last", C, "idx < total; idx += threads) {\n      const long long b = idx / width;",
      "idx < total - 1; idx += threads) {\n      const long long b = idx / width;"),
    # _activations.cuh
    m("act-log1p_exp-overflow", A, "v > 0.f ? v + vm::log1p(vm::exp(-v)) : vm::log1p(vm::exp(v))",
      "vm::log1p(vm::exp(v))"),
    # _vmath.cuh: the vector math library (bounds in ulps, exact specials, exact 16-bit runs)
    m("vm-tanh-series-range", VM, "if (a < 0.625f) return", "if (a < 1.25f) return"),
    m("vm-tanh-series-term-dropped", VM, "((((0.002314091892912984f * t", "((((0.f * t"),
    m("vm-tanh-4ulp", VM, "const V e = vm::exp(-2.f * a);", "const V e = vm::exp(-2.f * a) * (1.f + 4.8e-7f);"),
    m("vm-exp-clamped-to-normals", VM, "max(min(x, 89.f), -104.f)", "max(min(x, 89.f), -87.3365447504f)"),
    m("vm-expm1-tiny-x-sign", VM, "return abs(x) < 0x1p-25f ? x : y;", "return y;"),
    m("vm-log1p-uncorrected", VM, "k0 ? V{} : lost", "V{}"),
    m("vm-sigmoid-uncorrected", VM, "  return r - r * (lo / d);\n}", "  return r;\n}"),
    m("vm-erf-fit-term-dropped", VM, "- 0.37612634897232056f) * t", "- 0.3761f) * t"),
    m("vm-half-store-nan-payload", VM, "nan ? vs8{} + 0x7FFF :", "nan ? vs8{} + 0x7E00 :"),
    m("vm-bf16-store-truncates", VM, "(w + 0x7FFFu + ((w >> 16) & 1u)) >> 16", "(w + 0x7FFFu) >> 16"),
    # fused_batch_norm.cu
    m("bn-tile-barrier-removed", BN, "    tile[group][lane] = make_float2(a, b);\n    __syncthreads();",
      "    tile[group][lane] = make_float2(a, b);"),
    m("bn-tile-barrier-syncwarp", BN, "    tile[group][lane] = make_float2(a, b);\n    __syncthreads();",
      "    tile[group][lane] = make_float2(a, b);\n    __syncwarp();"),
    m("bn-tile-sum-off-by-one", BN, "for (int g = 1; g < rows; ++g) {\n    s.x += tile[g][j].x;",
      "for (int g = 1; g < rows - 1; ++g) {\n    s.x += tile[g][j].x;"),
    m("bn-split-end-unclamped", BN, "end = begin + per < m ? begin + per : m;", "end = begin + per;"),
    m("bn-split-not-whole-runs", BN, "  per = (per + kRun - 1) / kRun * kRun;\n", ""),
    m("bn-sliced-sums-dropped-column", BN, "for (int j = 0; j < 32; ++j) sums[threadIdx.x][j]",
      "for (int j = 0; j < 31; ++j) sums[threadIdx.x][j]"),
    m("bn-sliced-first-rowset-twice", BN, "for (long long t = 1; t < rowsets; ++t) {",
      "for (long long t = 2; t < rowsets; ++t) {"),
    m("bn-variance-unclamped", BN, "return Moments{k, mean, err, var < 0.f ? 0.f : var};",
      "return Moments{k, mean, err, var};"),
    m("bn-unbiased-divisor", BN, "static_cast<float>(m > 1 ? m - 1 : 1)", "static_cast<float>(m)"),
    m("bn-running-mean-weight", BN, "(1.f - f) * mean[c] + f * mu", "(1.f - f) * mean[c] + mu"),
    m("bn-element-off-by-one-return", BN, "if (first >= stride) return true;", "if (first > stride) return true;"),
    m("bn-element-wrong-stride", BN, "const long long stride = threads * K / row * row;",
      "const long long stride = threads * K;"),
    m("bn-chunk-channel-wrap", BN, "if (++c == C) c = 0;", "++c;"),
    m("bn-grad-affine-dropped-term", BN, "opgen::to_float(x[idx]) + coeffs[2 * C + c];", "opgen::to_float(x[idx]);"),
    m("bn-grad-finalize-dropped-term", BN, "d = -a * sum_dy * inv_m - b * mu[c];", "d = -a * sum_dy * inv_m;"),
    m("bn-affine-run4-dropped-write", BN, "    store_run<K>(y + idx, v);\n", "    (void)v;\n"),
    m("bn-channel-k-wrap-off-by-one", BN, "if (k >= inner) {", "if (k > inner) {"),
    m("bn-store-stretch-tail-dropped", BN,
      "  for (; j < n; ++j) f.store(idx0 + j, f.value(idx0 + j, c0 + j * kStep));\n", ""),
    m("bn-grad-channels-half-the-lanes", BN, "a = lane_sum(a0 + a1);", "a = lane_sum(a0);"),
    m("bn-grad-channels-row-tail-short", BN, "for (; j < n; ++j) {\n    const float gj",
      "for (; j + 1 < n; ++j) {\n    const float gj"),
    m("bn-tile-sums-width-short", BN,
      "const long long w = W > 0 ? W : width;\n  for (long long r = r0; r < r1; ++r) {\n#pragma",
      "const long long w = W > 0 ? W - 1 : width;\n  for (long long r = r0; r < r1; ++r) {\n#pragma"),
    # the statistics' numerics and partial runs (issue 30 item 12)
    m("bn-two-pass-correction-dropped", BN, "const float var = (s2 - r * err) * inv;", "const float var = s2 * inv;"),
    m("bn-gather-sums-past-run", BN, "  for (int q = 0; q < k; ++q) sum += v[q];",
      "  for (int q = 0; q < (k + 7) / 8 * 8; ++q) sum += v[q];"),
    m("bn-tile-group-sums-past-rows", BN, "  for (int q = 0; q < rows; ++q) {\n    for (int j = 0; j < w; ++j) s[j] +=",
      "  for (int q = 0; q < (rows + 7) / 8 * 8; ++q) {\n    for (int j = 0; j < w; ++j) s[j] +="),
    # _matmul.cuh: the host form's pieces of k, the fused steps' skipped tiles (issue 30 item 12)
    m("matmul-transpose-into-not-transposed", MM, "dst[k * rows + g] = src[g * cols + k];",
      "dst[k * rows + g] = src[k * rows + g];"),
    m("matmul-host-last-piece-never-stored", MM, "const bool last = p0 + kPackDepth >= k;",
      "const bool last = p0 + kPackDepth > k;"),
    m("matmul-tile_any_row-skips-last-row", MM, "i < m && i < (tile_row + 1) * Tiles::BM; ++i)",
      "i < m && i < (tile_row + 1) * Tiles::BM - 1; ++i)"),
    # gru_block_cell.cu
    m("gru-rh-from-unrounded-r", GRU, "rh[o] = opgen::from_float<T>(opgen::to_float(rs) *",
      "rh[o] = opgen::from_float<T>(sigmoid(opgen::to_float(ru_bar[o2]) + opgen::to_float(b_ru[j])) *"),
    m("gru-h-from-unrounded-c", GRU, "const float cv = opgen::to_float(cs), uv",
      "const float cv = tanh_fast(opgen::to_float(c[o]) + opgen::to_float(b_c[j])), uv"),
    m("gru-grad-tanh-derivative", GRU, "(1.f - cv * cv)", "(1.f - cv)"),
    m("gru-grad-x-wrong-row-stride", GRU, "d_x[b * I + j]", "d_x[b * H + j]"),
    # dml_rnn.cu
    m("dml-length-off-by-one", DML, "if (t < len) {", "if (t <= len) {"),
    m("dml-init-ignores-empty", DML, "(hidden_init != nullptr && !empty)", "(hidden_init != nullptr)"),
    m("dml-bias-second-half", DML, "opgen::to_float(bias[d * 2 * H + H + j])", "opgen::to_float(bias[d * 2 * H + j])"),
    # cudnn_rnn.cu
    m("cudnn-length-off-by-one", RNN, "if (t >= lengths[b]) {  // past the end: carry the state",
      "if (t > lengths[b]) {  // past the end: carry the state"),
    m("cudnn-gate-sum-drops-last", RNN, "for (long long q = 0; q < gates; ++q) s +=",
      "for (long long q = 0; q < gates - 1; ++q) s +="),
    m("cudnn-grid-stride", RNN, "i < n; i += stride) f(i);", "i < n; i += stride + 1) f(i);"),
    m("cudnn-bias-copy-shifted", RNN, "buf[to + i] = buf[from + i];", "buf[to + i] = buf[from + i + 1];"),
    # _loops.cuh: the run helpers' tails, masks and NaN tests (examples/cpu_speed's ops use them)
    Mutant("loops-store_runs-tail-drops-last", K + LOOPS, "for (; j < end; ++j) {  // the host form's tail",
           "for (; j + 1 < end; ++j) {  // the host form's tail", LOOPS_TESTS),
    Mutant("loops-conv3x3_row-last-run-not-moved-back", K + LOOPS,
           "const long long x = x0 + R <= w - 1 ? x0 : w - 1 - R;", "const long long x = x0;", LOOPS_TESTS),
    Mutant("loops-conv3x3_row_taps-overlap-counted-twice", K + LOOPS, "q >= skip ? gq[q] * to_acc(p[dx + q]) : A(0)",
           "gq[q] * to_acc(p[dx + q])", LOOPS_TESTS),
    Mutant("loops-conv3x3_row-right-edge-tap", K + LOOPS, "right += k[3 * dy] * to_acc(p[w - 2]);",
           "right += k[3 * dy + 2] * to_acc(p[w - 2]);", LOOPS_TESTS),
    Mutant("loops-run_reaches-misses-nan", K + LOOPS, "const M hit = (x >= t) | (x != x);", "const M hit = (x >= t);",
           LOOPS_TESTS),
    Mutant("loops-run_reaches-strict", K + LOOPS, "const M hit = (x >= t) | (x != x);",
           "const M hit = (x > t) | (x != x);", LOOPS_TESTS),
    Mutant("loops-max_into-drops-nan", K + LOOPS, "m = (m > x) | (m != m) ? m : x;", "m = m > x ? m : x;", LOOPS_TESTS),
    Mutant("loops-scatter-drops-last", K + LOOPS, "for (int q = 0; q < R && q < count; ++q) p[q * stride]",
           "for (int q = 0; q + 1 < R && q < count; ++q) p[q * stride]", LOOPS_TESTS),
    # 16-bit outputs not rounded to nearest even (issue 21 item 2): each conversion site of each
    # kernel that writes float16/bfloat16, and the conversions themselves in both forms
    Mutant("round16-common-host-half-rz", K + C,
           "return __ushort_as_half(static_cast<unsigned short>(float_to_half_bits(v)));", "return __float2half_rz(v);",
           EXACT16),
    Mutant("round16-common-host-bf16-truncated", K + C, "(w + 0x7FFFu + ((w >> 16) & 1u)) >> 16", "w >> 16", EXACT16),
    Mutant("round16-common-gpu-half-ru", K + C, "return __float2half_rn(v);", "return __float2half_ru(v);", EXACT16),
    Mutant("round16-common-gpu-bf16-rd", K + C, "return __float2bfloat16(v);", "return __float2bfloat16_rd(v);",
           EXACT16),
    # the vector conversions of the host form (_vmath.cuh): F16C's (x86-64-v3) and the baseline's
    Mutant("round16-vm-f16c-truncated", K + VM, "__builtin_ia32_vcvtps2ph256(v, 0)",
           "__builtin_ia32_vcvtps2ph256(v, 3)", EXACT16),
    Mutant("round16-vm-half-truncated", K + VM, "detail::store_bits(p, detail::float_to_half(v)); }",
           "detail::store_bits(p, detail::float_to_half(reinterpret_cast<vf>(reinterpret_cast<vu>(v) & 0xFFFFE000u)));"
           " }", EXACT16),
    Mutant("round16-vm-bf16-truncated", K + VM, "? vu{} + 0x7FFFu : (w + 0x7FFFu + ((w >> 16) & 1u)) >> 16",
           "? vu{} + 0x7FFFu : w >> 16", EXACT16),
    rounding("round16-common-store4-vector", C, "q.x = to_bits(from_float<T>(v[0])) | (to_bits(from_float<T>(v[1]))",
             "from_float<T>"),
    rounding("round16-common-store4-scalar", C, "++j) p[j] = from_float<T>(v[j]);", "from_float<T>"),
    rounding("round16-common-row_store-host-run", C, "out[j + q] = from_acc<T>(v[q]);", "from_acc<T>"),
    rounding("round16-common-row_store-host-tail", C, "for (; j < n; ++j) out[j] = from_acc<T>(f(j));", "from_acc<T>"),
    rounding("round16-common-row_store-gpu", C, "j += blockDim.x) out[j] = from_acc<T>(f(j));", "from_acc<T>"),
    rounding("round16-bias-grad-finish", BIAS, "out[c] = opgen::from_acc<T>(t);", "opgen::from_acc<T>"),
    rounding("round16-bn-affine", BN, "y[idx] = opgen::from_float<T>("),
    rounding("round16-bn-grad", BN, "coeffs[2 * C + c];\n  }\n  __device__ __forceinline__ void store(long long idx, "
                                    "float v) const { dx[idx] = opgen::from_float<T>("),
    rounding("round16-bn-grad-inference", BN, "opgen::to_float(dy[idx]);\n  }\n  __device__ __forceinline__ void "
                                              "store(long long idx, float v) const { dx[idx] = opgen::from_float<T>("),
    rounding("round16-layer-norm-dgamma", LN, "dgamma[c] = opgen::from_float<T>("),
    rounding("round16-layer-norm-dbeta", LN, "dbeta[c] = opgen::from_float<T>("),
    rounding("round16-softmax-host-rows", SM, "yr[j] = opgen::from_float<T>("),
    rounding("round16-softmax-columns", SM, "y[base + j * inner] = opgen::from_float<T>("),
    rounding("round16-softmax-grad-columns", SM, "dx[idx] = opgen::from_float<T>("),
    rounding("round16-gru-r", GRU, "const T rs = opgen::from_float<T>("),
    rounding("round16-gru-u", GRU, "u[o] = opgen::from_float<T>("),
    rounding("round16-gru-rh", GRU, "rh[o] = opgen::from_float<T>("),
    rounding("round16-gru-c", GRU, "const T cs = opgen::from_float<T>("),
    rounding("round16-gru-h", GRU, "h[o] = opgen::from_float<T>(uv"),
    rounding("round16-gru-grad-d_c_bar", GRU, "d_c_bar[o] = opgen::from_float<T>("),
    rounding("round16-gru-grad-d_u_bar", GRU, "d_rbu[2 * b * H + H + j] = opgen::from_float<T>("),
    rounding("round16-gru-grad-d_r_bar", GRU, "d_rbu[2 * b * H + j] = opgen::from_float<T>("),
    rounding("round16-gru-grad-d_x", GRU, "d_x[b * I + j] = opgen::from_float<T>("),
    rounding("round16-gru-grad-d_h_prev", GRU, "d_h_prev[o] = opgen::from_float<T>("),
    rounding("round16-dml-step", DML, "const T stored = opgen::from_float<T>(h);"),
    Mutant("round16-cudnn-store-rz", K + RNN, "{ *p = __float2half_rn(v); }", "{ *p = __float2half_rz(v); }",
           exact16_tests(K + RNN)),
    Mutant("round16-cudnn-stored-c-rd", K + RNN, "return __half2float(__float2half_rn(v));",
           "return __half2float(__float2half_rd(v));", exact16_tests(K + RNN)),
    stored_toward_zero("round16-cudnn-lstm-c", "crnn::store_run(c_next + j, c);"),
    stored_toward_zero("round16-cudnn-lstm-h", "crnn::store_run(m_out + j, tc);"),
    stored_toward_zero("round16-cudnn-lstm-o-gate", "crnn::store_run(acts + 3 * H + j, og);"),
    stored_toward_zero("round16-cudnn-gru-h", "crnn::store_run(h_next + j, hv);"),
    stored_toward_zero("round16-cudnn-gru-n", "crnn::store_run(acts + 2 * H + j, n);"),
    stored_toward_zero("round16-cudnn-rnn-h", "crnn::store(h_next + j + q, a[q]);"),
    stored_toward_zero("round16-cudnn-dropout-input", "crnn::store(x + j, (valid ? crnn::load(h + j) : A(0)) * mask);"),
    stored_toward_zero("round16-cudnn-lstm-grad-i", "crnn::store_run(g + j, gi);"),
    stored_toward_zero("round16-cudnn-lstm-grad-dc", "crnn::store_run(dcr + j, dcn);"),
    stored_toward_zero("round16-cudnn-gru-grad-r", "crnn::store_run(gw + j, dr);"),
    stored_toward_zero("round16-cudnn-gru-grad-n-recurrent", "crnn::store_run(gr + 2 * H + j, dnr);"),
    stored_toward_zero("round16-cudnn-gru-grad-dh", "crnn::store_run(dhr + j, dhn);"),
    stored_toward_zero("round16-cudnn-rnn-grad", "crnn::store(g + j + q, out[q]);"),
    stored_toward_zero("round16-cudnn-skip-grad", "crnn::store(dxt + i, s);"),
    stored_toward_zero("round16-cudnn-proj-grad", "crnn::store(dhp_row + j, live ? crnn::load(dh_row + j)"),
    stored_toward_zero("round16-cudnn-grad-layer-below", "crnn::store(dy + i, crnn::load(dxl + i)"),
]


def run_tests(copy: Path, tests: tuple[str, ...], env: dict[str, str], timeout: int) -> tuple[bool, str]:
    paths = [str(copy / "tests" / t) for t in tests if (copy / "tests" / t).exists()]
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *paths]
    try:
        proc = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "timeout (a hang counts as killed)"
    lines = (proc.stdout + proc.stderr).splitlines()
    # the short summary's "FAILED test - message" names the test; else the first error line
    first = next((ln for ln in lines if ln.startswith("FAILED")), "") or next(
        (ln for ln in lines if ln.startswith("E ") and ln[1:].strip()), "")
    return proc.returncode == 0, first.strip()[:200]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-k", default="", help="only mutants whose id contains this")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per test run (default 600)")
    ap.add_argument("--source", type=Path, default=REPO,
                    help="the repository to mutate a copy of (default: this checkout; e.g. a `git archive` export "
                         "of a commit, to leave uncommitted work out)")
    args = ap.parse_args()
    source = args.source.resolve()
    mutants = [mu for mu in MUTANTS if args.k in mu.id]
    if args.list:
        for mu in mutants:
            print(f"{mu.id}  ({mu.file})")
        return 0
    with tempfile.TemporaryDirectory(prefix="opgen-mutants-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", ".mypy_cache",
                                                                  ".ruff_cache"))
        base = dict(os.environ, OPGEN_TEST_DEVICE="cpu", PYTHONPATH=str(copy))
        base.setdefault("OPGEN_CACHE_DIR", str(Path(tmp) / "cache"))
        sanitized = dict(base, OPGEN_HOST_SANITIZE="1", OPGEN_HOST_RANDOM_ORDER=str(SEED))
        plain = {k: v for k, v in base.items() if k not in ("OPGEN_HOST_SANITIZE", "OPGEN_HOST_RANDOM_ORDER")}
        killed, survivors, invalid = 0, [], []
        for mu in mutants:
            start = time.time()
            target = copy / mu.file
            # the copy's text, not the source's: another process editing the source meanwhile must not
            # leave the copy with a newer file among older ones
            original = target.read_text()
            if original.count(mu.old) != 1:
                invalid.append(mu.id)
                print(f"INVALID  {mu.id}: the text to change occurs {original.count(mu.old)} times", flush=True)
                continue
            target.write_text(original.replace(mu.old, mu.new))
            try:
                gen = subprocess.run([sys.executable, "-m", "codegen", "generate"], cwd=copy, env=plain,
                                     capture_output=True, text=True)
                if gen.returncode != 0:
                    print(f"KILLED   {mu.id}: opgen generate failed", flush=True)
                    killed += 1
                    continue
                tests = mu.tests or TESTS[mu.file]
                ok, why = run_tests(copy, tests, sanitized, args.timeout)
                if ok:
                    ok, why = run_tests(copy, tests, plain, args.timeout)
                status = "SURVIVED" if ok else "KILLED  "
                if ok:
                    survivors.append(mu.id)
                else:
                    killed += 1
                print(f"{status} {mu.id} ({time.time() - start:.0f} s) {why}", flush=True)
            finally:
                target.write_text(original)
        subprocess.run([sys.executable, "-m", "codegen", "generate"], cwd=copy, env=plain, capture_output=True)
    total = len(mutants) - len(invalid)
    rate = 100 * killed / max(total, 1)
    print(f"\nkilled {killed}/{total} ({rate:.0f}%); survivors: {', '.join(survivors) or 'none'}")
    return 0 if not survivors and not invalid else 1


if __name__ == "__main__":
    sys.exit(main())
