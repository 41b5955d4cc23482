"""Issue 21 item 8: `opgen generate` refuses device code that indexes or counts with a 32-bit
integer over a size that can exceed 2**31 − 1 (codegen/index_width.py for the bodies,
codegen/kernel_check.py for a size passed to a 32-bit parameter), at the kernel template's
file:line, with nothing written; bounded values say why on their line and pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_kernel_check import GOOD, SIGNATURE, generate, refused
from test_spec_errors import OP, line_of

from codegen import index_width
from codegen.runtime.cxx import tokenize

KERNEL_FILE = "templates/kernels/demo/scale_add.cu"
BODY = "  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n" \
       "  if (i < N * C) y[i] = opgen::from_float<T>(alpha * opgen::to_float(x[i]));\n"


def kernel(body: str) -> str:
    assert BODY in GOOD
    return GOOD.replace(BODY, body)


def refused_at(tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, needle: str) -> str:
    """The message of a generate refused at the kernel line holding `needle`; nothing written."""
    status, err = generate(tmp_path, source, capsys=capsys)
    assert status == 2, err
    assert not (tmp_path / "out").exists()
    prefix = f"opgen: error: {KERNEL_FILE}:{line_of(source, needle)}: op {OP}: "
    assert err.startswith(prefix), err
    assert "opgen: nothing was written" in err
    message = err.splitlines()[0][len(prefix):]
    assert message.endswith("a size can exceed 2**31 - 1, so index and count with long long (or say why the "
                            "value fits on its line: `// int32 ok: <why>`)"), message
    return message


PLANTED = {
    "initialised": ("  const int n = N * C;\n  for (int i = threadIdx.x; i < 4; i += 1) y[i] = x[i];\n  (void)n;\n",
                    "const int n = N * C", "the 32-bit int n is initialised from a 64-bit value: `N * C`"),
    "loop bound": ("  for (int i = threadIdx.x; i < N * C; i += blockDim.x) y[i] = x[i];\n",
                   "for (int i", "the 32-bit loop counter i is compared against a 64-bit bound: `i < N * C`"),
    "static_cast": ("  const unsigned k = threadIdx.x;\n  y[k] = x[static_cast<unsigned>(N) - 1];\n",
                    "static_cast<unsigned>(N)",
                    "a cast to a 32-bit integer of a 64-bit value: `static_cast<unsigned>(N)`"),
    "C cast": ("  y[0] = x[(int)C - 1];\n", "(int)C", "a cast to a 32-bit integer of a 64-bit value: `(int)C`"),
    "assigned": ("  int k = 0;\n  k += N;\n  y[k] = x[0];\n", "k += N", "the 32-bit variable k is assigned a 64-bit "
                 "value: `k += N`"),
    "auto": ("  const auto total = N * C;\n  const int last = total - 1;\n  y[last] = x[0];\n", "const int last",
             "the 32-bit int last is initialised from a 64-bit value: `total - 1`"),
    "grid product": ("  const long long i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < N * C) y[i] = x[i];\n",
                     "blockIdx.x * blockDim.x", "`blockIdx.x * blockDim.x` is an unsigned 32-bit product"),
    "lambda parameter": ("  auto f = [&](long long j) { const int q = j; y[q] = x[q]; };\n  f(N);\n",
                         "const int q = j", "the 32-bit int q is initialised from a 64-bit value: `j`"),
}


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_planted_32_bit_indexing_is_refused_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        case: str) -> None:
    body, needle, message = PLANTED[case]
    assert message in refused_at(tmp_path, capsys, kernel(body), needle)


ACCEPTED = {
    "widened grid index": "  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n"
                          "  if (i < N * C) y[i] = x[i];\n",
    "lane arithmetic": "  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;\n"
                       "  for (int q = 0; q < 4; ++q) y[lane * warps + q] = x[q];\n",
    "64-bit counter": "  for (long long i = threadIdx.x; i < N * C; i += blockDim.x) y[i] = x[i];\n",
    "said why": "  const int rows = N < 8 ? static_cast<int>(N) : 8;  // int32 ok: at most 8\n  y[rows] = x[0];\n",
    "a 32-bit name shadowed": "  for (int i = 0; i < 2; ++i) {\n    const long long n = N * C;\n"
                              "    y[n - 1] = x[i];\n  }\n",
    "members and calls": "  struct { int n; } s{3};\n  const int k = s.n;\n  y[k] = x[min(k, 2)];\n",
}


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_bounded_32_bit_arithmetic_generates(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    status, err = generate(tmp_path, kernel(ACCEPTED[case]), capsys=capsys)
    assert status == 0, err


def test_a_size_passed_to_a_32_bit_parameter_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = GOOD.replace(SIGNATURE, SIGNATURE.replace("long long N,", "int N,"))
    message = refused(tmp_path, capsys, source)
    assert "argument 3, dim N (long long N), for parameter `int N`: a 32-bit int parameter given dim N, a long " \
           "long that can exceed 2**31 - 1: declare it long long (or bound the attr with max:)" in message


def test_findings_name_each_line_once_in_order() -> None:
    text = "__device__ void k(long long n) {\n  int a = n;\n  int b = 0;\n  b = n;\n}\n"
    found = index_width.scan(text)
    assert [(f.line, f.message.split(":")[0]) for f in found] == [
        (2, "the 32-bit int a is initialised from a 64-bit value"),
        (4, "the 32-bit variable b is assigned a 64-bit value")]


def test_show_spaces_source_as_written() -> None:
    assert index_width._show(tokenize("static_cast<int>(r1 - r) + a[i]")) == "static_cast<int>(r1 - r) + a[i]"


# -- issue 30 items 8 and 9: values, not spellings ---------------------------------------------------
# Correct idioms the check refused before (casts of bit patterns, words of an index, a sibling loop's
# counter, shadowing, lambdas): each a device function whose 64-bit parameters are all sources.
IDIOMS = {
    "double split for warp shuffles": """
__device__ double shfl_down(double v, int delta) {
  const long long b = __double_as_longlong(v);
  int lo = static_cast<int>(b & 0xffffffffll);
  int hi = static_cast<int>(b >> 32);
  lo = __shfl_down_sync(0xffffffffu, lo, delta);
  hi = __shfl_down_sync(0xffffffffu, hi, delta);
  return __longlong_as_double((static_cast<long long>(hi) << 32) | static_cast<unsigned>(lo));
}""",
    "packed 16-bit pairs": """
__device__ unsigned short packed_pair(const __half* x, long long i) {
  const unsigned short a = __half_as_ushort(x[i]), b = __half_as_ushort(x[i + 1]);
  const unsigned packed = (static_cast<unsigned>(b) << 16) | a;
  const unsigned short lo = static_cast<unsigned short>(packed & 0xffffu);
  const unsigned short hi = static_cast<unsigned short>(packed >> 16);
  return lo ^ hi;
}""",
    "hash of a 64-bit index split into words": """
__device__ unsigned hash_index(long long i, unsigned long long seed) {
  const unsigned lo = static_cast<unsigned>(i & 0xffffffffll);
  const unsigned hi = static_cast<unsigned>(i >> 32);
  unsigned h = lo * 0x9E3779B1u ^ hi;
  h ^= static_cast<unsigned>(seed & 0xffffffffull) + static_cast<unsigned>(seed >> 32);
  const int top = static_cast<int>(i >> 32);
  return h + top;
}""",
    "counter-based RNG": """
__device__ float uniform(unsigned long long seed, long long offset, long long i) {
  const unsigned long long c = static_cast<unsigned long long>(offset) + i;
  unsigned x = static_cast<unsigned>(c & 0xffffffffull) ^ static_cast<unsigned>(seed & 0xffffffffull);
  unsigned y = static_cast<unsigned>(c >> 32) ^ static_cast<unsigned>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const unsigned long long p = static_cast<unsigned long long>(x) * 0xD2511F53ull;
    x = static_cast<unsigned>(p >> 32) ^ y ^ round;
    y = static_cast<unsigned>(p & 0xffffffffull);
  }
  return (x >> 8) * (1.0f / 16777216.0f);
}""",
    "sibling loops": """
__device__ void sibling(float* y, long long n) {
  for (long long q = 0; q < n; ++q) y[q] = 0.f;
  for (int q = 0; q < 8; ++q) y[q] += 1.f;
  for (long long r = 0; r < n; ++r) {
    y[r] = 2.f;
  }
  for (int r = 0; r < 4; ++r) {
    y[r] = 3.f;
  }
}""",
    "shadowing in nested blocks": """
__device__ void shadow(float* y, long long n) {
  const long long m = n - 1;
  {
    const int m = 4;
    for (int k = 0; k < m; ++k) y[k] = 0.f;
  }
  if (n > 8) {
    int q = 0;
    for (long long i = 0; i < m; ++i) {
      const int m = 3;
      q += m;
    }
    y[q] = 1.f;
  }
  for (long long i = 0; i < m; ++i) {
    float n = 2.f;
    const int k = n;
    y[i] = k;
  }
}""",
    "lambdas": """
__device__ void with_lambdas(float* y, long long n) {
  auto twice = [](int lane) { return lane * 2; };
  const auto tile = [&](long long start) {
    for (int k = 0; k < 32; ++k) y[start + k] = twice(k);
  };
  for (long long s = 0; s < n; s += 32) tile(s);
  auto count = [](int n) { int c = 0; for (int i = 0; i < n; ++i) c += i; return c; };
  int total = 0;
  auto bump = [&total](int by) { total += by; };
  bump(count(3));
}""",
    "bounded by masks, shifts, min and the launch limits": """
__device__ void bounded(float* y, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = i & 31, warp = threadIdx.x >> 5, block = blockIdx.x, rows = blockIdx.y * blockDim.y;
  const int rest = n < 32 ? n : 32;
  const unsigned word = static_cast<unsigned>(i >> 32);
  const int few = min(n, 16LL);
  for (int k = lane; k < few; k += 32) y[k + warp + block + rows + rest + word] = 0.f;
}""",
}


@pytest.mark.parametrize("case", sorted(IDIOMS))
def test_correct_idioms_pass(case: str) -> None:
    assert index_width.scan(IDIOMS[case]) == []


# New true positives: a size, or an index derived from one, meets a 32-bit type it does not fit.
CAUGHT = {
    "a size into an int": ("__device__ void k(float* y, long long n) {\n  int n32 = n;\n  y[n32] = 0.f;\n}\n",
                           2, "the 32-bit int n32 is initialised from a 64-bit value: `n`"),
    "a thread index product cast": (
        "__device__ void k(float* y) {\n  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + "
        "threadIdx.x;\n  y[static_cast<int>(i)] = 0.f;\n}\n",
        3, "a cast to a 32-bit integer of a 64-bit value: `static_cast<int>(i)`"),
    "an int counter against a size": (
        "__device__ void k(float* y, long long n) {\n  for (int k = 0; k < n; ++k) y[k] = 0.f;\n}\n",
        2, "the 32-bit loop counter k is compared against a 64-bit bound: `k < n`"),
    "a sibling loop's int counter against a size": (
        "__device__ void k(float* y, long long n) {\n  for (int q = 0; q < 8; ++q) y[q] = 0.f;\n"
        "  for (int q = 0; q < n; ++q) y[q] = 1.f;\n}\n",
        3, "the 32-bit loop counter q is compared against a 64-bit bound: `q < n`"),
    "a counter bounded by a size, narrowed": (
        "__device__ void k(float* y, long long n) {\n  for (long long q = 0; q < n; ++q) {\n"
        "    const int row = q / 2;\n    y[row] = 0.f;\n  }\n}\n",
        3, "the 32-bit int row is initialised from a 64-bit value: `q / 2`"),
    "a value assigned from a size, then narrowed": (
        "__device__ void k(float* y, long long n) {\n  long long rest = 0;\n  rest = n - 1;\n"
        "  const unsigned r = rest;\n  y[r] = 0.f;\n}\n",
        4, "the 32-bit unsigned r is initialised from a 64-bit value: `rest`"),
    "a mask wider than the word": (
        "__device__ void k(float* y, long long n) {\n  const int w = n & 0x1ffffffffll;\n  y[w] = 0.f;\n}\n",
        2, "the 32-bit int w is initialised from a 64-bit value: `n & 0x1ffffffffll`"),
    "an outer int after an inner shadow": (
        "__device__ void k(float* y, long long n) {\n  int q = 0;\n  {\n    long long q = n;\n    y[q] = 0.f;\n"
        "  }\n  q = n;\n}\n",
        7, "the 32-bit variable q is assigned a 64-bit value: `q = n`"),
    "a lambda's int counter against a captured size": (
        "__device__ void k(float* y, long long n) {\n  auto f = [&]() {\n    for (int i = 0; i < n; ++i) y[i] = 0.f;\n"
        "  };\n  f();\n}\n",
        3, "the 32-bit loop counter i is compared against a 64-bit bound: `i < n`"),
    "a product of two built-ins": (
        "__device__ void k(float* y) {\n  const long long i = gridDim.x * blockDim.x;\n  y[i] = 0.f;\n}\n",
        2, "`gridDim.x * blockDim.x` is an unsigned 32-bit product"),
    "a functional cast": ("__device__ void k(float* y, long long n) {\n  y[int(n - 1)] = 0.f;\n}\n",
                          2, "a cast to a 32-bit integer of a 64-bit value: `int(n - 1)`"),
    "a 32-bit index into 16 bits": (
        "__device__ void k(float* y) {\n  const unsigned short b = blockIdx.x;\n  y[b] = 0.f;\n}\n",
        2, "the 16-bit unsigned short b is initialised from a 32-bit value: `blockIdx.x`"),
}


@pytest.mark.parametrize("case", sorted(CAUGHT))
def test_a_source_that_does_not_fit_is_found(case: str) -> None:
    text, line, message = CAUGHT[case]
    found = index_width.scan(text)
    assert [f.line for f in found] == [line], found
    assert found[0].message.startswith(message), found[0].message
    assert index_width.scan(_exempt(text, line)) == []  # `// int32 ok:` still says why it fits


def _exempt(text: str, line: int) -> str:
    """`text` with `// int32 ok:` on the finding's line."""
    lines = text.splitlines()
    lines[line - 1] += "  // int32 ok: bounded elsewhere"
    return "\n".join(lines) + "\n"


def test_the_abi_says_which_parameters_hold_sizes() -> None:
    """Of the kernel's device function only the parameters the ABI hands a size are sources: a
    64-bit attr bounded by its spec is not (kernel_check.size_params gives the positions)."""
    text = "__device__ void k(float* y, long long radius, long long n) {\n  const int r = radius;\n" \
           "  const int m = n;\n  y[r + m] = 0.f;\n}\n"
    assert [f.line for f in index_width.scan(text)] == [2, 3]  # any other function: every one
    assert [f.line for f in index_width.scan(text, {"k": frozenset({2})})] == [3]


def test_sizes_of_a_spec_come_from_its_launch_arguments() -> None:
    from codegen import kernel_check
    from codegen.load import load_specs

    ops = {op.name: op for op in load_specs(Path(__file__).resolve().parents[1] / "specs")}
    sizes = kernel_check.size_params(ops["BiasAdd"])
    assert sizes == {"bias_add": frozenset({3, 4, 5, 6})}, sizes  # rows, width, C, by_channel: dims


ISSUE_KERNELS = {
    "shuffle halves": "  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
                      "  const long long b = __double_as_longlong(static_cast<double>(alpha));\n"
                      "  const int lo = static_cast<int>(b & 0xffffffffll), hi = static_cast<int>(b >> 32);\n"
                      "  if (i < N * C) y[i] = opgen::from_float<T>(alpha * opgen::to_float(x[i]) + lo + hi);\n",
    "hash words": "  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
                  "  const unsigned h = static_cast<unsigned>(i & 0xffffffffll) ^ static_cast<unsigned>(i >> 32);\n"
                  "  if (i < N * C) y[i] = opgen::from_float<T>(alpha * opgen::to_float(x[i]) + (h & 1));\n",
    "sibling loops": "  for (long long q = threadIdx.x; q < N * C; q += blockDim.x) y[q] = x[q];\n"
                     "  for (int q = 0; q < 8; ++q) (void)q;\n",
}


@pytest.mark.parametrize("case", sorted(ISSUE_KERNELS))
def test_the_issue_kernels_generate(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    status, err = generate(tmp_path, kernel(ISSUE_KERNELS[case]), capsys=capsys)
    assert status == 0, err
