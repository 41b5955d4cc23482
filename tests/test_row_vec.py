"""Contract tests of templates/kernels/_rowvec.cuh's row blocks with 16-byte accesses (row_vsum,
row_vreduce, row_vmean_var, row_vstore), in both forms (the host emulation's, and the GPU's under
OPGEN_GPU_FORM), for float, half and double rows, each module the sanitize build run in order and
in seeded random orders:

* rows whose bases are 16-byte aligned (the one-access path) and rows that are not (an odd row
  length; an offset view, the base 1 element past 16 bytes): the scalar path;
* a row whose length leaves a short last group, rows shorter than one group, empty rows;
* every thread gets the sums, and a pass may read back what the previous pass wrote (element j
  stays with one thread whatever the alignment).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codegen.runtime import host
from codegen.testing import host_random_order

REPO = Path(__file__).resolve().parents[1]

# T: the element type, A: its acc_t. out[r][thread][4]: Σ a·b, the mean and variance of a, Σ a
KERNEL = r"""
extern "C" __global__ void vec_rows(const T* a, const T* b, T* y, A* out, long long rows, long long n,
                                    long long stride) {
  opgen::for_each_row(rows, [&](long long r) {
    const T* ar = a + r * stride;
    const T* br = b + r * stride;
    T* yr = y + r * stride;
    const A s = opgen::row_vsum(n, [&](long long, const A* e) { return e[0] * e[1]; }, ar, br);
    const opgen::MeanVarOf<A> w = opgen::row_vmean_var(n, [&](long long, const A* e) { return e[0]; }, ar);
    opgen::row_vstore(n, yr, [&](long long, const A* e) { return e[0] + A(2) * e[1]; }, ar, br);
    // the second pass reads this thread's own writes of the first: y = a + 2b + j
    opgen::row_vstore(n, yr, [&](long long j, const A* e) { return e[0] + A(j); }, yr);
    const A t = opgen::row_vreduce(n, opgen::SumOp{}, A(0), [&](long long, const A* e) { return e[0]; }, ar);
    A* o = out + 4 * (r * blockDim.x + threadIdx.x);
    o[0] = s, o[1] = w.mean, o[2] = w.variance(), o[3] = t;
  });
}
"""

TYPES = {"float": (np.float32, "float"), "half": (np.float16, "float"), "double": (np.float64, "double")}
_MODULES: dict[tuple[str, str], host.HostModule] = {}


def _module(form: str, ctype: str) -> host.HostModule:
    if (form, ctype) not in _MODULES:
        kernels = REPO / "codegen" / "templates" / "kernels"
        define = "#define OPGEN_GPU_FORM 1\n" if form == "gpu" else ""
        element = "__half" if ctype == "half" else ctype
        types = f"using T = {element};\nusing A = {TYPES[ctype][1]};\n"
        source = ("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + define + (kernels / "_common.cuh").read_text()
                  + (kernels / "_rowvec.cuh").read_text() + types + KERNEL)
        _MODULES[form, ctype] = host.load_module(source, name_hint=f"row_vec_{form}_{ctype}", sanitize=True)
    return _MODULES[form, ctype]


def _rows(rng: np.random.Generator, rows: int, stride: int, offset: int, dtype: type) -> np.ndarray:
    """rows·stride values from `offset` elements into a 16-byte-aligned buffer (a view: its base is
    off 16 bytes when offset is not a multiple of 16/itemsize)."""
    buf = np.empty(rows * stride + 64, dtype)
    start = (-buf.ctypes.data % 16) // buf.itemsize + offset
    view = buf[start:start + rows * stride]
    view[...] = (rng.standard_normal(view.shape) + 2).astype(dtype)
    assert (view.ctypes.data % 16 == 0) == (offset * buf.itemsize % 16 == 0)
    return view


@pytest.mark.parametrize("form", ["host", "gpu"])
@pytest.mark.parametrize("ctype", list(TYPES))
@pytest.mark.parametrize("threads", [1, 32, 33, 96])
@pytest.mark.parametrize(("n", "stride", "offset"), [
    (64, 64, 0),     # aligned rows, whole groups
    (70, 72, 0),     # aligned rows, a short last group
    (3, 8, 0),       # shorter than a group
    (67, 67, 0),     # an odd length: every other row's base is off 16 bytes
    (64, 64, 1),     # an offset view: every base off 16 bytes
    (0, 4, 0),       # empty rows
], ids=["aligned", "short-tail", "tiny", "odd-length", "offset-view", "empty"])
def test_vector_rows_match_numpy(form: str, ctype: str, threads: int, n: int, stride: int, offset: int) -> None:
    dtype, acc = TYPES[ctype][0], np.float64 if ctype == "double" else np.float32
    rows = 3
    rng = np.random.default_rng([n, stride, offset, threads])
    a, b = _rows(rng, rows, stride, offset, dtype), _rows(rng, rows, stride, offset, dtype)
    y = _rows(rng, rows, stride, offset, dtype)
    y0 = y.copy()
    out = np.full((rows * threads, 4), np.nan, acc)
    with host_random_order(None if threads == 1 else threads):
        _module(form, ctype).get_function("vec_rows")((2,), (threads,), (a, b, y, out, np.int64(rows), np.int64(n),
                                                                       np.int64(stride)))
    per = out.reshape(rows, threads, 4)
    np.testing.assert_array_equal(per, np.broadcast_to(per[:, :1], per.shape))  # every thread, bit for bit
    a64, b64 = a.reshape(rows, stride)[:, :n].astype(np.float64), b.reshape(rows, stride)[:, :n].astype(np.float64)
    rtol = 1e-12 if ctype == "double" else 2e-5
    got = per[:, 0].astype(np.float64)
    np.testing.assert_allclose(got[:, 0], (a64 * b64).sum(1), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(got[:, 3], a64.sum(1), rtol=rtol, atol=rtol)
    if n:
        np.testing.assert_allclose(got[:, 1], a64.mean(1), rtol=rtol)
        np.testing.assert_allclose(got[:, 2], a64.var(1), rtol=100 * rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got[:, 1:3], 0)
    first = (a64 + 2 * b64).astype(dtype).astype(np.float64)
    want = (first + np.arange(n)).astype(dtype)
    y2 = y.reshape(rows, stride)
    np.testing.assert_array_equal(y2[:, :n], want)
    np.testing.assert_array_equal(y2[:, n:], y0.reshape(rows, stride)[:, n:])  # nothing past the row
