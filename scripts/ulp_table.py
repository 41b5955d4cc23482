"""Print the measured error in ulps of every function of the vector math library
(codegen/templates/kernels/_vmath.cuh) and of the activation library's math, beside the bounds
docs/specs.md documents: one Markdown table, for bench/RESULTS.md.

Each row: the largest error over tests/vector_math_cases.py's grid (about 4 million floats: dense
sweeps, every float around each branch point, subnormals to the largest floats), in the cpu
backend's default build (SSE2), an AVX2 + FMA build (-march=x86-64-v3 -ffp-contract=fast) and the
GPU form on the emulation (CUDA's names, which the emulation maps to the C library), and where it
occurs. tests/test_vector_math.py fails when one exceeds its bound.

    python scripts/ulp_table.py
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import vector_math_cases as cases  # noqa: E402
from reference.ulp import reference, ulp_error  # noqa: E402


def _worst(err: np.ndarray, x: np.ndarray) -> str:
    i = int(np.argmax(err))
    return f"{err[i]:.3f} (x = {float(x[i]):.7g})"


def main() -> None:
    x = cases.grid()
    builds = list(cases.BUILDS)
    evaluated = {b: cases.evaluate(b, x) for b in builds}
    measured = {b: evaluated[b][0] for b in builds}  # the run forms (the vector code on the host)
    scalar = evaluated["sse2"][1]  # the host's scalar form (the C library's functions)
    bounds = cases.documented_bounds()
    print(f"{x.size:,} floats per function; {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, NumPy {np.__version__}")
    print()
    print("| function | bound, host form | " + " | ".join(f"max, runs, {b}" for b in builds[:-1]) +
          " | max, scalar host form | bound, GPU form | max, GPU form on the emulation (C library) |")
    print("|---" * (len(builds) + 4) + "|")
    for k, name in enumerate(cases.FUNCTIONS):
        want = reference(name, x)
        cells = [_worst(ulp_error(measured[b][k], want), x) for b in builds]
        print(f"| vm::{name} | {bounds[name].host:g} | " + " | ".join(cells[:-1]) +
              f" | {_worst(ulp_error(scalar[k], want), x)} | {bounds[name].gpu:g} | {cells[-1]} |")
    xa = np.concatenate([x[np.abs(x) <= 120], np.array([np.inf, -np.inf, np.nan], np.float32)])
    acts = {b: cases.evaluate_activations(b, xa) for b in builds}
    act_bounds = cases.documented_activation_bounds()
    for k, name in enumerate(cases.ACTIVATIONS):
        want = cases.activation_reference(name, xa)
        cells = [_worst(ulp_error(acts[b][k], want), xa) for b in builds]
        print(f"| act::{name} | {act_bounds[name].host:g} | " + " | ".join(cells[:-1]) +
              f" | — | {act_bounds[name].gpu:g} | {cells[-1]} |")


if __name__ == "__main__":
    main()
