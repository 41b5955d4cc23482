"""A ctypes front-end for the generated drivers in tests (codegen/drivergen_checks.py): driver.h's
structs, NumPy inputs and Python attrs marshalled as the Python front-end will classify them, an
allocator that makes NumPy arrays, and a stand-in for the plan's runtime (`opgen_native::run_plan`,
another part of issue 32) that records what the driver hands it, so a test can hold it against
what the Python wrapper passes to `_rt.run_plan`."""

from __future__ import annotations

import ctypes
import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from codegen.runtime.checks import dtype_name

#: driver.h's opgen_dtype numbering, and its results as the Python exceptions they stand for
DTYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "bfloat16",
          "float32", "float64")
DT_OTHER = 99
RESULTS = {0: None, 1: "TypeError", 2: "ValueError", 3: "MemoryError", 4: "RuntimeError", 5: "fallback"}
ARG_TENSOR, ARG_ABSENT, ARG_LIST = range(3)
VAL_INT, VAL_FLOAT, VAL_STR, VAL_LIST, VAL_ACT, VAL_BOOL, VAL_NONE = range(7)
MAX_NDIM, MAX_OUTPUTS = 16, 16


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("ndim", ctypes.c_int32), ("dtype", ctypes.c_int32),
                ("device", ctypes.c_int32), ("device_index", ctypes.c_int32), ("name", ctypes.c_char_p)]


class Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("reserved", ctypes.c_int32), ("tensor", Tensor),
                ("items", ctypes.POINTER(Tensor)), ("len", ctypes.c_int64)]


class Value(ctypes.Structure):
    pass


Value._fields_ = [("kind", ctypes.c_int32), ("reserved", ctypes.c_int32), ("i", ctypes.c_int64), ("f", ctypes.c_double),
                  ("items", ctypes.POINTER(Value)), ("len", ctypes.c_int64), ("text", ctypes.c_char_p)]

ALLOC = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32, ctypes.c_int32,
                         ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p),
                         ctypes.c_void_p, ctypes.c_int64)


class Allocator(ctypes.Structure):
    _fields_ = [("alloc", ALLOC), ("ctx", ctypes.c_void_p)]


class Call(ctypes.Structure):
    _fields_ = [("inputs", ctypes.POINTER(Arg)), ("ninputs", ctypes.c_int64), ("attrs", ctypes.POINTER(Value)),
                ("nattrs", ctypes.c_int64), ("outputs", Tensor * MAX_OUTPUTS),
                ("output_shapes", (ctypes.c_int64 * MAX_NDIM) * MAX_OUTPUTS), ("noutputs", ctypes.c_int64),
                ("preallocated", ctypes.c_int32), ("device", ctypes.c_int32), ("device_index", ctypes.c_int32),
                ("reserved", ctypes.c_int32), ("stream", ctypes.c_void_p), ("allocator", Allocator),
                ("err", ctypes.c_char * 1024)]


#: The test's stand-in for the plan's runtime: the values and slots it was given, as JSON.
CAPTURE = r"""
#include <string>
namespace opgen_native {
static std::string g_capture;
static void capture_value(std::string& o, const opgen_plan_value& v) {
  int64_t bits;
  std::memcpy(&bits, &v.f, sizeof bits);
  o += "[" + std::to_string(v.kind) + "," + std::to_string(v.i) + "," + std::to_string(bits) + ",[";
  for (int64_t k = 0; k < v.len; ++k) {
    if (k) o += ",";
    capture_value(o, v.items[k]);
  }
  o += "]]";
}
int run_plan(opgen_call* call, const PlanCall& plan) {
  (void)call;
  std::string o = "{\"op\":\"" + std::string(plan.op) + "\",\"nsymbols\":" + std::to_string(plan.nsymbols) +
                  ",\"recorder\":" + std::to_string(plan.record != nullptr) + ",\"values\":[";
  for (int64_t k = 0; k < plan.nvalues; ++k) {
    if (k) o += ",";
    capture_value(o, plan.values[k]);
  }
  o += "],\"slots\":[";
  for (int64_t k = 0; k < plan.nslots; ++k) {
    const Slot& s = plan.slots[k];
    o += std::string(k ? "," : "") + "[" + std::to_string((uint64_t)(uintptr_t)s.data) + "," +
         std::to_string(s.count) + "," + std::to_string(s.dtype) + ",[";
    for (int64_t j = 0; j < (s.count > 0 ? s.count : 0); ++j)
      o += std::string(j ? "," : "") + std::to_string((uint64_t)(uintptr_t)s.items[j]);
    o += "]]";
  }
  o += "],\"value_checks\":[";
  for (int64_t k = 0; k < plan.nvalue_checks; ++k) {
    const ValueCheck& c = plan.value_checks[k];
    o += std::string(k ? "," : "") + "[" + std::to_string((uint64_t)(uintptr_t)c.tensor->data) + ",\"" + c.arg +
         "\"," + (c.has_min ? std::to_string(c.min) : "null") + "," + (c.has_max ? std::to_string(c.max) : "null") +
         ",\"" + c.min_text + "\",\"" + c.max_text + "\"]";
  }
  g_capture = o + "]}";
  return OPGEN_OK;
}
}  // namespace opgen_native
OPGEN_DRIVER_API const char* opgen_test_capture() { return opgen_native::g_capture.c_str(); }
"""


def dtype_code(array: np.ndarray) -> int:
    name = dtype_name(array)
    return DTYPES.index(name) if name in DTYPES else DT_OTHER


def numpy_dtype(code: int) -> Any:
    from codegen.runtime.cpu import numpy_dtype as named

    return named(DTYPES[code])


@dataclass
class Result:
    """One driver call: its result kind ("TypeError", ..., "fallback", None) and message, the
    outputs' (dtype, shape), the allocations made, and the captured plan call."""
    kind: str | None
    message: str
    outputs: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)
    allocations: dict[int, tuple[int, str, tuple[int, ...]]] = field(default_factory=dict)
    capture: dict[str, Any] | None = None


class Driver:
    """Calls `opgen_call_Op` / `opgen_shapes_Op` of a loaded library with NumPy inputs."""

    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib
        lib.opgen_test_capture.restype = ctypes.c_char_p

    def run(self, op: str, inputs: Sequence[Any], attrs: Sequence[Any], shapes_only: bool = False,
            device: int = 0, preallocated: Sequence[np.ndarray] | None = None, alloc_error: str = "",
            input_device: int | None = None, input_device_index: int = 0) -> Result:
        """`device`: the call's (and the inputs', unless `input_device`; the call's device index is
        0, the inputs' `input_device_index`); `preallocated`: the outputs the caller hands in;
        `alloc_error`: the allocator refuses with this message."""
        keep: list[Any] = []
        args = (Arg * max(len(inputs), 1))()
        for k, x in enumerate(inputs):
            self._arg(args[k], x, keep, device if input_device is None else input_device)
            for t in [args[k].tensor, *(args[k].items[j] for j in range(args[k].len))]:
                t.device_index = input_device_index
        values = (Value * max(len(attrs), 1))()
        for k, a in enumerate(attrs):
            self._value(values[k], a, keep)
        allocations: dict[int, tuple[int, str, tuple[int, ...]]] = {}

        def alloc(ctx: Any, index: int, dtype: int, ndim: int, shape: Any, nbytes: int, data: Any, err: Any,
                  errlen: int) -> int:
            if alloc_error:
                ctypes.memmove(err, alloc_error.encode(), min(len(alloc_error), errlen - 1))
                return 1
            dims = tuple(shape[d] for d in range(ndim))
            array = np.empty(dims, numpy_dtype(dtype))
            assert array.nbytes == nbytes, (dims, DTYPES[dtype], nbytes)
            keep.append(array)
            data[0] = array.ctypes.data
            allocations[array.ctypes.data] = (index, DTYPES[dtype], dims)
            return 0

        call = Call()
        call.inputs, call.ninputs = args, len(inputs)
        call.attrs, call.nattrs = values, len(attrs)
        call.device = device
        for k, out in enumerate(preallocated or ()):
            self._tensor(call.outputs[k], out, keep, device)
        call.preallocated = preallocated is not None
        callback = ALLOC(alloc)
        call.allocator.alloc = callback
        self.lib.opgen_test_capture().decode()
        fn = getattr(self.lib, f"opgen_{'shapes' if shapes_only else 'call'}_{op}")
        fn.restype, fn.argtypes = ctypes.c_int, [ctypes.POINTER(Call)]
        code = fn(ctypes.byref(call))
        result = Result(RESULTS[code], call.err.decode())
        if code == 0:
            for k in range(call.noutputs):
                t = call.outputs[k]
                result.outputs.append((DTYPES[t.dtype], tuple(t.shape[d] for d in range(t.ndim))))
            if not shapes_only:
                result.capture = json.loads(self.lib.opgen_test_capture().decode())
                result.allocations = allocations
        return result

    @staticmethod
    def _tensor(t: Tensor, a: np.ndarray, keep: list[Any], device: int) -> None:
        shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        keep.append(shape)
        t.data, t.shape, t.ndim, t.dtype, t.device = a.ctypes.data, shape, a.ndim, dtype_code(a), device
        if not a.flags.c_contiguous:  # (strides in elements; NULL: contiguous)
            strides = (ctypes.c_int64 * max(a.ndim, 1))(*(s // a.itemsize for s in a.strides))
            keep.append(strides)
            t.strides = strides
        t.name = dtype_name(a).encode()
        keep.append(t.name)

    def _arg(self, arg: Arg, x: Any, keep: list[Any], device: int) -> None:
        if x is None:
            arg.kind = ARG_ABSENT
        elif isinstance(x, list):
            items = (Tensor * max(len(x), 1))()
            for k, a in enumerate(x):
                self._tensor(items[k], a, keep, device)
            keep.append(items)
            arg.kind, arg.items, arg.len = ARG_LIST, items, len(x)
        else:
            arg.kind = ARG_TENSOR
            self._tensor(arg.tensor, x, keep, device)

    def _value(self, v: Value, a: Any, keep: list[Any]) -> None:
        """As the Python front-end classifies an attr: exact bool/int/float/str/list/None, an activation."""
        if a is None:
            v.kind = VAL_NONE
        elif type(a) is bool:
            v.kind, v.i = VAL_BOOL, int(a)
        elif type(a) is int:
            v.kind, v.i = VAL_INT, a
        elif type(a) is float:
            v.kind, v.f = VAL_FLOAT, a
        elif type(a) is str:
            data = a.encode()
            keep.append(data)
            v.kind, v.text, v.len = VAL_STR, data, len(data)
        elif type(a) is list:
            self._items(v, VAL_LIST, 0, a, keep)
        elif callable(getattr(a, "kernel_args", None)):  # its id, then its parameters as kernels get them
            args = a.kernel_args()
            self._items(v, VAL_ACT, int(args[0]), [float(p) for p in args[1:]], keep)
        else:
            raise TypeError(f"no driver.h form for {a!r}: the front-end falls back to Python")

    def _items(self, v: Value, kind: int, i: int, items: Sequence[Any], keep: list[Any]) -> None:
        array = (Value * max(len(items), 1))()
        for k, item in enumerate(items):
            self._value(array[k], item, keep)
        keep.append(array)
        v.kind, v.i, v.items, v.len = kind, i, ctypes.cast(array, ctypes.POINTER(Value)), len(items)


def decode_value(v: list[Any]) -> Any:
    """A captured plan value as comparable data: (kind, payload)."""
    kind, i, bits, items = v
    if kind == 0:
        return ("int", i)
    if kind == 1:
        return ("float", struct.unpack("<d", struct.pack("<q", bits))[0])
    if kind == 2:
        return ("str", i)
    if kind == 3:
        return ("list", tuple(decode_value(x) for x in items))
    return ("act", i, tuple(decode_value(x) for x in items))


def encode_python(v: Any, strings: Sequence[str]) -> Any:
    """A Python plan value in decode_value's form, as codegen/runtime/native_plan.py encodes it."""
    if isinstance(v, (bool, int, np.integer, np.bool_)):
        return ("int", int(v))
    if isinstance(v, (float, np.floating)):
        return ("float", float(v))
    if isinstance(v, str):
        return ("str", list(strings).index(v) if v in strings else -1)
    if isinstance(v, (list, tuple)):
        return ("list", tuple(encode_python(x, strings) for x in v))
    args = v.kernel_args()
    return ("act", int(args[0]), tuple(("float", float(p)) for p in args[1:]))
