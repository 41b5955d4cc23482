"""Argument packing for launches: the parameter kinds a module reports, the launch configuration
struct (opgen_launch_cfg), the checked launch dimensions, the fast packer of a single launch and the
batch packer of a LaunchQueue record (opgen_batch_record), with the CPython object layout the
runtime reads arguments by."""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.runtime import host_sanitize as _san

from .errors import HostLaunchError


class _LaunchCfg(ctypes.Structure):  # mirrors opgen_launch_cfg
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shmem", ctypes.c_uint64),
                ("nworkers", ctypes.c_int32), ("random_order", ctypes.c_int32), ("seed", ctypes.c_uint64),
                ("stack_size", ctypes.c_uint64), ("sanitize", ctypes.c_int32), ("nbuffers", ctypes.c_int32),
                ("buffers", ctypes.POINTER(_san.SanRange)), ("nvars", ctypes.c_int32), ("pad_", ctypes.c_int32),
                ("vars", ctypes.POINTER(_san.SanRange)), ("apart_lo", ctypes.c_uint64), ("apart_hi", ctypes.c_uint64),
                ("block_lo", ctypes.c_uint64), ("block_hi", ctypes.c_uint64)]


# Parameter kinds reported by the module (OPGEN_P_* in opgen_emu_glue.h).
_P_POINTER, _P_FLOAT, _P_SINT, _P_UINT, _P_BOOL, _P_OTHER, _P_HALF, _P_BF16 = range(1, 9)


def _describe(kind: int, size: int) -> str:
    return {
        _P_POINTER: "pointer", _P_FLOAT: f"float{size * 8}", _P_SINT: f"int{size * 8}",
        _P_UINT: f"uint{size * 8}", _P_BOOL: "bool", _P_HALF: "__half", _P_BF16: "__nv_bfloat16",
    }.get(kind, f"{size}-byte struct")


def _scalar_matches(kind: int, size: int, dtype: np.dtype) -> bool:
    if dtype.itemsize != size:
        return False
    if kind == _P_FLOAT:
        return dtype.kind == "f"
    if kind in (_P_SINT, _P_UINT):
        return dtype.kind in "iu"  # signedness may differ, width may not
    if kind == _P_BOOL:
        return dtype.kind == "b"
    if kind == _P_HALF:
        return dtype == np.float16
    if kind == _P_BF16:
        return dtype.name == "bfloat16" or dtype == np.uint16  # raw bits
    return True  # struct: any numpy scalar/record of the same size


def _dims(what: str, value: Any, limits: tuple[int, int, int]) -> tuple[int, int, int]:
    # launches repeat the same few shapes: remember the checked ones (tuples of ints are hashable)
    # only plain ints are remembered: 32.0 == 32 as a dict key, but is not a valid dimension
    plain = type(value) is int or (type(value) is tuple and all(type(v) is int for v in value))
    key = (what, value)
    if plain and key in _DIMS_SEEN:
        return _DIMS_SEEN[key]
    dims = _check_dims(what, value, limits)
    if plain and len(_DIMS_SEEN) < 4096:
        _DIMS_SEEN[key] = dims
    return dims


_DIMS_SEEN: dict[tuple[str, Any], tuple[int, int, int]] = {}


def _check_dims(what: str, value: Any, limits: tuple[int, int, int]) -> tuple[int, int, int]:
    items = (value,) if isinstance(value, (int, np.integer)) else value
    if isinstance(items, (tuple, list)) and 1 <= len(items) <= 3 and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
        dims = [int(v) for v in items] + [1] * (3 - len(items))
    else:
        raise HostLaunchError(f"{what} must be an int or a tuple of 1-3 ints, got {value!r}")
    for axis, (d, lim) in enumerate(zip(dims, limits, strict=True)):
        if not 1 <= d <= lim:
            raise HostLaunchError(
                f"{what}[{axis}] = {d} is out of CUDA's range [1, {lim}] (got {what}={value!r})")
    return dims[0], dims[1], dims[2]


_STRUCT_CODES = {(_P_POINTER, 8): "Q", (_P_FLOAT, 4): "f", (_P_FLOAT, 8): "d", (_P_BOOL, 1): "?",
                 (_P_SINT, 1): "B", (_P_SINT, 2): "H", (_P_SINT, 4): "I", (_P_SINT, 8): "Q",
                 (_P_UINT, 1): "B", (_P_UINT, 2): "H", (_P_UINT, 4): "I", (_P_UINT, 8): "Q"}


@dataclass
class _FastPacker:
    """Packs the common argument kinds with one struct.pack_into into a reused buffer whose slot
    addresses never change; anything unusual goes to the checked slow path."""

    layout: struct.Struct
    kinds: tuple[tuple[int, int], ...]
    buf: Any
    ptrs: Any


def _fast_packer(params: list[tuple[int, int]], offsets: list[int], nbytes: int) -> _FastPacker | None:
    if not all((kind, size) in _STRUCT_CODES for kind, size in params):
        return None
    fmt, pos = "<", 0
    for (kind, size), offset in zip(params, offsets, strict=True):
        fmt += "x" * (offset - pos) + _STRUCT_CODES[(kind, size)]
        pos = offset + size
    buf = ctypes.create_string_buffer(nbytes)
    ptrs = (ctypes.c_void_p * max(len(params), 1))()
    for i, offset in enumerate(offsets):
        ptrs[i] = ctypes.addressof(buf) + offset
    return _FastPacker(struct.Struct(fmt), tuple(params), buf, ptrs)


_INT_CODES = {1: "b", 2: "h", 4: "i", 8: "q"}


#: opgen_batch_record (emu/opgen_emu_abi.h) as struct packs an ordinary record (its lane 0, the pad
#: bytes), and its fields in order (the lane aside).
BATCH_RECORD = "<QQI4xQ"
BATCH_RECORD_FIELDS = ("launch", "cfg", "nargs", "table_args")
#: The same with its lane (>= 1: a record of that lane): every field, checked against the runtime's own
#: layout when it loads (abi_layout.py).
BATCH_LANE_RECORD = "<QQIIQ"
BATCH_LANE_RECORD_FIELDS = ("launch", "cfg", "nargs", "lane", "table_args")


def slot_code(kind: int, size: int, dtype: np.dtype | None = None) -> str:
    """One argument's 16-byte slot in a batch record, as a struct code: a pointer or a table index
    "Q"; a scalar in its own width, signedness as the value has it (a kernel's int64 takes a
    uint64 scalar's bits too), padded."""
    if kind == _P_POINTER or dtype is None:
        code = _STRUCT_CODES[(kind, size)]
    else:
        code = (_INT_CODES[size] if dtype.kind == "i" else _INT_CODES[size].upper() if dtype.kind == "u"
                else _STRUCT_CODES[(kind, size)])
    return code + "x" * (16 - struct.calcsize("<" + code))


def c_contiguous_address(arr: np.ndarray) -> int | None:
    """A NumPy array's data address, None where it is not C-contiguous (the checked path names
    it). ctypes' from_buffer takes only writable C-contiguous buffers, and is 4x cheaper than
    __array_interface__, which serves the rest (read-only, empty)."""
    try:
        return ctypes.addressof(ctypes.c_byte.from_buffer(arr))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        face = arr.__array_interface__  # one lookup: 'strides' is None iff C-contiguous
        return face["data"][0] if face["strides"] is None else None


def scalar_code(kind: int, size: int, value: Any) -> str | None:
    """The slot code of a scalar argument (slot_code) where `value` is a NumPy scalar this scalar
    parameter takes; None where the checked path must see it (another kind, a Python number)."""
    t = type(value)
    if kind == _P_POINTER or (kind, size) not in _STRUCT_CODES or not issubclass(t, np.generic) or issubclass(
            t, np.void):
        return None
    dtype = np.dtype(t)
    return slot_code(kind, size, dtype) if _scalar_matches(kind, size, dtype) else None


@dataclass
class _BatchPacker:
    """A batch record (opgen_batch_record) for one tuple of argument types: one 16-byte slot per
    argument follows the record, struct packing the scalars, Python reading the pointers."""

    record: struct.Struct
    arrays: tuple[int, ...]  # positions of the array arguments
    nulls: tuple[int, ...]  # positions of None (a null pointer)


def _batch_packer(params: list[tuple[int, int]], args: tuple[Any, ...]) -> _BatchPacker | None:
    """The packer for arguments of these types, or None where the checked path must see them."""
    if len(args) != len(params) or len(params) > 256:  # (OPGEN_BATCH_MAX_ARGS)
        return None
    codes: list[str] = []
    arrays: list[int] = []
    nulls: list[int] = []
    for i, ((kind, size), arg) in enumerate(zip(params, args, strict=True)):
        t = type(arg)
        if kind == _P_POINTER:
            if t is not np.ndarray and arg is not None:
                return None
            (arrays if arg is not None else nulls).append(i)
            codes.append(slot_code(kind, size))
        else:
            code = scalar_code(kind, size, arg)
            if code is None:
                return None
            codes.append(code)
    return _BatchPacker(struct.Struct(BATCH_RECORD + "".join(codes)), tuple(arrays), tuple(nulls))



def _fast_values(kinds: tuple[tuple[int, int], ...], args: Any) -> list[Any] | None:
    """The raw values of `args` for the fast packer, or None if any needs the checked path."""
    values: list[Any] = []
    for arg, (kind, size) in zip(args, kinds, strict=True):
        if kind == _P_POINTER:
            if arg is None:
                values.append(0)
            elif type(arg) is np.ndarray:
                address = c_contiguous_address(arg)
                if address is None:
                    return None
                values.append(address)
            else:
                return None
        elif isinstance(arg, np.generic) and _scalar_matches(kind, size, arg.dtype):
            if kind == _P_FLOAT or kind == _P_BOOL:
                values.append(arg.item())
            else:  # two's complement bits of the right width, whatever the signedness
                values.append(int(arg) & ((1 << (8 * size)) - 1))
        else:
            return None
    return values

