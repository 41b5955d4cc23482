"""Philox-4x32-10 in NumPy (uint64 arithmetic, many counters at once): the independent reference for
opgen::philox4x32_10 (codegen/templates/kernels/_random.cuh) and the uniform helpers. Written from
the algorithm's definition (Salmon et al., SC 2011), not from the kernel header. NumPy's own
`np.random.Philox` is the 4x64 variant, another generator."""

from __future__ import annotations

from typing import Any

import numpy as np

M0, M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
W0, W1 = 0x9E3779B9, 0xBB67AE85
LOW = np.uint64(0xFFFFFFFF)
SHIFT = np.uint64(32)


def philox4x32_10(counters: np.ndarray, key: tuple[Any, Any]) -> np.ndarray:
    """counters: [n, 4] words (any integer dtype holding 32-bit values); key: two words, each an
    int or one per counter → [n, 4] uint32 results."""
    c = [np.asarray(counters, np.uint64)[:, i] & LOW for i in range(4)]
    k0, k1 = (np.asarray(k, np.uint64) & LOW for k in key)
    for r in range(10):
        if r:
            k0, k1 = (k0 + np.uint64(W0)) & LOW, (k1 + np.uint64(W1)) & LOW
        p0, p1 = M0 * c[0], M1 * c[2]  # < 2^64: no wrap
        c = [(p1 >> SHIFT) ^ c[1] ^ k0, p1 & LOW, (p0 >> SHIFT) ^ c[3] ^ k1, p0 & LOW]
    return np.stack(c, axis=1).astype(np.uint32)


def counters(index: np.ndarray, offset: int) -> np.ndarray:
    """opgen::philox_counter(index, offset) for every index: [index lo, index hi, offset lo, offset hi]."""
    index = np.asarray(index, np.uint64)
    off = np.uint64(offset % 2**64)
    return np.stack([index & LOW, index >> SHIFT, np.full_like(index, off & LOW), np.full_like(index, off >> SHIFT)],
                    axis=1)


def key_of(seed: int) -> tuple[int, int]:
    """opgen::philox_key(seed): the 64-bit seed's low word, then its high word."""
    s = seed % 2**64
    return s & 0xFFFFFFFF, s >> 32


def uniform_float(words: np.ndarray) -> np.ndarray:
    """[0, 1): the top 24 bits times 2^-24, in float64 (every value is a float32 exactly)."""
    return (np.asarray(words, np.uint64) >> np.uint64(8)).astype(np.float64) * 2.0**-24


def uniform_float_nonzero(words: np.ndarray) -> np.ndarray:
    """(0, 1]: (the top 24 bits + 1) times 2^-24."""
    return ((np.asarray(words, np.uint64) >> np.uint64(8)) + np.uint64(1)).astype(np.float64) * 2.0**-24


def uniform_double(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """[0, 1): hi's top 21 bits and lo's 32 as one 53-bit integer, times 2^-53 (exact in float64)."""
    bits = ((np.asarray(hi, np.uint64) >> np.uint64(11)) << SHIFT) | np.asarray(lo, np.uint64)
    return bits.astype(np.float64) * 2.0**-53
