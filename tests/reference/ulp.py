"""Errors in float32 ulps against float64 references (imports nothing of the project).

The ulp of a real y ≠ 0 is 2^(max(e, −126) − 23), e = ⌊log2 |y|⌋: the spacing of the floats in y's
binade, and 2^−149 (the subnormals' spacing) below 2^−126; ulp(0) = 2^−149. The error of a float
result r against the exact value y is |r − y| / ulp(y), with y computed in float64 (whose own error,
2^−29 float ulp or so, is far below the bounds). Special cases are exact or infinitely wrong: when
y is NaN, r must be NaN; when y is ±∞, or |y| ≥ 2^128 − 2^103 (rounds to ±∞ in float), r must be
that infinity; a NaN or infinite r for a finite y counts as an infinite error. A zero y with a
signed-zero result is compared by sign as well (r must have y's sign).
"""

from __future__ import annotations

import math

import numpy as np

FLOAT_OVERFLOW = 2.0**128 - 2.0**103  # the smallest |y| that rounds to ±inf in float32


def ulp(y: np.ndarray) -> np.ndarray:
    """The float32 ulp at each float64 value y (see the module docstring)."""
    a = np.abs(np.asarray(y, np.float64))
    _, e = np.frexp(np.where((a > 0) & np.isfinite(a), a, 1.0))  # a = m·2^e, m in [0.5, 1)
    return np.ldexp(1.0, np.maximum(e - 1, -126) - 23)


def ulp_error(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got − want| in ulps of want, with the special cases of the module docstring."""
    g = np.asarray(got, np.float32).astype(np.float64)
    w = np.asarray(want, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(g - w) / ulp(w)
        rounds_to_inf = np.isinf(w) | (np.abs(w) >= FLOAT_OVERFLOW)
        inf_ok = np.isinf(g) & (np.sign(g) == np.sign(w))
        err = np.where(rounds_to_inf, np.where(inf_ok, 0.0, np.inf), err)
        err = np.where(~rounds_to_inf & ~np.isfinite(g), np.inf, err)
        zero_sign_wrong = (w == 0) & (g == 0) & (np.signbit(g) != np.signbit(w))
        err = np.where(zero_sign_wrong, np.inf, err)
        err = np.where(np.isnan(w), np.where(np.isnan(g), 0.0, np.inf), err)
    return err


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _log(f):  # the log family: exact specials (ln 0 = −inf, negative → NaN) without warnings
    def g(x: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return f(x)
    return g


#: float64 references of the vector math library's functions, by name.
REFERENCES = {
    "exp": np.exp, "expm1": np.expm1, "log": _log(np.log), "log1p": _log(np.log1p),
    "tanh": np.tanh, "sigmoid": _sigmoid, "erf": _erf,
}


def reference(name: str, x: np.ndarray) -> np.ndarray:
    """The float64 value of function `name` at the float32 points x (as float64)."""
    with np.errstate(over="ignore"):
        return REFERENCES[name](np.asarray(x, np.float32).astype(np.float64))
