"""The host form of the matrix-product building block (templates/kernels/_matmul.cuh) against
NumPy's matmul on the same data: C[32, 1024] = A[32, 256]·op(B), float32 (the recurrent product
h·Rᵀ of an LSTM with B = 32, H = 256: B stored [1024, 256], transposed), and the other three
layouts. opgen::matmul_grid with the default 64×64 tiles, one thread per block (the host form's
best shape), a block per tile. CPU time of the calling thread at one thread on both sides
(OPGEN_HOST_THREADS=1, one BLAS thread); min and median per call.

    python bench/bench_matmul_block.py [--repeats 200] [--n 1024]

(--n 1000: the same with a row length of op(B) and C that is not a power of two.)
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # (before NumPy loads: OpenBLAS sizes its pool then)
os.environ["OPGEN_HOST_THREADS"] = "1"

import argparse  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from common import cpu_seconds, machine  # noqa: E402

from codegen.runtime import host  # noqa: E402

KERNELS = Path(__file__).resolve().parents[1] / "codegen" / "templates" / "kernels"
KERNEL = """
extern "C" __global__ void matmul_f32(const float* a, const float* b, float* c, long long m, long long n,
                                      long long k, long long trans_a, long long trans_b) {
  opgen::matmul_grid<opgen::MatmulTiles<>>(m, n, k, opgen::matrix_in(a, trans_a ? m : k, trans_a != 0),
                                           opgen::matrix_in(b, trans_b ? k : n, trans_b != 0),
                                           opgen::matrix_out(c, n), false);
}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--n", type=int, default=1024, help="C's columns")
    args = parser.parse_args()
    source = ("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + (KERNELS / "_common.cuh").read_text()
              + (KERNELS / "_matmul.cuh").read_text() + KERNEL)
    fn = host.load_module(source, name_hint="bench_matmul_block").get_function("matmul_f32")
    m, n, k = 32, args.n, 256
    rng = np.random.default_rng(0)
    print(machine())
    print(f"C[{m}, {n}] = op(A)·op(B), k = {k}, float32, one thread; CPU ms per call: min / median")
    for trans_a, trans_b in ((False, True), (False, False), (True, False), (True, True)):
        a = rng.standard_normal((k, m) if trans_a else (m, k), dtype=np.float32)
        b = rng.standard_normal((n, k) if trans_b else (k, n), dtype=np.float32)
        c, want = np.empty((m, n), np.float32), np.empty((m, n), np.float32)
        grid = (-(-m // 64) * -(-n // 64),)
        op_a, op_b = (a.T if trans_a else a), (b.T if trans_b else b)

        def ours(a=a, b=b, c=c, grid=grid, trans_a=trans_a, trans_b=trans_b) -> None:
            fn(grid, (1,), (a, b, c, np.int64(m), np.int64(n), np.int64(k), np.int64(trans_a), np.int64(trans_b)))

        def numpy(op_a=op_a, op_b=op_b, want=want) -> None:
            np.matmul(op_a, op_b, out=want)

        ours(), numpy()
        np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4 * np.sqrt(k))
        mine, theirs = cpu_seconds(ours, args.repeats), cpu_seconds(numpy, args.repeats)
        layout = ("Aᵀ" if trans_a else "A") + "·" + ("Bᵀ" if trans_b else "B")
        print(f"{layout:6} host form {mine[0] * 1e3:.3f} / {mine[1] * 1e3:.3f}   NumPy {theirs[0] * 1e3:.3f} / "
              f"{theirs[1] * 1e3:.3f}   ratio (medians) {mine[1] / theirs[1]:.2f}")


if __name__ == "__main__":
    main()
