"""The native checks on a toy op with what the generated ops do not have (an int attr with allowed
values, a string attr, a type attr, a list(int) attr, open float bounds, activation attrs by name,
an input with `values:` bounds and `accepts_dtypes`): every variant's native error kind and
message equal the wrapper's (its `_compute` as codegen/pygen.py prints it); the cases the driver
hands back to Python (a fallback, with its reason); the driver's own contract (preallocated outputs,
an allocator that refuses, the arity); and Python's repr of floats and strings in C++."""

from __future__ import annotations

import ctypes
import math
import random
from typing import Any

import numpy as np
import pytest
from native_driver_harness import CAPTURE, Driver, decode_value, encode_python

from codegen import drivergen, drivergen_checks, drivergen_unit, pygen
from codegen.load import load_specs
from codegen.runtime import api, native_plan
from codegen.vocab import load_activations
from generated.activations import Activation

TOY = """\
op: Toy
summary: Exercises the native checks.
type_vars:
  T: [float32, float16]
attrs:
  - {name: k, type: int, default: 1, allowed: [1, 2, 4], doc: A size.}
  - {name: how, type: string, default: a, allowed: [a, "it's"], doc: A string.}
  - {name: out_type, type: type, default: float32, allowed: [float32, float64], doc: A dtype.}
  - {name: sizes, type: list(int), default: [1], min: 0, max: 9, doc: Sizes.}
  - {name: scale, type: float, default: 0.5, above: 0, below: 1, doc: A factor.}
  - {name: act, type: activation, default: tanh, doc: One.}
  - {name: acts, type: list(activation), length: C, default: relu, doc: Several.}
inputs:
  - {name: x, dtype: T, shape: "[N, C]", doc: The input.}
  - {name: lengths, dtype: int32, shape: "[N]", accepts_dtypes: [int64], values: {min: 1, max: C}, doc: Lengths.}
  - {name: bias, dtype: T, shape: "[C]", optional: true, doc: Optional.}
  - {name: parts, dtype: T, list: true, shape: "[C]", doc: A list.}
outputs:
  - {name: y, dtype: T, shape: "[N, C]", doc: The result.}
kernel:
  source: demo/toy.cu
  specialize: [T]
  launch:
    - kernel: toy
      grid: ["ceildiv(N*C, 256)"]
      block: [256]
      args: [x, lengths, bias, parts, y, N, C, k, scale, act, "acts[0]", "sizes[0]"]
"""

#: Exported beside the toy's driver: checks.h's reprs, for the test against Python's.
REPRS = r"""
OPGEN_DRIVER_API void opgen_test_float_repr(double x, char* out, int64_t n) {
  snprintf(out, (size_t)n, "%s", opgen_checks::float_repr(x).c_str());
}
OPGEN_DRIVER_API void opgen_test_str_repr(const char* s, int64_t len, char* out, int64_t n) {
  snprintf(out, (size_t)n, "%s", opgen_checks::str_repr(s, len).c_str());
}
// checks.h's arithmetic on two numbers (kind 1 bool, 2 int, 3 float, as its Kind): the result in
// *out, or the code it raised (a fallback: Python's ints do not overflow, its ZeroDivisionError is its own)
OPGEN_DRIVER_API int opgen_test_arith(int op, int32_t ka, int64_t ia, double fa, int32_t kb, int64_t ib, double fb,
                                      int32_t* kind, int64_t* i, double* f) {
  using namespace opgen_checks;
  auto v = [](int32_t k, int64_t n, double x) {
    return k == K_FLOAT ? real(x) : k == K_BOOL ? boolean(n != 0) : integer(n);
  };
  V a = v(ka, ia, fa), b = v(kb, ib, fb), r;
  try {
    switch (op) {
      case 0: r = add(a, b); break;
      case 1: r = sub(a, b); break;
      case 2: r = mul(a, b); break;
      case 3: r = floordiv(a, b); break;
      case 4: r = neg(a); break;
      case 5: r = integer(compare(a, b)); break;
      case 6: r = boolean(equal(a, b)); break;
      case 7: r = min_of(a, b); break;  // (the pair's inline form, as drivers print min(a, b))
      case 8: r = max_of(a, b); break;
      case 9: r = min_of({a, b}); break;  // (the list's loop: three or more, and the pair's way out)
      default: r = max_of({a, b}); break;
    }
  } catch (const Raise& e) {
    return e.code;
  }
  *kind = r.kind; *i = r.i; *f = r.f;
  return 0;
}
// The same on plain int64s, the forms a driver prints where it knows both operands are ints (or bools)
OPGEN_DRIVER_API int opgen_test_int_arith(int op, int64_t a, int64_t b, int64_t* out) {
  using namespace opgen_checks;
  try {
    switch (op) {
      case 0: *out = add_i(a, b); break;
      case 1: *out = sub_i(a, b); break;
      case 2: *out = mul_i(a, b); break;
      case 3: *out = floordiv_i(a, b); break;
      case 4: *out = neg_i(a); break;
      case 5: *out = mod_i(a, b); break;
      case 6: *out = min_i(a, b); break;
      default: *out = max_i(a, b); break;
    }
  } catch (const Raise& e) {
    return e.code;
  }
  return 0;
}
"""


class _Stop(Exception):
    pass


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any, Driver]:
    """The toy's spec, its wrapper's `_compute` (pygen's lines, run against the runtime) and its driver."""
    root = tmp_path_factory.mktemp("toy") / "specs"
    (root / "demo").mkdir(parents=True)
    (root / "demo" / "toy.yaml").write_text(TOY, encoding="utf-8")
    (op,) = load_specs(root)
    plan = drivergen.runtime_plan(op)
    names = [a.name for a in op.inputs] + [a.name for a in op.attrs]
    source = f"def _compute(scope, {', '.join(names)}):\n" + "\n".join(pygen.run_body(op))
    scope: dict[str, Any] = {"_rt": api, "_OP": op.name, "_np": np, "Activation": Activation, "_KERNELS": None,
                             "_PLAN": plan}
    exec(compile(source, "<toy wrapper>", "exec"), scope)
    unit = drivergen_unit.translation_unit([(op, plan)], load_activations(root), CAPTURE + REPRS)
    return op, scope["_compute"], Driver(native_plan.load(unit, "drivers-toy").lib)


GOOD_INPUTS: dict[str, Any] = {"x": np.ones((2, 3), np.float32), "lengths": np.array([1, 3], np.int32), "bias": None,
                               "parts": [np.ones(3, np.float32), np.zeros(3, np.float32)]}
GOOD_ATTRS = {"k": 2, "how": "a", "out_type": "float64", "sizes": [0, 9], "scale": 0.25, "act": "tanh",
              "acts": "relu"}

VARIANTS: list[tuple[str, Any]] = [
    ("k", 3), ("k", 4), ("k", True), ("k", 2.0), ("k", "2"), ("k", None),
    ("how", "b"), ("how", "it's"), ("how", 'say "x"'), ("how", "tab\there"), ("how", 1),
    ("out_type", "int8"), ("out_type", 5), ("out_type", None), ("out_type", "float32"),
    ("sizes", [0, 10]), ("sizes", [-1]), ("sizes", 3), ("sizes", "ab"), ("sizes", [1, True]), ("sizes", [1, 2.5]),
    ("sizes", []),
    ("scale", 0), ("scale", 1), ("scale", 0.0), ("scale", 1.0), ("scale", 1e-300), ("scale", 0.999), ("scale", 2),
    ("scale", float("nan")), ("scale", float("inf")), ("scale", -1e-05), ("scale", 1e16), ("scale", 123456789.125),
    ("scale", "0.5"), ("scale", True),
    ("act", "relu"), ("act", "bogus"), ("act", 3), ("act", None), ("act", [1]),
    ("acts", "sigmoid"), ("acts", ["relu", "tanh", "elu"]), ("acts", ["relu", 5, "tanh"]), ("acts", ["relu", "x", "y"]),
    ("acts", 7), ("acts", None), ("acts", Activation.leaky_relu(alpha=0.2)),
    ("act", Activation.leaky_relu(alpha=0.2)),
]
INPUT_VARIANTS: list[tuple[str, Any]] = [
    ("lengths", np.array([0, 3], np.int32)), ("lengths", np.array([1, 4], np.int32)),
    ("lengths", np.array([1, 2], np.uint8)), ("lengths", np.array([1, 4], np.int64)),
    ("bias", np.ones(3, np.float32)), ("bias", np.ones(3, np.float16)), ("bias", np.ones(4, np.float32)),
    ("x", np.ones((2, 3), np.float16)), ("x", np.ones((2, 3), np.float64)), ("x", None), ("lengths", None),
    ("x", np.ones((2, 3), np.complex64)), ("bias", np.ones(3, "U1")),
    ("parts", []), ("parts", None), ("parts", [np.ones(3, np.float16)]), ("parts", [np.ones(4, np.float32)]),
    ("parts", [np.ones(3, np.float32), np.ones(3, np.float64)]),
    ("parts", [np.ones(3, np.float32), np.ones(2, np.float32)]),
    ("parts", [np.ones(3, np.float32), np.ones((1, 3), np.float32)]),
]
#: What the driver hands back to the Python path, and why (the front-end then runs the wrapper).
FALLBACKS: list[tuple[str, Any, str]] = [
    ("acts", ["relu", "tanh"], "the message of an activation list's length shows their reprs"),
    ("act", "leaky_relu(alpha=0.1)", "an activation's text form is parsed by the Python path"),
    ("lengths", np.array([1, 3], np.int64), "lengths: converting int64 to int32 is the Python path's"),
    ("x", np.ones((3, 2), np.float32).T, "x: a strided input is copied by the Python path"),
    ("parts", np.ones((1, 3), np.float32), "parts: an array where a list is expected is the Python path's"),
]


def _python(compute: Any, inputs: dict[str, Any], attrs: dict[str, Any], monkeypatch: pytest.MonkeyPatch
            ) -> tuple[str | None, str]:
    def run_plan(*args: Any) -> None:
        raise _Stop

    monkeypatch.setenv("OPGEN_NATIVE", "0")  # the Python plan: what this hook captures

    monkeypatch.setattr(api, "run_plan", run_plan)
    try:
        compute("cpu", *inputs.values(), *attrs.values())
    except _Stop:
        return None, ""
    except Exception as e:  # noqa: BLE001 (its type is what the test compares)
        return type(e).__name__, str(e)
    raise AssertionError("the toy wrapper returned without running its plan")


@pytest.mark.parametrize("name, value", VARIANTS + INPUT_VARIANTS, ids=lambda v: repr(v)[:40])
def test_toy_variant_gives_the_wrappers_outcome(toy: tuple[Any, Any, Driver], monkeypatch: pytest.MonkeyPatch,
                                                name: str, value: Any) -> None:
    _, compute, driver = toy
    inputs, attrs = dict(GOOD_INPUTS), dict(GOOD_ATTRS)
    (inputs if name in inputs else attrs)[name] = value
    expected = _python(compute, inputs, attrs, monkeypatch)
    native = driver.run("Toy", list(inputs.values()), list(attrs.values()))
    assert (native.kind, native.message) == expected


@pytest.mark.parametrize("attrs", [GOOD_ATTRS, {**GOOD_ATTRS, "act": Activation.leaky_relu(alpha=0.2),
                                                 "acts": ["elu", Activation.linear(alpha=0.5, beta=-1.0), "relu"]}],
                         ids=["names", "instances"])
def test_toy_plan_values_and_slots_are_the_wrappers(toy: tuple[Any, Any, Driver], monkeypatch: pytest.MonkeyPatch,
                                                    attrs: dict[str, Any]) -> None:
    """Activations (by name: the library's defaults; instances: their kernel parameters; one for C
    of them), a list(int), a list input's slot (its elements' pointers), an absent input's."""
    _, compute, driver = toy
    seen: list[Any] = []

    def run_plan(backend: Any, kernels: Any, plan: Any, values: Any, buffers: Any) -> None:
        seen.extend([plan, values, buffers])
        raise _Stop

    monkeypatch.setenv("OPGEN_NATIVE", "0")  # the Python plan: what this hook captures

    monkeypatch.setattr(api, "run_plan", run_plan)
    with pytest.raises(_Stop):
        compute("cpu", *GOOD_INPUTS.values(), *attrs.values())
    plan, values, buffers = seen
    native = driver.run("Toy", list(GOOD_INPUTS.values()), list(attrs.values()))
    assert native.capture is not None
    strings, _ = drivergen.plan_tables(plan)
    assert [decode_value(v) for v in native.capture["values"]] == [encode_python(v, strings) for v in values]
    slots = native.capture["slots"]
    assert [s[0] for s in slots[:3]] == [GOOD_INPUTS["x"].ctypes.data, GOOD_INPUTS["lengths"].ctypes.data, 0]
    parts = GOOD_INPUTS["parts"]
    assert all(a is b for a, b in zip(buffers[3], parts, strict=True))
    assert slots[3][1:] == [2, 11, [a.ctypes.data for a in parts]]  # (count, float32, the elements' pointers)


@pytest.mark.parametrize("name, value, why", FALLBACKS, ids=lambda v: repr(v)[:40])
def test_toy_falls_back_where_only_python_can_say(toy: tuple[Any, Any, Driver], name: str, value: Any,
                                                  why: str) -> None:
    _, _, driver = toy
    inputs, attrs = dict(GOOD_INPUTS), dict(GOOD_ATTRS)
    (inputs if name in inputs else attrs)[name] = value
    native = driver.run("Toy", list(inputs.values()), list(attrs.values()))
    assert (native.kind, native.message) == ("fallback", why)


def test_preallocated_outputs_are_checked_and_used(toy: tuple[Any, Any, Driver]) -> None:
    _, _, driver = toy
    inputs = list(GOOD_INPUTS.values())
    attrs = list(GOOD_ATTRS.values())
    y = np.empty((2, 3), np.float32)
    ok = driver.run("Toy", inputs, attrs, preallocated=[y])
    assert ok.kind is None and ok.allocations == {}  # nothing allocated: the caller's output is the slot
    assert ok.capture is not None and ok.capture["slots"][4][0] == y.ctypes.data
    for wrong in (np.empty((2, 4), np.float32), np.empty((2, 3), np.float16), np.empty((6,), np.float32)):
        bad = driver.run("Toy", inputs, attrs, preallocated=[wrong])
        got = f"{wrong.dtype}{list(wrong.shape)}"
        assert (bad.kind, bad.message) == ("ValueError", f"Toy: output y: expected float32[2, 3], got {got} "
                                                         "(preallocated)")


def test_shapes_allocate_nothing_and_a_refusing_allocator_is_a_memory_error(toy: tuple[Any, Any, Driver]) -> None:
    _, _, driver = toy
    inputs, attrs = list(GOOD_INPUTS.values()), list(GOOD_ATTRS.values())
    shapes = driver.run("Toy", inputs, attrs, shapes_only=True, alloc_error="never asked")
    assert (shapes.kind, shapes.outputs) == (None, [("float32", (2, 3))])
    refused = driver.run("Toy", inputs, attrs, alloc_error="out of device memory: 24 bytes")
    assert (refused.kind, refused.message) == ("MemoryError", "out of device memory: 24 bytes")


def test_a_call_with_the_wrong_arity_is_refused_by_name(toy: tuple[Any, Any, Driver]) -> None:
    _, _, driver = toy
    bad = driver.run("Toy", list(GOOD_INPUTS.values())[:2], list(GOOD_ATTRS.values()))
    assert (bad.kind, bad.message) == ("RuntimeError", "Toy: the driver takes 4 inputs and 7 attrs, the call gave 2 "
                                                       "and 7")


def test_an_input_on_another_device_falls_back(toy: tuple[Any, Any, Driver]) -> None:
    """The cpu backend copies a CUDA array to the host: the front-end's copy to make, not the driver's."""
    _, _, driver = toy
    inputs, attrs = list(GOOD_INPUTS.values()), list(GOOD_ATTRS.values())
    on_device = driver.run("Toy", inputs, attrs, device=1)  # a `values:` check without on_device: on the host
    assert (on_device.kind, on_device.message) == ("fallback", "lengths: a device input's values are checked by the "
                                                               "Python path")
    moved = driver.run("Toy", inputs, attrs, device=0, input_device=1)
    assert (moved.kind, moved.message) == ("fallback", "x: an input on another device is copied by the Python path")
    other_gpu = driver.run("Toy", inputs, attrs, device=1, input_device_index=1)
    assert (other_gpu.kind, other_gpu.message) == (moved.kind, moved.message)
    assert driver.run("Toy", inputs, attrs, device=0, input_device_index=1).kind is None  # (no index on the cpu)


def _reprs(driver: Driver) -> tuple[Any, Any]:
    lib = driver.lib
    lib.opgen_test_float_repr.argtypes = [ctypes.c_double, ctypes.c_char_p, ctypes.c_int64]
    lib.opgen_test_str_repr.argtypes = [ctypes.c_char_p, ctypes.c_int64, ctypes.c_char_p, ctypes.c_int64]

    def float_repr(x: float) -> str:
        out = ctypes.create_string_buffer(64)
        lib.opgen_test_float_repr(x, out, 64)
        return out.value.decode()

    def str_repr(s: str) -> str:
        data = s.encode()
        out = ctypes.create_string_buffer(4 * len(data) + 8)
        lib.opgen_test_str_repr(data, len(data), out, len(out))
        return out.value.decode()

    return float_repr, str_repr


def test_float_and_string_reprs_are_pythons(toy: tuple[Any, Any, Driver]) -> None:
    float_repr, str_repr = _reprs(toy[2])
    rng = random.Random(0)
    values = [0.0, -0.0, 1.0, -1.0, 0.1, 1e-05, 1e-4, 0.0001234, 1e16, 1e15, 123456789012345.6, 1.5e300, 5e-324,
              math.inf, -math.inf, math.nan, 2.0**63, 1 / 3, 100.0, 1e22, 9.999999999999999e15]
    values += [rng.uniform(-1e6, 1e6) for _ in range(200)] + [10.0 ** rng.uniform(-30, 30) for _ in range(200)]
    values += [float(np.float32(v)) for v in values[:100] if abs(v) < 3e38]  # (float32 values: a kernel's)
    for v in values:
        assert float_repr(v) == repr(v), v
    for s in ["abc", "it's", 'say "x"', "both ' and \"", "tab\there", "nl\n", "back\\slash", "\x01\x7f", "é·≥", ""]:
        assert str_repr(s) == repr(s), s


_ARITH = ("add", "sub", "mul", "floordiv", "neg", "compare", "equal", "min", "max", "min_list", "max_list")


def _python_arith(op: str, a: Any, b: Any) -> Any:
    """Python's answer, or "fallback" where the driver hands the call back (an int past int64, a
    division by zero: Python's own results and errors)."""
    try:
        r = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "floordiv": lambda: a // b,
             "neg": lambda: -a, "compare": lambda: (a > b) - (a < b), "equal": lambda: a == b,
             "min": lambda: min(a, b), "max": lambda: max(a, b), "min_list": lambda: min(a, b),
             "max_list": lambda: max(a, b)}[op]()
    except ZeroDivisionError:
        return "fallback"
    if type(r) is int and not -2**63 <= r < 2**63:
        return "fallback"
    return r


def test_arithmetic_is_pythons_on_ints_bools_and_floats(toy: tuple[Any, Any, Driver]) -> None:
    """checks.h's int fast paths (the drivers' usual operands) and their way out through plan_eval.h
    give Python's value and type: floor division rounding down, bools as ints, an int64 overflow or a
    division by zero handed back, floats mixed in."""
    lib = toy[2].lib
    lib.opgen_test_arith.restype = ctypes.c_int
    lib.opgen_test_arith.argtypes = [ctypes.c_int, ctypes.c_int32, ctypes.c_int64, ctypes.c_double, ctypes.c_int32,
                                     ctypes.c_int64, ctypes.c_double, ctypes.POINTER(ctypes.c_int32),
                                     ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_double)]
    kinds = {bool: 1, int: 2, float: 3}
    big = 2**63 - 1
    numbers = [0, 1, -1, 2, -2, 7, -7, 32, -33, 4096, big, -big - 1, big // 2 + 1, -(2**32), True, False, 2.5, -0.5,
               0.0]

    def described(x: Any) -> tuple[int, int, float]:  # (kind, the int, the float)
        return kinds[type(x)], int(x) if type(x) is not float else 0, float(x) if type(x) is float else 0.0

    for op in _ARITH:
        for a in numbers:
            for b in numbers:
                kind, i, f = ctypes.c_int32(), ctypes.c_int64(), ctypes.c_double()
                code = lib.opgen_test_arith(_ARITH.index(op), *described(a), *described(b), kind, i, f)
                expected = _python_arith(op, a, b)
                if expected == "fallback":
                    assert code == 5, (op, a, b)
                    continue
                assert code == 0, (op, a, b)
                got = {1: bool(i.value), 2: i.value, 3: f.value}[kind.value]
                assert type(got) is type(expected) and (got == expected or (got != got and expected != expected)), \
                    (op, a, b, got, expected)


_INT_ARITH = ("add", "sub", "mul", "floordiv", "neg", "mod", "min", "max")


def test_typed_int_arithmetic_is_pythons(toy: tuple[Any, Any, Driver]) -> None:
    """The int64 forms a driver prints for locals it knows are ints (drivergen_checks' typed form):
    Python's values (floor division and modulo rounding down), an overflow or a division by zero
    handed back as the V forms do."""
    lib = toy[2].lib
    lib.opgen_test_int_arith.restype = ctypes.c_int
    lib.opgen_test_int_arith.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)]
    big = 2**63 - 1
    numbers = [0, 1, -1, 2, -2, 7, -7, 32, -33, 4096, big, -big - 1, big // 2 + 1, -(2**32)]
    for op in _INT_ARITH:
        for a in numbers:
            for b in numbers:
                out = ctypes.c_int64()
                code = lib.opgen_test_int_arith(_INT_ARITH.index(op), a, b, out)
                expected = _python_arith(op, a, b) if op != "mod" else (a % b if b else "fallback")
                if expected == "fallback":
                    assert code == 5, (op, a, b)
                    continue
                assert (code, out.value) == (0, expected), (op, a, b)


@pytest.mark.parametrize("line, declared", [
    ("    q = x.shape[0] * 2 + len(parts)", "int64_t v_q = 0;"),
    ("    q = x.ndim > 1 and x.shape[0] != 3", "bool v_q = false;"),
    ("    q = 2 if x.ndim else 'a'", "V v_q;"),  # (an int or a str: checks.h's V)
    ("    q = x.ndim == 2 or 3", "V v_q;"),  # (Python's `or`: a bool or the int)
    ("    q = min(x.ndim, True)", "V v_q;"),  # (min's pick shows as the bool or the int it is)
    ("    q = 1.5 * x.ndim", "V v_q;"),
])
def test_a_local_is_typed_only_where_its_type_is_known(toy: tuple[Any, Any, Driver],
                                                       monkeypatch: pytest.MonkeyPatch, line: str,
                                                       declared: str) -> None:
    """A local every assignment of which is an int (or a bool) is a plain C++ int64_t (bool); any
    other (a str, a float, `or`'s pick, one of two types) stays a V."""
    op = toy[0]
    body = pygen.run_body(op)
    monkeypatch.setattr(pygen, "run_body", lambda _: [body[0], line, *body[1:]])
    source = drivergen_checks.driver_source(op, drivergen.runtime_plan(op))
    assert f"  {declared}\n" in source


def test_a_local_of_two_types_stays_a_v(toy: tuple[Any, Any, Driver], monkeypatch: pytest.MonkeyPatch) -> None:
    """A local assigned an int on one path and a str on another (or through another local) is a V."""
    op = toy[0]
    body = pygen.run_body(op)
    lines = ["    q = x.ndim", "    r = q + 1", "    if k == 2:", "        q = 'a'"]
    monkeypatch.setattr(pygen, "run_body", lambda _: [body[0], *lines, *body[1:]])
    source = drivergen_checks.driver_source(op, drivergen.runtime_plan(op))
    assert "  V v_q;\n" in source and "  V v_r;\n" in source


@pytest.mark.parametrize("line, why", [
    ("    y = _backend.empty(_shape_y, _dtype_T) if k == 2 else None", "an output made otherwise"),
    ("    q = sorted(x.shape)", "a call"),
    ("    q = x.shape[0] ** 2", "an expression form"),
    ("    del x", "a statement form"),
])
def test_a_form_the_printer_does_not_know_is_refused(toy: tuple[Any, Any, Driver], monkeypatch: pytest.MonkeyPatch,
                                                     line: str, why: str) -> None:
    """A statement pygen prints that has no C++ here stops the unit's printing, naming the op and the
    statement (never a driver that skips a check)."""
    op = toy[0]
    body = pygen.run_body(op)
    monkeypatch.setattr(pygen, "run_body", lambda _: [body[0], line, *body[1:]])
    with pytest.raises(drivergen_checks.DriverError, match=rf"^Toy: no native form for .*\({why}.*\) in `"):
        drivergen_checks.driver_source(op, drivergen.runtime_plan(op))
