"""Helpers of the exact 16-bit tests (tests/test_exact_16bit.py, tests/test_exact_16bit_rnn.py):
bit-for-bit comparisons against the round to nearest even of float32 values, and the float32
twin of an op's arguments."""

from __future__ import annotations

from typing import Any

import numpy as np
from reference.rounding import BF16, RNE, STORAGE, directed_bits, f32_bits

# The cpu backend in the host form (its own launch plan, kernels built for the vector ISA this CPU
# has), in the GPU form (the GPU's launch plan, building blocks and conversion intrinsics), and in
# the host form built for the baseline ISA (the vector conversions without F16C).
SCOPES = ("cpu", "gpu-form", "baseline-isa")


def make_scope(name: str) -> Any:
    """The Scope of one of SCOPES."""
    from codegen.runtime import host_isa
    from codegen.runtime.cpu import CpuBackend
    from generated import Scope

    if name == "gpu-form":
        return Scope("cpu", launch_plan="cuda", kernel_form="gpu")
    scope = Scope("cpu")
    if name == "baseline-isa":
        scope.backend = CpuBackend(isa=host_isa.BASELINE)
    return scope


def assert_bits(got: np.ndarray, want: np.ndarray, x: np.ndarray, what: str) -> None:
    """got == want (16-bit patterns), else an error naming the first inputs x where they differ."""
    bad = np.flatnonzero(got != want)
    if bad.size:
        i = bad[:5]
        raise AssertionError(f"{what}: {bad.size} of {x.size} values differ, e.g. x = {x[i].tolist()} "
                             f"(bits {[hex(b) for b in f32_bits(x[i])]}): got {[hex(b) for b in got[i]]}, "
                             f"want {[hex(b) for b in want[i]]}")


def upcast(value: Any) -> Any:
    """The float32 twin of an argument: 16-bit arrays converted exactly, anything else as is."""
    if isinstance(value, np.ndarray) and value.dtype in (np.float16, BF16):
        return value.astype(np.float32)
    if isinstance(value, list):
        return [upcast(v) for v in value]
    return value


def assert_rounded_once(got16: Any, float_values: Any, dtype: str, what: str, *, telling: bool = True) -> None:
    """got16 (a 16-bit array) is, bit for bit, float_values (float32) rounded to nearest even; and
    (telling) the values are ones where rounding toward zero, down or up would each give other bits
    somewhere, so that the comparison tells the modes apart."""
    got = np.asarray(got16)
    want32 = np.asarray(float_values, np.float32)
    assert got.dtype == STORAGE[dtype] and got.shape == want32.shape, (what, got.dtype, got.shape, want32.shape)
    assert np.all(np.isfinite(want32)), f"{what}: the float32 values are not all finite"
    flat = want32.ravel()
    assert_bits(np.ascontiguousarray(got).view(np.uint16).ravel(), RNE[dtype](flat), flat, f"{what} ({dtype})")
    for mode in ("rz", "rd", "ru") if telling else ():
        assert np.any(directed_bits(flat, dtype, mode) != RNE[dtype](flat)), \
            f"{what}: rounding {mode} would give the same bits: the data cannot tell the modes apart"


def check_like_float32(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], outputs: list[str], dtype: str,
                       scope: Any) -> None:
    """Runs fn on 16-bit args and on their float32 twins; each named 16-bit output must be the
    round to nearest even of the float32 output (the same float arithmetic, rounded once)."""
    out16 = fn(*args, **kwargs, scope=scope)
    out32 = fn(*[upcast(a) for a in args], **kwargs, scope=scope)
    for name in outputs:
        assert_rounded_once(getattr(out16, name), getattr(out32, name), dtype, f"{fn.__name__}.{name}")
