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
