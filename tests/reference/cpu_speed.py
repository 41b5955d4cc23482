"""Float64 NumPy references for the CPU-speed helpers' 3×3 convolution blocks
(codegen/templates/kernels/_loops.cuh) and examples/cpu_speed's ops (DepthwiseConv2d, its gradients,
TopK), written from their definitions: a zero-padded cross-correlation, and a stable sort."""

from __future__ import annotations

import numpy as np


def _windows(x: np.ndarray) -> np.ndarray:
    """[..., h, w] → [9, ..., h, w]: tap t = 3·dy + dx of every output pixel (padding 1, zeros)."""
    h, w = x.shape[-2:]
    pad = np.zeros((*x.shape[:-2], h + 2, w + 2))
    pad[..., 1:-1, 1:-1] = x
    return np.stack([pad[..., dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)])


def conv3x3(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Each plane of x ([..., h, w]) cross-correlated with its nine weights k ([..., 9]), padding 1."""
    win = _windows(x.astype(np.float64))
    return np.einsum("t...hw,...t->...hw", win, k.astype(np.float64))


def conv3x3_taps(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """[..., 9]: Σ over each plane's pixels of g times x shifted by tap t (the filter gradient's terms)."""
    win = _windows(x.astype(np.float64))
    return np.moveaxis((win * g.astype(np.float64)).sum(axis=(-2, -1)), 0, -1)


def depthwise_conv2d(x: np.ndarray, filt: np.ndarray) -> np.ndarray:
    """x [N, C, H, W], filter [C, 1, 3, 3] → y [N, C, H, W]."""
    return conv3x3(x, filt.reshape(1, -1, 9))


def depthwise_conv2d_grad(dy: np.ndarray, x: np.ndarray, filt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(dx, dfilter): dx the convolution of dy with each window turned by 180°, dfilter the taps
    summed over the images."""
    dx = conv3x3(dy, filt.reshape(1, -1, 9)[..., ::-1])
    dfilter = conv3x3_taps(x, dy).sum(axis=0).reshape(filt.shape)
    return dx, dfilter


def top_k(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k largest of each row (last axis), largest first, NaN above every number, equal values in
    index order: a stable sort of the negated values (NaN first)."""
    x64 = x.astype(np.float64)
    key = np.where(np.isnan(x64), -np.inf, -x64)
    nan_first = np.isnan(x64)
    order = np.lexsort((key, ~nan_first), axis=-1)[..., :k]
    return np.take_along_axis(x64, order, axis=-1), order.astype(np.int64)
