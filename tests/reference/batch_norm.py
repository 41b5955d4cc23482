"""Float64 reference for FusedBatchNormV3 and FusedBatchNormGradV3.

Everything is computed in float64 after moving the channel axis last and reshaping the
activation to rows of shape [m, C], where m is the number of elements per channel
(N·H·W, or N·D·H·W). Per channel c, with ε = epsilon:

Forward, training:
    μ = mean(x);  σ²_b = Σ(x − μ)² / m  (biased);  y = (x − μ)·rsqrt(σ²_b + ε)·scale + offset
    batch_mean = μ;  batch_variance = σ²_b·m / max(m − 1, 1)  (Bessel-corrected)
    with exponential_avg_factor f ≠ 1:
        batch_mean = (1 − f)·mean + f·μ;  batch_variance = (1 − f)·variance + f·(Bessel-corrected)
    reserve_space_1 = μ;  reserve_space_2 = σ²_b;  reserve_space_3 = [] (shape [0])
Forward, inference:
    y = (x − mean)·rsqrt(variance + ε)·scale + offset
    batch_mean = reserve_space_1 = mean;  batch_variance = reserve_space_2 = variance
Gradient, training (μ = reserve_space_1, σ²_b = reserve_space_2, r = rsqrt(σ²_b + ε)):
    scale_backprop = Σ dy·(x − μ)·r;  offset_backprop = Σ dy
    x_backprop = scale·r·[dy − mean(dy) − (x − μ)·r²·mean(dy·(x − μ))]
Gradient, inference (μ, σ² = the population mean and variance, r = rsqrt(σ² + ε)):
    x_backprop = dy·scale·r;  scale_backprop = Σ dy·(x − μ)·r;  offset_backprop = Σ dy

Empty activations (m = 0): the batch statistics are taken as μ = 0 and σ²_b = 0, and the
gradient sums are zeros.
"""

from __future__ import annotations

import numpy as np

#: Rank of the activation tensors for each data format.
RANKS = {"NHWC": 4, "NCHW": 4, "NDHWC": 5, "NCDHW": 5}


def channel_axis(data_format: str) -> int:
    """Axis of C in an activation of the given data format (1 for NC..., last for N...C)."""
    if data_format not in RANKS:
        raise ValueError(f"unknown data_format {data_format!r}")
    return 1 if data_format.startswith("NC") else RANKS[data_format] - 1


def to_rows(a, data_format: str) -> np.ndarray:
    """The activation `a` as float64 rows [m, C]: channel axis moved last, the rest flattened."""
    a = np.asarray(a).astype(np.float64)
    if a.ndim != RANKS[data_format]:
        raise ValueError(f"{data_format} needs rank {RANKS[data_format]}, got shape {a.shape}")
    moved = np.moveaxis(a, channel_axis(data_format), -1)
    c = moved.shape[-1]
    m = int(np.prod(moved.shape[:-1]))
    return moved.reshape(m, c)


def from_rows(rows: np.ndarray, shape: tuple[int, ...], data_format: str) -> np.ndarray:
    """Inverse of `to_rows`: rows [m, C] back to an activation of `shape` in `data_format`."""
    axis = channel_axis(data_format)
    shape = tuple(shape)
    moved_shape = shape[:axis] + shape[axis + 1:] + (shape[axis],)
    return np.moveaxis(rows.reshape(moved_shape), -1, axis)


def _vec(a) -> np.ndarray:
    return np.asarray(a).astype(np.float64).reshape(-1)


def bn_forward(x, scale, offset, mean, variance, *, epsilon: float, exponential_avg_factor: float = 1.0,
               data_format: str = "NHWC", is_training: bool = True) -> dict[str, np.ndarray]:
    """FusedBatchNormV3 in float64; returns the six outputs by name (see the module docstring)."""
    x = np.asarray(x)
    rows = to_rows(x, data_format)
    m, c = rows.shape
    scale, offset, mean, variance = (_vec(a) for a in (scale, offset, mean, variance))
    for name, v in (("scale", scale), ("offset", offset), ("mean", mean), ("variance", variance)):
        if v.shape != (c,):
            raise ValueError(f"{name}: expected [{c}], got {list(v.shape)}")
    if is_training:
        if m > 0:
            mu = rows.mean(axis=0)
            var_b = ((rows - mu) ** 2).mean(axis=0)  # biased: divides by m
        else:
            mu = np.zeros(c)
            var_b = np.zeros(c)
        var_unbiased = var_b * m / max(m - 1, 1)  # Bessel-corrected
        f = float(exponential_avg_factor)
        if f != 1.0:
            batch_mean = (1.0 - f) * mean + f * mu
            batch_variance = (1.0 - f) * variance + f * var_unbiased
        else:
            batch_mean, batch_variance = mu.copy(), var_unbiased
        norm_mean, norm_var = mu, var_b
        rs1, rs2 = mu.copy(), var_b.copy()
    else:
        norm_mean, norm_var = mean, variance
        batch_mean, batch_variance = mean.copy(), variance.copy()
        rs1, rs2 = mean.copy(), variance.copy()
    r = 1.0 / np.sqrt(norm_var + epsilon)
    y_rows = (rows - norm_mean) * r * scale + offset
    return {
        "y": from_rows(y_rows, x.shape, data_format),
        "batch_mean": batch_mean,
        "batch_variance": batch_variance,
        "reserve_space_1": rs1,
        "reserve_space_2": rs2,
        "reserve_space_3": np.zeros(0),
    }


def bn_grad(dy, x, scale, rs1, rs2, *, epsilon: float, data_format: str = "NHWC",
            is_training: bool = True) -> dict[str, np.ndarray]:
    """FusedBatchNormGradV3 in float64; returns the five outputs by name (see the module docstring).

    rs1/rs2 are the batch mean and biased batch variance in training, the population mean and
    variance in inference.
    """
    x = np.asarray(x)
    dy_rows = to_rows(dy, data_format)
    x_rows = to_rows(x, data_format)
    if dy_rows.shape != x_rows.shape or np.shape(dy) != x.shape:
        raise ValueError(f"dy shape {np.shape(dy)} != x shape {x.shape}")
    m, _c = x_rows.shape
    scale, mu, var = _vec(scale), _vec(rs1), _vec(rs2)
    r = 1.0 / np.sqrt(var + epsilon)
    xc = x_rows - mu
    scale_backprop = (dy_rows * xc * r).sum(axis=0)
    offset_backprop = dy_rows.sum(axis=0)
    if is_training and m > 0:
        mean_dy = dy_rows.mean(axis=0)
        mean_dy_xc = (dy_rows * xc).mean(axis=0)
        dx_rows = scale * r * (dy_rows - mean_dy - xc * r * r * mean_dy_xc)
    else:
        dx_rows = dy_rows * scale * r
    return {
        "x_backprop": from_rows(dx_rows, x.shape, data_format),
        "scale_backprop": scale_backprop,
        "offset_backprop": offset_backprop,
        "reserve_space_4": np.zeros(0),
        "reserve_space_5": np.zeros(0),
    }
