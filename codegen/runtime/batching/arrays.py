"""Batching's array helpers: concatenation, padding and index arrays in whatever array library the
inputs come from (NumPy on the cpu backend, CuPy on the cuda backend), so they stay on the inputs'
device (the dispatch itself is codegen/runtime/arrays.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from codegen.runtime.arrays import array_module, device_scope


def concat_rows(parts: Sequence[Any], padded_rows: int) -> Any:
    """The parts concatenated along dim 0, padded to `padded_rows` rows by repeating the first row of
    the first part (TensorFlow's Batch padding), in the parts' array module."""
    first = parts[0]
    xp = array_module(first)
    rows = sum(int(p.shape[0]) for p in parts)
    pieces = list(parts)
    if padded_rows > rows:
        pieces.append(xp.repeat(first[:1], padded_rows - rows, axis=0))
    return xp.concatenate(pieces, axis=0)


def int64_array(like: Any, values: Any) -> Any:
    """`values` as an int64 array in `like`'s array module and on its device."""
    xp = array_module(like)
    host = np.asarray(values, dtype=np.int64)
    if xp is np:
        return host
    with device_scope(like):
        return xp.asarray(host)


def empty_index(like: Any) -> Any:
    """An empty [0, 3] int64 batch_index beside `like`."""
    return int64_array(like, np.empty((0, 3), np.int64))


def row_bytes(arrays: Sequence[Any]) -> int:
    """Bytes of one row (a dim-0 slice) of each array, added: what a batch holds per row."""
    total = 0
    for a in arrays:
        n = 1
        for d in a.shape[1:]:
            n *= int(d)
        total += n * int(a.dtype.itemsize)
    return total
