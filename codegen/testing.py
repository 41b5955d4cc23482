"""Helpers for testing generated ops, behind opgen's pytest plugin (codegen/pytest_plugin.py) and
importable on their own: the scopes a kernel test runs under, the host emulation's random order for
a block of code, and the comparison of a result with a float64 reference.

The plugin imports this module in every pytest run where opgen is installed, so it imports NumPy,
CuPy and the runtime only inside the functions."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

from codegen.runtime.settings import SettingError, parse_seed

# The scopes every kernel test should pass under: the cpu backend with its own launch plan, with
# the GPU's launch plan, with the GPU's launch plan and the kernels compiled in their GPU form
# (OPGEN_GPU_FORM: block-strided rows, warp shuffles), and a real GPU where CuPy and one exist.
SCOPE_ARGUMENTS: dict[str, dict[str, str]] = {
    "cpu-plan": {"device": "cpu"}, "cuda-plan": {"device": "cpu", "launch_plan": "cuda"},
    "gpu-form": {"device": "cpu", "kernel_form": "gpu"}, "cuda": {"device": "cuda"}}
SCOPES = tuple(SCOPE_ARGUMENTS)

# (rtol, atol) by the result's dtype against an exact float64 reference: a few roundings of the
# result's type (float32 2^-24 ≈ 6e-8 per rounding, float16 2^-11 ≈ 4.9e-4, bfloat16 2^-8 ≈ 3.9e-3),
# with room for sums taken in another order. Integer and bool results must be exact.
TOLERANCE = {"float64": (1e-12, 1e-12), "float32": (1e-5, 1e-6), "float16": (1e-3, 1e-3),
             "bfloat16": (8e-3, 8e-3)}


def seed_option(text: str) -> int:
    """--opgen-random-order's value: an integer, as $OPGEN_HOST_RANDOM_ORDER takes it."""
    try:
        seed = parse_seed("SEED", text)
    except SettingError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if seed is None:
        raise argparse.ArgumentTypeError("expected an integer seed, got nothing")
    return seed


def scope_skip_reason(name: str) -> str | None:
    """Why scope `name` cannot run here (None: it can): only "cuda" needs CuPy and a GPU."""
    if name not in SCOPES:
        raise ValueError(f"opgen scope: expected one of {', '.join(SCOPES)}, got {name!r}")
    if name != "cuda":
        return None
    from codegen.runtime.scope import cuda_available

    ok, why = cuda_available()
    return None if ok else f"needs CuPy and a CUDA device: {why}"


def make_scope(name: str) -> Any:
    """The Scope that SCOPES' `name` stands for (Scope(**SCOPE_ARGUMENTS[name]))."""
    from codegen.runtime.scope import Scope

    scope_skip_reason(name)  # (checks the name)
    return Scope(**SCOPE_ARGUMENTS[name])


@contextlib.contextmanager
def host_random_order(seed: int | None) -> Iterator[None]:
    """The host emulation in random order `seed` (None: in order) inside the block; the previous
    setting comes back after. set_random_order(None) alone would also override
    $OPGEN_HOST_RANDOM_ORDER for the rest of the process."""
    from codegen.runtime.host import switches

    saved = switches._random_seed
    switches.set_random_order(seed)
    try:
        yield
    finally:
        switches._random_seed = saved


def assert_close(actual: Any, expected: Any, *, rtol: float | None = None, atol: float | None = None,
                 name: str = "") -> None:
    """Raise AssertionError unless `actual` (a NumPy or CuPy array, a CPU tensor) matches `expected`
    (a float64 reference) within rtol·|expected| + atol, by default TOLERANCE for actual's dtype.
    NaN matches NaN and an infinity the same infinity; a NaN where the reference has a number (an
    element no kernel wrote, under poisoned outputs) fails. The message names the worst element
    (the largest error against its tolerance), its index, both values and how many differ."""
    import numpy as np

    from codegen.runtime.arrays import to_host

    label = f"{name}: " if name else ""
    got, want = to_host(_detached(actual)), np.asarray(to_host(_detached(expected)))
    if got.shape != want.shape:
        raise AssertionError(f"{label}shape {list(got.shape)}, expected {list(want.shape)} (the reference's)")
    default = TOLERANCE.get(got.dtype.name, (0.0, 0.0))
    rtol, atol = default[0] if rtol is None else rtol, default[1] if atol is None else atol
    g, w = got.astype(np.float64), want.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        error = np.abs(g - w)
        limit = atol + rtol * np.abs(w)
        close = np.isfinite(g) & np.isfinite(w) & (error <= limit)  # (inf - -inf <= rtol·inf: not close)
        bad = ~((g == w) | (np.isnan(g) & np.isnan(w)) | close)
        if not bad.any():
            return
        ratio = np.where(bad, np.nan_to_num(error / limit, nan=np.inf), -1.0)  # (a NaN error: infinitely bad)
    where = np.unravel_index(int(np.argmax(ratio)), got.shape)
    index = tuple(int(i) for i in where)
    raise AssertionError(
        f"{label}{int(bad.sum())} of {got.size} elements ({got.dtype}) differ from the reference beyond "
        f"{rtol:g}·|expected| + {atol:g}; worst at index {list(index)}: got {float(g[where])!r}, expected "
        f"{float(w[where])!r} (error {float(error[where]):.3g})")


def _detached(value: Any) -> Any:
    """A torch tensor as one NumPy can read (off the autograd graph, on the CPU); anything else as is."""
    detach = getattr(value, "detach", None)
    return detach().cpu() if callable(detach) and hasattr(value, "requires_grad") else value
