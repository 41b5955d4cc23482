"""Weight and bias gradients of GRUBlockCell, which GRUBlockCellGrad leaves to its callers.

GRUBlockCellGrad returns d_r_bar_u_bar = [d_r_bar | d_u_bar] and d_c_bar, the gradients of the
loss with respect to the gates' pre-activations. As TensorFlow's Python wrapper does, the weight
and bias gradients follow from them (OPS_REFERENCE §4):

    d_w_ru = [x | h_prev]ᵀ·d_r_bar_u_bar        [I + H, 2H]
    d_w_c  = [x | r∘h_prev]ᵀ·d_c_bar            [I + H, H]
    d_b_ru = Σ_batch d_r_bar_u_bar              [2H]
    d_b_c  = Σ_batch d_c_bar                    [H]

(TensorFlow's public page for GRUBlockCellGrad has d_w_ru and d_w_c swapped.)
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

_NAME = "gru_block_cell_weight_grads"


def _array_module(*arrays: Any) -> ModuleType:
    """jax.numpy for JAX arrays (the JAX functions' backward, traced), cupy for CuPy arrays (when
    CuPy is importable), else numpy."""
    if any(type(a).__module__.startswith("jax") for a in arrays):
        import jax.numpy

        return jax.numpy
    try:
        import cupy
    except ImportError:
        return np
    module: ModuleType = cupy.get_array_module(*arrays)
    return module


def _matrix(name: str, a: Any, rows: int | None, cols: int | None, what: str) -> tuple[int, int]:
    shape = tuple(getattr(a, "shape", ()))
    if not hasattr(a, "dtype") or len(shape) != 2:
        raise ValueError(f"{_NAME}: {name}: expected a 2-D array {what}, got "
                         f"{list(shape) if hasattr(a, 'shape') else type(a).__name__}")
    if (rows is not None and shape[0] != rows) or (cols is not None and shape[1] != cols):
        raise ValueError(f"{_NAME}: {name}: expected shape {what}, got {list(shape)}")
    return int(shape[0]), int(shape[1])


def gru_block_cell_weight_grads(x: Any, h_prev: Any, r: Any, d_r_bar_u_bar: Any, d_c_bar: Any
                                ) -> tuple[Any, Any, Any, Any]:
    """The gradients of GRUBlockCell's w_ru, w_c, b_ru and b_c.

    Args:
        x: [B, I], the cell's input.
        h_prev: [B, H], the previous state.
        r: [B, H], GRUBlockCell's reset gate output.
        d_r_bar_u_bar: [B, 2H], GRUBlockCellGrad's d_r_bar_u_bar.
        d_c_bar: [B, H], GRUBlockCellGrad's d_c_bar.

    Returns:
        (d_w_ru [I + H, 2H], d_w_c [I + H, H], d_b_ru [2H], d_b_c [H]), with
        d_w_ru = [x | h_prev]ᵀ·d_r_bar_u_bar, d_w_c = [x | r∘h_prev]ᵀ·d_c_bar,
        d_b_ru = Σ_batch d_r_bar_u_bar and d_b_c = Σ_batch d_c_bar. The arrays belong to the
        inputs' module (NumPy or CuPy) and have the dtype of x; float16 inputs are computed in
        float32 and rounded once at the end.

    Raises:
        ValueError: an argument is not a 2-D array of the expected shape.
        TypeError: the arguments do not share one floating dtype.
    """
    b, _i = _matrix("x", x, None, None, "[B, I]")
    _b, h = _matrix("h_prev", h_prev, b, None, f"[B={b}, H]")
    _matrix("r", r, b, h, f"[B={b}, H={h}]")
    _matrix("d_r_bar_u_bar", d_r_bar_u_bar, b, 2 * h, f"[B={b}, 2*H={2 * h}]")
    _matrix("d_c_bar", d_c_bar, b, h, f"[B={b}, H={h}]")
    dtype = x.dtype
    for name, a in (("h_prev", h_prev), ("r", r), ("d_r_bar_u_bar", d_r_bar_u_bar), ("d_c_bar", d_c_bar)):
        if a.dtype != dtype:
            raise TypeError(f"{_NAME}: {name}: expected dtype {dtype} (as x), got {a.dtype}")
    if type(x).__module__.startswith("torch"):  # the torch registration's backward: torch ops, traceable
        return _torch_weight_grads(x, h_prev, r, d_r_bar_u_bar, d_c_bar)
    if np.dtype(dtype).kind != "f":
        raise TypeError(f"{_NAME}: x: expected a floating dtype, got {dtype}")
    xp = _array_module(x, h_prev, r, d_r_bar_u_bar, d_c_bar)
    work = np.promote_types(dtype, np.float32)  # float16 → float32, float32/float64 unchanged

    def up(a: Any) -> Any:
        return a.astype(work, copy=False)

    x_w, h_w, d_ru, d_c = up(x), up(h_prev), up(d_r_bar_u_bar), up(d_c_bar)
    d_w_ru = xp.concatenate([x_w, h_w], axis=1).T @ d_ru
    d_w_c = xp.concatenate([x_w, up(r) * h_w], axis=1).T @ d_c
    d_b_ru = d_ru.sum(axis=0)
    d_b_c = d_c.sum(axis=0)
    return tuple(a.astype(dtype, copy=False) for a in (d_w_ru, d_w_c, d_b_ru, d_b_c))  # type: ignore[return-value]


def _torch_weight_grads(x: Any, h_prev: Any, r: Any, d_r_bar_u_bar: Any, d_c_bar: Any) -> tuple[Any, Any, Any, Any]:
    """The same formulas on torch tensors (float16 computed in float32, rounded once)."""
    import torch

    if not x.dtype.is_floating_point:
        raise TypeError(f"{_NAME}: x: expected a floating dtype, got {x.dtype}")
    work = torch.promote_types(x.dtype, torch.float32)
    x_w, h_w, d_ru, d_c = (a.to(work) for a in (x, h_prev, d_r_bar_u_bar, d_c_bar))
    d_w_ru = torch.cat([x_w, h_w], dim=1).T @ d_ru
    d_w_c = torch.cat([x_w, r.to(work) * h_w], dim=1).T @ d_c
    return tuple(a.to(x.dtype) for a in (d_w_ru, d_w_c, d_ru.sum(dim=0), d_c.sum(dim=0)))  # type: ignore[return-value]
