"""The generated drivers' front half (codegen/drivergen_checks.py) against the Python wrappers, on the
cpu backend: for every op with a launch plan, (1) each bad input derived from its spec (each tensor:
another dtype, another rank, each dim off by one, absent; each attr: every Python kind, values past
its bounds, a bad enum or string; input values past their bounds) gives the native driver's error
kind and message equal to the wrapper's exception type and message, and every good one passes both;
(2) for every parity case (scripts/gpu_parity.py) the plan's values and slots the driver hands the
plan's runtime equal what the wrapper passes to `_rt.run_plan`, and opgen_shapes_Op's outputs are
the wrapper's. The drivers are built once per module (one unit, cached on disk)."""

from __future__ import annotations

import inspect
import runpy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from native_driver_harness import CAPTURE, Driver, Result, decode_value, encode_python

from codegen import drivergen, drivergen_checks, drivergen_unit
from codegen.load import load_specs
from codegen.runtime import api, native_plan
from codegen.runtime.checks import dtype_name, kernel_ready
from codegen.runtime.cpu import CpuBackend, numpy_dtype
from codegen.runtime.scope import Scope
from codegen.vocab import load_activations
from codegen.warmup import generated_ops

PROJECT = Path(__file__).resolve().parent.parent
SPECS = {spec.name: spec for spec in load_specs(PROJECT / "specs")}
OPS = [op for op in generated_ops() if op.name in SPECS and drivergen_checks.has_driver(SPECS[op.name])]


class _Stop(Exception):
    """The wrapper reached its plan: every check has passed."""


@pytest.fixture(scope="module")
def driver() -> Driver:
    pairs = [(SPECS[op.name], op.module._PLAN) for op in OPS]
    source = drivergen_unit.translation_unit(pairs, load_activations(PROJECT / "specs"), CAPTURE)
    return Driver(native_plan.load(source, "drivers-test").lib)


@pytest.fixture(scope="module")
def parity() -> dict[str, Any]:
    return runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))


def _cases(parity: dict[str, Any]) -> list[tuple[Any, Any]]:
    """Every parity case (made before any hook: a builder may run an op to make its inputs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # GRUBlockCell's deprecation
        return list(parity["all_cases"](OPS))


def _named(op: Any, case: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The case's inputs and attrs by name, as `_compute` takes them; inputs kernel-ready (what a
    front-end hands the driver: C-contiguous, aligned, native byte order)."""
    bound = inspect.signature(op.function).bind(*case.args, **case.kwargs)
    bound.apply_defaults()
    spec = SPECS[op.name]
    inputs = {a.name: bound.arguments[a.name] for a in spec.inputs}
    for name, x in inputs.items():
        if isinstance(x, np.ndarray):
            inputs[name] = kernel_ready(op.name, name, x)
    return inputs, {a.name: bound.arguments[a.name] for a in spec.attrs}


class _Python:
    """The wrapper's `_compute` on the cpu backend, stopped at its plan: its outputs' (dtype, shape),
    the plan's values and buffers, or the exception it raised."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.empties: list[tuple[str, tuple[int, ...]]] = []
        self.seen: tuple[Any, ...] = ()
        self.value_checks: list[list[Any]] = []
        original = CpuBackend.empty
        check_values_on_device = api.check_values_on_device

        def on_device(backend: Any, op: str, arg: str, value: Any, *bounds: Any) -> None:
            self.value_checks.append([value.ctypes.data, arg, *bounds])
            check_values_on_device(backend, op, arg, value, *bounds)

        def empty(backend: Any, shape: Any, dtype: str) -> Any:
            out = original(backend, shape, dtype)
            self.empties.append((dtype, tuple(out.shape)))
            return out

        def run_plan(backend: Any, kernels: Any, plan: Any, values: Any, buffers: Any) -> None:
            self.seen = (plan, values, buffers)
            raise _Stop

        monkeypatch.setattr(CpuBackend, "empty", empty)
        monkeypatch.setenv("OPGEN_NATIVE", "0")  # the Python plan: what this hook captures
        monkeypatch.setattr(api, "run_plan", run_plan)
        monkeypatch.setattr(api, "check_values_on_device", on_device)

    def run(self, op: Any, inputs: dict[str, Any], attrs: dict[str, Any], scope: Scope) -> tuple[str | None, str]:
        self.empties, self.seen, self.value_checks = [], (), []
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                op.module._compute(scope, *inputs.values(), *attrs.values())
        except _Stop:
            return None, ""
        except Exception as e:  # noqa: BLE001 (its type is what the test compares)
            return type(e).__name__, str(e)
        raise AssertionError(f"{op.name}: the wrapper returned without running its plan")


def _slots(names: tuple[str, ...], described: list[tuple[int, Any]]) -> list[Any]:
    """Each slot as comparable data: absent (None), an input handed in (by name), an alias of an
    earlier slot (same data pointer), else a buffer made for the call (dtype, shape)."""
    seen: dict[int, str] = {}
    out: list[Any] = []
    for name, (ptr, what) in zip(names, described, strict=True):
        out.append(None if ptr == 0 else ("alias", seen[ptr]) if ptr in seen else what)
        if ptr:
            seen.setdefault(ptr, name)
    return out


def _python_plan(python: _Python, op: Any, inputs: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    plan, values, buffers = python.seen
    strings, _ = drivergen.plan_tables(plan)
    described: list[tuple[int, Any]] = []
    for name, b in zip(plan.slots, buffers, strict=True):
        if b is None:
            described.append((0, None))
        elif name in inputs and b is inputs[name]:
            described.append((b.ctypes.data, ("input", name)))
        else:
            described.append((b.ctypes.data, ("buffer", dtype_name(b), tuple(b.shape))))
    return [encode_python(v, strings) for v in values], _slots(plan.slots, described)


def _native_plan(result: Result, op: Any, inputs: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    assert result.capture is not None and result.capture["recorder"] == 1
    plan = op.module._PLAN
    described: list[tuple[int, Any]] = []
    for (ptr, count, _dtype, _items), name in zip(result.capture["slots"], plan.slots, strict=True):
        assert count == -1, f"{op.name}: slot {name}: a list slot"
        given = inputs.get(name)
        if isinstance(given, np.ndarray) and ptr == given.ctypes.data:
            described.append((ptr, ("input", name)))
        else:
            described.append((ptr, ("buffer", *result.allocations[ptr][1:]) if ptr else None))
    return [decode_value(v) for v in result.capture["values"]], _slots(plan.slots, described)


@pytest.mark.parametrize("device, scope", [(0, Scope("cpu")), (1, Scope("cpu", launch_plan="cuda"))],
                         ids=["cpu", "cuda-plan"])
def test_every_parity_case_hands_the_plan_what_the_wrapper_does(driver: Driver, parity: dict[str, Any],
                                                               monkeypatch: pytest.MonkeyPatch, device: int,
                                                               scope: Scope) -> None:
    """On the cpu, and on the cuda device against the cpu backend running the GPU's plan (its
    launch sizes are the cuda backend's; the driver's data pointers only reach the stand-in)."""
    cases = _cases(parity)
    python = _Python(monkeypatch)
    count = value_checks = 0
    for op, case in cases:
        assert case is not None, parity["missing_builder_message"](op)
        inputs, attrs = _named(op, case)
        kind, message = python.run(op, inputs, attrs, scope)
        assert kind is None, f"{op.name}: {message}"
        spec = SPECS[op.name]
        expected_outputs = python.empties[:len(spec.outputs)]
        shapes = driver.run(op.name, list(inputs.values()), list(attrs.values()), shapes_only=True, device=device)
        assert shapes.kind is None, f"{op.name}: {shapes.kind}: {shapes.message}"
        assert shapes.outputs == expected_outputs, op.name
        native = driver.run(op.name, list(inputs.values()), list(attrs.values()), device=device)
        assert native.kind is None, f"{op.name}: {native.kind}: {native.message}"
        assert native.outputs == expected_outputs, op.name
        py_values, py_slots = _python_plan(python, op, inputs)
        nat_values, nat_slots = _native_plan(native, op, inputs)
        assert nat_values == py_values, op.name
        assert nat_slots == py_slots, op.name
        # `values: {on_device: true}`: checked on the data on the cpu, handed to the plan's runtime on cuda
        handed = native.capture["value_checks"] if native.capture is not None else None
        assert handed == (python.value_checks if device else []), op.name
        count += 1
        value_checks += len(handed)
    assert count > len(OPS) and (value_checks > 0) == (device == 1)


_KINDS = ("abc", True, 1.5, 7, -1, 0, None, [1, 2], 1e-05, 2**40, float("nan"), "it's")


def _attr_variants(attr: Any) -> list[Any]:
    """Bad (and some good) values of one attr: every Python kind, its bounds' neighbours, each
    allowed value and one that is not."""
    out: list[Any] = list(_KINDS)
    for bound in (attr.minimum, attr.maximum):
        if isinstance(bound, (int, float)) and not isinstance(bound, bool):
            out += [bound, bound - 1, bound + 1, float(bound), bound - 0.5, bound + 0.5]
    out += [v for v in attr.allowed or ()] + ["bogus"]
    return out


def _resized(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    out = np.zeros(shape, x.dtype)
    if x.dtype.kind in "iu":
        out += 1  # (a lengths input in bounds where it can be)
    return out


def _input_variants(spec_input: Any, x: Any) -> list[Any]:
    """Bad inputs: absent, another dtype, another rank, each dim off by one, values past bounds."""
    if not isinstance(x, np.ndarray):
        return [None]
    out: list[Any] = [None]
    for dtype in ("float32", "float16", "float64", "int32", "int64", "uint8"):
        if dtype != dtype_name(x):
            out.append(x.astype(numpy_dtype(dtype)))
    out += [np.ascontiguousarray(x[None]), np.zeros((), x.dtype)]
    if x.ndim:
        out.append(np.zeros(x.shape[1:], x.dtype))
    for d in range(x.ndim):
        for step in (-1, 1):
            shape = list(x.shape)
            shape[d] += step
            if shape[d] >= 0:
                out.append(_resized(x, tuple(shape)))
    if (spec_input.values_min is not None or spec_input.values_max is not None) and x.size:
        for bad in (-1, 0, 10**6):
            y = x.copy()
            y.reshape(-1)[-1] = bad
            out.append(y)
    return out


def _same_outcome(python: _Python, driver: Driver, op: Any, inputs: dict[str, Any], attrs: dict[str, Any],
                  counts: dict[str, int], what: str) -> None:
    kind, message = python.run(op, inputs, attrs, Scope("cpu"))
    try:
        native = driver.run(op.name, list(inputs.values()), list(attrs.values()))
    except TypeError:  # a value the front-end cannot classify: it falls back to Python
        counts["unclassified"] += 1
        return
    # every variant here is one the driver models: falling back would hide a check it got wrong
    assert native.kind != "fallback", f"{op.name} {what}: fell back ({native.message}); Python: {kind}: {message}"
    assert (native.kind, native.message) == (kind, message), f"{op.name} {what}"
    counts["good" if kind is None else "bad"] += 1
    if kind is None:
        assert _native_plan(native, op, inputs) == _python_plan(python, op, inputs), f"{op.name} {what}"


def test_bad_inputs_give_the_wrappers_error_natively(driver: Driver, parity: dict[str, Any],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    first: dict[str, Any] = {}
    for op, case in _cases(parity):  # each op's smallest case
        size = sum(a.size for a in case.args if isinstance(a, np.ndarray))
        if op.name not in first or size < first[op.name][0]:
            first[op.name] = (size, op, case)
    python = _Python(monkeypatch)
    counts = {"good": 0, "bad": 0, "unclassified": 0}
    for _, op, case in first.values():
        spec = SPECS[op.name]
        inputs, attrs = _named(op, case)
        for arg in spec.inputs:
            for k, x in enumerate(_input_variants(arg, inputs[arg.name])):
                _same_outcome(python, driver, op, {**inputs, arg.name: x}, attrs, counts, f"{arg.name} variant {k}")
        for attr in spec.attrs:
            for v in _attr_variants(attr):
                _same_outcome(python, driver, op, inputs, {**attrs, attr.name: v}, counts, f"{attr.name}={v!r}")
    assert counts["bad"] > 20 * len(OPS) and counts["good"] > 2 * len(OPS), counts


def test_a_size_beyond_int64_falls_back_to_python(driver: Driver) -> None:
    """Python's ints are unbounded (the wrapper then fails in NumPy, in its own words): the driver
    hands such a call back instead of wrapping around. (A descriptor of that shape: no NumPy array
    can have it, and the checks read no data.)"""
    data = np.zeros(1, np.float32)

    class Huge:
        shape, ndim, dtype, ctypes, flags = (2**32, 2**32, 4), 3, data.dtype, data.ctypes, data.flags

    result = driver.run("LayerNorm", [Huge(), None, None], [1e-05], shapes_only=True)
    assert (result.kind, result.message) == ("fallback", "int64 overflow in 4294967296 * 4294967296")
