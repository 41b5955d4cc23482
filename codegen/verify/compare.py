"""Two runs of one case compared output by output, with per-dtype tolerances: the parity checks'
verdict (codegen/verify/checks.py, scripts/gpu_parity.py)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from codegen.runtime.arrays import to_host

# (rtol, atol as a fraction of the output's scale max(1, max|cpu|)) by output dtype. The GPU fuses
# a*b+c into FMAs and cuBLAS sums in its own order, so float32 differs by a few ulp of the scale;
# float16 by about one rounding of the result (2^-11 ≈ 4.9e-4 of the value).
TOLERANCE = {"float64": (1e-9, 1e-9), "float32": (1e-4, 1e-4), "float16": (4e-3, 4e-3), "bfloat16": (3e-2, 3e-2)}


class Result(NamedTuple):
    op: str
    case: str
    ok: bool
    worst: str  # output name with the largest error
    error: float  # max |cuda − cpu| / scale over that output
    message: str


def compare(op: str, case: str, cpu_out: Any, gpu_out: Any, fresh: tuple[str, ...] = (),
            sides: tuple[str, str] = ("cpu", "cuda"), same_dtype: bool = True) -> Result:
    """The second run's outputs (a wrapper's result tuple) against the first's, named `sides` in the
    messages, within the tolerance of the second's dtypes; `same_dtype=False` for a float64
    reference as the first."""
    a_side, b_side = sides
    worst, worst_err, problems = "", 0.0, []
    pairs = []
    for name, c_val, g_val in zip(cpu_out._fields, cpu_out, gpu_out, strict=True):
        if name in fresh:
            continue
        if c_val is None or g_val is None:  # an output computed only when asked (its `when:`)
            if (c_val is None) != (g_val is None):
                problems.append(f"{name}: computed by {b_side if c_val is None else a_side} only")
            continue
        if isinstance(c_val, (list, tuple)):  # a list output: element by element
            if len(c_val) != len(g_val):
                problems.append(f"{name}: {a_side} {len(c_val)} elements vs {b_side} {len(g_val)}")
                continue
            pairs += [(f"{name}[{i}]", c, g) for i, (c, g) in enumerate(zip(c_val, g_val, strict=True))]
        else:
            pairs.append((name, c_val, g_val))
    for name, c_val, g_val in pairs:
        c, g = to_host(c_val), to_host(g_val)
        if c.shape != g.shape or (same_dtype and c.dtype != g.dtype):
            problems.append(f"{name}: {a_side} {c.dtype}{list(c.shape)} vs {b_side} {g.dtype}{list(g.shape)}")
            continue
        if c.size == 0:
            continue
        c64, g64 = c.astype(np.float64), g.astype(np.float64)
        if np.isnan(c64).any() or np.isnan(g64).any():
            problems.append(f"{name}: NaN ({a_side} {int(np.isnan(c64).sum())}, {b_side} {int(np.isnan(g64).sum())} "
                            f"of {c.size}): an unwritten element?")
            continue
        rtol, atol = TOLERANCE.get(g.dtype.name, (0.0, 0.0))
        scale = max(1.0, float(np.abs(c64).max()))
        diff = np.abs(g64 - c64)
        err = float(diff.max()) / scale
        if err >= worst_err:
            worst, worst_err = name, err
        bad = diff > atol * scale + rtol * np.abs(c64)
        if bad.any():
            i = np.unravel_index(int(np.argmax(diff)), c.shape)
            problems.append(f"{name}: {int(bad.sum())} of {c.size} elements differ, worst at {[int(k) for k in i]}: "
                            f"{a_side} {float(c64[i])!r} {b_side} {float(g64[i])!r} "
                            f"(tolerance {rtol} rel + {atol}·{scale:.3g})")
    return Result(op, case, not problems, worst, worst_err, "; ".join(problems))
