"""NumPy references for conversions to float16 and bfloat16 (tests/test_exact_16bit.py): round to
nearest even as the GPU's __float2half_rn / __float2bfloat16 do (a NaN becomes the canonical NaN
0x7FFF), the directed modes (toward zero, down, up), and the float32 values that decide a
conversion."""

from __future__ import annotations

import ml_dtypes
import numpy as np

BF16 = ml_dtypes.bfloat16
CANONICAL_NAN = 0x7FFF  # what the GPU's cvt writes for any NaN, in both formats


def f32_bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, np.float32).view(np.uint32)


def rne_half_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> float16 bits, rounded to nearest even (NumPy's cast), NaN -> 0x7FFF."""
    x = np.asarray(x, np.float32)
    with np.errstate(over="ignore"):
        bits = x.astype(np.float16).view(np.uint16).copy()
    bits[np.isnan(x)] = CANONICAL_NAN
    return bits


def rne_bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits, rounded to nearest even on the float32 bits, NaN -> 0x7FFF: add
    just under half of the dropped 16 bits' range, plus one when the kept part is odd, and carry
    (a carry out of the largest finite value gives infinity)."""
    w = f32_bits(x).astype(np.uint64)
    bits = ((w + 0x7FFF + ((w >> 16) & 1)) >> 16).astype(np.uint16)
    bits[np.isnan(np.asarray(x, np.float32))] = CANONICAL_NAN
    return bits


RNE = {"float16": rne_half_bits, "bfloat16": rne_bf16_bits}
STORAGE = {"float16": np.float16, "bfloat16": BF16}


def _step(bits: np.ndarray, up: np.ndarray) -> np.ndarray:
    """The neighbouring 16-bit value above (up) or below (~up) each of bits, across zero."""
    bits = bits.astype(np.int32)
    neg = bits >= 0x8000
    out = np.where(up, np.where(neg, bits - 1, bits + 1), np.where(neg, bits + 1, bits - 1))
    out = np.where(up & (bits == 0x8000), 0x0001, out)  # -0 up: the smallest positive
    out = np.where(~up & (bits == 0x0000), 0x8001, out)  # +0 down: the smallest negative
    return out.astype(np.uint16)


def directed_bits(x: np.ndarray, dtype: str, mode: str) -> np.ndarray:
    """float32 -> 16-bit bits rounded toward zero ("rz"), down ("rd") or up ("ru"): the nearest-even
    result moved one step where it lies on the wrong side of x."""
    x = np.asarray(x, np.float32)
    near = RNE[dtype](x)
    value = near.view(STORAGE[dtype]).astype(np.float64)
    with np.errstate(invalid="ignore"):  # signalling NaN patterns among the inputs
        xd = x.astype(np.float64)
        above, below = value > xd, value < xd
    down = {"rz": above & (xd > 0), "rd": above, "ru": np.zeros_like(above)}[mode]
    up = {"rz": below & (xd < 0), "rd": np.zeros_like(below), "ru": below}[mode]
    out = np.where(down, _step(near, np.zeros_like(down)), near)
    return np.where(up, _step(near, np.ones_like(up)), out).astype(np.uint16)


def conversion_inputs(dtype: str) -> np.ndarray:
    """float32 values that decide a conversion to dtype: every finite 16-bit value, every tie
    between two neighbours (including the subnormals' and the overflow threshold's) and the
    float32 values either side of each tie, and random bit patterns (NaN, inf, any exponent)."""
    every = np.arange(1 << 16, dtype=np.uint16).view(STORAGE[dtype]).astype(np.float32)
    finite = np.sort(np.unique(every[np.isfinite(every)]).astype(np.float64))
    ties = ((finite[:-1] + finite[1:]) / 2).astype(np.float32)  # exact: one bit more than dtype
    top = float(finite[-1])
    overflow_tie = np.float32(top + (top - float(finite[-2])) / 2)  # max + half an ulp: rounds to inf
    ties = np.append(ties, [overflow_tie, -overflow_tie])
    with np.errstate(over="ignore"):
        around = [np.nextafter(ties, np.float32(np.inf)), np.nextafter(ties, np.float32(-np.inf))]
    rng = np.random.default_rng(21)
    patterns = rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64).astype(np.uint32).view(np.float32)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan], np.float32)
    return np.concatenate([every, ties, *around, patterns, specials]).astype(np.float32)
