"""Argument checks that generated wrappers call before any kernel runs.

Each error names the op, the argument, what was expected and what was given
(DESIGN.md: `FusedBatchNormGradV3: x: expected shape [N, H, W, C=3] (data_format NHWC), got [2, 4, 5, 7]`).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from codegen.runtime.dtypes import ACCUMULATOR  # noqa: F401  (re-exported to generated wrappers: accumulator type variables)


def _fmt_shape(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


_DTYPE_NAMES: dict[Any, str] = {}


def dtype_name(value: Any) -> str:
    """numpy/CuPy dtype name ('float32', 'bfloat16' with ml_dtypes); memoised, since numpy's
    dtype.name is slow and every wrapper call asks for it several times."""
    dtype = value.dtype
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = str(dtype.name) if hasattr(dtype, "name") else str(dtype).removeprefix("torch.")  # torch.float32
        _DTYPE_NAMES[dtype] = name
    return name


def require_array(op: str, arg: str, value: Any) -> Any:
    """An array-like every backend can take as it is. Refused, with a named error: a NumPy masked
    array (its mask would be dropped silently) and a torch tensor that requires grad (reading its
    data would cut it from autograd)."""
    if not (hasattr(value, "shape") and hasattr(value, "dtype")):
        raise TypeError(f"{op}: {arg}: expected an array (NumPy, CuPy or __dlpack__/__cuda_array_interface__ "
                        f"producer), got {type(value).__name__}")
    if type(value).__name__ == "MaskedArray" and type(value).__module__.startswith("numpy"):
        raise TypeError(f"{op}: {arg}: expected an array without a mask, got a NumPy masked array (its mask would "
                        f"be ignored): pass value.filled(fill) or value.data")
    if getattr(value, "requires_grad", False) is True:
        raise TypeError(f"{op}: {arg}: expected a tensor that does not require grad, got a {type(value).__name__} "
                        f"with requires_grad=True: pass value.detach()")
    return value


def kernel_ready(op: str, arg: str, array: np.ndarray) -> np.ndarray:
    """A host array as the kernels read it: in the machine's byte order, C-contiguous, and every
    element aligned to its type (a view such as `np.frombuffer(buf, np.float32, offset=1)` reaches
    the kernels' typed pointers as undefined behaviour: a GPU faults, the sanitize build reports it).
    An array that is all three is returned as it is (a view offset by whole elements too); any other
    is copied once, after check_copy_size. 0-d arrays stay 0-d."""
    dtype, flags = array.dtype, array.flags
    native = dtype.isnative or dtype.byteorder == "|"
    if native and flags.c_contiguous and flags.aligned:
        return array
    check_copy_size(op, arg, array)
    try:
        return np.array(array, dtype=dtype if native else dtype.newbyteorder("="), order="C")  # (a copy)
    except MemoryError as exc:
        raise copy_size_error(op, arg, array, "the allocation failed") from exc


def _bytes_text(n: int) -> str:
    """`n bytes`, with the GiB or MiB from 1 MiB."""
    if n < 2**20:
        return f"{n} bytes"
    return f"{n} bytes ({n / 2**30:.1f} GiB)" if n >= 2**30 else f"{n} bytes ({n / 2**20:.1f} MiB)"


def available_memory() -> int | None:
    """Bytes of memory the OS reports available for new allocations without swapping (Linux's
    MemAvailable; else free physical pages), None where it says nothing."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import os

        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def check_copy_size(op: str, arg: str, array: Any, available: int | None = None, where: str = "host") -> None:
    """Before an input is copied (to make it contiguous, aligned or native-endian): a copy larger
    than the memory available (`available`, default available_memory(): host memory) is refused
    with a MemoryError naming the op, the argument, the array and the bytes, instead of NumPy's bare
    MemoryError or the OS killing the process part-way through the copy. A view can need far more
    than it holds: np.broadcast_to(x, (2**33,)) occupies one element."""
    limit = available_memory() if available is None else available
    if limit is not None and copy_bytes(array) > limit:
        raise copy_size_error(op, arg, array, f"more than the {_bytes_text(limit)} of {where} memory available")


def copy_bytes(array: Any) -> int:
    return int(array.size) * int(array.dtype.itemsize)


def copy_size_error(op: str, arg: str, array: Any, why: str) -> MemoryError:
    return MemoryError(f"{op}: {arg}: a contiguous copy of this {dtype_name(array)}{_fmt_shape(array.shape)} input "
                       f"needs {_bytes_text(copy_bytes(array))}, {why}: pass a C-contiguous, aligned array in native "
                       f"byte order (used as it is, without a copy), or a smaller one")


def check_dtype(op: str, arg: str, value: Any, allowed: tuple[str, ...], type_var: str | None = None) -> str:
    name = dtype_name(value)
    if name not in allowed:
        what = f"{type_var} in {{{', '.join(allowed)}}}" if type_var else ", ".join(allowed)
        raise TypeError(f"{op}: {arg}: expected dtype {what}, got {name}")
    return name


def check_same_dtype(op: str, arg: str, value: Any, expected: str, type_var: str, bound_by: str) -> None:
    name = dtype_name(value)
    if name != expected:
        raise TypeError(f"{op}: {arg}: expected dtype {expected} ({type_var}, as {bound_by}), got {name}")


def shape_error(op: str, arg: str, pattern: Sequence[str], actual: Sequence[int], bindings: Mapping[str, Any],
                context: str = "") -> ValueError:
    """The expected shape shows each already-bound symbol's value, and each expression's whose
    symbols are bound: [N, H, W, C=3], [I + H = 7, 2*H = 8]."""
    def shown(d: str) -> str:
        if d not in bindings:
            return d
        if d.startswith("*"):  # a dimension group: its dims
            return f"{d}={list(bindings[d])}"
        return f"{d}={bindings[d]}" if d.isidentifier() else f"{d} = {bindings[d]}"

    dims = [shown(d) for d in pattern]
    where = f" ({context})" if context else ""
    return ValueError(f"{op}: {arg}: expected shape [{', '.join(dims)}]{where}, got {_fmt_shape(actual)}")


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1  # an int attr is TensorFlow's int64 unless the spec bounds it


def _attr_scalar(op: str, name: str, value: Any, expected: str) -> Any:
    """A NumPy 0-d array attr as its scalar; an array of higher rank is refused by name (NumPy
    would say only "only 0-dimensional arrays can be converted")."""
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise TypeError(f"{op}: attr {name}: expected {expected}, got a {value.ndim}-d array of shape "
                            f"{_fmt_shape(value.shape)}")
        return value[()]
    return value


def check_bool(op: str, name: str, value: Any) -> bool:
    value = _attr_scalar(op, name, value, "a bool")
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{op}: attr {name}: expected a bool, got {type(value).__name__} {value!r}")
    return bool(value)


def check_int(op: str, name: str, value: Any, minimum: float | None = None, maximum: float | None = None,
              allowed: tuple[Any, ...] | None = None, above: bool = False, below: bool = False) -> int:
    value = _attr_scalar(op, name, value, "an int")
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{op}: attr {name}: expected an int, got {type(value).__name__} {value!r}")
    value = int(value)
    _check_range(op, name, value, _INT64_MIN if minimum is None else minimum,
                 _INT64_MAX if maximum is None else maximum, allowed, above, below)
    return value


def check_float(op: str, name: str, value: Any, minimum: float | None = None,
                maximum: float | None = None, above: bool = False, below: bool = False) -> float:
    value = _attr_scalar(op, name, value, "a float")
    if isinstance(value, bool) or not (isinstance(value, (int, float)) or hasattr(value, "__float__")):
        raise TypeError(f"{op}: attr {name}: expected a float, got {type(value).__name__} {value!r}")
    try:
        result = float(value)
    except OverflowError:  # an int (or Fraction) beyond float64: Python's bare "int too large to convert to float"
        raise ValueError(f"{op}: attr {name}: expected a float (|value| <= {sys.float_info.max!r}), got "
                         f"{_number_text(value)}, too large for a float") from None
    if math.isnan(result):
        raise ValueError(f"{op}: attr {name}: expected a number, got nan")
    _check_range(op, name, result, minimum, maximum, None, above, below)
    return result


def _number_text(value: Any) -> str:
    """A number for a message: an int of hundreds of digits as its digit count and leading digits."""
    if isinstance(value, int):
        digits = str(abs(value))
        if len(digits) > 24:
            return f"an int of {len(digits)} digits ({'-' if value < 0 else ''}{digits[:6]}...)"
    return f"{type(value).__name__} {value!r}"


def check_str(op: str, name: str, value: Any, allowed: tuple[str, ...] | None = None) -> str:
    value = _attr_scalar(op, name, value, "a string")
    if not isinstance(value, str):
        raise TypeError(f"{op}: attr {name}: expected a string, got {type(value).__name__} {value!r}")
    _check_range(op, name, value, None, None, allowed)
    return value


def check_enum(op: str, name: str, value: Any, allowed: tuple[str, ...]) -> str:
    value = _attr_scalar(op, name, value, f"one of {', '.join(allowed)}")
    if not isinstance(value, str):
        raise TypeError(f"{op}: attr {name}: expected one of {', '.join(allowed)}, got "
                        f"{type(value).__name__} {value!r}")
    if value not in allowed:
        raise ValueError(f"{op}: attr {name}: expected one of {', '.join(allowed)}, got {value!r}")
    return value


def check_int_list(op: str, name: str, value: Any, minimum: float | None = None,
                   maximum: float | None = None) -> tuple[int, ...]:
    if isinstance(value, np.ndarray) and value.ndim == 1:  # a 1-d array of ints is a list of ints
        value = value.tolist()
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{op}: attr {name}: expected a list of ints, got {type(value).__name__} {value!r}")
    return tuple(check_int(op, f"{name}[{i}]", v, minimum, maximum) for i, v in enumerate(value))


def check_type(op: str, name: str, value: Any, allowed: tuple[str, ...] | None) -> str:
    """A `type` attr: a dtype name or anything with a numpy-style `.name` (np.float32, np.dtype)."""
    text = value if isinstance(value, str) else getattr(value, "__name__", getattr(value, "name", None))
    if not isinstance(text, str):
        raise TypeError(f"{op}: attr {name}: expected a dtype, got {type(value).__name__} {value!r}")
    _check_range(op, name, text, None, None, allowed)
    return text


def _check_range(op: str, name: str, value: Any, minimum: float | None, maximum: float | None,
                 allowed: tuple[Any, ...] | None, above: bool = False, below: bool = False) -> None:
    """`above`/`below`: the bound itself is excluded (a spec's `above:`/`below:`)."""
    if allowed is not None and value not in allowed:
        raise ValueError(f"{op}: attr {name}: expected one of {list(allowed)}, got {value!r}")
    if minimum is not None and (value <= minimum if above else value < minimum):
        raise ValueError(f"{op}: attr {name}: expected a value {'>' if above else '>='} {minimum}, got {value!r}")
    if maximum is not None and (value >= maximum if below else value > maximum):
        raise ValueError(f"{op}: attr {name}: expected a value {'<' if below else '<='} {maximum}, got {value!r}")


def python_int(op: str, arg: str, value: Any, dtype: str) -> Any:
    """An input declared `accepts_python_int`: a Python (or NumPy) int becomes a 0-d array of the
    input's dtype, if it fits; anything else is left for the array checks."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        return value
    info = np.iinfo(dtype)
    if not info.min <= int(value) <= info.max:
        raise ValueError(f"{op}: {arg}: {int(value)} does not fit in {dtype}")
    return np.asarray(int(value), dtype=dtype)


def alias_view(op: str, name: str, array: Any, shape: Sequence[int]) -> Any:
    """A scratch buffer declared with `alias:`: a view of the output's leading elements, in the
    buffer's shape (the output must be C-contiguous and large enough)."""
    count = math.prod(shape)
    flat = array.reshape(-1)
    if flat.size < count:
        raise ValueError(f"{op}: scratch buffer {name}: needs {count} elements of its alias, which has {flat.size}")
    return flat[:count].reshape(tuple(shape))


def constraint_error(op: str, text: str, values: Mapping[str, int], message: str) -> ValueError:
    bound = ", ".join(f"{k}={v}" for k, v in values.items())
    extra = f": {message}" if message else ""
    return ValueError(f"{op}: requires {text} (with {bound}){extra}")


def merge_options(op: str, options: Sequence[Any], options_type: type[Any]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for option in options:
        if not isinstance(option, options_type):
            raise TypeError(f"{op}: options: expected {op}.Options, got {type(option).__name__} {option!r}")
        merged.update(option._values)  # the Options class of this op: checked above
    return merged


def check_list(op: str, arg: str, value: Any) -> list[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{op}: {arg}: expected a list of arrays, got {type(value).__name__}")
    return list(value)


def op_repr(op: str, outputs: Any) -> str:
    """`<FusedBatchNormGradV3 x_backprop=float32[2, 3, 4, 5] ...>`: shapes and dtypes, not values."""
    def text(value: Any) -> str:
        if hasattr(value, "shape"):
            return f"{dtype_name(value)}{_fmt_shape(value.shape)}"
        if isinstance(value, list):  # a list output (runtime ops)
            return "[" + ", ".join(text(v) for v in value) + "]"
        return repr(value)

    parts = [f"{name}={text(value)}" for name, value in zip(outputs._fields, outputs, strict=True)]
    return f"<{op} {' '.join(parts)}>"


def _bound_text(text: str, value: int) -> str:
    return text if text == str(value) else f"{text}={value}"


def check_values(op: str, arg: str, value: Any, minimum: int | None, maximum: int | None,
                 min_text: str = "", max_text: str = "") -> None:
    """An input's `values: {min, max}`: every element within the bounds, checked on the host (a
    device array is copied there: a synchronisation, paid only by inputs that declare bounds)."""
    from codegen.runtime.arrays import to_host

    host = to_host(value)
    if host.size == 0:
        return
    bad = np.zeros(host.shape, dtype=bool)
    if minimum is not None:
        bad |= host < minimum
    if maximum is not None:
        bad |= host > maximum
    if host.dtype.kind == "f":
        bad |= np.isnan(host)
    if not bad.any():
        return
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    raise value_error(op, arg, minimum, maximum, min_text, max_text, host[index].item(), list(index))


def value_error(op: str, arg: str, minimum: int | None, maximum: int | None, min_text: str, max_text: str,
                value: Any, index: list[int], when: str = "") -> ValueError:
    """The error of an element outside an input's `values` bounds (`when`: where it was found, for a
    check that ran on the device)."""
    lo = _bound_text(min_text or str(minimum), minimum) if minimum is not None else None
    hi = _bound_text(max_text or str(maximum), maximum) if maximum is not None else None
    expected = f"in [{lo}, {hi}]" if lo is not None and hi is not None else f">= {lo}" if lo is not None else f"<= {hi}"
    return ValueError(f"{op}: {arg}: expected every value {expected}, got {value!r} at index {index}"
                      + (f" ({when})" if when else ""))


def check_values_on_device(backend: Any, op: str, arg: str, value: Any, minimum: int | None, maximum: int | None,
                           min_text: str = "", max_text: str = "") -> None:
    """`values: {..., on_device: true}`: on a backend that checks on the device (the cuda backend:
    device_value_checks.py), a kernel checks the bounds and a later call reports a bad value, with
    no host synchronisation in this one; elsewhere `check_values`, now."""
    later = getattr(backend, "check_values_on_device", None)
    if later is None:
        check_values(op, arg, value, minimum, maximum, min_text, max_text)
    else:
        later(op, arg, value, minimum, maximum, min_text, max_text)


def prod(dims: Sequence[Any]) -> Any:
    """The product of a dimension group (1 when empty): the group's name in expressions. Sizes may
    be SymInts (fake tensors)."""
    return math.prod(dims)


def normalize_axis(op: str, attr: str, value: int, arg: str, ndim: int, before: int, after: int) -> int:
    """An axis attr (negative counts from the end) as an index of `arg`'s dims; `before`/`after`:
    the fixed dims the shape has before the first group and after the second, which the axis
    cannot be."""
    axis = value + ndim if value < 0 else value
    if not before <= axis < ndim - after:
        lo, hi = before - ndim, ndim - after - 1
        raise ValueError(f"{op}: attr {attr}: expected a value in [{lo}, {hi}] for {arg} of rank {ndim}, "
                         f"got {value}")
    return axis
